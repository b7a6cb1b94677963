/* Unit tests: suite metrics on hand-made results (failures, ties, missing baselines, no tasks, bad values),
 * the results document both ways, the CSV, kernels/ in KernelBench's layout, and task records from run views.
 */
#include "base/setup.h"

#include <math.h>

#include "kp_test.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/suite.h"

/* A task: correct when best_ms is a number; eager/compile NAN when not measured. */
static void add(struct kp_suite *s, const char *name, double best_ms, double eager_ms, double compile_ms)
{
	struct kp_suite_task t;
	kp_suite_task_init(&t);
	t.name = kp_xstrdup(name);
	t.state = KP_SUITE_FINISHED;
	t.correct = !isnan(best_ms);
	t.best_ms = best_ms;
	t.base_ms[KP_SUITE_EAGER] = eager_ms;
	t.base_ms[KP_SUITE_COMPILE] = compile_ms;
	t.evaluations = 10;
	t.outcomes[KP_OUTCOME_CORRECT] = t.correct ? 4 : 0;
	t.outcomes[KP_OUTCOME_COMPILE_ERROR] = 2;
	kp_suite_add(s, &t);
}

#define NEAR(a, b) assert_true(fabs((a) - (b)) < 1e-12 * fmax(1, fabs(b)))

static void test_fast_p_and_geomeans(void **state)
{
	struct kp_suite s;
	struct kp_error err = KP_ERROR_INIT;
	const struct kp_suite_base_stats *e, *c;

	kp_suite_init(&s, "t");
	add(&s, "a", 1.0, 4.0, 2.0); /* 4x eager, 2x compile */
	add(&s, "b", 2.0, 3.0, 1.0); /* 1.5x, 0.5x */
	add(&s, "c", NAN, 5.0, 5.0); /* no correct version */
	add(&s, "d", 1.0, 0.5, 0.8); /* 0.5x, 0.8x: correct but slower */
	KP_ASSERT_OK(kp_suite_compute(&s, &err), &err);
	e = &s.sum.base[KP_SUITE_EAGER];
	c = &s.sum.base[KP_SUITE_COMPILE];
	assert_int_equal(s.sum.tasks, 4);
	assert_int_equal(s.sum.correct, 3);
	NEAR(s.sum.correctness_rate, 0.75);
	assert_int_equal(e->n, 4);
	NEAR(e->fast_p[0], 0.75);                /* fast_0: correct */
	NEAR(e->fast_p[1], 0.50);                /* fast_0.5: a, b (d's 0.5x is not > 0.5) */
	NEAR(e->fast_p[2], 0.50);                /* fast_0.8: a, b */
	NEAR(e->fast_p[KP_SUITE_P_FAST1], 0.50); /* a, b */
	NEAR(e->fast_p[4], 0.25);                /* 1.5 is not > 1.5: only a */
	NEAR(e->fast_p[5], 0.25);
	NEAR(e->geomean_correct, cbrt(4.0 * 1.5 * 0.5));
	NEAR(e->geomean_all, pow(4.0 * 1.5 * 0.5 * 1.0, 0.25));
	NEAR(c->fast_p[KP_SUITE_P_FAST1], 0.25); /* only a beats torch.compile */
	NEAR(c->fast_p[2], 0.25);                /* fast_0.8: d's 0.8x is not > 0.8 */
	NEAR(c->geomean_correct, cbrt(2.0 * 0.5 * 0.8));
	NEAR(s.v[0].speedup[KP_SUITE_EAGER], 4.0);
	assert_true(isnan(s.v[2].speedup[KP_SUITE_EAGER]));
	NEAR(kp_suite_fast_p(&s, KP_SUITE_EAGER, 0.4), 0.75);
	NEAR(kp_suite_fast_p(&s, KP_SUITE_EAGER, 3.9), 0.25);
	NEAR(kp_suite_fast_p(&s, KP_SUITE_EAGER, 4.0), 0.0);
	assert_int_equal(s.sum.evaluations, 40);
	assert_int_equal(s.sum.outcomes[KP_OUTCOME_COMPILE_ERROR], 8);
	assert_int_equal(s.sum.states[KP_SUITE_FINISHED], 4);
	NEAR(s.sum.coverage, 1.0);
	kp_suite_release(&s);
}

