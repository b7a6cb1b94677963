/*
 * Unit tests: Triton tasks and candidates without a GPU. The task kind (recognized, hints), the
 * formats a kind takes, the host code of a Triton candidate, the honest Triton examples passing
 * every static check, the prompt's worked example being the evaluated example, and the triton
 * format's extraction on recorded replies. (The Triton hacks are in tests/adversarial/triton, run
 * by t_eval_static's corpus test.)
 */
#include "base/setup.h"

#include <math.h>

#include "eval/srcscan.h"
#include "eval/static_triton.h"
#include "kp_test.h"
#include "kernelpro/eval.h"
#include "kernelpro/fs.h"
#include "kernelpro/programmer.h"
#include "kernelpro/str.h"
#include "kernelpro/task.h"
#include "kernelpro/task_kind.h"

static void load(struct kp_task *t, const char *rel)
{
	struct kp_error err = KP_ERROR_INIT;
	kp_task_init(t);
	KP_ASSERT_OK(kp_task_load(t, kp_test_path(rel), &err), &err);
}

static void test_task_kind(void **state)
{
	struct kp_task t;
	load(&t, "examples/triton/softmax.py");
	assert_int_equal(t.kind, KP_TASK_TRITON);
	assert_string_equal(kp_task_kind_name(t.kind), "triton");
	assert_true(t.min_bytes == 2.0 * 8192 * 8192 * 4);
	assert_true(isnan(t.flops));
	assert_string_equal(kp_task_kind_info(t.kind)->format, "triton");
	assert_true(kp_task_kind_info(t.kind)->python);
	kp_task_release(&t);
	load(&t, "examples/triton/linear_relu.py"); /* a PyTorch reference stays a KernelBench task */
	assert_int_equal(t.kind, KP_TASK_KERNELBENCH);
	assert_true(isnan(t.min_bytes));
	kp_task_release(&t);
}

static void write_task(const char *dir, const char *body, struct kp_buf *path)
{
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf src = KP_BUF_INIT;
	kp_buf_reset(path);
	kp_path_join(path, dir, "t.py");
	kp_buf_addf(&src,
		    "import torch\nimport triton\nimport triton.language as tl\n%s\n@triton.jit\ndef k(x):\n    pass\n"
		    "class Model(torch.nn.Module):\n    pass\ndef get_inputs():\n    return []\n"
		    "def get_init_inputs():\n    return []\n",
		    body);
	KP_ASSERT_OK(kp_write_file_atomic(path->buf, src.buf, src.len, &err), &err);
	kp_buf_release(&src);
}

static void test_task_hints(void **state)
{
	char *dir = kp_test_tmpdir();
	struct kp_buf path = KP_BUF_INIT;
	struct kp_task t;
	struct kp_error err = KP_ERROR_INIT;

	write_task(dir, "KERNELPRO_FLOPS = 2 * 4_096 * 1024  # the products\nKERNELPRO_MIN_BYTES=12", &path);
	kp_task_init(&t);
	KP_ASSERT_OK(kp_task_load(&t, path.buf, &err), &err);
	assert_int_equal(t.kind, KP_TASK_TRITON);
	assert_true(t.flops == 2.0 * 4096 * 1024);
	assert_true(t.min_bytes == 12);
	kp_task_release(&t);
	static const char *const bad[] = {"KERNELPRO_FLOPS = 2 ** 30", "KERNELPRO_FLOPS = N * 2", "KERNELPRO_MIN_BYTES = 1.5",
					  "KERNELPRO_FLOPS ="};
	for (size_t i = 0; i < KP_ARRAY_SIZE(bad); i++) {
		write_task(dir, bad[i], &path);
		kp_error_clear(&err);
		if (kp_task_load(&t, path.buf, &err) != KP_EPARSE)
			fail_msg("accepted: %s", bad[i]);
		assert_non_null(strstr(kp_error_msg(&err), "product of integers"));
	}
	kp_buf_release(&path);
	kp_test_tmpdir_remove(dir);
}

static void test_has_triton(void **state)
{
	static const struct {
		const char *src;
		int want;
	} cases[] = {
		{"import triton\n@triton.jit\ndef k(x):\n    pass\n", 1},
		{"import triton\n\n@triton.autotune(configs=[], key=[])\n@triton.jit\ndef k(x): pass\n", 1},
		{"from triton import jit\n@jit\ndef k(x): pass\n", 1},
		{"import triton\nk = triton.jit(f)\n", 1},
		{"import triton\n# @triton.jit\ndef k(x): pass\n", 0},          /* a comment */
		{"import triton\n\"\"\"\n@triton.jit\n\"\"\"\n", 0},          /* a docstring */
		{"@triton.jit\ndef k(x): pass\n", 0},                          /* no import: not runnable */
		{"import torch\nSRC = '__global__ void k() {}'\n", 0},
		{"import triton\n@triton.jitter\ndef k(x): pass\n", 0},
	};
	for (size_t i = 0; i < KP_ARRAY_SIZE(cases); i++)
		if (kp_py_has_triton(cases[i].src, strlen(cases[i].src)) != cases[i].want)
			fail_msg("case %zu: want %d for:\n%s", i, cases[i].want, cases[i].src);
}

