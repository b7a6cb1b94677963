/* KernelBench interop (lib/suite/kbexport.c): the fast path's imports rewritten to the inlined module,
 * the forms it leaves alone, and the KernelBench result files. */
#include "base/setup.h"

#include <math.h>

#include "kp_test.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/suite.h"
#include "suite/kbexport.h"

/* The kernel src becomes; *rewritten says whether it inlined. Caller frees. */
static char *exported(const char *src, int *rewritten)
{
	struct kp_buf out = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	KP_ASSERT_OK(kp__suite_kb_kernel(src, &out, rewritten, &err), &err);
	return kp_buf_detach(&out, NULL);
}

static void test_import_forms(void **state)
{
	static const struct {
		const char *line, *want;
	} forms[] = {
	    {"from kernelpro.fast import load_cuda\n", "\nload_cuda = _kp_fast.load_cuda\n"},
	    {"from kernelpro.fast import load_cuda as lc, ptr\n",
	     "\nlc = _kp_fast.load_cuda; ptr = _kp_fast.ptr\n"},
	    {"from kernelpro.fast import (load_cuda, stream)  # both\n",
	     "\nload_cuda = _kp_fast.load_cuda; stream = _kp_fast.stream\n"},
	    {"import kernelpro.fast as kf\n", "\nkf = _kp_fast\n"},
	    {"from kernelpro import fast\n", "\nfast = _kp_fast\n"},
	    {"from kernelpro import fast as f2\n", "\nf2 = _kp_fast\n"},
	    {"import kernelpro.fast\n", "kernelpro = _kp_types.SimpleNamespace(fast=_kp_fast)\n"},
	};
	for (size_t i = 0; i < KP_ARRAY_SIZE(forms); i++) {
		struct kp_buf src = KP_BUF_INIT;
		int rewritten;
		char *out;
		kp_buf_addf(&src, "import torch\n%s\nclass ModelNew(torch.nn.Module):\n    pass\n",
		            forms[i].line);
		out = exported(src.buf, &rewritten);
		assert_int_equal(rewritten, 1);
		if (!strstr(out, forms[i].want))
			fail_msg("form %zu: no '%s' in:\n%s", i, forms[i].want, out);
		/* The inlined module comes before the line that uses it, after the lines above it. */
		assert_true(strstr(out, "import torch\n") < strstr(out, "def _kp_inline_fast("));
		assert_true(strstr(out, "_kp_fast = _kp_inline_fast(") < strstr(out, "class ModelNew"));
		assert_non_null(strstr(out, "# ---- end of kernelpro.fast\n"));
		free(out);
		kp_buf_release(&src);
	}
}

static void test_left_alone(void **state)
{
	static const char *const as_is[] = {
	    "import torch\nclass ModelNew: pass\n",                /* no fast path at all */
	    "# kernelpro.fast would be faster\nx = 'kernelpro'\n", /* words, not imports */
	};
	static const char *const unknown[] = {
	    "import kernelpro\n",                                /* another module of kernelpro */
	    "from kernelpro.fast import *\n",                    /* a star import */
	    "from kernelpro.fast import (\n    load_cuda,\n)\n", /* an import over several lines */
	    "from kernelpro.fast import load_cuda; x = 1\n",     /* more after it on the line */
	};
	int rewritten;
	for (size_t i = 0; i < KP_ARRAY_SIZE(as_is); i++) {
		char *out = exported(as_is[i], &rewritten);
		assert_int_equal(rewritten, 0);
		assert_string_equal(out, as_is[i]);
		free(out);
	}
	for (size_t i = 0; i < KP_ARRAY_SIZE(unknown); i++) {
		char *out = exported(unknown[i], &rewritten);
		assert_int_equal(rewritten, 0);
		assert_non_null(strstr(out, "run it with PYTHONPATH=<kernelpro>/harness"));
		assert_non_null(strstr(out, unknown[i])); /* the kernel itself unchanged */
		free(out);
	}
	/* Indented only, in a file whose `from __future__` must come first: left alone, said so. */
	{
		char *out = exported(
		    "from __future__ import annotations\ndef f():\n    from kernelpro.fast import ptr\n",
		    &rewritten);
		assert_int_equal(rewritten, 0);
		assert_non_null(strstr(out, "PYTHONPATH"));
		free(out);
	}
	/* Indented only, no __future__: the module goes at the top, the import becomes an assignment. */
	{
		char *out =
		    exported("def f():\n    from kernelpro.fast import ptr\n    return ptr\n", &rewritten);
		assert_int_equal(rewritten, 1);
		assert_true(strstr(out, "# ---- kernelpro.fast") == out);
		assert_non_null(strstr(out, "def f():\n    ptr = _kp_fast.ptr\n    return ptr\n"));
		free(out);
	}
}

