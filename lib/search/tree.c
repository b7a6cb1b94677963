/* The in-memory search tree: nodes by database id, reward, backup, dead-end pruning and the best node. */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/search.h"
#include "kernelpro/str.h"

void kp_tree_init(struct kp_tree *t)
{
	memset(t, 0, sizeof(*t));
	t->best = -1;
	t->ref_energy_j = NAN;
}

void kp_tree_release(struct kp_tree *t)
{
	free(t->n);
	kp_tree_init(t);
}

int kp_tree_find(const struct kp_tree *t, long id)
{
	/* Ids increase with the index (kp_tree_add checks), so a binary search finds them. */
	size_t lo = 0, hi = t->count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->n[mid].id == id)
			return (int)mid;
		if (t->n[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

int kp_tree_add(struct kp_tree *t, const struct kp_node_row *row)
{
	struct kp_tnode *n;
	int parent = row->parent > 0 ? kp_tree_find(t, row->parent) : -1;
	int idx = (int)t->count;

	if (t->count && row->id <= t->n[t->count - 1].id)
		KP_BUG("search tree: node #%ld added after #%ld", row->id, t->n[t->count - 1].id);
	if (row->parent > 0 && parent < 0)
		KP_BUG("search tree: node #%ld has unknown parent #%ld", row->id, row->parent);
	if (row->parent <= 0 && t->count)
		KP_BUG("search tree: a second root (#%ld)", row->id);
	KP_ALLOC_GROW(t->n, t->count + 1, t->alloc);
	n = &t->n[t->count++];
	memset(n, 0, sizeof(*n));
	n->id = row->id;
	n->parent = parent;
	n->first_child = n->next_sibling = n->last_child = -1;
	n->kind = row->kind;
	n->depth = row->depth;
	n->evaluated = row->evaluated;
	n->outcome = row->outcome;
	n->speedup = row->speedup;
	n->energy_j = row->energy_j;
	n->time_ms = row->time_ms;
	n->reward = row->reward;
	n->visits = row->visits;
	n->sum_r = row->sum_r;
	n->max_r = row->max_r;
	n->fail_depth = row->fail_depth;
	n->expansions = row->expansions;
	n->dead = row->dead;
	kp_strlcpy(n->format, row->format, sizeof(n->format));
	n->dead_noted = row->dead != KP_DEAD_ALIVE;
	n->knobs = -1; /* looked at when the tune action could apply (lib/search/tune.c) */
	if (parent >= 0) {
		struct kp_tnode *p = &t->n[parent];
		if (p->last_child >= 0)
			t->n[p->last_child].next_sibling = idx;
		else
			p->first_child = idx;
		p->last_child = idx;
	}
	return idx;
}

void kp_tree_to_row(const struct kp_tree *t, int idx, struct kp_node_row *row)
{
	const struct kp_tnode *n = &t->n[idx];
	row->id = n->id;
	row->evaluated = n->evaluated;
	row->outcome = n->outcome;
	row->speedup = n->speedup;
	row->energy_j = n->energy_j;
	row->time_ms = n->time_ms;
	row->reward = n->reward;
	row->visits = n->visits;
	row->sum_r = n->sum_r;
	row->max_r = n->max_r;
	row->fail_depth = n->fail_depth;
	row->expansions = n->expansions;
	row->dead = n->dead;
}

void kp_tree_clear_dirty(struct kp_tree *t)
{
	for (size_t i = 0; i < t->count; i++)
		t->n[i].dirty = 0;
}

/* ---- comparison and reward ------------------------------------------------------------------------ */

int kp_search_compare(const struct kp_search_score *a, const struct kp_search_score *b, int objective, double noise_band)
{
	double la, lb;
	if (a->correct != b->correct)
		return a->correct ? 1 : -1;
	if (!a->correct)
		return 0;
	la = log(a->speedup);
	lb = log(b->speedup);
	if (objective == KP_OBJECTIVE_SPEED_ENERGY && fabs(la - lb) <= noise_band) {
		int ha = isfinite(a->energy_j), hb = isfinite(b->energy_j);
		if (ha != hb)
			return ha ? 1 : -1;
		if (ha && a->energy_j != b->energy_j)
			return a->energy_j < b->energy_j ? 1 : -1;
	}
	return la > lb ? 1 : la < lb ? -1 : 0;
}

double kp_search_reward(const struct kp_search_params *p, enum kp_outcome o, double speedup, double energy_j,
			double ref_energy_j)
{
	double r;
	if (o != KP_OUTCOME_CORRECT || !(speedup > 0) || !isfinite(speedup))
		return p->reward_fail;
	r = log(speedup);
	r = r < p->reward_min ? p->reward_min : r > p->reward_max ? p->reward_max : r;
	if (p->objective == KP_OBJECTIVE_SPEED_ENERGY && energy_j > 0 && ref_energy_j > 0) {
		double e = log(ref_energy_j / energy_j);
		e = e < -1 ? -1 : e > 1 ? 1 : e;
		r += p->noise_band * e;
	}
	return r;
}

struct kp_search_score kp_tree_score(const struct kp_tree *t, int idx)
{
	const struct kp_tnode *n = &t->n[idx];
	struct kp_search_score s = {n->evaluated && n->outcome == KP_OUTCOME_CORRECT, n->speedup, n->energy_j};
	if (n->parent < 0 && n->evaluated && n->outcome == KP_OUTCOME_CORRECT && !(n->speedup > 0))
		s.speedup = 1.0;
	return s;
}

static void consider_best(struct kp_tree *t, const struct kp_search_params *p, int idx)
{
	struct kp_search_score s = kp_tree_score(t, idx), b;
	if (!s.correct)
		return;
	if (t->best < 0) {
		t->best = idx;
		return;
	}
	b = kp_tree_score(t, t->best);
	if (kp_search_compare(&s, &b, p->objective, p->noise_band) > 0)
		t->best = idx;
}

void kp_tree_update_best(struct kp_tree *t, const struct kp_search_params *p)
{
	t->best = -1;
	for (size_t i = 0; i < t->count; i++)
		consider_best(t, p, (int)i);
	if (t->count && t->n[0].evaluated && isfinite(t->n[0].energy_j))
		t->ref_energy_j = t->n[0].energy_j;
}

/* ---- recording an evaluation ----------------------------------------------------------------------- */

/* The best reward among idx's descendants (its children's subtree maxima); -inf with none evaluated. */
static double best_below(const struct kp_tree *t, int idx, int *evaluated_children)
{
	double best = -INFINITY;
	*evaluated_children = 0;
	for (int c = t->n[idx].first_child; c >= 0; c = t->n[c].next_sibling) {
		if (!t->n[c].evaluated)
			continue;
		(*evaluated_children)++;
		if (t->n[c].max_r > best)
			best = t->n[c].max_r;
	}
	return best;
}

/* No gain after m expansions: a correct, non-root node whose children never beat it closes. */
static void prune_no_gain(struct kp_tree *t, const struct kp_search_params *p, int idx)
{
	struct kp_tnode *n = &t->n[idx];
	int evaluated_children;
	double below;

	if (p->prune_m <= 0 || n->parent < 0 || n->dead || n->outcome != KP_OUTCOME_CORRECT || n->pending)
		return;
	below = best_below(t, idx, &evaluated_children);
	if (evaluated_children >= p->prune_m && !(below > n->reward + p->prune_delta)) {
		n->dead = KP_DEAD_NO_GAIN;
		n->dirty = 1;
	}
}

void kp_tree_record(struct kp_tree *t, const struct kp_search_params *p, int idx, enum kp_outcome o,
		    double speedup, double energy_j)
{
	struct kp_tnode *n = &t->n[idx];
	double r;

	if (n->parent < 0 && o == KP_OUTCOME_CORRECT) {
		/* The reference defines speedup 1 and the energy every candidate is compared with. */
		speedup = 1.0;
		t->ref_energy_j = energy_j;
	}
	r = n->parent < 0 ? 0.0 : kp_search_reward(p, o, speedup, energy_j, t->ref_energy_j);
	n->evaluated = 1;
	n->outcome = o;
	n->speedup = o == KP_OUTCOME_CORRECT ? speedup : NAN;
	n->energy_j = energy_j;
	n->reward = r;
	n->dirty = 1;
	if (o == KP_OUTCOME_CORRECT) {
		n->fail_depth = 0;
	} else {
		int pf = n->parent >= 0 ? t->n[n->parent].fail_depth : 0;
		n->fail_depth = pf + 1;
		/* Repeated failed repairs: a line that failed more than max_repairs times in a row is closed. */
		if (n->fail_depth > p->max_repairs && n->parent >= 0)
			n->dead = KP_DEAD_REPAIRS_FAILED;
	}
	for (int i = idx; i >= 0; i = t->n[i].parent) {
		struct kp_tnode *a = &t->n[i];
		a->visits++;
		a->sum_r += r;
		if (!(a->max_r >= r)) /* also replaces NAN */
			a->max_r = r;
		a->dirty = 1;
	}
	/* No-gain pruning is part of MCTS; the greedy and beam baselines expand their picks regardless. */
	if (n->parent >= 0 && p->algo == KP_SEARCH_MCTS)
		prune_no_gain(t, p, n->parent);
	consider_best(t, p, idx);
}

void kp_tree_begin_expand(struct kp_tree *t, int idx)
{
	t->n[idx].pending++;
	for (int i = idx; i >= 0; i = t->n[i].parent)
		t->n[i].inflight++;
}

void kp_tree_end_expand(struct kp_tree *t, int idx)
{
	if (t->n[idx].pending <= 0)
		KP_BUG("search tree: node #%ld has no request in flight", t->n[idx].id);
	t->n[idx].pending--;
	for (int i = idx; i >= 0; i = t->n[i].parent)
		t->n[i].inflight--;
}
