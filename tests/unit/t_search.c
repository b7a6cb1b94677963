/* Unit tests: search parameters, the speed(+energy) comparison, reward, widening, UCT selection, backup, pruning, baselines. */
#include "base/setup.h"

#include <math.h>

#include "kp_test.h"
#include "kernelpro/search.h"

static struct kp_search_params P;

static int reset(void **state)
{
	kp_search_params_default(&P);
	return 0;
}

/* Adds node `id` under `parent` (0: root) and records its evaluation. Returns its index. */
static int add(struct kp_tree *t, long id, long parent, enum kp_outcome o, double speedup)
{
	struct kp_node_row r;
	int pidx = parent ? kp_tree_find(t, parent) : -1;
	int idx;
	kp_node_row_init(&r);
	r.id = id;
	r.parent = parent;
	r.kind = parent ? KP_NODE_REFINE : KP_NODE_ROOT;
	if (pidx >= 0) {
		r.kind = kp_search_child_kind(t, pidx);
		r.depth = t->n[pidx].depth + 1;
		t->n[pidx].expansions++;
	}
	idx = kp_tree_add(t, &r);
	kp_tree_record(t, &P, idx, o, speedup, NAN);
	return idx;
}

/* ---- parameters ----------------------------------------------------------------------------- */

static void test_params(void **state)
{
	struct kp_error err = KP_ERROR_INIT;
	struct kp_search_params q;
	size_t n;
	const struct kp_search_param_desc *d = kp_search_param_table(&n);
	json_t *j;

	assert_true(n >= 20);
	for (size_t i = 0; i < n; i++) { /* every constant documented */
		assert_non_null(d[i].help);
		assert_true(strlen(d[i].help) > 10);
	}
	assert_int_equal(P.algo, KP_SEARCH_MCTS);
	assert_int_equal(P.repair_cap, 2);
	KP_ASSERT_OK(kp_search_param_set(&P, "uct-c", "1.25", &err), &err);
	assert_true(P.uct_c == 1.25);
	KP_ASSERT_OK(kp_search_param_assign(&P, "search=beam", &err), &err);
	assert_int_equal(P.algo, KP_SEARCH_BEAM);
	KP_ASSERT_OK(kp_search_param_assign(&P, "objective=speed+energy", &err), &err);
	assert_int_equal(P.objective, KP_OBJECTIVE_SPEED_ENERGY);

	assert_int_equal(kp_search_param_set(&P, "repair_cap", "3", &err), KP_EINVAL); /* capped at 2 */
	assert_non_null(strstr(kp_error_msg(&err), "repair_cap"));
	kp_error_clear(&err);
	assert_int_equal(kp_search_param_set(&P, "uct_c", "abc", &err), KP_EINVAL);
	kp_error_clear(&err);
	assert_int_equal(kp_search_param_set(&P, "no_such", "1", &err), KP_EINVAL);
	kp_error_clear(&err);
	assert_int_equal(kp_search_param_assign(&P, "search", &err), KP_EINVAL);
	kp_error_clear(&err);
	assert_int_equal(kp_search_param_set(&P, "backup", "median", &err), KP_EINVAL);
	assert_non_null(strstr(kp_error_msg(&err), "mean|max"));

	/* JSON round trip keeps every value. */
	j = kp_search_params_to_json(&P);
	kp_search_params_default(&q);
	KP_ASSERT_OK(kp_search_params_from_json(&q, j, &err), &err);
	assert_memory_equal(&q, &P, sizeof(P));
	json_object_set_new(j, "bogus", json_integer(1));
	assert_int_equal(kp_search_params_from_json(&q, j, &err), KP_EINVAL);
	json_decref(j);
}

/* ---- comparison and reward ---------------------------------------------------------------- */

static void test_compare_speed(void **state)
{
	struct kp_search_score fast = {1, 2.0, NAN}, slow = {1, 1.5, NAN}, broken = {0, 50.0, NAN};
	assert_true(kp_search_compare(&fast, &slow, KP_OBJECTIVE_SPEED, 0.02) > 0);
	assert_true(kp_search_compare(&slow, &fast, KP_OBJECTIVE_SPEED, 0.02) < 0);
	assert_true(kp_search_compare(&fast, &fast, KP_OBJECTIVE_SPEED, 0.02) == 0);
	/* A failed candidate loses whatever speed it claims. */
	assert_true(kp_search_compare(&broken, &slow, KP_OBJECTIVE_SPEED, 0.02) < 0);
	assert_true(kp_search_compare(&slow, &broken, KP_OBJECTIVE_SPEED_ENERGY, 0.02) > 0);
}

