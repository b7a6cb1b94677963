/* Unit tests: KernelBench's eval_results.json in its three layouts (golden), malformed files refused
 * with their entry named (golden messages), kernel file names, and pairing kernels with tasks (folders,
 * list files, the best sample, what is refused and that a refusal adds nothing). */
#include "base/setup.h"

#include <math.h>

#include "kp_test.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/recorded.h"
#include "kernelpro/rejudge.h"

/* The parsed set as one JSON document: layout and entries. */
static char *dump_set(const struct kp_recorded_set *s)
{
	json_t *o = json_object(), *a = json_array();
	struct kp_buf b = KP_BUF_INIT;
	for (size_t i = 0; i < s->n; i++)
		json_array_append_new(a, kp_recorded_to_json(&s->v[i]));
	kp_json_set(o, "layout", json_string(s->layout));
	kp_json_set(o, "entries", a);
	kp_json_dump_buf(o, &b, 0);
	json_decref(o);
	kp_buf_adds(&b, "\n");
	return kp_buf_detach(&b, NULL);
}

static void golden_layout(const char *in, const char *out, int level, const char *layout)
{
	struct kp_recorded_set s;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf text = KP_BUF_INIT;
	char *got;

	kp_recorded_set_init(&s);
	kp_test_read(in, &text);
	KP_ASSERT_OK(kp_recorded_parse(&s, text.buf, text.len, level, in, &err), &err);
	assert_string_equal(s.layout, layout);
	got = dump_set(&s);
	kp_test_golden(out, got);
	free(got);
	kp_recorded_set_release(&s);
	kp_buf_release(&text);
}

static void test_layouts(void **state)
{
	golden_layout("tests/golden/rejudge/kernelbench.json", "tests/golden/rejudge/kernelbench.out.json", 1,
	              "kernelbench");
	golden_layout("tests/golden/rejudge/kernelbench-v0.json",
	              "tests/golden/rejudge/kernelbench-v0.out.json", 0, "kernelbench-v0");
	golden_layout("tests/golden/rejudge/list.json", "tests/golden/rejudge/list.out.json", 0, "list");
}

static void test_outcomes_and_find(void **state)
{
	struct kp_recorded_set s;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf text = KP_BUF_INIT;
	const struct kp_recorded *r;

	kp_recorded_set_init(&s);
	kp_test_read("tests/golden/rejudge/kernelbench.json", &text);
	KP_ASSERT_OK(kp_recorded_parse(&s, text.buf, text.len, 0, "t", &err), &err);
	assert_int_equal(s.n, 4);
	assert_non_null(r = kp_recorded_find(&s, 1, 2, 0, 0));
	assert_string_equal(kp_recorded_outcome(r), "correct");
	assert_true(fabs(r->runtime_ms - 3.07) < 1e-12);
	assert_true(isnan(r->ref_ms));
	assert_string_equal(kp_recorded_outcome(kp_recorded_find(&s, 1, 2, 0, 1)), "wrong_output");
	assert_string_equal(kp_recorded_outcome(kp_recorded_find(&s, 1, 4, 0, 0)), "compile_error");
	assert_string_equal(kp_recorded_outcome(kp_recorded_find(&s, 1, 10, 0, 3)), "runtime_error");
	assert_null(kp_recorded_find(&s, 1, 10, 0, 0));
	assert_null(kp_recorded_find(&s, 1, 10, 1, 3));                   /* another epoch's sample 3 */
	assert_true(isnan(kp_recorded_find(&s, 1, 2, 0, 1)->runtime_ms)); /* -1: not timed */
	kp_recorded_set_release(&s);
	kp_buf_release(&text);
}

