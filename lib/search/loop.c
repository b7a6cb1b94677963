/*
 * The optimize loop: select a node, ask the programmer for a child, evaluate it, record the reward,
 * learn, repeat until the budget ends. Programmer requests run on worker threads (several in flight
 * while the GPU evaluates); every database write happens on the calling thread, and evaluations run
 * one candidate at a time: on the calling thread, or, with parallel > 1 and an evaluator that allows
 * it, on a GPU thread while the calling thread commits finished requests and lets the evaluator
 * prepare (check, build) the next candidates. With an evaluator that profiles on demand
 * (evaluator->profile), the GPU slot also profiles versions: one about to be expanded, before its
 * request is built (the request carries the profile); the best unprofiled one while the GPU would
 * otherwise wait on the programmer; the best version before the run ends. Each step commits before
 * the next starts, so a killed run resumes from its last commit.
 *
 * This file: kp_search_loop, its sessions, the steps, dispatch and the budget. The rest of the loop,
 * sharing search/loop_int.h: loop_store.c (the run database), loop_jobs.c (programmer requests and
 * worker threads), loop_gpu.c (the GPU slot: evaluations and profiles), tune.c (the tune action).
 */
#include "base/setup.h"

#include "kernelpro/log.h"
#include "kernelpro/search.h"
#include "search/loop_int.h"

const char *kp_search_end_name(enum kp_search_end e)
{
	switch (e) {
	case KP_END_EVALS:
		return "budget: evaluations";
	case KP_END_WALL:
		return "budget: wall time";
	case KP_END_TOKENS:
		return "budget: tokens";
	case KP_END_COST:
		return "budget: cost";
	case KP_END_EXHAUSTED:
		return "search exhausted: every direction closed";
	case KP_END_STOPPED:
		return "stopped";
	case KP_END_ERROR:
		return "error";
	case KP_END_TUNED:
		return "nothing left to do without an LLM: every version with knobs is tuned";
	default:
		return "running";
	}
}

static double now(const struct loop *L)
{
	return L->run->clock ? L->run->clock(L->run->ud) : kp_now();
}

/* This session's time: what the session records (the run's total is the sum over its sessions). */
double kp__loop_session_elapsed(const struct loop *L)
{
	return now(L) - L->t0;
}

/* The run's time over all sessions: what the wall-time budget limits. */
double kp__loop_elapsed(const struct loop *L)
{
	return L->prev_elapsed + kp__loop_session_elapsed(L);
}

void kp__loop_note(struct loop *L, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	kp_info("%s", line);
	if (L->run->note)
		L->run->note(line, L->run->ud);
}

void kp__loop_report(struct loop *L, const char *phase)
{
	struct kp_search_status *s = &L->status;
	struct kp_tnode *best = L->tree.best >= 0 ? &L->tree.n[L->tree.best] : NULL;
	s->evals = (long)kp_store_counter(L->st, "evaluations");
	s->nodes = (long)L->tree.count;
	s->tokens = (long)(kp_store_counter(L->st, "tokens_in") + kp_store_counter(L->st, "tokens_out"));
	s->cost = kp_store_counter(L->st, "cost_usd");
	s->elapsed_s = kp__loop_elapsed(L);
	s->best_speedup = best && best->parent >= 0 ? best->speedup : 1.0;
	s->best_node = best ? best->id : 0;
	s->inflight = L->inflight;
	s->budget = &L->run->budget;
	s->phase = phase;
	if (L->run->progress)
		L->run->progress(s, L->run->ud);
}

/* ---- budget and dispatch --------------------------------------------------------------------------------- */

/* Whether the run's wall-time budget is spent. */
int kp__loop_wall_spent(const struct loop *L)
{
	return L->run->budget.wall_s > 0 && kp__loop_elapsed(L) >= L->run->budget.wall_s;
}

