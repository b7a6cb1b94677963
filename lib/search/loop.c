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
 */
#include "base/setup.h"

#include <math.h>
#include <pthread.h>

#include "kernelpro/json.h"
#include "kernelpro/log.h"
#include "kernelpro/search.h"
#include "kernelpro/str.h"
#include "search/loop_int.h"

/* The texts a request carries from the database; the request's context points into them. */
struct job_text {
	struct kp_buf parent_source, parent_log, feedback, memory, parent_profile, parent_findings;
};

/* One programmer request: its context and the texts it points to and, once done, its result. */
struct job {
	struct job *next;
	long parent_id;
	enum kp_node_kind kind;
	struct kp_search_request ctx;
	char parent_format[16]; /* ctx.parent_format: a copy, as the tree's array moves when it grows */
	struct job_text text;
	struct kp_search_child result;
	int rc;
	struct kp_error err;
};

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
static double session_elapsed(const struct loop *L)
{
	return now(L) - L->t0;
}

/* The run's time over all sessions: what the wall-time budget limits. */
double kp__loop_elapsed(const struct loop *L)
{
	return L->prev_elapsed + session_elapsed(L);
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

/* ---- persistence helpers ---------------------------------------------------------------------------- */

/* Writes back every dirty node and records newly closed ones in search memory. Inside a transaction. */
static int flush_nodes(struct loop *L, struct kp_error *err)
{
	for (size_t i = 0; i < L->tree.count; i++) {
		struct kp_tnode *n = &L->tree.n[i];
		struct kp_node_row row;
		int rc;
		if (!n->dirty)
			continue;
		rc = kp_store_node_get(L->st, n->id, &row, err);
		if (!rc) {
			kp_tree_to_row(&L->tree, (int)i, &row);
			rc = kp_store_node_update(L->st, &row, err);
		}
		if (!rc && n->dead && !n->dead_noted) {
			struct kp_buf log = KP_BUF_INIT;
			rc = kp_store_eval_text(L->st, n->id, &log, NULL, NULL, err);
			if (!rc)
				rc = kp_memory_dead_end(&L->mem, &L->tree, (int)i, row.summary, log.buf, err);
			kp_buf_release(&log);
			if (!rc) {
				n->dead_noted = 1;
				kp__loop_note(L, "closed #%ld: %s", n->id, kp_dead_reason_text(n->dead));
			}
		}
		if (rc)
			return rc;
	}
	return 0;
}

int kp__loop_commit(struct loop *L, struct kp_error *err)
{
	int rc = flush_nodes(L, err);
	if (!rc)
		rc = kp_store_session_touch(L->st, L->session, session_elapsed(L), err);
	if (!rc)
		rc = kp_store_commit(L->st, err);
	else
		kp_store_rollback(L->st);
	if (!rc)
		kp_tree_clear_dirty(&L->tree);
	return rc;
}

/* An evaluation was committed (or the session ends): whoever keeps files beside the database hears of it. */
void kp__loop_evaluated(struct loop *L)
{
	if (L->run->evaluated)
		L->run->evaluated(L->run->ud);
}

/* What one evaluation wrote to the database: the evaluator's judgement of node `id`. */
static struct kp_eval_row eval_row(long id, const struct kp_search_eval *res, double ref_time_ms, double speedup)
{
	return (struct kp_eval_row){.node = id, .outcome = res->outcome, .time_ms = res->time_ms,
				    .time_std_ms = res->time_std_ms, .ref_time_ms = ref_time_ms, .speedup = speedup,
				    .energy_j = res->energy_j, .wall_s = res->wall_s, .log = res->log,
				    .verdict_json = res->verdict_json, .profile_json = res->profile_json,
				    .feedback = res->feedback, .findings_json = res->findings_json};
}

/* ---- the reference (root) ---------------------------------------------------------------------------- */

/* A new run's given version (optimize --from): the root's first child, added with the root. */
static int insert_seed(struct loop *L, long root, struct kp_node_row *seed, struct kp_error *err)
{
	const struct kp_search_run *run = L->run;
	kp_node_row_init(seed);
	seed->parent = root;
	seed->kind = KP_NODE_GIVEN;
	seed->depth = 1;
	kp_strlcpy(seed->format, kp_search_version_format(run->task, NULL, run->seed_source),
	           sizeof(seed->format));
	snprintf(seed->summary, sizeof(seed->summary), "given: %s",
	         run->seed_name ? run->seed_name : "a version");
	return kp_store_node_insert(L->st, seed, run->task->kind->lang, run->seed_source, err);
}

static int setup_root(struct loop *L, struct kp_error *err)
{
	struct kp_node_row row, seed;
	struct kp_search_eval res;
	struct kp_eval_row er;
	int rc, idx;

	if (!L->tree.count) {
		kp_node_row_init(&row);
		row.kind = KP_NODE_ROOT;
		snprintf(row.summary, sizeof(row.summary), "the reference");
		rc = kp_store_begin(L->st, err);
		if (!rc)
			rc = kp_store_node_insert(L->st, &row, L->run->task->kind->lang, L->run->task->reference_source, err);
		if (!rc && L->run->seed_source)
			rc = insert_seed(L, row.id, &seed, err);
		if (!rc)
			rc = kp_store_commit(L->st, err);
		else
			kp_store_rollback(L->st);
		if (rc)
			return rc;
		kp_tree_add(&L->tree, &row);
		if (L->run->seed_source) {
			kp_tree_add(&L->tree, &seed);
			L->tree.n[0].expansions = 1;
			L->tree.n[0].dirty = 1; /* written with the reference's evaluation */
			kp__loop_queue(L, seed.id, L->run->seed_source);
			kp__loop_note(L, "#%ld: %s", seed.id, seed.summary);
		}
	}
	if (L->tree.n[0].evaluated)
		return 0;
	kp__loop_report(L, "reference");
	kp__loop_note(L, "timing and profiling the reference (Stage 1)");
	kp_search_eval_init(&res);
	rc = L->run->evaluator->reference(L->run->evaluator, &res, err);
	if (rc)
		goto out;
	if (res.outcome != KP_OUTCOME_CORRECT) {
		rc = kp_error_set(err, KP_EINVAL, "the reference itself did not pass its own check (%s)%s%s; fix the task first",
				  kp_outcome_name(res.outcome), res.log ? ": " : "", res.log ? res.log : "");
		goto out;
	}
	idx = 0;
	kp_tree_record(&L->tree, &L->run->params, idx, KP_OUTCOME_CORRECT, 1.0, res.energy_j);
	L->tree.n[idx].time_ms = res.time_ms;
	er = eval_row(L->tree.n[0].id, &res, res.time_ms, 1.0);
	rc = kp_store_begin(L->st, err);
	if (!rc)
		rc = kp_store_eval_insert(L->st, &er, L->session, err);
	if (!rc && isfinite(res.gpu_s))
		rc = kp_store_counter_add(L->st, "gpu_busy_s", res.gpu_s, err);
	if (!rc)
		rc = kp_store_meta_set(L->st, "stage1", res.stage1 ? res.stage1 : "", err);
	if (!rc)
		rc = kp_store_meta_set(L->st, "hardware", res.hardware ? res.hardware : "", err);
	if (!rc)
		rc = kp__loop_commit(L, err);
	else
		kp_store_rollback(L->st);
	if (!rc) {
		free(L->stage1);
		free(L->hardware);
		L->stage1 = res.stage1 ? kp_xstrdup(res.stage1) : NULL;
		L->hardware = res.hardware ? kp_xstrdup(res.hardware) : NULL;
		kp__loop_note(L, "reference: %.4g ms", res.time_ms);
	}
out:
	kp_search_eval_release(&res);
	return rc;
}

/* ---- programmer requests ------------------------------------------------------------------------------ */

/* A text for the request: NULL when empty ("not known" to the programmer). */
static const char *text_or_null(const struct kp_buf *b)
{
	return b->len ? b->buf : NULL;
}

static void job_free(struct job *j)
{
	kp_buf_release(&j->text.parent_source);
	kp_buf_release(&j->text.parent_log);
	kp_buf_release(&j->text.feedback);
	kp_buf_release(&j->text.memory);
	kp_buf_release(&j->text.parent_profile);
	kp_buf_release(&j->text.parent_findings);
	kp_search_child_release(&j->result);
	free(j);
}

/* Builds the request for a child of node idx: parent code and its verdict, feedback, memory. */
static int make_job(struct loop *L, int idx, struct job **out, struct kp_error *err)
{
	struct job *j = kp_xcalloc(1, sizeof(*j));
	struct job_text *t = &j->text;
	const struct kp_tnode *par = &L->tree.n[idx];
	const struct kp_tnode *best = L->tree.best >= 0 ? &L->tree.n[L->tree.best] : NULL;
	int rc = 0;

	j->parent_id = par->id;
	j->kind = kp_search_child_kind(&L->tree, idx);
	j->ctx.mode = kp_search_child_mode(j->kind);
	j->ctx.parent_id = par->id;
	j->ctx.task_name = L->run->task->name;
	j->ctx.kind = L->run->task->kind;
	j->ctx.format = kp_search_child_format(&L->tree, idx, j->ctx.mode, L->run->task->formats);
	kp_strlcpy(j->parent_format, par->format, sizeof(j->parent_format));
	j->ctx.parent_format = j->parent_format[0] ? j->parent_format : NULL;
	j->ctx.reference_source = L->reference;
	j->ctx.stage1 = L->stage1;
	j->ctx.hardware = L->hardware;
	j->ctx.parent_outcome = par->outcome;
	j->ctx.parent_speedup = par->outcome == KP_OUTCOME_CORRECT ? (par->parent < 0 ? 1.0 : par->speedup) : NAN;
	j->ctx.best_speedup = best && best->parent >= 0 ? best->speedup : 1.0;
	j->ctx.ref_time_ms = L->tree.n[0].time_ms;
	j->ctx.parent_time_ms = par->outcome == KP_OUTCOME_CORRECT ? par->time_ms : NAN;
	j->ctx.best_time_ms = best ? best->time_ms : NAN;
	if (par->parent >= 0)
		rc = kp_store_candidate_get(L->st, par->id, &t->parent_source, NULL, err);
	if (!rc)
		rc = kp_store_eval_text(L->st, par->id, &t->parent_log, &t->feedback, &t->parent_findings,
					err);
	if (!rc && j->ctx.mode == KP_PROG_OPTIMIZE)
		rc = kp_store_profile_get(L->st, par->id, &t->parent_profile, err); /* what reactive tool requests run on */
	if (!rc)
		rc = kp_memory_render(&L->mem, &L->tree, idx, j->ctx.mode, t->parent_log.buf,
				      (size_t)L->run->params.memory_bytes, &t->memory, err);
	j->ctx.parent_source = text_or_null(&t->parent_source);
	j->ctx.parent_log = j->ctx.mode == KP_PROG_DEBUG ? text_or_null(&t->parent_log) : NULL;
	j->ctx.feedback = j->ctx.mode != KP_PROG_DEBUG ? text_or_null(&t->feedback) : NULL;
	j->ctx.memory = text_or_null(&t->memory);
	j->ctx.parent_profile = text_or_null(&t->parent_profile);
	/* code search: snippets for what the tools found on the parent */
	j->ctx.parent_findings = j->ctx.mode == KP_PROG_OPTIMIZE ? text_or_null(&t->parent_findings) : NULL;
	if (rc) {
		job_free(j);
		return rc;
	}
	*out = j;
	return 0;
}

static void job_run(struct loop *L, struct job *j)
{
	struct kp_search_programmer *p = L->run->programmer;
	kp_error_clear(&j->err);
	j->rc = p->generate(p, &j->ctx, &j->result, &j->err);
}

/* Appends j at the end of a list (requests are few: a walk is fine). */
static void append_job(struct job **list, struct job *j)
{
	j->next = NULL;
	while (*list)
		list = &(*list)->next;
	*list = j;
}

static void *worker(void *arg)
{
	struct loop *L = arg;
	for (;;) {
		struct job *j;
		pthread_mutex_lock(&L->mu);
		while (!L->queue && !L->shutdown)
			pthread_cond_wait(&L->cv_work, &L->mu);
		if (!L->queue) {
			pthread_mutex_unlock(&L->mu);
			return NULL;
		}
		j = L->queue;
		L->queue = j->next;
		pthread_mutex_unlock(&L->mu);
		job_run(L, j);
		pthread_mutex_lock(&L->mu);
		append_job(&L->done, j); /* finished requests are committed in the order they finished */
		pthread_cond_signal(&L->cv_done);
		pthread_mutex_unlock(&L->mu);
	}
}

static void submit(struct loop *L, struct job *j)
{
	L->inflight++;
	if (!L->nthreads) {
		/* One request at a time: run it here, one step after another. */
		job_run(L, j);
		j->next = L->done;
		L->done = j;
		return;
	}
	pthread_mutex_lock(&L->mu);
	append_job(&L->queue, j);
	pthread_cond_signal(&L->cv_work);
	pthread_mutex_unlock(&L->mu);
}

static struct job *take_done(struct loop *L, int wait)
{
	struct job *j;
	if (L->nthreads)
		pthread_mutex_lock(&L->mu);
	while (wait && !L->done && L->nthreads)
		pthread_cond_wait(&L->cv_done, &L->mu);
	j = L->done;
	if (j)
		L->done = j->next;
	if (L->nthreads)
		pthread_mutex_unlock(&L->mu);
	if (j)
		L->inflight--;
	return j;
}

/* Blocks until some request has finished (it stays queued for take_done) or the GPU thread has. */
static void wait_done(struct loop *L)
{
	if (!L->nthreads)
		return;
	pthread_mutex_lock(&L->mu);
	while (!L->done && !(L->gpu_running && L->gpu_done))
		pthread_cond_wait(&L->cv_done, &L->mu);
	pthread_mutex_unlock(&L->mu);
}

static void prepare(struct loop *L, long id, const char *source, const char *lang);

/* Commits what a request produced: the exchanges, token use, and the new node when there is code. */
static int commit_job(struct loop *L, struct job *j, struct kp_error *err)
{
	int pidx = kp_tree_find(&L->tree, j->parent_id);
	struct kp_search_child *r = &j->result;
	struct kp_node_row row;
	long tin = 0, tout = 0;
	double cost = 0;
	int rc;

	kp_tree_end_expand(&L->tree, pidx);
	kp_node_row_init(&row);
	row.parent = j->parent_id;
	row.kind = j->kind;
	row.depth = L->tree.n[pidx].depth + 1;
	kp_strlcpy(row.format, kp_search_version_format(L->run->task, j->ctx.format, r->source), sizeof(row.format));
	if (r->summary)
		kp_strlcpy(row.summary, r->summary, sizeof(row.summary));
	rc = kp_store_begin(L->st, err);
	if (rc)
		return rc;
	if (r->source && *r->source) {
		rc = kp_store_node_insert(L->st, &row, L->run->task->kind->lang, r->source, err);
		if (!rc) {
			L->tree.n[pidx].expansions++;
			L->tree.n[pidx].dirty = 1;
		}
	}
	for (size_t i = 0; i < r->nexchanges && !rc; i++) {
		struct kp_search_exchange *x = &r->exchanges[i];
		struct kp_exchange_row xr = {j->parent_id, row.id, kp_prog_mode_name(j->ctx.mode), (int)i, x->prompt, x->reply, x->error,
					     x->tokens_in, x->tokens_out, x->cost, x->latency_s};
		rc = kp_store_exchange_insert(L->st, &xr, err);
		tin += x->tokens_in;
		tout += x->tokens_out;
		cost += x->cost;
	}
	if (!rc)
		rc = kp_store_counter_add(L->st, "tokens_in", (double)tin, err);
	if (!rc)
		rc = kp_store_counter_add(L->st, "tokens_out", (double)tout, err);
	if (!rc)
		rc = kp_store_counter_add(L->st, "cost_usd", cost, err);
	if (!rc && r->tool_calls)
		rc = kp_store_counter_add(L->st, "tool_calls", r->tool_calls, err);
	if (!rc)
		rc = kp_store_counter_add(L->st, row.id ? "generations" : "generation_failures", 1, err);
	if (!rc)
		rc = kp_memory_code_paths(&L->mem, r, row.id, err);
	if (rc) {
		kp_store_rollback(L->st);
		return rc;
	}
	rc = kp__loop_commit(L, err);
	if (rc)
		return rc;
	if (!row.id) {
		L->gen_fail_streak++;
		snprintf(L->last_gen_error, sizeof(L->last_gen_error), "%s", r->error ? r->error : "no code in the reply");
		kp__loop_note(L, "%s from #%ld: no candidate (%s)", kp_prog_mode_name(j->ctx.mode),
		              j->parent_id, L->last_gen_error);
		return 0;
	}
	L->gen_fail_streak = 0;
	kp_tree_add(&L->tree, &row);
	kp__loop_queue(L, row.id, r->source);
	kp__loop_note(L, "#%ld: %s of #%ld%s%s", row.id, kp_node_kind_name(row.kind), j->parent_id,
	              row.summary[0] ? ": " : "", row.summary);
	return 0;
}

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
	if (rc) {
		kp_store_rollback(L->st);
		return rc;
	}
	if ((rc = kp__loop_commit(L, err)))
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
	er = eval_row(e->id, res, res->ref_time_ms, res->outcome == KP_OUTCOME_CORRECT ? res->speedup : NAN);
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
	if (rc) {
		kp_store_rollback(L->st);
		return rc;
	}
	rc = kp__loop_commit(L, err);
	if (rc)
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
static int run_here(struct loop *L, enum slot_job job, enum profile_why why, int idx, struct kp_error *err)
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
static int gpu_start(struct loop *L, enum slot_job job, enum profile_why why, int idx, struct kp_error *err)
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

static int gpu_finished(struct loop *L)
{
	int done;
	pthread_mutex_lock(&L->mu);
	done = L->gpu_done;
	pthread_mutex_unlock(&L->mu);
	return done;
}

/* Waits for the GPU thread (when there is one) and records what it finished (`record`: else drops it). */
static int gpu_end(struct loop *L, int record, struct kp_error *err)
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

/* ---- budget and dispatch --------------------------------------------------------------------------------- */

/* Whether the run's wall-time budget is spent. */
static int wall_spent(const struct loop *L)
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
	if (wall_spent(L))
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

/* ---- profiling on demand (evaluator->profile) -----------------------------------------------------------
 */

/*
 * Whether node idx must be profiled before a request for its child is built: a correct version
 * other than the reference (profiled by reference()), not profiled yet, with an evaluator that
 * profiles on demand. A failed version's children are repairs: their requests carry its log.
 */
static int needs_profile(const struct loop *L, int idx)
{
	const struct kp_tnode *n = &L->tree.n[idx];
	return L->run->evaluator->profile && idx > 0 && n->evaluated && n->outcome == KP_OUTCOME_CORRECT &&
	       !n->profiled;
}

/* The best version worth a speculative profile (open, correct, unprofiled), -1 when none. */
static int speculative_pick(const struct loop *L)
{
	const struct kp_search_params *p = &L->run->params;
	int pick = -1;
	for (size_t i = 1; i < L->tree.count; i++) {
		struct kp_search_score a, b;
		if (!needs_profile(L, (int)i) || L->tree.n[i].dead)
			continue;
		a = kp_tree_score(&L->tree, (int)i);
		if (pick >= 0)
			b = kp_tree_score(&L->tree, pick);
		if (pick < 0 || kp_search_compare(&a, &b, p->objective, p->noise_band) > 0)
			pick = (int)i;
	}
	return pick;
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
		if ((rc = make_job(L, idx, &j, err))) {
			L->held[keep++] = idx;
			continue;
		}
		submit(L, j);
		sent++;
	}
	L->nheld = keep;
	return rc ? rc : sent;
}