/* Each malformed file and the message it gets; the messages are golden (they are what a user reads). */
static void test_malformed(void **state)
{
	static const char *const bad[] = {
	    "",
	    "{\"2\": [",
	    "42",
	    "\"eval\"",
	    "{\"two\": []}",
	    "{\"0\": []}",
	    "{\"2\": 7}",
	    "{\"2\": [7]}",
	    "{\"2\": [{\"sample_id\": 0, \"compiled\": 1, \"correctness\": true}]}",
	    "{\"2\": [{\"sample_id\": 0, \"compiled\": true}]}",
	    "{\"2\": [{\"sample_id\": -1, \"compiled\": true, \"correctness\": true}]}",
	    "{\"2\": [{\"sample_id\": 0.5, \"compiled\": true, \"correctness\": true}]}",
	    "{\"2\": [{\"sample_id\": 0, \"compiled\": true, \"correctness\": true, \"runtime\": \"fast\"}]}",
	    "{\"2\": [{\"sample_id\": 0, \"compiled\": true, \"correctness\": true, \"runtime\": -3}]}",
	    "{\"2\": [{\"sample_id\": 0, \"compiled\": true, \"correctness\": true, \"metadata\": []}]}",
	    "{\"2\": [{\"sample_id\": 0, \"compiled\": true, \"correctness\": true},"
	    " {\"sample_id\": 0, \"compiled\": true, \"correctness\": false}]}",
	    "{\"2\": {\"compiled\": true, \"correctness\": true}, \"3\": []}",
	    "{\"2\": [{\"sample_id\": 0, \"compiled\": true, \"correctness\": true, \"runtime\": NaN}]}",
	    "[{\"compiled\": true, \"correctness\": true}]",
	    "[{\"evaluation_id\": \"level_1_problem_x_sample_0\", \"compiled\": true, \"correctness\": "
	    "true}]",
	    "[{\"evaluation_id\": \"level_1_problem_0_sample_0\", \"compiled\": true, \"correctness\": "
	    "true}]",
	    "[{\"evaluation_id\": \"level_1_problem_3_sample_0_kernel\", \"compiled\": true, "
	    "\"correctness\": true}]",
	    "[{\"evaluation_id\": \"level_1_problem_3_epoch_x_sample_0\", \"compiled\": true, "
	    "\"correctness\": true}]",
	    "[{\"evaluation_id\": \"level_1_problem_2_epoch_0_sample_1\", \"compiled\": true, "
	    "\"correctness\": true},"
	    " {\"evaluation_id\": \"level_1_problem_2_epoch_0_sample_1\", \"compiled\": true, "
	    "\"correctness\": false}]",
	    "[3]",
	    NULL,
	};
	struct kp_buf out = KP_BUF_INIT;
	for (int i = 0; bad[i]; i++) {
		struct kp_recorded_set s;
		struct kp_error err = KP_ERROR_INIT;
		kp_recorded_set_init(&s);
		assert_int_equal(kp_recorded_parse(&s, bad[i], strlen(bad[i]), 1, "eval_results.json", &err),
		                 KP_EPARSE);
		assert_int_equal(s.n, 0); /* nothing half-read is kept */
		assert_non_null(strstr(err.msg, "eval_results.json"));
		kp_buf_addf(&out, "%s\n  -> %s\n", bad[i], err.msg);
		kp_recorded_set_release(&s);
	}
	kp_test_golden("tests/golden/rejudge/malformed.txt", out.buf);
	kp_buf_release(&out);
}

/* KernelBench's reference times (baseline_time_torch.json): our own file in its layout, then each
 * malformed form and its message (golden: what a user reads). */
