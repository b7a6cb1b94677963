/*
 * The optimize loop's GPU slot: one job at a time, an evaluation (the oldest queued candidate) or a
 * profile (evaluator->profile: on demand before an expansion, speculative while the GPU would wait
 * on the programmer, the best version before the run ends). A job's inputs are read and its result
 * recorded on the loop's thread; the evaluator runs there or on the GPU thread (parallel > 1 with a
 * concurrent evaluator), which touches nothing of the loop's. docs/internals/search.md.
 */
#include "base/setup.h"

#include <math.h>
#include <pthread.h>

#include "kernelpro/search.h"
#include "search/loop_int.h"

/* ---- evaluation ------------------------------------------------------------------------------------------ */

/* Why a version was profiled: its counter, and the words a note uses. */
static const char *const profile_counter[] = {"profiles_on_demand", "profiles_speculative", "profiles_final"};
static const char *const profile_why_text[] = {"before its expansion",
                                               "while the GPU waited on the programmer",
                                               "the best version, before the run ends"};

static void slot_release(struct eval_slot *e)
{
	kp_buf_release(&e->src);
	kp_buf_release(&e->psrc);
	kp_buf_release(&e->plog);
	kp_buf_release(&e->pfind);
	kp_search_eval_release(&e->res);
}

/*
 * Reads what a GPU job needs (on the loop's thread): evaluating the oldest queued candidate
 * (SLOT_EVALUATE, idx ignored), or profiling node idx (SLOT_PROFILE, for `why`).
 */
static int slot_load(struct loop *L, struct eval_slot *e, enum slot_job job, enum profile_why why, int idx,
                     struct kp_error *err)
{
	int pidx, rc;
	char phase[64];

	memset(e, 0, sizeof(*e));
	kp_search_eval_init(&e->res);
	e->job = job;
	e->why = why;
	e->id = job == SLOT_PROFILE ? L->tree.n[idx].id : L->evalq[0];
	e->idx = job == SLOT_PROFILE ? idx : kp_tree_find(&L->tree, e->id);
	pidx = L->tree.n[e->idx].parent;
	rc = kp_store_candidate_get(L->st, e->id, &e->src, e->lang, err);
	if (!rc && job == SLOT_PROFILE) {
		snprintf(phase, sizeof(phase), "profiling #%ld", e->id);
		kp__loop_report(L, phase);
		return 0;
	}
	if (!rc && L->tree.n[pidx].parent >= 0)
		rc = kp_store_candidate_get(L->st, L->tree.n[pidx].id, &e->psrc, NULL, err);
	if (!rc)
		rc = kp_store_eval_text(L->st, L->tree.n[pidx].id, &e->plog, NULL, &e->pfind, err);
	if (!rc)
		rc = kp_store_node_get(L->st, e->id, &e->row, err);
	if (!rc) {
		snprintf(phase, sizeof(phase), "evaluating #%ld", e->id);
		kp__loop_report(L, phase);
	}
	return rc;
}

/* The evaluator's part; on the GPU thread in the pipelined loop (it touches nothing of the loop's). */
static void slot_evaluate(struct kp_search_evaluator *ev, struct eval_slot *e)
{
	kp_error_clear(&e->err);
	if (e->job == SLOT_PROFILE)
		e->rc = ev->profile(ev, e->id, e->src.buf, e->lang, &e->res, &e->err);
	else
		e->rc = ev->evaluate(ev, e->id, e->src.buf, e->lang, &e->res, &e->err);
}

/* Records a profile the evaluator finished: the diagnosis saved, counted, the node marked (the loop's
 * thread). */
static int profile_record(struct loop *L, struct eval_slot *e, struct kp_error *err)
{
	const struct kp_search_eval *res = &e->res;
	/* A profile that says nothing is saved as such, so that it is not asked for again. */
	const char *pj =
	    res->profile_json ? res->profile_json : "{\"error\":\"the evaluator returned no profile\"}";
	int rc = kp_store_begin(L->st, err);

	if (!rc)
		rc = kp_store_profile_put(L->st, e->id, pj, res->feedback, res->findings_json, err);
	if (!rc)
		rc = kp_store_counter_add(L->st, profile_counter[e->why], 1, err);
	if (!rc && isfinite(res->gpu_s))
		rc = kp_store_counter_add(L->st, "gpu_busy_s", res->gpu_s, err);
	if ((rc = kp__loop_end_tx(L, rc, err)))
		return rc;
	L->tree.n[e->idx].profiled = 1;
	kp__loop_note(L, "#%ld: profiled (%s)", e->id, profile_why_text[e->why]);
	kp__loop_evaluated(L);
	return 0;
}

