/*
 * The tune action in the search: no LLM call, offered on the best correct version that has knobs
 * (declared, or derived too), never twice on one version. Its variants are judged by the evaluator's
 * tune method with the protocol and checks of an evaluation; the best ones become the version's
 * children (kind "tune"), evaluated again like any version. Every variant measured is committed as it
 * comes (the run database is the tuning's result cache), counts as one evaluation of the run's budget,
 * and is not measured again when a tuning interrupted by a stop or a kill is resumed.
 * docs/internals/search.md, "The tune action".
 */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/json.h"
#include "kernelpro/str.h"
#include "search/loop_int.h"
#include "search/tune_int.h"

/* Below this many evaluations a tune action would only re-check the version: no variant to compare. */
#define TUNE_MIN_BUDGET 2

static const char *derive_name(enum kp_tune_derive d)
{
	return d == KP_TUNE_DERIVE_NEVER ? "declared" : "auto";
}

/* Which knobs count: declared ones, and derived ones too with tune=all or without a programmer
 * (nothing else could make a version then). */
static enum kp_tune_derive session_derive(const struct loop *L)
{
	return L->run->params.tune == KP_SEARCH_TUNE_ALL || !L->run->programmer ? KP_TUNE_DERIVE_AUTO
	                                                                        : KP_TUNE_DERIVE_NEVER;
}

/* ---- which version, and how many evaluations ----------------------------------------------------------- */

static int has_given(const struct kp_tree *t)
{
	for (int c = t->count ? t->n[0].first_child : -1; c >= 0; c = t->n[c].next_sibling)
		if (t->n[c].kind == KP_NODE_GIVEN)
			return 1;
	return 0;
}

/* Whether node idx's source has knobs, looked at once per session. */
static int has_knobs(struct loop *L, int idx, enum kp_tune_derive derive)
{
	struct kp_tnode *n = &L->tree.n[idx];
	if (n->knobs < 0) {
		struct kp_buf src = KP_BUF_INIT;
		struct kp_error ignore = KP_ERROR_INIT;
		char lang[16] = "";
		n->knobs = !kp_store_candidate_get(L->st, n->id, &src, lang, &ignore) &&
		           kp__search_tunable(lang, src.buf, derive);
		kp_buf_release(&src);
	}
	return n->knobs > 0;
}

/*
 * A version the action may take: correct, open, not tuned, not itself a variant the action made (its
 * space was just searched), with knobs. The reference only without a programmer, when it is a
 * candidate itself (a native reference.cu) and no version was given to start from.
 */
static int eligible(struct loop *L, int idx, enum kp_tune_derive derive)
{
	const struct kp_tnode *n = &L->tree.n[idx];
	if (!n->evaluated || n->outcome != KP_OUTCOME_CORRECT || n->tuned || n->dead ||
	    n->kind == KP_NODE_TUNE)
		return 0;
	if (n->parent < 0 &&
	    (L->run->programmer || L->run->task->kind->reference_as_candidate || has_given(&L->tree)))
		return 0;
	return has_knobs(L, idx, derive);
}

/* Whether version a beats version b (-1: none yet). */
static int better(const struct kp_tree *t, const struct kp_search_params *p, int a, int b)
{
	struct kp_search_score sa, sb;
	if (b < 0)
		return 1;
	sa = kp_tree_score(t, a);
	sb = kp_tree_score(t, b);
	return kp_search_compare(&sa, &sb, p->objective, p->noise_band) > 0;
}

/*
 * The version to tune now, -1 for none. With a programmer: the best candidate (the reference aside)
 * when it qualifies, so tuning goes where the numbers matter and the LLM's later versions start from
 * tuned ones. Without: the best version that qualifies.
 */
static int pick(struct loop *L, enum kp_tune_derive derive)
{
	const struct kp_tree *t = &L->tree;
	const struct kp_search_params *p = &L->run->params;
	int best = -1;

	for (int i = 0; i < (int)t->count; i++) {
		const struct kp_tnode *n = &t->n[i];
		if (L->run->programmer) {
			if (n->parent >= 0 && n->evaluated && n->outcome == KP_OUTCOME_CORRECT &&
			    better(t, p, i, best))
				best = i;
		} else if (better(t, p, i, best) && eligible(L, i, derive)) {
			best = i;
		}
	}
	return best >= 0 && eligible(L, best, derive) ? best : -1;
}

/*
 * The fresh evaluations tuning may still make (-1: no limit): the run's evaluation budget less what is
 * used, queued or asked for and one evaluation per child; with a programmer, also within tune_share of
 * that budget.
 */