static void test_refs(void **state)
{
	static const char *const bad[] = {
	    "",
	    "[]",
	    "{\"lvl1\": {}}",
	    "{\"level0\": {}}",
	    "{\"level1\": []}",
	    "{\"level1\": {\"ReLU.py\": {\"mean\": 1}}}",
	    "{\"level1\": {\"19_ReLU\": {\"mean\": 1}}}",
	    "{\"level1\": {\"0_ReLU.py\": {\"mean\": 1}}}",
	    "{\"level1\": {\"19_ReLU.py\": 1.5}}",
	    "{\"level1\": {\"19_ReLU.py\": {\"std\": 1}}}",
	    "{\"level1\": {\"19_ReLU.py\": {\"mean\": 0}}}",
	    "{\"level1\": {\"19_ReLU.py\": {\"mean\": -1}}}",
	    "{\"level1\": {\"19_ReLU.py\": {\"mean\": \"fast\"}}}",
	    "{\"level1\": {\"19_ReLU.py\": {\"mean\": 1, \"hardware\": 7}}}",
	    "{\"level1\": {\"19_ReLU.py\": {\"mean\": 1}, \"19_Other.py\": {\"mean\": 2}}}",
	    NULL,
	};
	struct kp_recorded_refs r;
	struct kp_buf text = KP_BUF_INIT, out = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;

	(void)state;
	kp_recorded_refs_init(&r);
	kp_test_read("tests/golden/rejudge/baseline_time_torch.json", &text);
	assert_int_equal(kp_recorded_refs_parse(&r, text.buf, text.len, "base.json", &err), 0);
	assert_int_equal(r.n, 3);
	assert_float_equal(kp_recorded_ref_ms(&r, 1, 2), 2.61, 1e-12);
	assert_float_equal(kp_recorded_ref_ms(&r, 1, 19), 0.0143, 1e-12);
	assert_float_equal(kp_recorded_ref_ms(&r, 2, 4), 0.0771, 1e-12);
	assert_true(isnan(kp_recorded_ref_ms(&r, 2, 19)));
	assert_true(isnan(kp_recorded_ref_ms(NULL, 1, 2)));
	for (size_t i = 0; i < r.n; i++)
		if (r.v[i].problem_id == 4)
			assert_null(r.v[i].hardware);
		else
			assert_string_equal(r.v[i].hardware, "NVIDIA H100 80GB HBM3");
	for (int i = 0; bad[i]; i++) {
		kp_error_clear(&err);
		assert_int_equal(kp_recorded_refs_parse(&r, bad[i], strlen(bad[i]), "base.json", &err), KP_EPARSE);
		assert_int_equal(r.n, 0); /* nothing half-read is kept */
		kp_buf_addf(&out, "%s\n  -> %s\n", bad[i], err.msg);
	}
	kp_test_golden("tests/golden/rejudge/refs-malformed.txt", out.buf);
	kp_recorded_refs_release(&r);
	kp_buf_release(&text);
	kp_buf_release(&out);
}

static void test_names(void **state)
{
	int l, p, e, s;
	assert_int_equal(kp_rejudge_parse_name("run/level_1_problem_3_sample_0_kernel.py", &l, &p, &e, &s),
	                 0);
	assert_true(l == 1 && p == 3 && s == 0);
	assert_int_equal(kp_rejudge_parse_name("level_2_problem_100_solution_12_kernel.py", &l, &p, &e, &s),
	                 0);
	assert_true(l == 2 && p == 100 && e == 0 && s == 12);
	assert_int_equal(
	    kp_rejudge_parse_name("level_1_problem_2_epoch_3_sample_4_kernel.py", &l, &p, &e, &s), 0);
	assert_true(l == 1 && p == 2 && e == 3 && s == 4);
	assert_int_equal(kp_rejudge_parse_name("level_1_problem_2_epoch_3_kernel.py", &l, &p, &e, &s), -1);
	assert_int_equal(kp_rejudge_parse_name("level_1_problem_3_sample_0_response.txt", &l, &p, &e, &s),
	                 -1);
	assert_int_equal(kp_rejudge_parse_name("level_1_problem_3_sample_0_kernel.py.bak", &l, &p, &e, &s),
	                 -1);
	assert_int_equal(kp_rejudge_parse_name("level_0_problem_3_sample_0_kernel.py", &l, &p, &e, &s), -1);
	assert_int_equal(kp_rejudge_parse_name("level_1_problem__sample_0_kernel.py", &l, &p, &e, &s), -1);
	assert_int_equal(
	    kp_rejudge_parse_name("level_1_problem_99999999999_sample_0_kernel.py", &l, &p, &e, &s), -1);
	assert_int_equal(kp_rejudge_parse_name("3_Swish.py", &l, &p, &e, &s), -1);
}

/* ---- pairing on a small run directory --------------------------------------------------------------- */

static void put(const char *dir, const char *name, const char *text)
{
	struct kp_buf p = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	kp_path_join(&p, dir, name);
	KP_ASSERT_OK(kp_write_file_atomic(p.buf, text, strlen(text), &err), &err);
	kp_buf_release(&p);
}