/* Records what the evaluator finished: an evaluation's reward, backup, database, memory, or a profile. */
static int slot_record(struct loop *L, struct eval_slot *e, struct kp_error *err)
{
	struct kp_search_eval *res = &e->res;
	struct kp_eval_row er;
	int rc, was_best;

	if (e->rc) {
		kp_error_set(err, e->rc, "%s", kp_error_msg(&e->err));
		kp_error_prefix(err, "%s #%ld", e->job == SLOT_PROFILE ? "profiling" : "evaluating", e->id);
		return e->rc;
	}
	if (e->job == SLOT_PROFILE)
		return profile_record(L, e, err);
	if (res->outcome < 0 || res->outcome >= KP_OUTCOME_COUNT)
		KP_BUG("evaluator '%s' returned no outcome for #%ld", L->run->evaluator->name, e->id);
	was_best = L->tree.best;
	kp_tree_record(&L->tree, &L->run->params, e->idx, res->outcome, res->speedup, res->energy_j);
	L->tree.n[e->idx].time_ms = res->time_ms;
	er = kp__loop_eval_row(e->id, res, res->ref_time_ms,
	                       res->outcome == KP_OUTCOME_CORRECT ? res->speedup : NAN);
	rc = kp_store_begin(L->st, err);
	if (!rc)
		rc = kp_store_eval_insert(L->st, &er, L->session, err);
	if (!rc)
		rc = kp_store_counter_add(L->st, "evaluations", 1, err);
	if (!rc && isfinite(res->gpu_s))
		rc = kp_store_counter_add(L->st, "gpu_busy_s", res->gpu_s, err);
	/* Lessons are about what a programmer wrote: not a tune action's variant, nor a given version. */
	if (!rc && L->tree.n[e->idx].kind != KP_NODE_TUNE && L->tree.n[e->idx].kind != KP_NODE_GIVEN)
		rc = kp_memory_learn(&L->mem, &L->tree, &L->run->params, e->idx, e->src.buf,
				     e->psrc.len ? e->psrc.buf : L->reference, e->plog.buf, e->pfind.len ? e->pfind.buf : NULL,
				     e->row.summary, err);
	if ((rc = kp__loop_end_tx(L, rc, err)))
		return rc;
	memmove(L->evalq, L->evalq + 1, sizeof(long) * --L->nevalq);
	L->session_evals++;
	if (res->profile_json)
		L->tree.n[e->idx].profiled = 1; /* an evaluator that profiles as it judges */
	if (res->outcome == KP_OUTCOME_CORRECT)
		kp__loop_note(L, "#%ld: correct, %.4g ms, %.2fx", e->id, res->time_ms, res->speedup);
	else
		kp__loop_note(L, "#%ld: %s", e->id, kp_outcome_name(res->outcome));
	if (L->tree.best != was_best)
		kp__loop_note(L, "new best: #%ld at %.2fx", L->tree.n[L->tree.best].id,
		              L->tree.n[L->tree.best].speedup);
	kp__loop_evaluated(L);
	return 0;
}

/* One GPU job on the loop's thread. */
int kp__loop_run_here(struct loop *L, enum slot_job job, enum profile_why why, int idx, struct kp_error *err)
{
	struct eval_slot e;
	int rc = slot_load(L, &e, job, why, idx, err);
	if (!rc) {
		slot_evaluate(L->run->evaluator, &e);
		rc = slot_record(L, &e, err);
	}
	slot_release(&e);
	return rc;
}

static void *gpu_main(void *arg)
{
	struct loop *L = arg;
	slot_evaluate(L->run->evaluator, &L->gpu);
	pthread_mutex_lock(&L->mu);
	L->gpu_done = 1;
	pthread_cond_signal(&L->cv_done);
	pthread_mutex_unlock(&L->mu);
	return NULL;
}

/* Starts a GPU job (as slot_load's) on the GPU thread. */
int kp__loop_gpu_start(struct loop *L, enum slot_job job, enum profile_why why, int idx, struct kp_error *err)
{
	int rc = slot_load(L, &L->gpu, job, why, idx, err);
	if (rc) {
		slot_release(&L->gpu);
		return rc;
	}
	L->gpu_done = 0;
	if (pthread_create(&L->gpu_thread, NULL, gpu_main, L) != 0) {
		slot_evaluate(L->run->evaluator, &L->gpu); /* no thread to be had: here, as without one */
		L->gpu_done = 1;
		L->gpu_running = 2;
		return 0;
	}
	L->gpu_running = 1;
	return 0;
}