/* Why no new request may go out now (KP_END_NONE: one may). */
static enum kp_search_end budget_block(struct loop *L)
{
	const struct kp_search_budget *b = &L->run->budget;
	double evals = kp_store_counter(L->st, "evaluations");
	if (b->evals > 0 && evals + (double)L->nevalq + (double)L->nheld + L->inflight >= (double)b->evals)
		return KP_END_EVALS;
	if (kp__loop_wall_spent(L))
		return KP_END_WALL;
	if (b->tokens > 0 && kp_store_counter(L->st, "tokens_in") + kp_store_counter(L->st, "tokens_out") >= (double)b->tokens)
		return KP_END_TOKENS;
	if (b->cost > 0 && kp_store_counter(L->st, "cost_usd") >= b->cost)
		return KP_END_COST;
	return KP_END_NONE;
}

static int any_dirty(const struct kp_tree *t)
{
	for (size_t i = 0; i < t->count; i++)
		if (t->n[i].dirty)
			return 1;
	return 0;
}

/* Sends the requests of held nodes whose profile is saved now, oldest first; returns how many, or an error.
 */
static int release_held(struct loop *L, struct kp_error *err)
{
	int sent = 0, rc = 0;
	size_t keep = 0;
	for (size_t i = 0; i < L->nheld; i++) {
		int idx = L->held[i];
		struct job *j;
		if (rc || !L->tree.n[idx].profiled) {
			L->held[keep++] = idx;
			continue;
		}
		if ((rc = kp__loop_make_job(L, idx, &j, err))) {
			L->held[keep++] = idx;
			continue;
		}
		kp__loop_submit(L, j);
		sent++;
	}
	L->nheld = keep;
	return rc ? rc : sent;
}


/*
 * Sends requests while there is room; returns how many went out, or a negative error code. Room:
 * at most `parallel` versions ahead of evaluation, in flight, generated and waiting, or waiting for
 * their parent's profile, so every selection sees all but the last few results (more would search
 * blind while the GPU is busy). A selected version that needs its profile first is held: the GPU
 * slot profiles it, then its request goes out (release_held).
 */
static int dispatch(struct loop *L, enum kp_search_end *blocked, struct kp_error *err)
{
	int sent = 0;
	*blocked = KP_END_NONE;
	while ((long)L->nevalq + (long)L->nheld + L->inflight + L->tune.pending < L->parallel) {
		struct job *j;
		int idx, rc;
		if ((*blocked = budget_block(L)) != KP_END_NONE)
			break;
		/* The tune action first: it takes the best version while its numbers are open. */
		if ((rc = kp__tune_dispatch(L, err)) < 0)
			return rc;
		if (rc) {
			sent++;
			continue;
		}
		if (!L->run->programmer) {
			*blocked = KP_END_TUNED;
			break;
		}
		idx = kp_search_select(&L->tree, &L->run->params);
		/* Selection may have closed exhausted nodes: persist that before going on. */
		if (any_dirty(&L->tree)) {
			rc = kp_store_begin(L->st, err);
			if (!rc)
				rc = kp__loop_commit(L, err);
			if (rc)
				return rc;
		}
		if (idx < 0) {
			*blocked = KP_END_EXHAUSTED;
			break;
		}
		if (kp__loop_needs_profile(L, idx)) {
			kp_tree_begin_expand(&L->tree, idx);
			KP_ALLOC_GROW(L->held, L->nheld + 1, L->held_alloc);
			L->held[L->nheld++] = idx;
			continue;
		}
		rc = kp__loop_make_job(L, idx, &j, err);
		if (rc)
			return rc;
		kp_tree_begin_expand(&L->tree, idx);
		kp__loop_report(L, "generating");
		kp__loop_submit(L, j);
		sent++;
	}
	return sent;
}

/* ---- the steps ------------------------------------------------------------------------------------- */

/*
 * The steps: commit finished requests, send new ones while the budget allows, evaluate saved
 * candidates one at a time, until something ends the session. Sets *end; returns 0 or an error.
 * Over 80 lines: the order of the branches is the loop's policy (collect, dispatch, the GPU thread,
 * held requests, the tune action, evaluations, speculative profiles, waiting), and it is read in one
 * place; each branch only calls out.
 */