static long room(const struct loop *L)
{
	const struct kp_search_params *p = &L->run->params;
	long evals = L->run->budget.evals, left;

	if (evals <= 0)
		return -1;
	left = evals - (long)kp_store_counter(L->st, "evaluations") - (long)L->nevalq - (long)L->nheld -
	       L->inflight - p->tune_children;
	if (L->run->programmer) {
		long share = (long)floor(p->tune_share * (double)evals) -
		             (long)kp_store_counter(L->st, "tune_evaluations");
		if (share < left)
			left = share;
	}
	return left > 0 ? left : 0;
}

/* A new action's budget: its room, capped by tune_budget (without a programmer, only when there is no
 * evaluation budget: the run's whole budget is for tuning then). */
static long action_budget(const struct loop *L)
{
	long r = room(L), cap = L->run->params.tune_budget;
	if (!L->run->programmer && r >= 0)
		return r;
	return r >= 0 && r < cap ? r : cap;
}

/* ---- beginning an action ---------------------------------------------------------------------------------
 */

static int load_one(const struct kp_tuning_row *r, void *ud)
{
	struct loop *L = ud;
	int idx = kp_tree_find(&L->tree, r->node);
	enum kp_tune_strategy strategy = KP_TUNE_AUTO;

	if (idx < 0)
		return 0;
	L->tree.n[idx].tuned = 1;
	if (strcmp(r->status, "running") || L->tune.pending)
		return 0;
	kp_tune_strategy_parse(r->strategy, &strategy);
	L->tune =
	    (struct loop_tune){.pending = 1,
	                       .id = r->node,
	                       .budget = r->budget,
	                       .seed = r->seed,
	                       .strategy = strategy,
	                       .resumed = 1,
	                       .derive = r->derive && !strcmp(r->derive, "declared") ? KP_TUNE_DERIVE_NEVER
	                                                                             : KP_TUNE_DERIVE_AUTO};
	kp_tree_begin_expand(&L->tree, idx);
	return 0;
}

int kp__tune_load(struct loop *L, struct kp_error *err)
{
	return kp_store_tunings_each(L->st, load_one, L, err);
}

int kp__tune_dispatch(struct loop *L, struct kp_error *err)
{
	const struct kp_search_params *p = &L->run->params;
	enum kp_tune_derive derive = session_derive(L);
	struct kp_tuning_row row = {0};
	long budget;
	int idx, rc;

	if (L->tune.pending || p->tune == KP_SEARCH_TUNE_OFF || !L->run->evaluator->tune)
		return 0;
	if ((idx = pick(L, derive)) < 0 || (budget = action_budget(L)) < TUNE_MIN_BUDGET)
		return 0;
	row.node = L->tree.n[idx].id;
	row.session = L->session;
	row.strategy = kp_tune_strategy_name((enum kp_tune_strategy)p->tune_strategy);
	row.budget = budget;
	row.seed = row.node; /* one per version, and the same when a resumed run goes on with it */
	row.derive = derive_name(derive);
	if ((rc = kp_store_begin(L->st, err)))
		return rc;
	rc = kp_store_tuning_begin(L->st, &row, err);
	if ((rc = kp__loop_end_tx(L, rc, err)))
		return rc;
	L->tree.n[idx].tuned = 1;
	L->tune = (struct loop_tune){.pending = 1,
	                             .id = row.node,
	                             .budget = budget,
	                             .seed = row.seed,
	                             .strategy = p->tune_strategy,
	                             .derive = derive};
	kp_tree_begin_expand(&L->tree, idx);
	kp__loop_note(L, "#%ld: tune action, up to %ld %s (%s, %s knobs)", row.node, budget,
	              kp_plural(budget, "variant", "variants"), row.strategy,
	              derive == KP_TUNE_DERIVE_NEVER ? "declared" : "declared or derived");
	return 1;
}

/* ---- the run database as the tuning's result cache -------------------------------------------------------
 */