static void test_compare_energy(void **state)
{
	struct kp_search_score a = {1, 2.00, 5.0}, b = {1, 2.02, 8.0}, c = {1, 2.5, 9.0}, noe = {1, 2.01, NAN};
	/* Within the band (|log 2.02 - log 2| = 0.00995 < 0.02): lower energy wins. */
	assert_true(kp_search_compare(&a, &b, KP_OBJECTIVE_SPEED_ENERGY, 0.02) > 0);
	assert_true(kp_search_compare(&b, &a, KP_OBJECTIVE_SPEED_ENERGY, 0.02) < 0);
	/* Speed only: b is faster. */
	assert_true(kp_search_compare(&a, &b, KP_OBJECTIVE_SPEED, 0.02) < 0);
	/* Outside the band speed decides, whatever the energy. */
	assert_true(kp_search_compare(&c, &a, KP_OBJECTIVE_SPEED_ENERGY, 0.02) > 0);
	/* A band of 0 makes it plain speed. */
	assert_true(kp_search_compare(&a, &b, KP_OBJECTIVE_SPEED_ENERGY, 0.0) < 0);
	/* Without a measurement a candidate loses the tie-break. */
	assert_true(kp_search_compare(&noe, &a, KP_OBJECTIVE_SPEED_ENERGY, 0.02) < 0);
}

static void test_reward(void **state)
{
	assert_true(fabs(kp_search_reward(&P, KP_OUTCOME_CORRECT, 2.0, NAN, NAN) - log(2.0)) < 1e-12);
	assert_true(kp_search_reward(&P, KP_OUTCOME_CORRECT, 1e9, NAN, NAN) == P.reward_max);
	assert_true(kp_search_reward(&P, KP_OUTCOME_CORRECT, 1e-9, NAN, NAN) == P.reward_min);
	for (int o = KP_OUTCOME_COMPILE_ERROR; o < KP_OUTCOME_COUNT; o++)
		assert_true(kp_search_reward(&P, (enum kp_outcome)o, 10.0, NAN, NAN) == P.reward_fail);
	assert_true(kp_search_reward(&P, KP_OUTCOME_CORRECT, NAN, NAN, NAN) == P.reward_fail);
	/* Energy moves the reward by at most the noise band, and only with that objective. */
	assert_true(kp_search_reward(&P, KP_OUTCOME_CORRECT, 2.0, 1.0, 100.0) == log(2.0));
	P.objective = KP_OBJECTIVE_SPEED_ENERGY;
	double r = kp_search_reward(&P, KP_OUTCOME_CORRECT, 2.0, 1.0, 100.0);
	assert_true(r > log(2.0) && r <= log(2.0) + P.noise_band + 1e-12);
	r = kp_search_reward(&P, KP_OUTCOME_CORRECT, 2.0, 100.0, 1.0);
	assert_true(r < log(2.0) && r >= log(2.0) - P.noise_band - 1e-12);
}

/* ---- widening --------------------------------------------------------------------------------- */

