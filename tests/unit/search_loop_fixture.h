/* What t_search_loop.c and t_search_profile.c both need: the loop over a scripted programmer and a
 * fake harness in a fresh run database, its hooks, its clock, and the evaluations it recorded. */
#ifndef KP_TEST_SEARCH_LOOP_FIXTURE_H
#define KP_TEST_SEARCH_LOOP_FIXTURE_H

#include "kp_search_fakes.h"
#include "kp_test.h"
#include "kernelpro/search.h"

/* ---- fixture ------------------------------------------------------------------------------------ */

static struct kp_search_task TASK = {
	.name = "vec_add", .family = "vec_add", .reference_source = "// the reference\n"};

struct fx {
	char *dir;
	char db[512];
	struct kp_store *s;
	struct kp_search_run run;
	struct fake_prog prog;
	struct fake_eval eval;
	int candidates_seen, evaluated_seen; /* the loop's hooks */
	double clock_s;                      /* the loop's clock, when a test gives it one */
	/* Lookahead, seen as each version is committed: versions generated and not yet evaluated, and
	 * a parent's unevaluated children past its widening limit. */
	int check_lookahead, max_unevaluated, over_width;
};

/* When a version is committed: how far generation is ahead of evaluation, in all and at its parent. */
static inline void see_lookahead(struct fx *x, long id)
{
	struct kp_node_row *rows = NULL;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_tree t;
	size_t n = 0;
	int unevaluated = 0, idx, parent, children = 0, limit;

	KP_ASSERT_OK(kp_store_nodes_load(x->s, &rows, &n, &err), &err);
	kp_tree_init(&t);
	for (size_t i = 0; i < n; i++) {
		kp_tree_add(&t, &rows[i]);
		unevaluated += rows[i].parent > 0 && !rows[i].evaluated;
	}
	free(rows);
	if (unevaluated > x->max_unevaluated)
		x->max_unevaluated = unevaluated;
	idx = kp_tree_find(&t, id);
	parent = t.n[idx].parent;
	for (int c = t.n[parent].first_child; c >= 0; c = t.n[c].next_sibling)
		children += !t.n[c].evaluated;
	limit = kp_search_width_limit(&t, &x->run.params, parent);
	if (children > (limit > 1 ? limit : 1))
		x->over_width++;
	kp_tree_release(&t);
}

static inline void on_candidate(long id, const char *source, void *ud)
{
	struct fx *x = ud;
	assert_true(id > 1);
	assert_non_null(strstr(source, "outcome="));
	x->candidates_seen++;
	if (x->check_lookahead)
		see_lookahead(x, id);
}

static inline void on_evaluated(void *ud)
{
	((struct fx *)ud)->evaluated_seen++;
}

static inline void fx_open(struct fx *x)
{
	struct kp_error err = KP_ERROR_INIT;
	if (kp_store_open(&x->s, x->db, KP_STORE_CREATE, &err))
		fail_msg("%s", kp_error_msg(&err));
	x->run.store = x->s;
	x->run.run_name = "test-run";
	TASK.kind = kp_task_kind_info(KP_TASK_NATIVE);
	x->run.task = &TASK;
	x->run.candidate = on_candidate;
	x->run.evaluated = on_evaluated;
	x->run.ud = x;
	x->run.programmer = &x->prog.base;
	x->run.evaluator = &x->eval.base;
}

static inline struct fx *fx_new(const struct step *script, size_t n)
{
	struct fx *x = kp_xcalloc(1, sizeof(*x));
	x->dir = kp_test_tmpdir();
	snprintf(x->db, sizeof(x->db), "%s/run.db", x->dir);
	fake_prog_init(&x->prog, script, n);
	fake_eval_init(&x->eval);
	kp_search_params_default(&x->run.params);
	fx_open(x);
	return x;
}

static inline void fx_free(struct fx *x)
{
	kp_store_close(x->s);
	kp_test_tmpdir_remove(x->dir);
	free(x);
}

static inline int run_loop(struct fx *x, struct kp_search_outcome *out, struct kp_error *err)
{
	return kp_search_loop(&x->run, out, err);
}


static inline double fx_clock(void *ud)
{
	return ((struct fx *)ud)->clock_s;
}

/* The candidates' evaluations (node > 1): how many, the sum of their node ids, nodes judged twice. */
struct eval_stats {
	long n, id_sum, twice;
	long seen[64];
};

static inline int eval_stat(const struct kp_eval_row *r, void *ud)
{
	struct eval_stats *e = ud;
	if (r->node <= 1)
		return 0;
	for (long i = 0; i < e->n && i < 64; i++)
		e->twice += e->seen[i] == r->node;
	if (e->n < 64)
		e->seen[e->n] = r->node;
	e->n++;
	e->id_sum += r->node;
	return 0;
}

static inline struct eval_stats eval_stats(struct kp_store *s)
{
	struct eval_stats e;
	struct kp_error err = KP_ERROR_INIT;
	memset(&e, 0, sizeof(e));
	KP_ASSERT_OK(kp_store_evals_each(s, eval_stat, &e, &err), &err);
	return e;
}

#endif