static int cache_get(void *ctx, const struct kp_tune_key *k, struct kp_tune_measure *m, struct kp_error *err)
{
	struct loop *L = ctx;
	struct loop_tune *T = &L->tune;
	enum kp_tune_status st;
	char status[16];
	double sec = NAN;
	int rc;

	if (L->run->stop && *L->run->stop) {
		T->stopped = TUNE_STOP_ASKED;
		return kp_error_set(err, KP_ECANCELED, "stopped");
	}
	if (L->run->budget.wall_s > 0 && kp__loop_elapsed(L) >= L->run->budget.wall_s) {
		T->stopped = TUNE_STOP_BUDGET;
		return kp_error_set(err, KP_ECANCELED, "the run's wall-time budget is spent");
	}
	rc = kp_store_tune_result_get(L->st, k->source, k->point, k->gpu, status, &sec, err);
	if (rc < 0)
		return rc;
	if (rc == 1 && !kp_tune_status_parse(status, &st) && (st != KP_TUNE_OK || sec > 0)) {
		m->status = st;
		m->seconds = st == KP_TUNE_OK ? sec : 0;
		return 1;
	}
	/* A miss: a fresh evaluation follows, within what the budget leaves. */
	if (T->planned < T->fresh)
		T->planned = T->fresh;
	if (T->allowance >= 0 && T->planned >= T->allowance) {
		T->stopped = TUNE_STOP_BUDGET;
		return kp_error_set(err, KP_ECANCELED, "the run's evaluation budget is spent");
	}
	T->planned++;
	return 0;
}

/* Each fresh result, committed at once: the run's evaluations count it, a resumed tuning finds it. */
static int cache_put(void *ctx, const struct kp_tune_key *k, const struct kp_tune_measure *m,
                     struct kp_error *err)
{
	struct loop *L = ctx;
	int rc = kp_store_begin(L->st, err);

	if (!rc)
		rc = kp_store_tune_result_put(L->st, k->source, k->point, k->gpu, L->tune.id,
		                              kp_tune_status_name(m->status),
		                              m->status == KP_TUNE_OK ? m->seconds : NAN, err);
	if (!rc)
		rc = kp_store_counter_add(L->st, "evaluations", 1, err);
	if (!rc)
		rc = kp_store_counter_add(L->st, "tune_evaluations", 1, err);
	return kp__loop_end_tx(L, rc, err);
}

static void on_fresh(void *ud)
{
	struct loop *L = ud;
	char phase[64];
	L->tune.fresh++;
	snprintf(phase, sizeof(phase), "tuning #%ld: %ld of %ld", L->tune.id, L->tune.fresh, L->tune.budget);
	kp__loop_report(L, phase);
}

/* ---- the end of an action: children and the record
 * --------------------------------------------------------- */

static json_t *child_json(long id, const struct kp_search_variant *v)
{
	return json_pack("{s:I, s:s, s:o}", "node", (json_int_t)id, "point", v->point, "time_ms",
	                 kp_json_real(v->time_ms));
}

/* Children, the finished record and the counters in one transaction; then the children are queued. */
static int finish(struct loop *L, int idx, const struct kp_search_tuning *t, const char *cut,
                  struct kp_error *err)
{
	struct kp_node_row rows[4];
	struct kp_tuning_row tr = {0};
	size_t n = t->nbest < KP_ARRAY_SIZE(rows) ? t->nbest : KP_ARRAY_SIZE(rows);
	json_t *children = json_array();
	char *children_text = NULL, *note = NULL;
	long id = L->tree.n[idx].id;
	int rc = kp_store_begin(L->st, err);