static void test_width_limits(void **state)
{
	struct kp_tree t;
	kp_tree_init(&t);
	int root = add(&t, 1, 0, KP_OUTCOME_CORRECT, 1);
	int bad = add(&t, 2, 1, KP_OUTCOME_COMPILE_ERROR, NAN);
	struct kp_tnode *r = &t.n[root], *b = &t.n[bad];

	P.refine_k = 2;
	P.refine_alpha = 0.5;
	/* Refine: floor(2 * N^0.5), at most 8. */
	r->visits = 1;
	assert_int_equal(kp_search_width_limit(&t, &P, root), 2);
	r->visits = 4;
	assert_int_equal(kp_search_width_limit(&t, &P, root), 4);
	r->visits = 9;
	assert_int_equal(kp_search_width_limit(&t, &P, root), 6);
	r->visits = 10000;
	assert_int_equal(kp_search_width_limit(&t, &P, root), 8);
	P.refine_cap = 0;
	assert_int_equal(kp_search_width_limit(&t, &P, root), 200);

	/* Repair: floor(1 * N^0.3), at most 2: asymmetric, a failed node widens far slower. */
	b->visits = 1;
	assert_int_equal(kp_search_width_limit(&t, &P, bad), 1);
	b->visits = 10;
	assert_int_equal(kp_search_width_limit(&t, &P, bad), 1); /* 10^0.3 = 1.995 */
	b->visits = 11;
	assert_int_equal(kp_search_width_limit(&t, &P, bad), 2);
	b->visits = 100000;
	assert_int_equal(kp_search_width_limit(&t, &P, bad), 2);
	/* k small enough to give 0 still leaves room for one child. */
	P.repair_k = 0.1;
	b->visits = 1;
	assert_int_equal(kp_search_width_limit(&t, &P, bad), 1);
	/* A line that failed more than max_repairs times takes no more repairs. */
	b->fail_depth = P.max_repairs + 1;
	assert_int_equal(kp_search_width_limit(&t, &P, bad), 0);
	kp_tree_release(&t);
}

/* ---- backup ----------------------------------------------------------------------------------- */

static void test_backup_mean_and_max(void **state)
{
	struct kp_tree t;
	kp_tree_init(&t);
	add(&t, 1, 0, KP_OUTCOME_CORRECT, 1);
	add(&t, 2, 1, KP_OUTCOME_CORRECT, 2.0);
	add(&t, 3, 2, KP_OUTCOME_CORRECT, 4.0);
	add(&t, 4, 2, KP_OUTCOME_WRONG_OUTPUT, NAN);
	const struct kp_tnode *root = &t.n[0], *a = &t.n[1];

	assert_int_equal(root->visits, 4);
	assert_int_equal(a->visits, 3);
	assert_true(fabs(a->sum_r - (log(2) + log(4) + P.reward_fail)) < 1e-12);
	assert_true(fabs(a->max_r - log(4)) < 1e-12);
	assert_true(fabs(root->sum_r - (0 + log(2) + log(4) + P.reward_fail)) < 1e-12);
	assert_true(fabs(root->max_r - log(4)) < 1e-12);
	/* The failed leaf's own numbers. */
	assert_true(t.n[3].reward == P.reward_fail);
	assert_int_equal(t.n[3].fail_depth, 1);
	assert_true(isnan(t.n[3].speedup));
	/* Every changed node is marked for writing back. */
	for (size_t i = 0; i < t.count; i++)
		assert_true(t.n[i].dirty);
	kp_tree_release(&t);
}

/* ---- selection ---------------------------------------------------------------------------------- */

static void test_uct_selection(void **state)
{
	struct kp_tree t;
	kp_tree_init(&t);
	P.refine_k = 0.5;   /* width 1 until N >= 4, 2 until 16 ... */
	P.refine_alpha = 0.5;
	P.refine_cap = 3;
	add(&t, 1, 0, KP_OUTCOME_CORRECT, 1);
	/* Root holds three children: width reached at root (cap 3). */
	add(&t, 2, 1, KP_OUTCOME_CORRECT, 1.2);
	add(&t, 3, 1, KP_OUTCOME_CORRECT, 3.0);
	add(&t, 4, 1, KP_OUTCOME_CORRECT, 0.8);
	t.n[0].visits = 1000; /* much evidence: exploitation dominates */
	assert_int_equal(kp_search_select(&t, &P), kp_tree_find(&t, 3));

	/* Exploration: a much less visited sibling wins when c is large. */
	t.n[1].visits = 1;
	t.n[2].visits = 500;
	t.n[2].sum_r = 500 * log(3.0);
	t.n[3].visits = 1;
	P.uct_c = 5;
	double u2 = kp_search_uct(&t, &P, 1), u3 = kp_search_uct(&t, &P, 2);
	assert_true(u2 > u3);
	assert_int_equal(kp_search_select(&t, &P), kp_tree_find(&t, 2)); /* width of #2 (N=1): floor(.5)->1 */
	kp_tree_release(&t);
}

