/*
 * Unit tests: the tune action in the optimize loop, on the CPU with the scripted programmer and the fake
 * harness (kp_search_fakes): when it is offered (the best correct version with declared knobs; derived
 * ones with tune=all; never twice, never on its own variants, never without budget), that it makes no
 * LLM call, that its children are the best variants, how it spends the run's evaluations, a run with
 * no programmer (optimize --llm none) from a given version or the reference, and a tuning stopped or
 * failed half-way going on when the run is resumed, measuring nothing twice.
 */
#include "base/setup.h"

#include <math.h>

#include "kp_search_fakes.h"
#include "kp_test.h"
#include "kernelpro/json.h"
#include "kernelpro/search.h"

/* ---- fixture ------------------------------------------------------------------------------------ */

struct fx {
	char *dir, db[512];
	struct kp_store *s;
	struct kp_search_task task;
	struct kp_search_run run;
	struct fake_prog prog;
	struct fake_eval eval;
};

static void fx_open(struct fx *x)
{
	struct kp_error err = KP_ERROR_INIT;
	KP_ASSERT_OK(kp_store_open(&x->s, x->db, KP_STORE_CREATE, &err), &err);
	x->run.store = x->s;
	x->run.run_name = "tune-test";
	x->run.task = &x->task;
	x->run.evaluator = &x->eval.base;
}

/* A run on a native task with the scripted programmer (script, extras: the replies' knobs). */
static struct fx *fx_new(const struct step *script, size_t n, const char *const *extras, size_t nextras)
{
	struct fx *x = kp_xcalloc(1, sizeof(*x));
	x->dir = kp_test_tmpdir();
	snprintf(x->db, sizeof(x->db), "%s/run.db", x->dir);
	x->task = (struct kp_search_task){.name = "scale",
	                                  .family = "scale",
	                                  .reference_source = "// the reference\n",
	                                  .kind = kp_task_kind_info(KP_TASK_NATIVE)};
	fake_prog_init(&x->prog, script, n);
	x->prog.extras = extras;
	x->prog.nextras = nextras;
	fake_eval_init(&x->eval);
	kp_search_params_default(&x->run.params);
	x->run.programmer = &x->prog.base;
	fx_open(x);
	return x;
}

static void fx_free(struct fx *x)
{
	kp_store_close(x->s);
	kp_test_tmpdir_remove(x->dir);
	free(x);
}

static void run_ok(struct fx *x, enum kp_search_end want)
{
	struct kp_search_outcome out;
	struct kp_error err = KP_ERROR_INIT;
	KP_ASSERT_OK(kp_search_loop(&x->run, &out, &err), &err);
	assert_int_equal(out.end, want);
}

/* ---- reading the run back ------------------------------------------------------------------------- */

static struct kp_node_row node(struct fx *x, long id)
{
	struct kp_node_row r;
	struct kp_error err = KP_ERROR_INIT;
	KP_ASSERT_OK(kp_store_node_get(x->s, id, &r, &err), &err);
	return r;
}

static long count_kind(struct fx *x, enum kp_node_kind kind)
{
	struct kp_node_row *rows = NULL;
	struct kp_error err = KP_ERROR_INIT;
	size_t n = 0;
	long c = 0;
	KP_ASSERT_OK(kp_store_nodes_load(x->s, &rows, &n, &err), &err);
	for (size_t i = 0; i < n; i++)
		c += rows[i].kind == kind;
	free(rows);
	return c;
}

/* The tune actions, as "#NODE status best_point children(nodes) cache_hits evaluated; ..." */
struct tunings {
	int n;
	char text[512];
};

static int add_tuning(const struct kp_tuning_row *r, void *ud)
{
	struct tunings *t = ud;
	json_t *c = json_loads(r->children_json ? r->children_json : "[]", 0, NULL);
	size_t len = strlen(t->text);
	snprintf(t->text + len, sizeof(t->text) - len, "%s#%ld %s %s [", t->n++ ? "; " : "", r->node,
	         r->status, r->best_point ? r->best_point : "-");
	for (size_t i = 0; i < json_array_size(c); i++) {
		len = strlen(t->text);
		snprintf(t->text + len, sizeof(t->text) - len, "%s%lld", i ? " " : "",
		         kp_json_int(json_array_get(c, i), "node", 0));
	}
	len = strlen(t->text);
	snprintf(t->text + len, sizeof(t->text) - len, "] hits %ld evaluated %ld", r->cache_hits,
	         r->evaluated);
	json_decref(c);
	return 0;
}