static int steps(struct loop *L, enum kp_search_end *end, struct kp_error *err)
{
	enum kp_search_end blocked = KP_END_NONE;
	int rc, idx;

	for (;;) {
		if ((rc = kp__loop_collect(L, err))) {
			*end = KP_END_ERROR;
			return rc;
		}
		if (L->run->stop && *L->run->stop) {
			*end = KP_END_STOPPED;
			return 0;
		}
		if (L->parallel > 1 || !L->nevalq) {
			int sent = dispatch(L, &blocked, err);
			if (sent < 0) {
				*end = KP_END_ERROR;
				return sent;
			}
			if (sent && !L->nthreads)
				continue; /* done already (one at a time): commit it first */
		}
		if (L->gpu_running) {
			/* The GPU is busy: commit what the programmer finishes meanwhile (and prepare it). */
			if (kp__loop_gpu_finished(L)) {
				if ((rc = kp__loop_gpu_end(L, 1, err))) {
					*end = KP_END_ERROR;
					return rc;
				}
			} else {
				kp__loop_wait_done(L);
			}
			continue;
		}
		/* Requests waiting for their parent's profile: sent once it is saved, else it is made first.
		 */
		if ((rc = release_held(L, err)) < 0) {
			*end = KP_END_ERROR;
			return rc;
		}
		if (rc && !L->nthreads)
			continue; /* done already (one at a time): commit it first */
		if (L->nheld) {
			if (kp__loop_wall_spent(L)) {
				*end = KP_END_WALL;
				return 0;
			}
			if ((rc = L->async_eval ? kp__loop_gpu_start(L, SLOT_PROFILE, PROFILE_ON_DEMAND,
			                                             L->held[0], err)
			                        : kp__loop_run_here(L, SLOT_PROFILE, PROFILE_ON_DEMAND,
			                                            L->held[0], err))) {
				*end = KP_END_ERROR;
				return rc;
			}
			continue;
		}
		if (L->tune.pending) {
			if ((rc = kp__tune_step(L, err))) {
				*end = KP_END_ERROR;
				return rc;
			}
			continue;
		}
		if (L->nevalq) {
			if (kp__loop_wall_spent(L)) {
				*end = KP_END_WALL;
				return 0;
			}
			if ((rc = L->async_eval ? kp__loop_gpu_start(L, SLOT_EVALUATE, 0, 0, err)
			                        : kp__loop_run_here(L, SLOT_EVALUATE, 0, 0, err))) {
				*end = KP_END_ERROR;
				return rc;
			}
			continue;
		}
		/* Nothing for the GPU while the programmer works: profile the best version not profiled yet.
		 */
		if (L->inflight && L->nthreads && !kp__loop_wall_spent(L) &&
		    (idx = kp__loop_speculative_pick(L)) >= 0) {
			if ((rc = L->async_eval
			              ? kp__loop_gpu_start(L, SLOT_PROFILE, PROFILE_SPECULATIVE, idx, err)
			              : kp__loop_run_here(L, SLOT_PROFILE, PROFILE_SPECULATIVE, idx, err))) {
				*end = KP_END_ERROR;
				return rc;
			}
			continue;
		}
		if (L->inflight) {
			kp__loop_report(L, "generating");
			kp__loop_wait_done(L);
			continue;
		}
		*end = blocked != KP_END_NONE ? blocked : KP_END_EXHAUSTED;
		if ((rc = kp__loop_profile_best(L, err)))
			*end = KP_END_ERROR;
		return rc;
	}
}

/* ---- sessions -------------------------------------------------------------------------------------- */