static void test_selection_expands_root_first_and_widening_grows(void **state)
{
	struct kp_tree t;
	kp_tree_init(&t);
	P.refine_k = 2;
	P.refine_alpha = 0.5;
	P.leader_widen = 0;
	add(&t, 1, 0, KP_OUTCOME_CORRECT, 1);
	/* N=1: width 2, no children: expand the root. */
	assert_int_equal(kp_search_select(&t, &P), 0);
	add(&t, 2, 1, KP_OUTCOME_CORRECT, 1.1);
	/* N=2: floor(2*1.41) = 2 > 1 child: root again. */
	assert_int_equal(kp_search_select(&t, &P), 0);
	add(&t, 3, 1, KP_OUTCOME_CORRECT, 1.3);
	/* N=3: floor(3.46) = 3 > 2. */
	assert_int_equal(kp_search_select(&t, &P), 0);
	add(&t, 4, 1, KP_OUTCOME_CORRECT, 1.2);
	add(&t, 5, 1, KP_OUTCOME_CORRECT, 1.2);
	/* N=5: floor(4.47) = 4 < 4 children? no: 4 children, width 4: descend to the best child. */
	assert_int_equal(kp_search_select(&t, &P), kp_tree_find(&t, 3));
	kp_tree_release(&t);
}

static void test_inflight_counts_toward_width(void **state)
{
	struct kp_tree t;
	kp_tree_init(&t);
	P.refine_k = 2;
	P.refine_alpha = 0.5;
	add(&t, 1, 0, KP_OUTCOME_CORRECT, 1);
	add(&t, 2, 1, KP_OUTCOME_CORRECT, 2.0);
	/* Root: N=2, width 2, one child: expand the root ... */
	assert_int_equal(kp_search_select(&t, &P), 0);
	kp_tree_begin_expand(&t, 0);
	/* ... and with that request in flight the next pick goes below. */
	assert_int_equal(kp_search_select(&t, &P), 1);
	kp_tree_begin_expand(&t, 1);
	assert_int_equal(t.n[0].inflight, 2);
	kp_tree_end_expand(&t, 1);
	kp_tree_end_expand(&t, 0);
	assert_int_equal(t.n[0].inflight, 0);
	assert_int_equal(t.n[0].pending, 0);
	kp_tree_release(&t);
}

static void test_failed_node_gets_repair_mode(void **state)
{
	struct kp_tree t;
	kp_tree_init(&t);
	add(&t, 1, 0, KP_OUTCOME_CORRECT, 1);
	int bad = add(&t, 2, 1, KP_OUTCOME_COMPILE_ERROR, NAN);
	assert_int_equal(kp_search_child_kind(&t, 0), KP_NODE_INITIAL);
	assert_int_equal(kp_search_child_kind(&t, bad), KP_NODE_REPAIR);
	assert_int_equal(kp_search_child_mode(KP_NODE_REPAIR), KP_PROG_DEBUG);
	assert_int_equal(kp_search_child_mode(KP_NODE_REFINE), KP_PROG_OPTIMIZE);
	assert_int_equal(kp_search_child_mode(KP_NODE_INITIAL), KP_PROG_INITIAL);
	int good = add(&t, 3, 1, KP_OUTCOME_CORRECT, 1.5);
	assert_int_equal(kp_search_child_kind(&t, good), KP_NODE_REFINE);
	kp_tree_release(&t);
}

/* ---- pruning ----------------------------------------------------------------------------------- */

static void test_prune_repeated_failed_repairs(void **state)
{
	struct kp_tree t;
	kp_tree_init(&t);
	add(&t, 1, 0, KP_OUTCOME_CORRECT, 1);
	add(&t, 2, 1, KP_OUTCOME_CORRECT, 1.5);
	int f1 = add(&t, 3, 2, KP_OUTCOME_COMPILE_ERROR, NAN);
	int f2 = add(&t, 4, 3, KP_OUTCOME_RUNTIME_ERROR, NAN);
	assert_int_equal(t.n[f1].dead, KP_DEAD_ALIVE);
	assert_int_equal(t.n[f2].dead, KP_DEAD_ALIVE);
	assert_int_equal(t.n[f2].fail_depth, 2);
	int f3 = add(&t, 5, 4, KP_OUTCOME_COMPILE_ERROR, NAN);
	assert_int_equal(t.n[f3].fail_depth, 3);
	assert_int_equal(t.n[f3].dead, KP_DEAD_REPAIRS_FAILED);
	/* A successful repair resets the line. */
	int ok = add(&t, 6, 3, KP_OUTCOME_CORRECT, 1.6);
	assert_int_equal(t.n[ok].fail_depth, 0);
	kp_tree_release(&t);
}