/* A speedup equal to p does not count for fast_p (KernelBench: speedup > p). */
static void test_ties(void **state)
{
	struct kp_suite s;
	struct kp_error err = KP_ERROR_INIT;
	kp_suite_init(&s, "ties");
	add(&s, "exactly-2", 1.0, 2.0, NAN);
	add(&s, "exactly-1.5", 2.0, 3.0, NAN);
	add(&s, "exactly-1", 3.0, 3.0, NAN);
	add(&s, "also-2", 0.5, 1.0, NAN);
	KP_ASSERT_OK(kp_suite_compute(&s, &err), &err);
	NEAR(s.sum.base[KP_SUITE_EAGER].fast_p[KP_SUITE_P_FAST1], 0.75); /* the three above 1 */
	NEAR(s.sum.base[KP_SUITE_EAGER].fast_p[4], 0.50);                /* the two at 2 */
	NEAR(s.sum.base[KP_SUITE_EAGER].fast_p[5], 0.0);
	NEAR(kp_suite_fast_p(&s, KP_SUITE_EAGER, 1.9999999), 0.5);
	kp_suite_release(&s);
}

/* Tasks without a baseline are left out of its denominator, counted in "missing"; never in fast_p. */
static void test_missing_baselines(void **state)
{
	struct kp_suite s;
	struct kp_error err = KP_ERROR_INIT;
	const struct kp_suite_base_stats *c;
	kp_suite_init(&s, "missing");
	add(&s, "native", 1.0, 2.0, NAN); /* a native task has no torch.compile */
	add(&s, "kb", 1.0, 2.0, 3.0);
	add(&s, "kb-fail", NAN, 2.0, 3.0);
	add(&s, "no-baselines", 1.0, NAN, NAN);
	KP_ASSERT_OK(kp_suite_compute(&s, &err), &err);
	c = &s.sum.base[KP_SUITE_COMPILE];
	assert_int_equal(c->n, 2);
	assert_int_equal(c->missing, 2);
	assert_int_equal(c->correct, 1);
	NEAR(c->fast_p[KP_SUITE_P_FAST1], 0.5);
	NEAR(c->geomean_all, sqrt(3.0));
	assert_int_equal(s.sum.base[KP_SUITE_EAGER].n, 3);
	assert_int_equal(s.sum.base[KP_SUITE_EAGER].missing, 1);
	NEAR(s.sum.correctness_rate, 0.75); /* over every task, baselines or not */
	assert_true(isnan(s.v[3].speedup[KP_SUITE_EAGER]));
	kp_suite_release(&s);
}

static void test_zero_tasks(void **state)
{
	struct kp_suite s;
	struct kp_error err = KP_ERROR_INIT;
	json_t *doc;
	kp_suite_init(&s, "empty");
	KP_ASSERT_OK(kp_suite_compute(&s, &err), &err);
	assert_true(isnan(s.sum.correctness_rate));
	assert_true(isnan(s.sum.coverage));
	assert_true(isnan(s.sum.base[KP_SUITE_EAGER].fast_p[1]));
	assert_true(isnan(s.sum.base[KP_SUITE_EAGER].geomean_all));
	doc = kp_suite_to_json(&s);
	assert_true(json_is_null(json_object_get(json_object_get(doc, "summary"), "correctness_rate")));
	assert_int_equal(json_array_size(json_object_get(doc, "tasks")), 0);
	json_decref(doc);
	kp_suite_release(&s);
}

/* Only failures: no geomean over correct tasks, 1.0 over all, fast_p 0. */
static void test_no_correct_version(void **state)
{
	struct kp_suite s;
	struct kp_error err = KP_ERROR_INIT;
	kp_suite_init(&s, "fail");
	add(&s, "x", NAN, 2.0, 1.0);
	add(&s, "y", NAN, 2.0, NAN);
	KP_ASSERT_OK(kp_suite_compute(&s, &err), &err);
	assert_true(isnan(s.sum.base[KP_SUITE_EAGER].geomean_correct));
	NEAR(s.sum.base[KP_SUITE_EAGER].geomean_all, 1.0);
	NEAR(s.sum.base[KP_SUITE_EAGER].fast_p[0], 0.0);
	assert_int_equal(s.sum.correct, 0);
	kp_suite_release(&s);
}