int kp__loop_gpu_finished(struct loop *L)
{
	int done;
	pthread_mutex_lock(&L->mu);
	done = L->gpu_done;
	pthread_mutex_unlock(&L->mu);
	return done;
}

/* Waits for the GPU thread (when there is one) and records what it finished (`record`: else drops it). */
int kp__loop_gpu_end(struct loop *L, int record, struct kp_error *err)
{
	int rc = 0;
	if (!L->gpu_running)
		return 0;
	if (L->gpu_running == 1)
		pthread_join(L->gpu_thread, NULL);
	L->gpu_running = 0;
	if (record)
		rc = slot_record(L, &L->gpu, err);
	slot_release(&L->gpu);
	return rc;
}

/* Tells the evaluator of a saved candidate, so it can check and build it before its turn. */
static void prepare(struct loop *L, long id, const char *source, const char *lang)
{
	struct kp_search_evaluator *ev = L->run->evaluator;
	if (ev->prepare && L->async_eval)
		ev->prepare(ev, id, source, lang);
}

void kp__loop_queue(struct loop *L, long id, const char *source)
{
	KP_ALLOC_GROW(L->evalq, L->nevalq + 1, L->evalq_alloc);
	L->evalq[L->nevalq++] = id;
	prepare(L, id, source, L->run->task->kind->lang);
	if (L->run->candidate)
		L->run->candidate(id, source, L->run->ud);
}

/* ---- profiling on demand (evaluator->profile) -----------------------------------------------------------
 */

/*
 * Whether node idx must be profiled before a request for its child is built: a correct version
 * other than the reference (profiled by reference()), not profiled yet, with an evaluator that
 * profiles on demand. A failed version's children are repairs: their requests carry its log.
 */
int kp__loop_needs_profile(const struct loop *L, int idx)
{
	const struct kp_tnode *n = &L->tree.n[idx];
	return L->run->evaluator->profile && idx > 0 && n->evaluated && n->outcome == KP_OUTCOME_CORRECT &&
	       !n->profiled;
}

/* The best version worth a speculative profile (open, correct, unprofiled), -1 when none. */
int kp__loop_speculative_pick(const struct loop *L)
{
	const struct kp_search_params *p = &L->run->params;
	int pick = -1;
	for (size_t i = 1; i < L->tree.count; i++) {
		struct kp_search_score a, b;
		if (!kp__loop_needs_profile(L, (int)i) || L->tree.n[i].dead)
			continue;
		a = kp_tree_score(&L->tree, (int)i);
		if (pick >= 0)
			b = kp_tree_score(&L->tree, pick);
		if (pick < 0 || kp_search_compare(&a, &b, p->objective, p->noise_band) > 0)
			pick = (int)i;
	}
	return pick;
}


/*
 * The run ends: its best version is profiled when it is not yet and the wall-time budget has time
 * left, since users read its diagnosis (`show`, the report). Without time left a note says how to
 * have it.
 */
int kp__loop_profile_best(struct loop *L, struct kp_error *err)
{
	int best = L->tree.best;
	if (best <= 0 || !kp__loop_needs_profile(L, best))
		return 0;
	if (kp__loop_wall_spent(L)) {
		kp__loop_note(
		    L,
		    "the best version #%ld is not profiled: the wall-time budget is spent (resume with more "
		    "time to have its diagnosis)",
		    L->tree.n[best].id);
		return 0;
	}
	return kp__loop_run_here(L, SLOT_PROFILE, PROFILE_FINAL, best, err);
}

/* Candidates saved but not evaluated when the session starts: the evaluator may prepare them now. */
void kp__loop_prepare_queued(struct loop *L)
{
	struct kp_error ignore = KP_ERROR_INIT;
	struct kp_buf src = KP_BUF_INIT;
	char lang[16];
	for (size_t i = 0; i < L->nevalq && L->async_eval && L->run->evaluator->prepare; i++) {
		kp_buf_reset(&src);
		if (!kp_store_candidate_get(L->st, L->evalq[i], &src, lang, &ignore))
			prepare(L, L->evalq[i], src.buf, lang);
		kp_error_clear(&ignore);
	}
	kp_buf_release(&src);
}