/*
 * The run ends: its best version is profiled when it is not yet and the wall-time budget has time
 * left, since users read its diagnosis (`show`, the report). Without time left a note says how to
 * have it.
 */
static int profile_best(struct loop *L, struct kp_error *err)
{
	int best = L->tree.best;
	if (best <= 0 || !needs_profile(L, best))
		return 0;
	if (wall_spent(L)) {
		kp__loop_note(
		    L,
		    "the best version #%ld is not profiled: the wall-time budget is spent (resume with more "
		    "time to have its diagnosis)",
		    L->tree.n[best].id);
		return 0;
	}
	return run_here(L, SLOT_PROFILE, PROFILE_FINAL, best, err);
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
		if (needs_profile(L, idx)) {
			kp_tree_begin_expand(&L->tree, idx);
			KP_ALLOC_GROW(L->held, L->nheld + 1, L->held_alloc);
			L->held[L->nheld++] = idx;
			continue;
		}
		rc = make_job(L, idx, &j, err);
		if (rc)
			return rc;
		kp_tree_begin_expand(&L->tree, idx);
		kp__loop_report(L, "generating");
		submit(L, j);
		sent++;
	}
	return sent;
}

/* ---- setup and teardown ------------------------------------------------------------------------------------ */

static int load(struct loop *L, struct kp_error *err)
{
	struct kp_node_row *rows = NULL;
	size_t n = 0;
	struct kp_buf b = KP_BUF_INIT;
	int rc = kp_store_nodes_load(L->st, &rows, &n, err);
	if (rc)
		return rc;
	for (size_t i = 0; i < n; i++) {
		kp_tree_add(&L->tree, &rows[i]);
		if (rows[i].parent > 0 && !rows[i].evaluated) {
			KP_ALLOC_GROW(L->evalq, L->nevalq + 1, L->evalq_alloc);
			L->evalq[L->nevalq++] = rows[i].id;
		}
	}
	free(rows);
	kp_tree_update_best(&L->tree, &L->run->params);
	/* Which correct versions are profiled: the others are profiled on demand (nothing is lost by a kill).
	 */
	for (size_t i = 1; i < L->tree.count && L->run->evaluator->profile; i++) {
		int yes = 0;
		if (L->tree.n[i].outcome == KP_OUTCOME_CORRECT &&
		    (rc = kp_store_profile_exists(L->st, L->tree.n[i].id, &yes, err)))
			return rc;
		L->tree.n[i].profiled = yes ? 1 : 0;
	}
	if (!kp_store_meta_get(L->st, "stage1", &b, err))
		L->stage1 = kp_buf_detach(&b, NULL);
	kp_error_clear(err);
	if (!kp_store_meta_get(L->st, "hardware", &b, err))
		L->hardware = kp_buf_detach(&b, NULL);
	kp_error_clear(err);
	kp_buf_release(&b);
	if (L->tree.count && !kp_store_candidate_get(L->st, L->tree.n[0].id, &b, NULL, err))
		L->reference = kp_buf_detach(&b, NULL);
	else
		L->reference = kp_xstrdup(L->run->task->reference_source ? L->run->task->reference_source : "");
	kp_error_clear(err);
	kp_buf_release(&b);
	return kp__tune_load(L, err);
}