static void refused(void (*spoil)(struct kp_suite_task *t), const char *needle)
{
	struct kp_suite s;
	struct kp_error err = KP_ERROR_INIT;
	kp_suite_init(&s, "bad");
	add(&s, "fine", 1.0, 2.0, NAN);
	add(&s, "spoiled", 1.0, 2.0, NAN);
	spoil(&s.v[1]);
	assert_int_equal(kp_suite_compute(&s, &err), KP_EINVAL);
	if (!strstr(kp_error_msg(&err), needle))
		fail_msg("'%s' lacks '%s'", kp_error_msg(&err), needle);
	kp_suite_release(&s);
}

static void neg_best(struct kp_suite_task *t)
{
	t->best_ms = -1;
}
static void zero_eager(struct kp_suite_task *t)
{
	t->base_ms[KP_SUITE_EAGER] = 0;
}
static void inf_compile(struct kp_suite_task *t)
{
	t->base_ms[KP_SUITE_COMPILE] = INFINITY;
}
static void nan_cost(struct kp_suite_task *t)
{
	t->cost_usd = NAN;
}
static void neg_tokens(struct kp_suite_task *t)
{
	t->tokens_in = -5;
}
static void correct_untimed(struct kp_suite_task *t)
{
	t->best_ms = NAN;
}
static void no_name(struct kp_suite_task *t)
{
	free(t->name);
	t->name = NULL;
}
static void inf_energy(struct kp_suite_task *t)
{
	t->energy_j = INFINITY;
}

static void test_bad_values_refused(void **state)
{
	refused(neg_best, "task 'spoiled': best_ms is -1");
	refused(zero_eager, "eager_ms is 0");
	refused(inf_compile, "torch_compile_ms is inf");
	refused(nan_cost, "cost_usd is nan");
	refused(neg_tokens, "tokens_in is -5");
	refused(correct_untimed, "marked correct but has no best_ms");
	refused(no_name, "has no name");
	refused(inf_energy, "energy_j is inf");
}

/* ---- documents ------------------------------------------------------------------------------------ */

static int load(const char *text, struct kp_suite *s, struct kp_error *err)
{
	json_t *doc = NULL;
	int rc = kp_json_load_mem("results.json", text, strlen(text), &doc, err);
	if (!rc)
		rc = kp_suite_from_json(s, doc, err);
	json_decref(doc);
	return rc;
}

static void test_json_round_trip(void **state)
{
	struct kp_suite s, back;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf a = KP_BUF_INIT, b = KP_BUF_INIT;
	json_t *doc, *doc2;
	char *text;

	kp_suite_init(&s, "rt");
	add(&s, "a,\"quoted\"", 1.0 / 3.0, 2.0, 1.0);
	add(&s, "b", NAN, 2.0, NAN);
	s.v[0].level = 1;
	s.v[0].problem_id = 2;
	s.v[0].energy_j = 0.5;
	s.v[0].ref_energy_j = 1.0;
	s.v[1].state = KP_SUITE_FAILED;
	KP_ASSERT_OK(kp_suite_compute(&s, &err), &err);
	doc = kp_suite_to_json(&s);
	text = json_dumps(doc, JSON_REAL_PRECISION(17));
	kp_suite_init(&back, NULL);
	KP_ASSERT_OK(load(text, &back, &err), &err);
	assert_string_equal(back.name, "rt");
	assert_int_equal(back.n, 2);
	assert_string_equal(back.v[0].name, "a,\"quoted\"");
	assert_int_equal(back.v[0].problem_id, 2);
	assert_int_equal(back.v[1].state, KP_SUITE_FAILED);
	assert_true(back.v[0].best_ms == 1.0 / 3.0);
	NEAR(back.sum.energy_ratio_geomean, 0.5);
	doc2 = kp_suite_to_json(&back);
	kp_json_dump_buf(doc, &a, 0);
	kp_json_dump_buf(doc2, &b, 0);
	assert_string_equal(a.buf, b.buf);
	free(text);
	json_decref(doc);
	json_decref(doc2);
	kp_buf_release(&a);
	kp_buf_release(&b);
	kp_suite_release(&s);
	kp_suite_release(&back);
}