static void test_prune_no_gain(void **state)
{
	struct kp_tree t;
	kp_tree_init(&t);
	P.prune_m = 3;
	add(&t, 1, 0, KP_OUTCOME_CORRECT, 1);
	int a = add(&t, 2, 1, KP_OUTCOME_CORRECT, 2.0);
	add(&t, 3, 2, KP_OUTCOME_CORRECT, 1.9);
	add(&t, 4, 2, KP_OUTCOME_COMPILE_ERROR, NAN);
	assert_int_equal(t.n[a].dead, KP_DEAD_ALIVE);
	add(&t, 5, 2, KP_OUTCOME_CORRECT, 2.0 * exp(P.prune_delta / 2)); /* within delta: no gain */
	assert_int_equal(t.n[a].dead, KP_DEAD_NO_GAIN);

	/* A sibling with a real gain below it stays open. */
	int b = add(&t, 6, 1, KP_OUTCOME_CORRECT, 2.0);
	add(&t, 7, 6, KP_OUTCOME_CORRECT, 1.0);
	add(&t, 8, 6, KP_OUTCOME_CORRECT, 1.0);
	add(&t, 9, 6, KP_OUTCOME_CORRECT, 2.5);
	assert_int_equal(t.n[b].dead, KP_DEAD_ALIVE);
	/* The root is never closed, and the baselines never prune for lack of gain. */
	assert_int_equal(t.n[0].dead, KP_DEAD_ALIVE);
	P.algo = KP_SEARCH_GREEDY;
	int c = add(&t, 10, 1, KP_OUTCOME_CORRECT, 3.0);
	add(&t, 11, 10, KP_OUTCOME_CORRECT, 1.0);
	add(&t, 12, 10, KP_OUTCOME_CORRECT, 1.0);
	add(&t, 13, 10, KP_OUTCOME_CORRECT, 1.0);
	assert_int_equal(t.n[c].dead, KP_DEAD_ALIVE);
	kp_tree_release(&t);
}

static void test_selection_closes_exhausted(void **state)
{
	struct kp_tree t;
	kp_tree_init(&t);
	P.refine_cap = 1;
	P.repair_cap = 1;
	P.max_repairs = 1;
	add(&t, 1, 0, KP_OUTCOME_CORRECT, 1);
	int bad = add(&t, 2, 1, KP_OUTCOME_COMPILE_ERROR, NAN);
	/* The root is full (cap 1): selection goes to the failed child, to repair it. */
	assert_int_equal(kp_search_select(&t, &P), bad);
	int bad2 = add(&t, 3, 2, KP_OUTCOME_COMPILE_ERROR, NAN);
	assert_int_equal(t.n[bad2].dead, KP_DEAD_REPAIRS_FAILED);
	/* Nothing left: the failed child closes as exhausted; the root never closes. */
	assert_int_equal(kp_search_select(&t, &P), -1);
	assert_int_equal(t.n[bad].dead, KP_DEAD_EXHAUSTED);
	assert_int_equal(t.n[0].dead, KP_DEAD_ALIVE);
	kp_tree_release(&t);
}

static void test_leader_widening(void **state)
{
	struct kp_tree t;
	kp_tree_init(&t);
	add(&t, 1, 0, KP_OUTCOME_CORRECT, 1);
	int a = add(&t, 2, 1, KP_OUTCOME_CORRECT, 2.0);
	int b = add(&t, 3, 2, KP_OUTCOME_CORRECT, 1.2);
	/* #2 (N=2) is at its widening limit of 1, but it beats everything made from it: try it again. */
	assert_int_equal(kp_search_width_limit(&t, &P, a), 1);
	assert_int_equal(kp_search_select(&t, &P), a);
	/* Without leader widening the search goes into the worse child. */
	P.leader_widen = 0;
	assert_int_equal(kp_search_select(&t, &P), b);
	P.leader_widen = 1;
	/* A failure made from the leader is weighed for repair (first-play urgency: valued at
	 * log 2 - 0.3 = 0.39, above the worse sibling's log 1.2 = 0.18). */
	int f = add(&t, 4, 2, KP_OUTCOME_COMPILE_ERROR, NAN);
	assert_int_equal(kp_search_select(&t, &P), f);
	/* With a prohibitive urgency penalty UCT prefers the correct child instead. */
	P.repair_fpu = 50;
	assert_int_equal(kp_search_select(&t, &P), b);
	kp_tree_release(&t);
}