static struct tunings tunings(struct fx *x)
{
	struct tunings t;
	struct kp_error err = KP_ERROR_INIT;
	memset(&t, 0, sizeof(t));
	KP_ASSERT_OK(kp_store_tunings_each(x->s, add_tuning, &t, &err), &err);
	return t;
}

static double counter(struct fx *x, const char *name)
{
	return kp_store_counter(x->s, name);
}

/* ---- tests ------------------------------------------------------------------------------------------ */

/* BLOCK: 256 as written (1.5x), 128 wrong, 512 the fastest (2.4x), 1024 faster than 256 (1.8x). */
#define KNOBS_4                                                                                   \
	"constexpr int B = KP_TUNE(BLOCK, 256, 128, 512, 1024);\nspeed@512=2.4\nspeed@1024=1.8\n" \
	"outcome@128=wrong_output\n"

/*
 * The first version declares knobs and is the best: it is tuned at once, with no LLM call, within
 * tune_share of the budget; the fastest variant becomes its child (kind tune), is evaluated again like
 * any version and becomes the best. It is not tuned itself, and the version is never tuned twice.
 */
static void test_tunes_best_version(void **state)
{
	static const struct step s[] = {{"correct", 1.5}};
	static const char *const extras[] = {KNOBS_4};
	struct fx *x = fx_new(s, 1, extras, 1);
	struct kp_node_row child;
	struct tunings t;

	x->run.budget.evals = 16; /* tune_share 0.25: 4 variants; exhaustive over the 4 points */
	run_ok(x, KP_END_EVALS);
	assert_int_equal(x->eval.tunes, 1);
	assert_int_equal(x->eval.variants, 4);
	assert_true(counter(x, "tune_evaluations") == 4);
	assert_true(counter(x, "tune_actions") == 1);
	assert_true(counter(x, "evaluations") == 16);
	/* No LLM call for it: 16 evaluations = 4 variants + the child + 11 generated versions. */
	assert_int_equal(x->prog.calls, 11);
	assert_int_equal(x->eval.evals, 12);
	child = node(x, 3);
	assert_int_equal(child.kind, KP_NODE_TUNE);
	assert_int_equal(child.parent, 2);
	assert_true(child.evaluated && child.outcome == KP_OUTCOME_CORRECT &&
	            fabs(child.speedup - 2.4) < 1e-9);
	assert_non_null(strstr(child.summary, "BLOCK=512: tuned from #2"));
	t = tunings(x);
	assert_int_equal(t.n, 1);
	assert_string_equal(t.text, "#2 done BLOCK=512 [3] hits 0 evaluated 4");
	assert_int_equal(count_kind(x, KP_NODE_TUNE), 1);
	fx_free(x);
}

/*
 * tune_children 2: the two fastest variants that beat the untuned one, fastest first; a wrong variant
 * never; a later version with knobs that is not the best is not tuned.
 */
static void test_children_are_best_variants(void **state)
{
	static const struct step s[] = {{"correct", 1.5}, {"correct", 1.2}};
	static const char *const extras[] = {KNOBS_4, KNOBS_4};
	struct fx *x = fx_new(s, 2, extras, 2);

	x->run.budget.evals = 20;
	x->run.params.tune_children = 2;
	run_ok(x, KP_END_EVALS);
	assert_int_equal(x->eval.tunes, 1);
	assert_int_equal(node(x, 3).kind, KP_NODE_TUNE);
	assert_int_equal(node(x, 4).kind, KP_NODE_TUNE);
	assert_true(fabs(node(x, 3).speedup - 2.4) < 1e-9);
	assert_true(fabs(node(x, 4).speedup - 1.8) < 1e-9);
	assert_string_equal(tunings(x).text, "#2 done BLOCK=512 [3 4] hits 0 evaluated 4");
	fx_free(x);
}

/* Not offered: tune=off; knobs kernelpro would derive under tune=declared; a failed version; an
 * evaluator without a tune method; a budget too small. */