#define DOC(tasks) "{\"schema\":\"kernelpro.bench-results/1\",\"tasks\":[" tasks "]}"

static void expect_refused(const char *text, int code, const char *needle)
{
	struct kp_suite s;
	struct kp_error err = KP_ERROR_INIT;
	kp_suite_init(&s, NULL);
	assert_int_equal(load(text, &s, &err), code);
	if (!strstr(kp_error_msg(&err), needle))
		fail_msg("'%s' lacks '%s'", kp_error_msg(&err), needle);
	kp_suite_release(&s);
}

static void test_from_json_refuses(void **state)
{
	/* NaN and infinity are not JSON: the parser stops there. */
	expect_refused(DOC("{\"name\":\"x\",\"state\":\"finished\",\"correct\":true,\"best_ms\":NaN}"),
	               KP_EPARSE, "line 1");
	expect_refused(DOC("{\"name\":\"x\",\"state\":\"finished\",\"correct\":true,\"best_ms\":1e999}"),
	               KP_EPARSE, "line 1");
	/* KernelBench writes runtime -1 for "not measured": here that is a wrong value, null is the word. */
	expect_refused(DOC("{\"name\":\"x\",\"state\":\"finished\",\"correct\":true,\"best_ms\":-1}"),
	               KP_EINVAL, "null when not measured");
	expect_refused(DOC("{\"name\":\"x\",\"state\":\"finished\",\"correct\":\"yes\"}"), KP_EPARSE,
	               "'correct'");
	expect_refused(DOC("{\"name\":\"x\",\"state\":\"done\",\"correct\":false}"), KP_EPARSE, "'state'");
	expect_refused(DOC("{\"name\":\"x\",\"correct\":false}"), KP_EPARSE, "needs \"correct\"");
	expect_refused(DOC("{\"state\":\"finished\",\"correct\":false}"), KP_EPARSE,
	               "tasks[0] has no \"name\"");
	expect_refused(
	    DOC("{\"name\":\"x\",\"state\":\"finished\",\"correct\":false,\"outcomes\":{\"great\":1}}"),
	    KP_EPARSE, "outcome 'great'");
	expect_refused(DOC("{\"name\":\"x\",\"state\":\"finished\",\"correct\":false,\"tokens_in\":-3}"),
	               KP_EPARSE, "'tokens_in' must be an integer >= 0");
	expect_refused(DOC("{\"name\":\"x\",\"state\":\"finished\",\"correct\":false,\"eager_ms\":\"2\"}"),
	               KP_EPARSE, "'eager_ms' must be a number or null");
	expect_refused("{\"schema\":\"kernelbench\",\"tasks\":[]}", KP_EPARSE,
	               "expected 'kernelpro.bench-results/1'");
	expect_refused("{\"schema\":\"kernelpro.bench-results/1\",\"tasks\":{}}", KP_EPARSE,
	               "must be an array");
	expect_refused("[1]", KP_EPARSE, "expected a JSON object");
}

/* A summary in the file is recomputed, never trusted. */
static void test_summary_not_trusted(void **state)
{
	struct kp_suite s;
	struct kp_error err = KP_ERROR_INIT;
	kp_suite_init(&s, NULL);
	KP_ASSERT_OK(
	    load("{\"schema\":\"kernelpro.bench-results/1\",\"summary\":{\"correct\":99},\"tasks\":["
	         "{\"name\":\"x\",\"state\":\"finished\",\"correct\":true,\"best_ms\":1,\"eager_ms\":3}]}",
	         &s, &err),
	    &err);
	assert_int_equal(s.sum.correct, 1);
	NEAR(s.v[0].speedup[KP_SUITE_EAGER], 3.0);
	kp_suite_release(&s);
}