static char *make_tree(void)
{
	char *d = kp_test_tmpdir();
	struct kp_buf p = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	kp_path_join(&p, d, "KernelBench/level1");
	KP_ASSERT_OK(kp_mkdir_p(p.buf, 0755, &err), &err);
	put(p.buf, "2_Two.py", "# task 2\n");
	put(p.buf, "4_Four.py", "# task 4\n");
	put(p.buf, "40_Forty.py", "# task 40\n");
	kp_buf_reset(&p);
	kp_path_join(&p, d, "run");
	KP_ASSERT_OK(kp_mkdir_p(p.buf, 0755, &err), &err);
	put(p.buf, "level_1_problem_2_sample_0_kernel.py", "# k 2.0\n");
	put(p.buf, "level_1_problem_2_sample_1_kernel.py", "# k 2.1\n");
	put(p.buf, "level_1_problem_4_sample_0_kernel.py", "# k 4.0\n");
	put(p.buf, "level_1_problem_4_sample_0_response.txt", "not a kernel\n");
	put(p.buf, "level_1_problem_40_sample_0_kernel.py", "# k 40.0\n");
	put(p.buf, "eval_results.json",
	    "{\"2\": [{\"sample_id\": 0, \"compiled\": true, \"correctness\": true, \"runtime\": 2.0},"
	    "        {\"sample_id\": 1, \"compiled\": true, \"correctness\": true, \"runtime\": 1.5}],"
	    " \"4\": [{\"sample_id\": 0, \"compiled\": false, \"correctness\": false, \"runtime\": -1,"
	    "        \"metadata\": {\"compilation_error\": \"boom\"}}]}");
	kp_buf_release(&p);
	return d;
}

static void test_pairing(void **state)
{
	char *d = make_tree();
	struct kp_buf run = KP_BUF_INIT, tasks = KP_BUF_INIT;
	struct kp_bench_list l;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_rejudge_opts o = {0};

	kp_path_join(&run, d, "run");
	kp_path_join(&tasks, d, "KernelBench");
	o.tasks = tasks.buf;
	kp_bench_list_init(&l);
	KP_ASSERT_OK(kp_rejudge_add_source(&l, run.buf, &o, &err), &err);
	assert_int_equal(l.n, 4);
	assert_string_equal(l.v[0].set.name, "level_1_problem_2_sample_0");
	assert_string_equal(l.v[1].set.name, "level_1_problem_2_sample_1");
	assert_string_equal(l.v[2].set.name, "level_1_problem_4_sample_0");
	assert_string_equal(l.v[3].set.name, "level_1_problem_40_sample_0"); /* numeric order, 4 before 40 */
	assert_non_null(strstr(l.v[0].path, "/KernelBench/level1/2_Two.py"));
	assert_non_null(strstr(l.v[3].path, "/KernelBench/level1/40_Forty.py"));
	assert_string_equal(l.v[1].set.kernel_source, "# k 2.1\n");
	assert_non_null(strstr(l.v[2].set.recorded, "\"error_kind\":\"compilation_error\""));
	assert_null(l.v[3].set.recorded); /* problem 40 was not recorded */
	kp_bench_list_release(&l);

	/* --samples best: problem 2's faster correct sample; the level folder itself as --tasks. */
	kp_buf_addf(&tasks, "/level1");
	o.tasks = tasks.buf;
	o.samples = KP_REJUDGE_BEST;
	kp_bench_list_init(&l);
	KP_ASSERT_OK(kp_rejudge_add_source(&l, run.buf, &o, &err), &err);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.v[0].set.name, "level_1_problem_2_sample_1");
	kp_bench_list_release(&l);
	kp_buf_release(&run);
	kp_buf_release(&tasks);
	kp_test_tmpdir_remove(d);
}

