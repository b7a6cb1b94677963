/* Which node to expand next: MCTS (UCT with progressive widening), and the greedy and beam baselines. */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/search.h"

static int is_failed(const struct kp_tnode *n)
{
	return n->evaluated && n->outcome != KP_OUTCOME_CORRECT;
}

enum kp_node_kind kp_search_child_kind(const struct kp_tree *t, int parent)
{
	if (is_failed(&t->n[parent]))
		return KP_NODE_REPAIR;
	return t->n[parent].parent < 0 ? KP_NODE_INITIAL : KP_NODE_REFINE;
}

enum kp_prog_mode kp_search_child_mode(enum kp_node_kind child_kind)
{
	switch (child_kind) {
	case KP_NODE_REPAIR:
		return KP_PROG_DEBUG;
	case KP_NODE_REFINE:
		return KP_PROG_OPTIMIZE;
	default:
		return KP_PROG_INITIAL;
	}
}

/* A failed node that may still be repaired: its line has not failed too often. */
static int repairable(const struct kp_search_params *p, const struct kp_tnode *n)
{
	return is_failed(n) && !n->dead && n->fail_depth <= p->max_repairs;
}

int kp_search_width_limit(const struct kp_tree *t, const struct kp_search_params *p, int idx)
{
	const struct kp_tnode *n = &t->n[idx];
	double k, alpha, lim;
	int cap;

	if (!n->evaluated || n->dead)
		return 0;
	if (is_failed(n)) {
		if (!repairable(p, n))
			return 0;
		k = p->repair_k, alpha = p->repair_alpha, cap = p->repair_cap;
	} else {
		k = p->refine_k, alpha = p->refine_alpha, cap = p->refine_cap;
	}
	lim = floor(k * pow((double)(n->visits > 1 ? n->visits : 1), alpha));
	if (lim < 1)
		lim = 1; /* every open node may have one child */
	if (cap > 0 && lim > cap)
		lim = cap;
	return lim > 1e6 ? 1000000 : (int)lim;
}

/* The most children a node may ever hold (widening only delays reaching it). */
static int hard_limit(const struct kp_search_params *p, const struct kp_tnode *n)
{
	if (!n->evaluated || n->dead)
		return 0;
	if (is_failed(n))
		return repairable(p, n) ? p->repair_cap : 0;
	return p->refine_cap > 0 ? p->refine_cap : 1000000;
}

static double node_q(const struct kp_search_params *p, const struct kp_tnode *n)
{
	if (n->visits <= 0)
		return p->reward_fail;
	return p->backup == KP_BACKUP_MAX ? n->max_r : n->sum_r / (double)n->visits;
}

double kp_search_uct(const struct kp_tree *t, const struct kp_search_params *p, int idx)
{
	const struct kp_tnode *c = &t->n[idx];
	const struct kp_tnode *par = c->parent >= 0 ? &t->n[c->parent] : c;
	/* Requests in flight below count as visits, so parallel selection spreads out (virtual visits). */
	double big_n = (double)(par->visits + par->inflight);
	double n = (double)(c->visits + c->inflight);
	double explore = big_n > 1 && n > 0 ? sqrt(log(big_n) / n) : 0;
	double q = node_q(p, c);
	/*
	 * First-play urgency for repairs: until a repair is tried, a failed candidate's worth is
	 * unknown rather than its failure floor (a small bug often hides a good idea), so it is valued
	 * a little below its parent. Its failure reward still counts in every backup.
	 */
	if (c != par && repairable(p, c) && c->expansions + c->pending == 0)
		q = node_q(p, par) - p->repair_fpu;
	return q + p->uct_c * explore;
}

static int children_open(const struct kp_tree *t, int idx)
{
	if (t->n[idx].pending)
		return 1;
	for (int c = t->n[idx].first_child; c >= 0; c = t->n[c].next_sibling)
		if (!t->n[c].evaluated || !t->n[c].dead)
			return 1;
	return 0;
}

/* The children of idx whose results are not known yet: requests in flight and versions not evaluated. */
static int unjudged(const struct kp_tree *t, int idx)
{
	int n = t->n[idx].pending;
	for (int c = t->n[idx].first_child; c >= 0; c = t->n[c].next_sibling)
		n += !t->n[c].evaluated;
	return n;
}

static void close_node(struct kp_tree *t, int idx, enum kp_dead_reason why)
{
	t->n[idx].dead = why;
	t->n[idx].dirty = 1;
}

/*
 * Leader widening: a correct node whose own reward beats every version made from it is, locally,
 * the best place to try again, as greedy would; waiting for its widening limit would send the
 * search into its worse children. Not while one of its requests is still in flight.
 */
static int leads_subtree(const struct kp_tree *t, const struct kp_search_params *p, int idx)
{
	const struct kp_tnode *n = &t->n[idx];
	if (is_failed(n) || n->pending)
		return 0;
	for (int c = n->first_child; c >= 0; c = t->n[c].next_sibling) {
		const struct kp_tnode *ch = &t->n[c];
		if (!ch->evaluated || !(ch->max_r < n->reward))
			return 0;
		if (repairable(p, ch) && ch->expansions + ch->pending == 0)
			return 0; /* a failure not yet repaired: let UCT weigh repairing it */
	}
	return 1;
}