static void start_workers(struct loop *L)
{
	pthread_mutex_init(&L->mu, NULL);
	pthread_cond_init(&L->cv_work, NULL);
	pthread_cond_init(&L->cv_done, NULL);
	if (L->parallel <= 1)
		return;
	L->threads = kp_xcalloc((size_t)L->parallel, sizeof(*L->threads));
	for (int i = 0; i < L->parallel; i++) {
		if (pthread_create(&L->threads[i], NULL, worker, L) != 0)
			break;
		L->nthreads++;
	}
	if (!L->nthreads)
		L->parallel = 1; /* no threads to be had: run requests one after another */
}

static void stop_workers(struct loop *L)
{
	pthread_mutex_lock(&L->mu);
	L->shutdown = 1;
	pthread_cond_broadcast(&L->cv_work);
	pthread_mutex_unlock(&L->mu);
	for (int i = 0; i < L->nthreads; i++)
		pthread_join(L->threads[i], NULL);
	free(L->threads);
	pthread_mutex_destroy(&L->mu);
	pthread_cond_destroy(&L->cv_work);
	pthread_cond_destroy(&L->cv_done);
}

/* After a stop or an error: let requests in flight finish and keep what they made (to evaluate on resume). */
static int drain(struct loop *L, struct kp_error *err)
{
	int rc = 0;
	if (L->inflight && L->run->programmer->cancel)
		L->run->programmer->cancel(L->run->programmer);
	while (L->inflight) {
		struct job *j = take_done(L, 1);
		if (!j)
			break;
		if (!rc && !j->rc)
			rc = commit_job(L, j, err);
		job_free(j);
	}
	return rc;
}