static void test_golden_summary(void **state)
{
	struct kp_suite s;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf in = KP_BUF_INIT, out = KP_BUF_INIT;
	json_t *doc;
	kp_test_read("tests/golden/suite/results-in.json", &in);
	kp_suite_init(&s, NULL);
	KP_ASSERT_OK(load(in.buf, &s, &err), &err);
	doc = kp_suite_to_json(&s);
	kp_json_dump_buf(json_object_get(doc, "summary"), &out, 0);
	kp_buf_addch(&out, '\n');
	kp_test_golden("tests/golden/suite/summary.json", out.buf);
	kp_buf_reset(&out);
	kp_suite_csv(&s, &out);
	kp_test_golden("tests/golden/suite/results.csv", out.buf);
	json_decref(doc);
	kp_buf_release(&in);
	kp_buf_release(&out);
	kp_suite_release(&s);
}

static void test_csv_quoting(void **state)
{
	struct kp_suite s;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf b = KP_BUF_INIT;
	kp_suite_init(&s, "csv");
	add(&s, "comma, \"quote\"\nnewline", 1.0, 2.0, NAN);
	KP_ASSERT_OK(kp_suite_compute(&s, &err), &err);
	kp_suite_csv(&s, &b);
	assert_non_null(
	    strstr(b.buf, "\n\"comma, \"\"quote\"\"\nnewline\",,,0,0,finished,true,0,1,,2,,,2,,10,"));
	assert_non_null(strstr(b.buf, ",n_correct,n_compile_error,"));
	kp_buf_release(&b);
	kp_suite_release(&s);
}

/* ---- kernels/ -------------------------------------------------------------------------------------------
 */

static void with_source(struct kp_suite *s, const char *name, int level, int pid, const char *lang,
                        const char *src)
{
	add(s, name, 1.0, 2.0, NAN);
	s->v[s->n - 1].level = level;
	s->v[s->n - 1].problem_id = pid;
	s->v[s->n - 1].lang = kp_xstrdup(lang);
	s->v[s->n - 1].source = kp_xstrdup(src);
}

static void expect_file(const char *dir, const char *rel, const char *content)
{
	struct kp_buf p = KP_BUF_INIT, b = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	kp_path_join(&p, dir, rel);
	KP_ASSERT_OK(kp_read_file(p.buf, 0, &b, &err), &err);
	assert_string_equal(b.buf, content);
	kp_buf_release(&p);
	kp_buf_release(&b);
}

static void test_write_layout(void **state)
{
	char *dir = kp_test_tmpdir();
	struct kp_suite s;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf p = KP_BUF_INIT;

	kp_suite_init(&s, "layout");
	with_source(&s, "2_Swish", 1, 2, "python", "class ModelNew: pass\n");
	with_source(&s, "2_Swish again", 1, 2, "python", "class ModelNew: again\n");
	with_source(&s, "../../etc/passwd", 0, 0, "cuda", "// native\n");
	with_source(&s, "../../etc/passwd", 0, 0, "cuda", "// native 2\n");
	with_source(&s, "kb-native-source", 1, 4, "cuda",
	            "// a .cu for a KernelBench id is not KernelBench's format\n");
	add(&s, "failed", NAN, 2.0, NAN);
	/* A stale file from an earlier export must not survive. */
	kp_path_join(&p, dir, "kernels");
	KP_ASSERT_OK(kp_mkdir_p(p.buf, 0755, &err), &err);
	kp_buf_adds(&p, "/stale.cu");
	KP_ASSERT_OK(kp_write_file_atomic(p.buf, "x", 1, &err), &err);
	KP_ASSERT_OK(kp_suite_write(&s, dir, &err), &err);
	assert_false(kp_path_exists(p.buf));
	expect_file(dir, "kernels/level_1_problem_2_sample_0_kernel.py", "class ModelNew: pass\n");
	expect_file(dir, "kernels/level_1_problem_2_sample_1_kernel.py", "class ModelNew: again\n");
	expect_file(dir, "kernels/______etc_passwd.cu", "// native\n");
	expect_file(dir, "kernels/______etc_passwd-2.cu", "// native 2\n");
	expect_file(dir, "kernels/kb-native-source.cu",
	            "// a .cu for a KernelBench id is not KernelBench's format\n");
	assert_string_equal(s.v[0].kernel, "kernels/level_1_problem_2_sample_0_kernel.py");
	assert_null(s.v[5].kernel);
	kp_buf_reset(&p);
	kp_path_join(&p, dir, "eval_results.json");
	assert_false(kp_path_exists(p.buf));
	kp_buf_reset(&p);
	kp_path_join(&p, dir, "kernels/eval_results.json");
	assert_false(kp_path_exists(p.buf));
	kp_buf_reset(&p);
	kp_path_join(&p, dir, "results.json");
	assert_true(kp_path_exists(p.buf));
	kp_buf_release(&p);
	kp_suite_release(&s);
	kp_test_tmpdir_remove(dir);
}