static void test_open_node_is_not_closed_below_its_cap(void **state)
{
	struct kp_tree t;
	kp_tree_init(&t);
	P.leader_widen = 0;
	P.refine_cap = 3;
	P.repair_cap = 1;
	add(&t, 1, 0, KP_OUTCOME_CORRECT, 1);
	int a = add(&t, 2, 1, KP_OUTCOME_CORRECT, 1.2);
	int c = add(&t, 3, 2, KP_OUTCOME_COMPILE_ERROR, NAN);
	int d = add(&t, 4, 3, KP_OUTCOME_COMPILE_ERROR, NAN);
	add(&t, 5, 4, KP_OUTCOME_COMPILE_ERROR, NAN);
	/* Every node is at its widening limit (floor(N^0.3) = 1). #3's line failed three times and has
	 * no repair left: it closes. #2, a correct version under its hard cap of 3, takes another child
	 * rather than closing with its version in it. */
	assert_int_equal(kp_search_width_limit(&t, &P, 0), 1);
	assert_int_equal(kp_search_width_limit(&t, &P, a), 1);
	assert_int_equal(kp_search_select(&t, &P), a);
	assert_int_equal(t.n[c].dead, KP_DEAD_EXHAUSTED);
	assert_int_equal(t.n[d].dead, KP_DEAD_EXHAUSTED);
	assert_int_equal(t.n[a].dead, KP_DEAD_ALIVE);
	/* At its hard cap it closes too (the root never does). */
	t.n[a].expansions = 3;
	assert_int_equal(kp_search_select(&t, &P), 0);
	assert_int_equal(t.n[a].dead, KP_DEAD_EXHAUSTED);
	kp_tree_release(&t);
}

/* ---- best ------------------------------------------------------------------------------------------ */

static void test_failing_candidate_never_best(void **state)
{
	struct kp_tree t;
	kp_tree_init(&t);
	add(&t, 1, 0, KP_OUTCOME_CORRECT, 1);
	assert_int_equal(t.best, 0); /* the reference until beaten */
	for (int o = KP_OUTCOME_COMPILE_ERROR; o < KP_OUTCOME_COUNT; o++) {
		add(&t, 2 + o, 1, (enum kp_outcome)o, 1000.0); /* claims a huge speedup */
		assert_int_equal(t.best, 0);
	}
	int good = add(&t, 20, 1, KP_OUTCOME_CORRECT, 1.3);
	assert_int_equal(t.best, good);
	add(&t, 21, 20, KP_OUTCOME_CHEAT_SUSPECTED, 99.0);
	assert_int_equal(t.best, good);
	/* Recomputing from scratch agrees. */
	kp_tree_update_best(&t, &P);
	assert_int_equal(t.best, good);
	/* A correct candidate slower than the reference does not replace it. */
	kp_tree_release(&t);
	kp_tree_init(&t);
	add(&t, 1, 0, KP_OUTCOME_CORRECT, 1);
	add(&t, 2, 1, KP_OUTCOME_CORRECT, 0.5);
	assert_int_equal(t.best, 0);
	kp_tree_release(&t);
}

static void test_best_energy_tiebreak(void **state)
{
	struct kp_tree t;
	struct kp_node_row r;
	kp_tree_init(&t);
	P.objective = KP_OBJECTIVE_SPEED_ENERGY;
	kp_node_row_init(&r);
	r.id = 1;
	kp_tree_record(&t, &P, kp_tree_add(&t, &r), KP_OUTCOME_CORRECT, 1, 10.0);
	r.id = 2;
	r.parent = 1;
	kp_tree_record(&t, &P, kp_tree_add(&t, &r), KP_OUTCOME_CORRECT, 2.00, 8.0);
	r.id = 3;
	kp_tree_record(&t, &P, kp_tree_add(&t, &r), KP_OUTCOME_CORRECT, 2.02, 9.0);
	assert_int_equal(t.n[t.best].id, 2); /* tie on speed, less energy */
	r.id = 4;
	kp_tree_record(&t, &P, kp_tree_add(&t, &r), KP_OUTCOME_CORRECT, 2.2, 9.5);
	assert_int_equal(t.n[t.best].id, 4);
	assert_true(t.ref_energy_j == 10.0);
	kp_tree_release(&t);
}