static void test_formats(void **state)
{
	const struct kp_task_kind_info *kb = kp_task_kind_info(KP_TASK_KERNELBENCH),
				       *nat = kp_task_kind_info(KP_TASK_NATIVE), *tr = kp_task_kind_info(KP_TASK_TRITON);
	assert_string_equal(kp_task_kind_format_for(kb, "cuda"), "torch");
	assert_string_equal(kp_task_kind_format_for(kb, "triton"), "triton");
	assert_string_equal(kp_task_kind_format_for(kb, "torch"), "torch");
	assert_string_equal(kp_task_kind_format_for(nat, "cuda"), "cuda");
	assert_null(kp_task_kind_format_for(nat, "triton"));
	assert_null(kp_task_kind_format_for(nat, "torch"));
	assert_string_equal(kp_task_kind_format_for(tr, "cuda"), "torch");
	assert_string_equal(kp_task_kind_format_for(tr, "triton"), "triton");
	assert_null(kp_task_kind_format_for(kb, "rust"));
	assert_string_equal(kp_cand_format_language("torch"), "cuda");
	assert_string_equal(kp_cand_format_language("cuda"), "cuda");
	assert_string_equal(kp_cand_format_language("triton"), "triton");
	assert_null(kp_cand_format_language("x"));
	/* every format a kind names is one the programmer has */
	for (int k = KP_TASK_KERNELBENCH; k <= KP_TASK_TRITON; k++) {
		enum kp_cand_format f;
		for (size_t i = 0; kp_task_kind_info((enum kp_task_kind)k)->formats[i]; i++)
			assert_int_equal(kp_cand_format_parse(kp_task_kind_info((enum kp_task_kind)k)->formats[i], &f), 0);
	}
}

static void test_host_code(void **state)
{
	const char *src = "import triton\n"
			  "@triton.autotune(configs=[\n"
			  "    triton.Config({'B': 1})], key=['n'])\n"
			  "@triton.jit\n"
			  "def k(x_ptr,\n"
			  "      n, B: tl.constexpr):\n"
			  "    v = tl.sum(tl.load(x_ptr))\n"
			  "\n"
			  "    tl.store(x_ptr, tl.exp(v))\n"
			  "def host(x):\n"
			  "    return torch.exp(x)\n"
			  "@triton.jit\n"
			  "def one(x): return tl.max(x)\n"
			  "y = torch.sum(x)\n";
	struct kp_pysrc p;
	struct kp_buf host = KP_BUF_INIT;
	kp_pysrc_parse(&p, src, strlen(src));
	kp__static_triton_host_code(p.code.buf, &host);
	assert_int_equal(host.len, p.code.len);
	assert_null(strstr(host.buf, "tl.sum"));
	assert_null(strstr(host.buf, "tl.exp"));
	assert_null(strstr(host.buf, "tl.max"));
	assert_non_null(strstr(host.buf, "def k(x_ptr,"));
	assert_non_null(strstr(host.buf, "return torch.exp(x)"));
	assert_non_null(strstr(host.buf, "y = torch.sum(x)"));
	assert_int_equal(kp_src_line_of(host.buf, (size_t)(strstr(host.buf, "y = torch") - host.buf)), 14);
	kp_buf_release(&host);
	kp_pysrc_release(&p);
}

/* The static checks on `rel` for `task`: the refusing checks and every flag, space-separated. */
static void static_flags(const char *task_rel, const char *rel, struct kp_buf *refused, struct kp_buf *flags)
{
	struct kp_task t;
	struct kp_buf src = KP_BUF_INIT;
	struct kp_verdict v;
	struct kp_eval_opts o;

	load(&t, task_rel);
	kp_test_read(rel, &src);
	kp_eval_opts_init(&o);
	kp_verdict_init(&v);
	assert_int_equal(kp_eval_static(&t, src.buf, src.len, &o, &v, NULL), 0);
	kp_buf_reset(refused);
	kp_buf_reset(flags);
	for (size_t i = 0; i < v.nflags; i++) {
		kp_buf_addf(flags, "%s ", v.flags[i].check);
		if (v.flags[i].severity == KP_SEV_REFUSE)
			kp_buf_addf(refused, "%s: %s\n", v.flags[i].check, v.flags[i].message);
	}
	kp_verdict_release(&v);
	kp_buf_release(&src);
	kp_task_release(&t);
}