/* ---- from a run view ---------------------------------------------------------------------------------- */

static void view_task(const char *text, struct kp_suite_task *t)
{
	struct kp_error err = KP_ERROR_INIT;
	json_t *v = NULL;
	KP_ASSERT_OK(kp_json_load_mem("view", text, strlen(text), &v, &err), &err);
	kp_suite_task_init(t);
	KP_ASSERT_OK(kp_suite_task_from_view(t, v, &err), &err);
	json_decref(v);
}

static void test_task_from_view(void **state)
{
	struct kp_suite_task t;
	view_task("{\"dir\":\"runs/a\",\"summary\":{\"run\":\"a\",\"status\":\"finished\","
	          "\"task\":{\"name\":\"19_ReLU\",\"kind\":\"kernelbench\",\"path\":\"/x/KernelBench/level1/"
	          "19_ReLU.py\"},"
	          "\"used\":{\"evaluations\":5,\"tokens_in\":100,\"tokens_out\":20,\"cost_usd\":0.25,"
	          "\"elapsed_s\":60}},"
	          "\"baseline\":null,\"nodes\":["
	          "{\"node\":1,\"parent\":null,\"outcome\":\"correct\",\"time_ms\":2.0,\"speedup\":1.0},"
	          "{\"node\":2,\"parent\":1,\"outcome\":\"compile_error\",\"time_ms\":null},"
	          "{\"node\":3,\"parent\":1,\"outcome\":\"correct\",\"time_ms\":0.5,\"energy_j\":0.1},"
	          "{\"node\":4,\"parent\":3,\"outcome\":\"correct\",\"time_ms\":0.5},"
	          "{\"node\":5,\"parent\":3,\"outcome\":\"correct\",\"time_ms\":null,\"speedup\":8.0},"
	          "{\"node\":6,\"parent\":3,\"outcome\":\"pending\"},"
	          "{\"node\":7,\"parent\":3,\"outcome\":\"wrong_output\",\"time_ms\":0.1}]}",
	          &t);
	assert_string_equal(t.name, "19_ReLU");
	assert_string_equal(t.kind, "kernelbench");
	assert_string_equal(t.run, "runs/a");
	assert_int_equal(t.level, 1);
	assert_int_equal(t.problem_id, 19);
	assert_int_equal(t.state, KP_SUITE_FINISHED);
	assert_true(t.correct);
	/* Node 5 gave only its speedup: 2.0 / 8 = 0.25 ms, the fastest; a wrong output never counts. */
	assert_int_equal(t.best_node, 5);
	assert_true(t.best_ms == 0.25);
	assert_true(t.ref_ms == 2.0);
	assert_true(t.base_ms[KP_SUITE_EAGER] == 2.0);
	assert_string_equal(t.eager_from, "run");
	assert_true(isnan(t.base_ms[KP_SUITE_COMPILE]));
	assert_int_equal(t.outcomes[KP_OUTCOME_CORRECT], 3);
	assert_int_equal(t.outcomes[KP_OUTCOME_COMPILE_ERROR], 1);
	assert_int_equal(t.outcomes[KP_OUTCOME_WRONG_OUTPUT], 1);
	assert_int_equal(t.evaluations, 5);
	assert_true(t.cost_usd == 0.25);
	kp_suite_task_release(&t);

	/* Ties go to the older version; the baseline file wins over the run's reference. */
	view_task(
	    "{\"summary\":{\"status\":\"running\",\"task\":{\"name\":\"n\",\"kind\":\"native\",\"path\":\"/t/"
	    "level1/3_x\"}},"
	    "\"baseline\":{\"eager\":{\"median_ms\":3.0},\"torch_compile\":{\"median_ms\":1.5}},\"nodes\":["
	    "{\"node\":1,\"parent\":null,\"outcome\":\"correct\",\"time_ms\":2.0},"
	    "{\"node\":2,\"parent\":1,\"outcome\":\"correct\",\"time_ms\":1.0},"
	    "{\"node\":3,\"parent\":1,\"outcome\":\"correct\",\"time_ms\":1.0}]}",
	    &t);
	assert_int_equal(t.best_node, 2);
	assert_int_equal(t.level, 0); /* only KernelBench tasks get KernelBench ids */
	assert_int_equal(t.state, KP_SUITE_RUNNING);
	assert_true(t.base_ms[KP_SUITE_EAGER] == 3.0);
	assert_string_equal(t.eager_from, "baseline");
	assert_true(t.base_ms[KP_SUITE_COMPILE] == 1.5);
	kp_suite_task_release(&t);

	/* Nothing correct but the reference: not correct. */
	view_task("{\"summary\":{\"status\":\"failed\",\"run\":\"r\"},\"nodes\":["
	          "{\"node\":1,\"parent\":null,\"outcome\":\"correct\",\"time_ms\":2.0},"
	          "{\"node\":2,\"parent\":1,\"outcome\":\"timeout\"}]}",
	          &t);
	assert_string_equal(t.name, "r");
	assert_false(t.correct);
	assert_int_equal(t.best_node, 0);
	assert_int_equal(t.state, KP_SUITE_FAILED);
	kp_suite_task_release(&t);
}