	for (size_t i = 0; i < n && !rc; i++) {
		kp_node_row_init(&rows[i]);
		rows[i].parent = id;
		rows[i].kind = KP_NODE_TUNE;
		rows[i].depth = L->tree.n[idx].depth + 1;
		kp_strlcpy(rows[i].format,
		           L->tree.n[idx].format[0]
		               ? L->tree.n[idx].format
		               : kp_search_version_format(L->run->task, NULL, t->best[i].source),
		           sizeof(rows[i].format));
		snprintf(rows[i].summary, sizeof(rows[i].summary),
		         "%s: tuned from #%ld (%.4g ms; untuned %.4g ms)", t->best[i].point, id,
		         t->best[i].time_ms, t->untuned_ms);
		rc = kp_store_node_insert(L->st, &rows[i], L->run->task->kind->lang, t->best[i].source, err);
		if (!rc) {
			json_array_append_new(children, child_json(rows[i].id, &t->best[i]));
			L->tree.n[idx].expansions++;
			L->tree.n[idx].dirty = 1;
		}
	}
	children_text = kp_json_text(children);
	if (cut)
		note = kp_xasprintf("%s%s%s", cut, t->note ? "; " : "", t->note ? t->note : "");
	tr.node = id;
	tr.status = t->trials ? "done" : "nothing";
	tr.strategy =
	    t->strategy ? t->strategy : kp_tune_strategy_name((enum kp_tune_strategy)L->tune.strategy);
	tr.gpu = t->gpu[0] ? t->gpu : NULL;
	tr.space_json = t->space_json;
	tr.trials_json = t->trials_json;
	tr.children_json = children_text;
	tr.untuned_point = t->untuned_point;
	tr.untuned_ms = t->untuned_ms;
	tr.best_point = t->best_point;
	tr.best_ms = t->best_ms;
	tr.trials = (long)t->trials;
	tr.evaluated = (long)t->evaluated;
	tr.cache_hits = (long)t->cache_hits;
	tr.wall_s = t->wall_s;
	tr.gpu_s = t->gpu_s;
	tr.note = note ? note : t->note;
	if (!rc)
		rc = kp_store_tuning_end(L->st, &tr, err);
	if (!rc)
		rc = kp_store_counter_add(L->st, "tune_actions", 1, err);
	if (!rc && isfinite(t->gpu_s))
		rc = kp_store_counter_add(L->st, "gpu_busy_s", t->gpu_s, err);
	rc = kp__loop_end_tx(L, rc, err);
	free(children_text);
	free(note);
	if (rc)
		return rc;
	kp__loop_note(L, "tuned #%ld: %zu %s (%zu measured, %zu from earlier) in %.1f s%s%s", id,
	              t->trials, kp_plural((long long)t->trials, "variant", "variants"), t->evaluated,
	              t->cache_hits, t->wall_s, tr.note ? ": " : "", tr.note ? tr.note : "");
	for (size_t i = 0; i < n; i++) {
		kp_tree_add(&L->tree, &rows[i]);
		kp__loop_queue(L, rows[i].id, t->best[i].source);
		kp__loop_note(L, "#%ld: tune of #%ld: %s", rows[i].id, id, rows[i].summary);
	}
	kp__loop_evaluated(L);
	return 0;
}

int kp__tune_step(struct loop *L, struct kp_error *err)
{
	struct loop_tune *T = &L->tune;
	int idx = kp_tree_find(&L->tree, T->id), rc;
	struct kp_tune_cache cache = {cache_get, cache_put, L};
	struct kp_search_tune_req req;
	struct kp_search_tuning t;
	struct kp_buf src = KP_BUF_INIT;
	struct kp_error terr = KP_ERROR_INIT;
	char lang[16] = "";

	T->pending = 0; /* run once per session whatever happens; the record says whether it goes on */
	kp_tree_end_expand(&L->tree, idx);
	kp_search_tuning_init(&t);
	if ((rc = kp_store_candidate_get(L->st, T->id, &src, lang, err)))
		goto out;
	T->planned = T->fresh = 0;
	T->stopped = TUNE_GO;
	T->allowance = room(L);
	memset(&req, 0, sizeof(req));
	req.node_id = T->id;
	req.source = src.buf;
	req.lang = lang;
	req.task = L->run->task->task;
	req.derive = T->derive;
	kp_tune_opts_init(&req.tune);
	req.tune.strategy = (enum kp_tune_strategy)T->strategy;
	req.tune.budget = (size_t)T->budget;
	req.tune.seed = (uint64_t)T->seed;
	req.tune.batch = 0;
	req.cache = &cache;
	req.children = L->run->params.tune_children;
	req.evaluated = on_fresh;
	req.ud = L;
	kp__loop_note(L, "tuning #%ld%s", T->id,
	              T->resumed ? " (going on with it: results measured before are not measured again)"
	                         : "");
	rc = L->run->evaluator->tune(L->run->evaluator, &req, &t, &terr);
	L->session_evals += T->fresh;
	if (rc == KP_ECANCELED &&
	    (T->stopped == TUNE_STOP_ASKED || (T->stopped == TUNE_STOP_BUDGET && !t.trials))) {
		/* Left running: a resumed run goes on with it, finding what was measured. */
		kp__loop_note(L,
		              "tuning #%ld paused after %ld %s (%s); a resumed run goes on with it", T->id,
		              T->fresh, kp_plural(T->fresh, "evaluation", "evaluations"), kp_error_msg(&terr));
		rc = 0;
		goto out;
	}
	if (rc && !(rc == KP_ECANCELED && T->stopped == TUNE_STOP_BUDGET)) {
		kp_error_set(err, rc, "%s", kp_error_msg(&terr));
		kp_error_prefix(err, "tuning #%ld", T->id);
		goto out;
	}
	rc = finish(L, idx, &t, rc ? "stopped where the run's budget ends" : NULL, err);
out:
	kp_search_tuning_release(&t);
	kp_buf_release(&src);
	return rc;
}