static void test_honest_examples(void **state)
{
	static const struct {
		const char *task, *cand;
	} ok[] = {
		{"examples/kernelbench/swish_scale.py", "examples/triton/swish_scale_triton.py"},
		{"examples/optimize/rmsnorm/rmsnorm.py", "examples/triton/rmsnorm_triton.py"},
		{"examples/triton/linear_relu.py", "examples/triton/linear_relu_triton.py"},
		{"examples/triton/linear_relu.py", "examples/triton/linear_relu_tunable.py"},
		{"examples/triton/softmax.py", "examples/triton/softmax_triton.py"},
		{"examples/triton/softmax.py", "examples/triton/softmax_cuda.py"},
		{"examples/optimize/rmsnorm/rmsnorm.py", "examples/triton/optimize/rmsnorm/replies/003-warps.md"},
	};
	struct kp_buf refused = KP_BUF_INIT, flags = KP_BUF_INIT;
	for (size_t i = 0; i < KP_ARRAY_SIZE(ok); i++) {
		static_flags(ok[i].task, ok[i].cand, &refused, &flags);
		if (refused.len || strstr(flags.buf, "host_compute") || strstr(flags.buf, "precision"))
			fail_msg("%s: flagged [%s]:\n%s", ok[i].cand, flags.buf, refused.buf);
	}
	/* The Triton reference's own tl.* calls are not PyTorch ops a candidate could share. */
	static_flags("examples/triton/softmax.py", "examples/triton/softmax_triton.py", &refused, &flags);
	assert_null(strstr(flags.buf, "torch_ops"));
	kp_buf_release(&refused);
	kp_buf_release(&flags);
}

/* The worked example every Triton prompt shows is the example g1601 evaluates on a GPU. */
static void test_prompt_example_is_evaluated(void **state)
{
	struct kp_buf prompt = KP_BUF_INIT, file = KP_BUF_INIT;
	const char *code, *end, *body;
	kp_test_read("prompts/format-triton.txt", &prompt);
	kp_test_read("examples/triton/linear_relu_triton.py", &file);
	code = strstr(prompt.buf, "```python\n");
	assert_non_null(code);
	code += 10;
	end = strstr(code, "```");
	assert_non_null(end);
	body = strstr(file.buf, "\nimport torch\n");
	assert_non_null(body);
	body++;
	assert_int_equal(strlen(body), (size_t)(end - code));
	assert_int_equal(memcmp(body, code, (size_t)(end - code)), 0);
	kp_buf_release(&prompt);
	kp_buf_release(&file);
}

/* Recorded replies through the triton format's extraction. */
static void test_extract(void **state)
{
	struct kp_buf reply = KP_BUF_INIT, code = KP_BUF_INIT;
	char reason[512];
	const char *cuda_reply = "Here:\n```python\nfrom kernelpro.fast import load_cuda\nclass ModelNew(nn.Module):\n"
				 "    pass\n```\n";

	kp_test_read("examples/triton/optimize/rmsnorm/replies/002-repair.md", &reply);
	assert_int_equal(kp_prog_extract(reply.buf, reply.len, KP_CAND_TRITON, NULL, 0, &code, reason, sizeof(reason)), 0);
	assert_non_null(strstr(code.buf, "@triton.jit"));
	assert_non_null(strstr(code.buf, "class ModelNew"));
	kp_buf_reset(&code);
	assert_int_equal(kp_prog_extract(cuda_reply, strlen(cuda_reply), KP_CAND_TRITON, NULL, 0, &code, reason,
					 sizeof(reason)),
			 KP_ELLM);
	assert_non_null(strstr(reason, "no @triton.jit kernel"));
	/* the same reply is fine as a CUDA (torch format) candidate */
	assert_int_equal(kp_prog_extract(cuda_reply, strlen(cuda_reply), KP_CAND_TORCH, NULL, 0, &code, reason,
					 sizeof(reason)),
			 0);
	assert_string_equal(kp_cand_format_name(KP_CAND_TRITON), "triton");
	assert_string_equal(kp_cand_format_kernels(KP_CAND_TRITON), "Triton");
	assert_string_equal(kp_cand_format_kernels(KP_CAND_TORCH), "CUDA");
	kp_buf_release(&reply);
	kp_buf_release(&code);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_task_kind),     cmocka_unit_test(test_task_hints),
		cmocka_unit_test(test_has_triton),    cmocka_unit_test(test_formats),
		cmocka_unit_test(test_host_code),     cmocka_unit_test(test_honest_examples),
		cmocka_unit_test(test_prompt_example_is_evaluated), cmocka_unit_test(test_extract),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