/* Collects finished requests: commits what they made, or takes the first hard error. */
static int collect(struct loop *L, struct kp_error *err)
{
	struct job *j;
	int rc = 0;
	while ((j = take_done(L, 0))) {
		if (j->rc) {
			rc = j->rc;
			kp_error_set(err, j->rc, "%s", kp_error_msg(&j->err));
			kp_error_prefix(err, "programmer '%s'", L->run->programmer->name);
		} else if (!rc) {
			rc = commit_job(L, j, err);
		}
		job_free(j);
	}
	if (!rc && L->gen_fail_streak >= L->run->params.max_gen_failures)
		rc = kp_error_set(err, KP_ELLM, "the programmer's last %d replies held no usable code (last: %s); "
						"check the model and its replies in the run database",
				  L->gen_fail_streak, L->last_gen_error);
	return rc;
}

/*
 * The steps: commit finished requests, send new ones while the budget allows, evaluate saved
 * candidates one at a time, until something ends the session. Sets *end; returns 0 or an error.
 */
static int steps(struct loop *L, enum kp_search_end *end, struct kp_error *err)
{
	enum kp_search_end blocked = KP_END_NONE;
	int rc, idx;

	for (;;) {
		if ((rc = collect(L, err))) {
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
			if (gpu_finished(L)) {
				if ((rc = gpu_end(L, 1, err))) {
					*end = KP_END_ERROR;
					return rc;
				}
			} else {
				wait_done(L);
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
			if (wall_spent(L)) {
				*end = KP_END_WALL;
				return 0;
			}
			if ((rc = L->async_eval
			              ? gpu_start(L, SLOT_PROFILE, PROFILE_ON_DEMAND, L->held[0], err)
			              : run_here(L, SLOT_PROFILE, PROFILE_ON_DEMAND, L->held[0], err))) {
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
			if (wall_spent(L)) {
				*end = KP_END_WALL;
				return 0;
			}
			if ((rc = L->async_eval ? gpu_start(L, SLOT_EVALUATE, 0, 0, err)
			                        : run_here(L, SLOT_EVALUATE, 0, 0, err))) {
				*end = KP_END_ERROR;
				return rc;
			}
			continue;
		}
		/* Nothing for the GPU while the programmer works: profile the best version not profiled yet.
		 */
		if (L->inflight && L->nthreads && !wall_spent(L) && (idx = speculative_pick(L)) >= 0) {
			if ((rc = L->async_eval ? gpu_start(L, SLOT_PROFILE, PROFILE_SPECULATIVE, idx, err)
			                        : run_here(L, SLOT_PROFILE, PROFILE_SPECULATIVE, idx, err))) {
				*end = KP_END_ERROR;
				return rc;
			}
			continue;
		}
		if (L->inflight) {
			kp__loop_report(L, "generating");
			wait_done(L);
			continue;
		}
		*end = blocked != KP_END_NONE ? blocked : KP_END_EXHAUSTED;
		if ((rc = profile_best(L, err)))
			*end = KP_END_ERROR;
		return rc;
	}
}

/* Candidates saved but not evaluated when the session starts: the evaluator may prepare them now. */
static void prepare_queued(struct loop *L)
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

/* A new session: recorded, the tree loaded, the reference evaluated when it is not yet. */
static int session_begin(struct loop *L, struct kp_error *err)
{
	int rc = kp_store_session_begin(L->st, L->run->argv_text, &L->session, err);
	if (!rc)
		rc = kp_store_meta_set(L->st, "status", "running", err);
	if (!rc)
		rc = load(L, err);
	if (!rc && L->nevalq)
		kp__loop_note(L, "resuming: %zu candidate(s) saved but not yet evaluated", L->nevalq);
	if (!rc)
		rc = setup_root(L, err);
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
	kp_store_session_end(L->st, L->session, session_elapsed(L), kp_search_end_name(end), &e2);
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
		start_workers(&L);
		L.async_eval = L.nthreads > 0 && run->evaluator->concurrent;
		prepare_queued(&L);
		rc = steps(&L, &end, err);
		/* An evaluation the GPU thread is finishing is kept when it succeeds (else evaluated on resume). */
		if (L.gpu_running) {
			struct kp_error gerr = KP_ERROR_INIT;
			int grc = gpu_end(&L, !rc, rc ? &gerr : err);
			if (grc && !rc) {
				rc = grc;
				end = KP_END_ERROR;
			}
		}
		/* Requests in flight finish, and what they made is kept (evaluated on resume). */
		if (drain(&L, rc ? &sub : err) && !rc) {
			rc = err->code;
			end = KP_END_ERROR;
		}
		stop_workers(&L);
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