static void test_when_not_offered(void **state)
{
	static const struct step ok[] = {{"correct", 1.5}}, bad[] = {{"compile_error", 0}};
	static const char *const knobs[] = {KNOBS_4};
	static const char *const derived[] = {"void run(long n) { k<<<(n + 255) / 256, 256>>>(n); }\n"};
	struct fx *x;

	x = fx_new(ok, 1, knobs, 1);
	x->run.budget.evals = 16;
	x->run.params.tune = KP_SEARCH_TUNE_OFF;
	run_ok(x, KP_END_EVALS);
	assert_int_equal(x->eval.tunes, 0);
	assert_int_equal(tunings(x).n, 0);
	fx_free(x);

	x = fx_new(ok, 1, derived, 1);
	x->run.budget.evals = 16;
	run_ok(x, KP_END_EVALS);
	assert_int_equal(x->eval.tunes, 0);
	fx_free(x);

	/* With tune=all the derived block size is tuned; every variant is as fast (the fake reads markers
	 * only), so none becomes a child and the record says why. The version stays the best and is not
	 * tuned a second time. */
	x = fx_new(ok, 1, derived, 1);
	x->run.budget.evals = 16;
	x->run.params.tune = KP_SEARCH_TUNE_ALL;
	run_ok(x, KP_END_EVALS);
	assert_int_equal(x->eval.tunes, 1);
	assert_int_equal(count_kind(x, KP_NODE_TUNE), 0);
	assert_non_null(strstr(tunings(x).text, "#2 done"));
	fx_free(x);

	x = fx_new(bad, 1, knobs, 1);
	x->run.budget.evals = 16;
	run_ok(x, KP_END_EVALS);
	assert_int_equal(x->eval.tunes, 0); /* #2 failed; its repairs have no knobs */
	fx_free(x);

	x = fx_new(ok, 1, knobs, 1);
	x->run.budget.evals = 16;
	x->eval.base.tune = NULL;
	run_ok(x, KP_END_EVALS);
	assert_int_equal(tunings(x).n, 0);
	fx_free(x);

	x = fx_new(ok, 1, knobs, 1);
	x->run.budget.evals = 7; /* a quarter: 1 evaluation, less than a re-check and one variant */
	run_ok(x, KP_END_EVALS);
	assert_int_equal(x->eval.tunes, 0);
	fx_free(x);
}

/* The budget: tuning takes at most tune_share of the evaluations, each variant counts once, and the
 * run's total stays within its budget; bayes (more points than the budget) included. */
static void test_budget_accounting(void **state)
{
	static const struct step s[] = {{"correct", 1.5}};
	static const char *const extras[] = {
	    "constexpr int B = KP_TUNE(BLOCK, 256, 32, 64, 128, 512, 1024);\n"
	    "constexpr int I = KP_TUNE(ITEMS, 1, 2, 4, 8);\nspeed@1024=3\n"};
	struct fx *x = fx_new(s, 1, extras, 1);

	x->run.budget.evals = 24; /* 6 for tuning; 24 points */
	run_ok(x, KP_END_EVALS);
	assert_int_equal(x->eval.tunes, 1);
	assert_int_equal(x->eval.variants, 6);
	assert_true(counter(x, "tune_evaluations") == 6);
	assert_true(counter(x, "evaluations") == 24);
	assert_int_equal(x->eval.evals + x->eval.variants, 24);
	fx_free(x);

	/* A tune budget below the share caps it. */
	x = fx_new(s, 1, extras, 1);
	x->run.budget.evals = 40;
	x->run.params.tune_budget = 3;
	run_ok(x, KP_END_EVALS);
	assert_int_equal(x->eval.variants, 3);
	fx_free(x);
}

/*
 * No programmer (optimize --llm none --from): the given version is the root's first child, evaluated
 * first, then tuned with the whole remaining budget (less one evaluation for its child); the run ends
 * when nothing is left to tune. The reference is not tuned: a version was given.
 */
static void test_no_programmer_given_version(void **state)
{
	struct fx *x = fx_new(NULL, 0, NULL, 0);
	struct tunings t;

	x->run.programmer = NULL;
	x->run.seed_source = "outcome=correct\nspeed=1.5\n" KNOBS_4;
	x->run.seed_name = "tunable.cu";
	x->task.reference_source = "constexpr int B = KP_TUNE(BLOCK, 256, 512);\n";
	x->run.budget.evals = 20;
	run_ok(x, KP_END_TUNED);
	assert_int_equal(node(x, 2).kind, KP_NODE_GIVEN);
	assert_non_null(strstr(node(x, 2).summary, "tunable.cu"));
	assert_int_equal(x->eval.first_id, 2);
	t = tunings(x);
	assert_string_equal(t.text, "#2 done BLOCK=512 [3] hits 0 evaluated 4");
	assert_true(counter(x, "evaluations") == 1 + 4 + 1);
	assert_true(fabs(node(x, 3).speedup - 2.4) < 1e-9);
	fx_free(x);
}