/* A new session: recorded, the tree loaded, the reference evaluated when it is not yet. */
static int session_begin(struct loop *L, struct kp_error *err)
{
	int rc = kp_store_session_begin(L->st, L->run->argv_text, &L->session, err);
	if (!rc)
		rc = kp_store_meta_set(L->st, "status", "running", err);
	if (!rc)
		rc = kp__loop_load(L, err);
	if (!rc && L->nevalq)
		kp__loop_note(L, "resuming: %zu candidate(s) saved but not yet evaluated", L->nevalq);
	if (!rc)
		rc = kp__loop_setup_root(L, err);
	return rc;
}

/* The session's end: the run's status and why, the session's time, the outcome. Best effort: rc wins. */
static void session_end(struct loop *L, enum kp_search_end end, int rc, const struct kp_error *err,
			struct kp_search_outcome *out)
{
	const char *status = end == KP_END_ERROR ? "failed" : end == KP_END_STOPPED ? "stopped" : "finished";
	struct kp_error e2 = KP_ERROR_INIT;

	out->end = end;
	out->evals = L->session_evals;
	if (L->tree.best >= 0) {
		out->best_node = L->tree.n[L->tree.best].id;
		out->best_speedup = L->tree.best > 0 ? L->tree.n[L->tree.best].speedup : 1.0;
	}
	if (!kp_store_meta_set(L->st, "status", status, &e2))
		kp_store_meta_set(L->st, "end_reason", rc ? kp_error_msg(err) : kp_search_end_name(end), &e2);
	kp_store_session_end(L->st, L->session, kp__loop_session_elapsed(L), kp_search_end_name(end), &e2);
	kp__loop_report(L, kp_search_end_name(end));
	kp__loop_evaluated(L);
}

int kp_search_loop(struct kp_search_run *run, struct kp_search_outcome *out, struct kp_error *err)
{
	struct loop L;
	enum kp_search_end end = KP_END_ERROR;
	struct kp_error sub = KP_ERROR_INIT;
	int rc;

	memset(&L, 0, sizeof(L));
	memset(out, 0, sizeof(*out));
	L.run = run;
	L.st = run->store;
	L.t0 = now(&L);
	L.prev_elapsed = kp_store_elapsed_total(run->store);
	L.mem = (struct kp_memory){run->store, run->shared_memory,
				   run->task->family ? run->task->family : run->task->name, run->run_name};
	L.parallel = run->params.parallel;
	if (!run->programmer)
		L.parallel = 1; /* the tune action alone: one step after another */
	else if (run->programmer->max_parallel > 0 && run->programmer->max_parallel < L.parallel)
		L.parallel = run->programmer->max_parallel;
	kp_tree_init(&L.tree);
	rc = session_begin(&L, err);
	if (!rc) {
		kp__loop_start_workers(&L);
		L.async_eval = L.nthreads > 0 && run->evaluator->concurrent;
		kp__loop_prepare_queued(&L);
		rc = steps(&L, &end, err);
		/* An evaluation the GPU thread is finishing is kept when it succeeds (else evaluated on resume). */
		if (L.gpu_running) {
			struct kp_error gerr = KP_ERROR_INIT;
			int grc = kp__loop_gpu_end(&L, !rc, rc ? &gerr : err);
			if (grc && !rc) {
				rc = grc;
				end = KP_END_ERROR;
			}
		}
		/* Requests in flight finish, and what they made is kept (evaluated on resume). */
		if (kp__loop_drain(&L, rc ? &sub : err) && !rc) {
			rc = err->code;
			end = KP_END_ERROR;
		}
		kp__loop_stop_workers(&L);
	}
	if (rc == KP_ECANCELED) {
		/* A stop (Ctrl-C) reached a request or an evaluation in progress: stopped, not failed. */
		rc = 0;
		kp_error_clear(err);
		end = KP_END_STOPPED;
	}
	session_end(&L, end, rc, err, out);
	kp_tree_release(&L.tree);
	free(L.evalq);
	free(L.held);
	free(L.stage1);
	free(L.hardware);
	free(L.reference);
	return rc;
}
