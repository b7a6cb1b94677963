/*
 * The optimize loop's programmer requests: a request built from the database (parent code, verdict,
 * feedback, memory, profile), run on a worker thread (or on the loop's thread, one at a time), and
 * what it made committed on the loop's thread in the order requests finish. docs/internals/search.md.
 */
#include "base/setup.h"

#include <math.h>
#include <pthread.h>

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
int kp__loop_make_job(struct loop *L, int idx, struct job **out, struct kp_error *err)
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

void kp__loop_submit(struct loop *L, struct job *j)
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
void kp__loop_wait_done(struct loop *L)
{
	if (!L->nthreads)
		return;
	pthread_mutex_lock(&L->mu);
	while (!L->done && !(L->gpu_running && L->gpu_done))
		pthread_cond_wait(&L->cv_done, &L->mu);
	pthread_mutex_unlock(&L->mu);
}

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
	if ((rc = kp__loop_end_tx(L, rc, err)))
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

/* ---- worker threads, and what they finished ------------------------------------------------------- */

void kp__loop_start_workers(struct loop *L)
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

void kp__loop_stop_workers(struct loop *L)
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
int kp__loop_drain(struct loop *L, struct kp_error *err)
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
int kp__loop_collect(struct loop *L, struct kp_error *err)
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