/* Descends by UCT from idx; returns the node to expand or -1 when nothing below can be expanded now. */
static int mcts_descend(struct kp_tree *t, const struct kp_search_params *p, int idx)
{
	struct kp_tnode *n = &t->n[idx];
	int order[64], *ord = order, count = 0, found = -1;

	if (n->dead || !n->evaluated)
		return -1;
	if (n->expansions + n->pending < kp_search_width_limit(t, p, idx))
		return idx;
	if (p->leader_widen && leads_subtree(t, p, idx) && n->expansions < hard_limit(p, n))
		return idx;
	for (int c = n->first_child; c >= 0; c = t->n[c].next_sibling)
		count++;
	if (count > (int)KP_ARRAY_SIZE(order))
		ord = kp_xmalloc(sizeof(int) * (size_t)count);
	count = 0;
	for (int c = n->first_child; c >= 0; c = t->n[c].next_sibling)
		if (t->n[c].evaluated && !t->n[c].dead)
			ord[count++] = c;
	/* Best UCT first; equal scores keep creation order. Insertion sort: children are few. */
	for (int i = 1; i < count; i++) {
		int v = ord[i], j = i;
		double sv = kp_search_uct(t, p, v);
		while (j > 0 && kp_search_uct(t, p, ord[j - 1]) < sv) {
			ord[j] = ord[j - 1];
			j--;
		}
		ord[j] = v;
	}
	for (int i = 0; i < count && found < 0; i++)
		found = mcts_descend(t, p, ord[i]);
	if (ord != order)
		free(ord);
	if (found >= 0)
		return found;
	/*
	 * Nothing below can be expanded now. The widening limit only paces a node; while it is under
	 * its hard cap it takes another child rather than closing with a good version in it. But its
	 * children not judged yet count toward that limit: past it, the search waits for their
	 * results rather than widening blind (parallel requests).
	 */
	if (n->expansions + n->pending < hard_limit(p, n)) {
		int lim = kp_search_width_limit(t, p, idx);
		if (unjudged(t, idx) < (lim > 1 ? lim : 1))
			return idx;
		return -1;
	}
	if (n->parent >= 0 && !children_open(t, idx))
		close_node(t, idx, KP_DEAD_EXHAUSTED);
	return -1;
}

/* The nearest correct ancestor of a failed node (the version its repairs try to improve). */
static int correct_anchor(const struct kp_tree *t, int idx)
{
	while (idx >= 0 && is_failed(&t->n[idx]))
		idx = t->n[idx].parent;
	return idx;
}

/* A failed node to repair, most recent first, whose line starts from a node `in_set` accepts. */
static int pick_repair(const struct kp_tree *t, const struct kp_search_params *p,
		       int (*in_set)(const struct kp_tree *, const int *, int, int), const int *set, int nset)
{
	for (int i = (int)t->count - 1; i >= 0; i--) {
		const struct kp_tnode *n = &t->n[i];
		if (repairable(p, n) && n->expansions + n->pending == 0 && in_set(t, set, nset, correct_anchor(t, i)))
			return i;
	}
	return -1;
}

static int member(const struct kp_tree *t, const int *set, int nset, int idx)
{
	for (int i = 0; i < nset; i++)
		if (set[i] == idx)
			return 1;
	return 0;
}

/* Greedy: repair the latest failure made from the best version, else refine the best version. */
static int select_greedy(struct kp_tree *t, const struct kp_search_params *p)
{
	int r;
	if (t->best < 0)
		return -1;
	r = pick_repair(t, p, member, &t->best, 1);
	return r >= 0 ? r : t->best;
}

/* Beam: keep the beam_width best versions; repair their failures first, else expand the least-expanded. */
static int select_beam(struct kp_tree *t, const struct kp_search_params *p)
{
	int beam[100], nbeam = 0, r, pick = -1;
	int width = p->beam_width < (int)KP_ARRAY_SIZE(beam) ? p->beam_width : (int)KP_ARRAY_SIZE(beam);

	for (size_t i = 0; i < t->count; i++) {
		struct kp_search_score s = kp_tree_score(t, (int)i);
		int pos;
		if (!s.correct || t->n[i].dead)
			continue;
		/* Insert into the sorted beam (best first); creation order breaks ties. */
		for (pos = nbeam; pos > 0; pos--) {
			struct kp_search_score o = kp_tree_score(t, beam[pos - 1]);
			if (kp_search_compare(&s, &o, p->objective, p->noise_band) <= 0)
				break;
		}
		if (pos >= width)
			continue;
		if (nbeam < width)
			nbeam++;
		memmove(&beam[pos + 1], &beam[pos], sizeof(int) * (size_t)(nbeam - 1 - pos));
		beam[pos] = (int)i;
	}
	if (!nbeam)
		return -1;
	r = pick_repair(t, p, member, beam, nbeam);
	if (r >= 0)
		return r;
	for (int i = 0; i < nbeam; i++) {
		const struct kp_tnode *n = &t->n[beam[i]];
		if (pick < 0 || n->expansions + n->pending < t->n[pick].expansions + t->n[pick].pending)
			pick = beam[i];
	}
	return pick;
}

int kp_search_select(struct kp_tree *t, const struct kp_search_params *p)
{
	if (!t->count || !t->n[0].evaluated)
		return -1;
	switch (p->algo) {
	case KP_SEARCH_GREEDY:
		return select_greedy(t, p);
	case KP_SEARCH_BEAM:
		return select_beam(t, p);
	default:
		return mcts_descend(t, p, 0);
	}
}