/* The literals hold the fast path's texts exactly: backslashes and quotes escaped, nothing else. */
static void test_literal_escapes(void **state)
{
	int rewritten;
	char *out = exported("from kernelpro.fast import load_cuda\n", &rewritten);
	assert_int_equal(rewritten, 1);
	assert_non_null(strstr(out, "kernelpro\\'s C side")); /* build.py's docstring: an escaped quote */
	assert_null(strstr(out, "\nfrom . import build as _build\n")); /* only in the comment */
	assert_non_null(
	    strstr(out, "_build = __kp_build__  # inlined; was: from . import build as _build\n"));
	free(out);
}

static void test_eval_results(void **state)
{
	struct kp_suite s;
	struct kp_suite_task t;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf p = KP_BUF_INIT;
	char *dir = kp_test_tmpdir();
	json_t *ev, *base;

	kp_suite_init(&s, "kb");
	kp_suite_task_init(&t);
	t.name = kp_xstrdup("2_A");
	t.problem_file = kp_xstrdup("2_A.py");
	t.level = 1, t.problem_id = 2, t.state = KP_SUITE_FINISHED, t.correct = 1, t.best_node = 3;
	t.best_ms = 1.0, t.best_mean_ms = 1.1, t.base_ms[KP_SUITE_EAGER] = 2.0,
	t.base_mean_ms[KP_SUITE_EAGER] = 2.2;
	kp_suite_add(&s, &t);
	kp_suite_task_init(&t);
	t.name = kp_xstrdup("4_B");
	t.problem_file = kp_xstrdup("4_B.py");
	t.level = 1, t.problem_id = 4, t.state = KP_SUITE_FINISHED, t.failure_node = 2;
	t.failure_outcome = kp_xstrdup("compile_error");
	t.failure_message = kp_xstrdup("error: x");
	t.base_ms[KP_SUITE_EAGER] = 3.0; /* no mean: the median, said so */
	kp_suite_add(&s, &t);
	KP_ASSERT_OK(kp_suite_compute(&s, &err), &err);
	KP_ASSERT_OK(kp_suite_write_kernelbench(&s, dir, &err), &err);
	kp_path_join(&p, dir, "kernelbench/level1/eval_results.json");
	KP_ASSERT_OK(kp_json_load_file(p.buf, 1 << 20, &ev, &err), &err);
	kp_buf_reset(&p);
	kp_path_join(&p, dir, "kernelbench/baseline_time_torch.json");
	KP_ASSERT_OK(kp_json_load_file(p.buf, 1 << 20, &base, &err), &err);
	{
		const json_t *a = json_array_get(json_object_get(ev, "2"), 0),
		             *b = json_array_get(json_object_get(ev, "4"), 0);
		assert_true(json_is_true(json_object_get(a, "correctness")));
		assert_true(kp_json_num(a, "runtime", 0) == 1.1); /* the mean, as KernelBench times */
		assert_true(json_is_false(json_object_get(b, "compiled")));
		assert_true(kp_json_num(b, "runtime", 0) == -1.0);
		assert_string_equal(
		    kp_json_str(json_object_get(json_object_get(b, "metadata"), "kernelpro"), "message", ""),
		    "error: x");
		assert_true(kp_json_num(json_object_get(json_object_get(base, "level1"), "2_A.py"), "mean",
		                        0) == 2.2);
		assert_true(kp_json_num(json_object_get(json_object_get(base, "level1"), "4_B.py"), "mean",
		                        0) == 3.0);
		assert_string_equal(
		    kp_json_str(json_object_get(json_object_get(base, "level1"), "4_B.py"), "statistic", ""),
		    "median");
	}
	json_decref(ev);
	json_decref(base);
	kp_suite_release(&s);
	kp_test_tmpdir_remove(dir);
	kp_buf_release(&p);
}

int main(void)
{
	/* The fast path's files, from the checkout (tests run from its root; a sanitizer build lives deeper). */
	setenv("KERNELPRO_HOME", getenv("KP_ROOT") ? getenv("KP_ROOT") : ".", 1);
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_import_forms),
	    cmocka_unit_test(test_left_alone),
	    cmocka_unit_test(test_literal_escapes),
	    cmocka_unit_test(test_eval_results),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