static void test_refusals_add_nothing(void **state)
{
	char *d = make_tree();
	struct kp_buf run = KP_BUF_INIT, tasks = KP_BUF_INIT, p = KP_BUF_INIT;
	struct kp_bench_list l;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_rejudge_opts o = {0};

	kp_path_join(&run, d, "run");
	kp_path_join(&tasks, d, "KernelBench");
	o.tasks = tasks.buf;
	kp_bench_list_init(&l);
	kp_bench_list_push(&l, "/elsewhere/task.py", NULL);

	/* A malformed eval_results.json: KP_EPARSE naming the file and the entry; the list as it was. */
	put(run.buf, "eval_results.json",
	    "{\"2\": [{\"sample_id\": 0, \"compiled\": \"yes\", \"correctness\": true}]}");
	assert_int_equal(kp_rejudge_add_source(&l, run.buf, &o, &err), KP_EPARSE);
	assert_non_null(
	    strstr(err.msg, "eval_results.json: problem \"2\" [0]: 'compiled' must be true or false"));
	assert_non_null(strstr(err.msg, "nothing was made"));
	assert_int_equal(l.n, 1);

	/* A kernel whose task is missing. */
	kp_error_clear(&err);
	put(run.buf, "eval_results.json", "{}");
	put(run.buf, "level_1_problem_6_sample_0_kernel.py", "# k 6\n");
	assert_int_equal(kp_rejudge_add_source(&l, run.buf, &o, &err), KP_ENOENT);
	assert_non_null(strstr(err.msg, "no task for level 1 problem 6"));
	assert_int_equal(l.n, 1);

	/* A list file: KERNEL TASK [name=NAME]; a bad line named. */
	kp_error_clear(&err);
	put(d, "kernels.txt",
	    "# kernel                                   task\n"
	    "run/level_1_problem_2_sample_0_kernel.py  KernelBench/level1/2_Two.py  name=two\n"
	    "run/level_1_problem_4_sample_0_kernel.py  KernelBench/level1/4_Four.py\n");
	kp_path_join(&p, d, "kernels.txt");
	KP_ASSERT_OK(kp_rejudge_add_source(&l, p.buf, &o, &err), &err);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.v[1].set.name, "two");
	assert_string_equal(l.v[2].set.name, "level_1_problem_4_sample_0");
	put(d, "kernels.txt", "run/level_1_problem_2_sample_0_kernel.py\n");
	assert_int_equal(kp_rejudge_add_source(&l, p.buf, &o, &err), KP_EPARSE);
	assert_non_null(strstr(err.msg, "kernels.txt:1: expected 'KERNEL TASK [name=NAME]'"));
	assert_int_equal(l.n, 3);

	kp_bench_list_release(&l);
	kp_buf_release(&run);
	kp_buf_release(&tasks);
	kp_buf_release(&p);
	kp_test_tmpdir_remove(d);
}

static void test_json_round_trip(void **state)
{
	struct kp_recorded r, back;
	struct kp_error err = KP_ERROR_INIT;
	json_t *j;
	kp_recorded_init(&r);
	kp_recorded_init(&back);
	r.level = 2;
	r.problem_id = 8;
	r.sample_id = 3;
	r.compiled = 1;
	r.runtime_ms = 1.25;
	r.error_kind = kp_xstrdup("runtime_error");
	r.message = kp_xstrdup("illegal memory access");
	j = kp_recorded_to_json(&r);
	KP_ASSERT_OK(kp_recorded_from_json(&back, j, &err), &err);
	assert_true(back.level == 2 && back.problem_id == 8 && back.sample_id == 3 && back.compiled &&
	            !back.correct);
	assert_true(back.runtime_ms == 1.25 && isnan(back.ref_ms));
	assert_string_equal(back.message, "illegal memory access");
	json_decref(j);
	assert_int_equal(kp_recorded_from_json(&back, json_null(), &err), KP_EPARSE);
	kp_recorded_release(&r);
	kp_recorded_release(&back);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_layouts),         cmocka_unit_test(test_outcomes_and_find),
	    cmocka_unit_test(test_malformed),       cmocka_unit_test(test_names),
	    cmocka_unit_test(test_pairing),         cmocka_unit_test(test_refusals_add_nothing),
	    cmocka_unit_test(test_json_round_trip), cmocka_unit_test(test_refs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