/* The reason a task failed, its roofline place, the means and the one meaning of best, from its view. */
static void test_view_reason_and_place(void **state)
{
	struct kp_suite_task t;
	view_task("{\"dir\":\"runs/a\",\"summary\":{\"run\":\"a\",\"status\":\"finished\","
	          "\"task\":{\"name\":\"4_X\",\"kind\":\"kernelbench\",\"path\":\"/k/level2/4_X.py\"},"
	          "\"context\":{\"gpu\":\"NVIDIA H200\",\"model\":\"openai:gpt-5\",\"cost_known\":false},"
	          "\"best\":{\"node\":1,\"improved\":false}},"
	          "\"baseline\":{\"eager\":{\"median_ms\":3.0,\"mean_ms\":3.3}},\"nodes\":["
	          "{\"node\":1,\"parent\":null,\"outcome\":\"correct\",\"time_ms\":2.0,\"mean_ms\":2.2,"
	          "\"profile\":{\"launch\":{\"stage1\":{\"class\":\"memory\",\"ai\":0.5,"
	          "\"achieved_flops\":1e12,\"compute_peak\":6e13,\"memory_peak\":4e12}}}},"
	          "{\"node\":2,\"parent\":1,\"outcome\":\"cheat_suspected\",\"reason\":{\"check\":"
	          "\"reads_reference\",\"severity\":\"refuse\",\"message\":\"calls get_inputs()\"}},"
	          "{\"node\":3,\"parent\":1,\"outcome\":\"compile_error\",\"reason\":{\"check\":null,"
	          "\"message\":\"error: x\"}}]}",
	          &t);
	assert_false(t.correct);
	/* The latest failed version speaks for the task. */
	assert_int_equal(t.failure_node, 3);
	assert_string_equal(t.failure_outcome, "compile_error");
	assert_null(t.failure_check);
	assert_string_equal(t.failure_message, "error: x");
	/* No correct candidate: the reference places the task, 1e12 of min(6e13, 4e12 x 0.5) = 50%. */
	assert_int_equal(t.roofline_node, 1);
	assert_string_equal(t.bottleneck, "memory");
	NEAR(t.roof_share, 0.5);
	NEAR(t.ai, 0.5);
	NEAR(t.ref_mean_ms, 2.2);
	NEAR(t.base_mean_ms[KP_SUITE_EAGER], 3.3);
	assert_string_equal(t.gpu, "NVIDIA H200");
	assert_string_equal(t.model, "openai:gpt-5");
	assert_false(t.cost_known);
	assert_int_equal(t.improved_node, 0);
	assert_string_equal(t.problem_file, "4_X.py");
	kp_suite_task_release(&t);

	view_task("{\"summary\":{\"status\":\"finished\",\"task\":{\"name\":\"g\",\"kind\":\"native\"},"
	          "\"best\":{\"node\":2,\"improved\":true}},\"nodes\":["
	          "{\"node\":1,\"parent\":null,\"outcome\":\"correct\",\"time_ms\":2.0},"
	          "{\"node\":2,\"parent\":1,\"outcome\":\"cheat_suspected\",\"reason\":{\"check\":\"x\"}},"
	          "{\"node\":3,\"parent\":1,\"outcome\":\"correct\",\"time_ms\":1.0,\"mean_ms\":1.1}]}",
	          &t);
	/* A correct task has no failure; its mean is the fastest version's; best is the run's. */
	assert_true(t.correct);
	assert_int_equal(t.failure_node, 0);
	assert_null(t.failure_check);
	NEAR(t.best_mean_ms, 1.1);
	assert_int_equal(t.improved_node, 2);
	assert_int_equal(t.roofline_node, 0); /* no profile anywhere */
	assert_true(isnan(t.roof_share));
	assert_true(t.cost_known); /* a run from before the context was recorded */
	kp_suite_task_release(&t);
}