/* No programmer and no given version: a native reference with knobs is tuned itself. */
static void test_no_programmer_reference(void **state)
{
	struct fx *x = fx_new(NULL, 0, NULL, 0);

	x->run.programmer = NULL;
	x->task.reference_source = "outcome=correct\nspeed=1\n" KNOBS_4;
	run_ok(x, KP_END_TUNED); /* no evaluation budget: tune_budget (16) caps the action */
	assert_string_equal(tunings(x).text, "#1 done BLOCK=512 [2] hits 0 evaluated 4");
	assert_int_equal(node(x, 2).kind, KP_NODE_TUNE);
	assert_int_equal(node(x, 2).parent, 1);
	fx_free(x);
}

/*
 * A tuning interrupted half-way goes on when the run resumes: after a stop (Ctrl-C) and after an
 * evaluation that could not happen, the variants measured before are found in the run database
 * (cache hits), none is measured twice, and every one counted once.
 */
static void test_resume_interrupted_tuning(void **state)
{
	struct fx *x = fx_new(NULL, 0, NULL, 0);
	struct kp_search_outcome out;
	struct kp_error err = KP_ERROR_INIT;
	volatile sig_atomic_t stop = 0;

	x->run.programmer = NULL;
	x->run.seed_source = "outcome=correct\nspeed=1.5\n"
	                     "constexpr int B = KP_TUNE(BLOCK, 256, 32, 64, 128, 512, 1024);\nspeed@64=2\n";
	x->run.budget.evals = 20;
	x->run.stop = &stop;
	x->eval.stop = &stop;
	x->eval.stop_after_variants = 2;
	run_ok(x, KP_END_STOPPED);
	assert_int_equal(x->eval.variants, 2);
	assert_string_equal(tunings(x).text, "#2 running - [] hits 0 evaluated 0");
	assert_true(counter(x, "evaluations") == 1 + 2);

	/* Resumed, it fails at its fourth variant (the GPU is gone): an error, the tuning still running. */
	stop = 0;
	x->run.seed_source = NULL; /* a resumed run has its given version */
	x->eval.stop_after_variants = 0;
	x->eval.fail_at_variant = 4;
	assert_int_equal(kp_search_loop(&x->run, &out, &err), KP_ENODEV);
	assert_non_null(strstr(kp_error_msg(&err), "tuning #2"));
	kp_error_clear(&err);
	assert_int_equal(x->eval.variants, 3);
	assert_true(counter(x, "evaluations") == 1 + 3);

	/* Resumed again: the three measured come from the run database, the other three are measured. */
	x->eval.fail_at_variant = 0;
	kp_store_close(x->s);
	fx_open(x);
	run_ok(x, KP_END_TUNED);
	assert_int_equal(x->eval.variants, 6);
	assert_string_equal(tunings(x).text, "#2 done BLOCK=64 [3] hits 3 evaluated 3");
	assert_true(counter(x, "tune_evaluations") == 6);
	assert_true(counter(x, "evaluations") == 1 + 6 + 1);
	assert_int_equal(x->eval.reference_calls, 1);
	fx_free(x);
}

/* With a programmer, a given version is evaluated first and refined like any other. */
static void test_given_version_with_llm(void **state)
{
	struct fx *x = fx_new(NULL, 0, NULL, 0);
	x->run.seed_source = "outcome=correct\nspeed=1.3\n";
	x->run.budget.evals = 4;
	run_ok(x, KP_END_EVALS);
	assert_int_equal(x->eval.first_id, 2);
	assert_int_equal(node(x, 2).kind, KP_NODE_GIVEN);
	assert_int_equal(x->prog.calls, 3);
	fx_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tunes_best_version),
	    cmocka_unit_test(test_children_are_best_variants),
	    cmocka_unit_test(test_when_not_offered),
	    cmocka_unit_test(test_budget_accounting),
	    cmocka_unit_test(test_no_programmer_given_version),
	    cmocka_unit_test(test_no_programmer_reference),
	    cmocka_unit_test(test_resume_interrupted_tuning),
	    cmocka_unit_test(test_given_version_with_llm),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