/* ---- baselines ----------------------------------------------------------------------------------- */

static void test_greedy(void **state)
{
	struct kp_tree t;
	kp_tree_init(&t);
	P.algo = KP_SEARCH_GREEDY;
	add(&t, 1, 0, KP_OUTCOME_CORRECT, 1);
	assert_int_equal(kp_search_select(&t, &P), 0);
	int a = add(&t, 2, 1, KP_OUTCOME_CORRECT, 1.5);
	add(&t, 3, 1, KP_OUTCOME_CORRECT, 1.2);
	assert_int_equal(kp_search_select(&t, &P), a); /* always the best */
	int f = add(&t, 4, 2, KP_OUTCOME_COMPILE_ERROR, NAN);
	assert_int_equal(kp_search_select(&t, &P), f); /* its failure gets repaired first */
	int f2 = add(&t, 5, 4, KP_OUTCOME_COMPILE_ERROR, NAN);
	assert_int_equal(kp_search_select(&t, &P), f2);
	add(&t, 6, 5, KP_OUTCOME_COMPILE_ERROR, NAN); /* third failure in a row: line closed */
	assert_int_equal(kp_search_select(&t, &P), a);
	kp_tree_release(&t);
}

static void test_beam(void **state)
{
	struct kp_tree t;
	kp_tree_init(&t);
	P.algo = KP_SEARCH_BEAM;
	P.beam_width = 2;
	add(&t, 1, 0, KP_OUTCOME_CORRECT, 1);
	int a = add(&t, 2, 1, KP_OUTCOME_CORRECT, 1.5);
	int b = add(&t, 3, 1, KP_OUTCOME_CORRECT, 1.4);
	add(&t, 4, 1, KP_OUTCOME_CORRECT, 1.1);
	/* Beam = {#2, #3}; both unexpanded: the better one first, then the other. */
	assert_int_equal(kp_search_select(&t, &P), a);
	add(&t, 5, 2, KP_OUTCOME_CORRECT, 1.45);
	/* Beam = {#2 (1 child), #5 (0)}: #5, least expanded. */
	assert_int_equal(kp_search_select(&t, &P), kp_tree_find(&t, 5));
	(void)b;
	int f = add(&t, 6, 5, KP_OUTCOME_WRONG_OUTPUT, NAN);
	assert_int_equal(kp_search_select(&t, &P), f);
	kp_tree_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_params, reset),
		cmocka_unit_test_setup(test_compare_speed, reset),
		cmocka_unit_test_setup(test_compare_energy, reset),
		cmocka_unit_test_setup(test_reward, reset),
		cmocka_unit_test_setup(test_width_limits, reset),
		cmocka_unit_test_setup(test_backup_mean_and_max, reset),
		cmocka_unit_test_setup(test_uct_selection, reset),
		cmocka_unit_test_setup(test_selection_expands_root_first_and_widening_grows, reset),
		cmocka_unit_test_setup(test_inflight_counts_toward_width, reset),
		cmocka_unit_test_setup(test_failed_node_gets_repair_mode, reset),
		cmocka_unit_test_setup(test_prune_repeated_failed_repairs, reset),
		cmocka_unit_test_setup(test_prune_no_gain, reset),
		cmocka_unit_test_setup(test_selection_closes_exhausted, reset),
		cmocka_unit_test_setup(test_leader_widening, reset),
		cmocka_unit_test_setup(test_open_node_is_not_closed_below_its_cap, reset),
		cmocka_unit_test_setup(test_failing_candidate_never_best, reset),
		cmocka_unit_test_setup(test_best_energy_tiebreak, reset),
		cmocka_unit_test_setup(test_greedy, reset),
		cmocka_unit_test_setup(test_beam, reset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