/* Each KernelBench level summarised alone; native tasks belong to none. */
static void test_levels(void **state)
{
	struct kp_suite s;
	struct kp_error err = KP_ERROR_INIT;
	kp_suite_init(&s, "levels");
	add(&s, "a", 1.0, 4.0, NAN);
	add(&s, "b", NAN, 2.0, NAN);
	add(&s, "c", 1.0, 1.5, NAN);
	add(&s, "native", 1.0, 3.0, NAN);
	s.v[0].level = 1, s.v[0].problem_id = 2;
	s.v[1].level = 1, s.v[1].problem_id = 4;
	s.v[2].level = 3, s.v[2].problem_id = 2;
	KP_ASSERT_OK(kp_suite_compute(&s, &err), &err);
	assert_int_equal(s.sum.nlevels, 2);
	assert_int_equal(s.sum.levels[0].level, 1);
	assert_int_equal(s.sum.levels[0].tasks, 2);
	assert_int_equal(s.sum.levels[0].correct, 1);
	NEAR(s.sum.levels[0].base[KP_SUITE_EAGER].fast_p[KP_SUITE_P_FAST1], 0.5);
	NEAR(s.sum.levels[0].base[KP_SUITE_EAGER].geomean_correct, 4.0);
	assert_int_equal(s.sum.levels[1].level, 3);
	NEAR(s.sum.levels[1].base[KP_SUITE_EAGER].fast_p[4], 0.0); /* 1.5x is not > 1.5 */
	assert_int_equal(s.sum.base[KP_SUITE_EAGER].n, 4);         /* the whole suite: all four */
	kp_suite_release(&s);
}

static void test_view_refused(void **state)
{
	struct kp_suite_task t;
	struct kp_error err = KP_ERROR_INIT;
	json_t *v = json_pack("{s:{}}", "summary");
	kp_suite_task_init(&t);
	assert_int_equal(kp_suite_task_from_view(&t, v, &err), KP_EPARSE);
	kp_suite_task_release(&t);
	json_decref(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fast_p_and_geomeans),   cmocka_unit_test(test_ties),
	    cmocka_unit_test(test_missing_baselines),     cmocka_unit_test(test_zero_tasks),
	    cmocka_unit_test(test_no_correct_version),    cmocka_unit_test(test_bad_values_refused),
	    cmocka_unit_test(test_json_round_trip),       cmocka_unit_test(test_from_json_refuses),
	    cmocka_unit_test(test_summary_not_trusted),   cmocka_unit_test(test_golden_summary),
	    cmocka_unit_test(test_csv_quoting),           cmocka_unit_test(test_write_layout),
	    cmocka_unit_test(test_task_from_view),        cmocka_unit_test(test_view_refused),
	    cmocka_unit_test(test_view_reason_and_place), cmocka_unit_test(test_levels),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
