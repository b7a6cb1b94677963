/*
 * The bench's scheduler: one shard of a suite over N GPU slots. Each slot is a thread that takes
 * the next job (a baseline to measure, then the longest task left by its reference's time) and
 * does it on its GPU, one evaluation at a time; the calling thread watches: the caller's notes and
 * view, Ctrl-C, the suite's budget. State goes to the shard database at every change, so a process
 * killed at any point resumes where it stood.
 */
#include "base/setup.h"

#include <math.h>
#include <time.h>
#include <unistd.h>

#include "kernelpro/device.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/log.h"
#include "kernelpro/str.h"
#include "suite/sched_int.h"

#define TOUCH_EVERY_S 5.0

/* ---- notes, rows, stopping (under mu) ------------------------------------------------------------ */

void kp__sched_note(struct sched *S, int run, const char *fmt, ...)
{
	struct kp_buf b = KP_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	kp_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	if (S->nnotes == S->notes_alloc) {
		S->notes_alloc = S->notes_alloc ? S->notes_alloc * 2 : 16;
		S->notes = kp_xrealloc(S->notes, S->notes_alloc * sizeof(*S->notes));
	}
	S->notes[S->nnotes].line = kp_buf_detach(&b, NULL);
	S->notes[S->nnotes++].run = run;
	kp_buf_release(&b);
	pthread_cond_broadcast(&S->cv);
}

void kp__sched_stop(struct sched *S, enum kp_bench_end why)
{
	if (!S->stopping) {
		S->stopping = 1;
		S->end = why;
	}
	for (int i = 0; i < S->nslots; i++)
		S->slots[i].stop = 1;
	pthread_cond_broadcast(&S->cv);
}

void kp__sched_fatal(struct sched *S, const struct kp_error *err)
{
	if (!S->fatal) {
		S->fatal = 1;
		S->fatal_err = *err;
	}
	kp__sched_stop(S, KP_BENCH_STOPPED);
}

void kp__sched_put(struct sched *S, struct sched_task *st)
{
	struct kp_error err = KP_ERROR_INIT;
	if (kp_suitedb_progress_put(S->db, &st->p, &err))
		kp__sched_fatal(S, &err);
}

/* ---- setting up the shard ------------------------------------------------------------------------ */

/*
 * Limits given on command lines outlive their session: the per-task ones (for runs made later) and
 * the suite's, kept in the shard database and merged with this session's.
 */
static int load_limits(struct sched *S, struct kp_error *err)
{
	const struct kp_bench_opts *o = S->o;
	struct kp_error absent = KP_ERROR_INIT; /* a shard's first session has neither */
	json_t *j = NULL;
	int rc;

	if (!kp_store_meta_get_json(S->db, "budget_override", &j, &absent)) {
		kp_search_budget_from_json(json_object_get(j, "budget"), &S->override);
		S->override_which = (unsigned)kp_json_int(j, "which", 0);
		json_decref(j);
	}
	kp__bench_budget_merge(&S->override, &o->budget, o->budget_which);
	S->override_which |= o->budget_which;
	S->suite_budget = S->b->suite_budget;
	kp_error_clear(&absent);
	if (!kp_store_meta_get_json(S->db, "suite_budget", &j, &absent)) {
		kp_search_budget_from_json(j, &S->suite_budget);
		json_decref(j);
	}
	kp__bench_budget_merge(&S->suite_budget, &o->suite_budget, o->suite_which);
	j = json_object();
	kp_json_set(j, "budget", kp_search_budget_to_json(&S->override));
	kp_json_set(j, "which", json_integer(S->override_which));
	if ((rc = kp_store_meta_set_json(S->db, "budget_override", j, err)))
		return rc;
	return kp_store_meta_set_json(S->db, "suite_budget", kp_search_budget_to_json(&S->suite_budget), err);
}

/* The slots of the latest session (bench/bench_overhead.py divides by their number). */
static int record_gpus(struct sched *S, struct kp_error *err)
{
	json_t *a = json_array();
	for (int i = 0; i < S->o->ngpus; i++)
		json_array_append_new(a, json_integer(S->o->gpus[i]));
	return kp_store_meta_set_json(S->db, "gpus", a, err);
}

static int is_final(const char *state)
{
	return !strcmp(state, "finished") || !strcmp(state, "failed");
}

/* The shard's tasks (index % M == K), with their rows; which ones run and which need a baseline. */
static int load_tasks(struct sched *S, struct kp_error *err)
{
	struct kp_suitedb_progress *rows = NULL;
	size_t nrows = 0;
	int rc = kp_suitedb_progress_load(S->db, &rows, &nrows, err);

	if (rc)
		return rc;
	S->ts = kp_xcalloc(S->b->ntasks / (size_t)S->m + 1, sizeof(*S->ts));
	for (size_t i = (size_t)S->k; i < S->b->ntasks; i += (size_t)S->m) {
		struct sched_task *st = &S->ts[S->n++];
		st->t = &S->b->tasks[i];
		kp_suite_task_init(&st->rec);
		kp_suitedb_progress_init(&st->p, (long)i);
		for (size_t r = 0; r < nrows; r++)
			if (rows[r].idx == (long)i) {
				kp_suitedb_progress_release(&st->p);
				st->p = rows[r];
				memset(&rows[r], 0, sizeof(rows[r]));
				rows[r].idx = -1;
			}
		if (st->p.order >= S->order_next)
			S->order_next = st->p.order;
		st->runnable =
		    !is_final(st->p.state) || (S->o->retry_failed && !strcmp(st->p.state, "failed"));
		S->runnable += st->runnable;
		/* A baseline that failed is measured again: the cause (a broken setup) may be gone. */
		st->need_baseline = st->runnable && S->baselines && !st->p.baseline;
		kp__task_load_record(st);
	}
	kp_suitedb_progress_free(rows, nrows);
	for (size_t i = 0; i < S->n; i++) { /* the samples of one problem in `bench --kernels` share one */
		S->ts[i].lead = &S->ts[i];
		for (size_t j = 0; j < i; j++)
			if (!strcmp(S->ts[j].t->sha256, S->ts[i].t->sha256)) {
				S->ts[i].lead = S->ts[j].lead;
				break;
			}
	}
	return 0;
}

/* The harness evaluates on GPUs of this host: each slot's must exist. */
static int check_gpus(struct sched *S, struct kp_error *err)
{
	struct kp_gpu_list gpus;
	if (S->exec)
		return 0;
	if (kp_device_query(&gpus, err))
		return kp_error_set(
		    err, KP_ENODEV,
		    "no usable GPU here: the built-in harness evaluates on this host's GPUs ('kernelpro "
		    "doctor' says why; --evaluator exec:PROGRAM evaluates elsewhere)");
	for (int i = 0; i < S->o->ngpus; i++)
		if (S->o->gpus[i] >= gpus.count)
			return kp_error_set(err, KP_ENODEV,
			                    "--gpus names GPU %d, but this host has %d (0..%d)",
			                    S->o->gpus[i], gpus.count, gpus.count - 1);
	return 0;
}

static int setup(struct sched *S, struct kp_error *err)
{
	const struct kp_bench_opts *o = S->o;
	struct kp_buf p = KP_BUF_INIT;
	int rc;

	if (o->ngpus < 1 || o->ngpus > KP_BENCH_MAX_SLOTS)
		return kp_error_set(err, KP_EINVAL, "a bench needs 1..%d GPU slots, not %d",
		                    KP_BENCH_MAX_SLOTS, o->ngpus);
	if ((rc = kp_bench_open(&S->b, o->dir, err)))
		return rc;
	S->k = o->shards ? o->shard : 0;
	S->m = o->shards ? o->shards : 1;
	S->evaluator = o->evaluator ? o->evaluator : S->b->settings.evaluator;
	if (S->evaluator && kp_starts_with(S->evaluator, "exec:"))
		S->exec = kp_xstrdup(S->evaluator + 5);
	else if (S->evaluator && strcmp(S->evaluator, "harness"))
		return kp_error_set(err, KP_EINVAL,
		                    "--evaluator must be 'harness' or 'exec:PROGRAM ARGS', not '%s'",
		                    S->evaluator);
	S->baselines = S->b->baselines.eager;
	S->compile = S->b->baselines.compile;
	if ((rc = check_gpus(S, err)))
		return rc;
	kp_path_join(&p, S->b->dir, "shards");
	if ((rc = kp_mkdir_p(p.buf, 0755, err)))
		goto out;
	{
		struct kp__shardlock_req lr = {S->b->dir, S->k, S->m, o->argv_text, o->lock_wait_s, o->stop};
		if ((rc = kp__shardlock_take(&lr, &S->lock_fd, err)))
			goto out;
	}
	kp_buf_reset(&p);
	kp__bench_shard_path(&p, S->b->dir, S->k, S->m, "db");
	if ((rc = kp_suitedb_open(&S->db, p.buf, KP_STORE_CREATE, err)) || (rc = load_limits(S, err)) ||
	    (rc = load_tasks(S, err)))
		goto out;
	S->prev_elapsed = kp_store_elapsed_total(S->db);
	if ((rc = record_gpus(S, err)))
		goto out;
	rc = kp_store_session_begin(S->db, o->argv_text, &S->session, err);
out:
	kp_buf_release(&p);
	return rc;
}

/* ---- what a slot does next (under mu) ------------------------------------------------------------ */

/* Longest first: the reference's time when known, else the inputs' size, else list order. */
static int before(const struct sched_task *a, const struct sched_task *b)
{
	int ka = !isnan(a->p.est_ms), kb = !isnan(b->p.est_ms);
	int ia = !isnan(a->t->input_bytes), ib = !isnan(b->t->input_bytes);
	if (ka != kb)
		return ka;
	if (ka && a->p.est_ms != b->p.est_ms)
		return a->p.est_ms > b->p.est_ms;
	if (ia != ib)
		return ia;
	if (ia && a->t->input_bytes != b->t->input_bytes)
		return a->t->input_bytes > b->t->input_bytes;
	return a->t->idx < b->t->idx;
}

enum job { JOB_NONE, JOB_BASELINE, JOB_RUN };

/*
 * Baselines first (any slot, list order); a task starts only once none is left to measure, so the
 * longest-first order is the true one; then the longest task not taken. A task whose content an
 * earlier task has (its lead: the samples of one problem in `bench --kernels`; the baseline's cache key
 * but the GPU's name and the protocol, which all slots share) takes the lead's baseline once it is
 * measured and waits while it is; when the lead has none to give (its measurement failed) the next
 * such task leads the rest in its place. Slots that share a GPU
 * (--per-gpu) would otherwise measure the same reference side by side, one after another under the
 * GPU's lock.
 */
static enum job pick(struct sched *S, struct sched_task **out)
{
	for (;;) {
		struct sched_task *best = NULL;
		int measuring = 0;
		if (S->stopping)
			return JOB_NONE;
		for (size_t i = 0; i < S->n; i++) {
			struct sched_task *st = &S->ts[i], *l = st->lead;
			if (!st->need_baseline || st->taken) {
				measuring |= st->need_baseline;
				continue;
			}
			if (l != st && !l->need_baseline && l->p.baseline && !l->p.baseline_error) {
				free(st->p.baseline);
				st->p.baseline = kp_xstrdup(l->p.baseline);
				st->p.est_ms = l->p.est_ms;
				st->need_baseline = 0;
				kp__sched_put(S, st);
				continue;
			}
			if (l != st && l->need_baseline) { /* being measured: the lead comes first in list order */
				measuring = 1;
				continue;
			}
			if (l != st) /* the lead has no baseline to give (it failed): this task leads the rest */
				for (size_t j = i; j < S->n; j++)
					if (S->ts[j].lead == l)
						S->ts[j].lead = st;
			st->taken = 1;
			*out = st;
			return JOB_BASELINE;
		}
		if (measuring) {
			pthread_cond_wait(&S->cv, &S->mu);
			continue;
		}
		for (size_t i = 0; i < S->n; i++) {
			struct sched_task *st = &S->ts[i];
			if (st->runnable && !st->taken && (!best || before(st, best)))
				best = st;
		}
		if (!best)
			return JOB_NONE;
		best->taken = 1;
		if (!best->p.order) /* taken in this order (written with its row when it starts) */
			best->p.order = ++S->order_next;
		*out = best;
		return JOB_RUN;
	}
}

/* ---- the slots ----------------------------------------------------------------------------------- */

/*
 * The slot's warm evaluation worker (lib/eval/worker.c) when the evaluation options ask for one, held
 * until the slot ends. It is launched when the slot starts, without waiting: its start (PyTorch's import,
 * no CUDA) runs while the slot measures baselines or its first task evaluates the reference; the tasks'
 * evaluations connect to it themselves (at their first candidate), and one that finds it dead starts
 * another. After each task the slot connects too (the worker has long started by then): a worker that
 * could not start means cold evaluations for the slot from then on, said once.
 */
static void slot_worker_note(struct slot *sl, const struct kp_error *err)
{
	/* Asking again before each evaluation would cost as much as evaluating cold. */
	sl->pub.eval.worker = 0;
	kp_eval_worker_stop(sl->worker, 0);
	sl->worker = NULL;
	pthread_mutex_lock(&sl->S->mu);
	kp__sched_note(sl->S, 0, "gpu%d: no warm evaluation worker (%s); evaluating without one", sl->pub.gpu,
	               kp_error_msg(err));
	pthread_mutex_unlock(&sl->S->mu);
}

static void slot_worker_start(struct slot *sl)
{
	struct kp_error err = KP_ERROR_INIT;
	if (!sl->pub.eval.worker || sl->S->exec || sl->worker || !sl->S->runnable)
		return;
	if (kp_eval_worker_launch(sl->pub.gpu, &sl->pub.eval, &sl->worker, &err))
		slot_worker_note(sl, &err);
}

static void slot_worker_check(struct slot *sl)
{
	struct kp_error err = KP_ERROR_INIT;
	if (sl->worker && kp_eval_worker_connect(sl->worker, &err))
		slot_worker_note(sl, &err);
}

/* After a task failed: its evaluations may have left the GPU's worker wedged, so the next task gets a fresh
 * one. */
static void slot_worker_restart(struct slot *sl)
{
	if (!sl->worker)
		return;
	kp_eval_worker_stop(sl->worker, 1);
	sl->worker = NULL;
	slot_worker_start(sl);
}

/* The device's name: the baselines' cache key. */
static void slot_gpu_name(struct slot *sl)
{
	struct kp_gpu_list gpus;
	struct kp_error err = KP_ERROR_INIT;
	if (sl->S->exec || !sl->S->baselines)
		return;
	if (!kp_device_query(&gpus, &err) && sl->pub.gpu < gpus.count)
		kp_strlcpy(sl->pub.gpu_name, gpus.gpus[sl->pub.gpu].name, sizeof(sl->pub.gpu_name));
}

static void *slot_main(void *arg)
{
	struct slot *sl = arg;
	struct sched *S = sl->S;

	slot_gpu_name(sl);
	slot_worker_start(sl);
	pthread_mutex_lock(&S->mu);
	for (;;) {
		struct sched_task *st = NULL;
		enum job j = pick(S, &st);
		if (j == JOB_NONE)
			break;
		sl->task = st;
		sl->task_t0 = kp_now();
		pthread_mutex_unlock(&S->mu);
		if (j == JOB_BASELINE) {
			kp__task_baseline(sl, st);
		} else {
			kp__task_run(sl, st);
			slot_worker_check(sl);
		}
		pthread_mutex_lock(&S->mu);
		sl->task = NULL;
		st->taken = 0;
		if (sl->wedged) { /* the task's evaluations crashed or hung */
			sl->wedged = 0;
			pthread_mutex_unlock(&S->mu);
			slot_worker_restart(sl);
			pthread_mutex_lock(&S->mu);
		}
		pthread_cond_broadcast(&S->cv);
	}
	S->running_slots--;
	pthread_cond_broadcast(&S->cv);
	pthread_mutex_unlock(&S->mu);
	/* The worker stays for the next user, and ends when idle (one still starting: ended). */
	kp_eval_worker_stop(sl->worker, 0);
	sl->worker = NULL;
	return NULL;
}

static int start_slots(struct sched *S, struct kp_error *err)
{
	const struct kp_bench_opts *o = S->o;
	S->nslots = o->ngpus;
	S->slots = kp_xcalloc((size_t)S->nslots, sizeof(*S->slots));
	for (int i = 0; i < S->nslots; i++) {
		struct slot *sl = &S->slots[i];
		sl->S = S;
		sl->pub.index = i;
		sl->pub.gpu = o->gpus[i];
		sl->pub.user = o->slot_user ? o->slot_user[i] : NULL;
		if (o->eval)
			sl->pub.eval = *o->eval;
		else
			kp_eval_opts_init(&sl->pub.eval);
		sl->pub.eval.gpu = o->gpus[i];
		sl->view.gpu = o->gpus[i];
	}
	pthread_mutex_lock(&S->mu);
	for (int i = 0; i < S->nslots; i++) {
		if (pthread_create(&S->slots[i].thread, NULL, slot_main, &S->slots[i]) != 0) {
			kp__sched_stop(S, KP_BENCH_STOPPED);
			pthread_mutex_unlock(&S->mu);
			return kp_error_set(err, KP_EIO, "cannot start a thread for GPU slot %d", i);
		}
		S->slots[i].started = 1;
		S->running_slots++;
	}
	pthread_mutex_unlock(&S->mu);
	return 0;
}

/* ---- the view ------------------------------------------------------------------------------------ */

static int state_index(const char *s)
{
	int i = kp_suite_state_parse(s);
	return i < 0 ? KP_SUITE_PENDING : i;
}

static void make_view(struct sched *S, struct kp_bench_view *v)
{
	double now = kp_now();
	long left = 0;

	memset(v, 0, sizeof(*v));
	v->nslots = S->nslots;
	for (int i = 0; i < S->nslots; i++) {
		const struct slot *sl = &S->slots[i];
		v->slot[i] = sl->view;
		v->slot[i].busy = sl->task != NULL;
		v->slot[i].task_elapsed_s = sl->task ? now - sl->task_t0 : 0;
		if (!sl->task)
			snprintf(v->slot[i].phase, sizeof(v->slot[i].phase), "%s",
			         S->stopping ? "stopped" : "idle");
	}
	v->tasks = (long)S->n;
	for (size_t i = 0; i < S->n; i++) {
		const struct sched_task *st = &S->ts[i];
		int live = st->taken && !st->need_baseline && !strcmp(st->p.state, "running");
		v->states[state_index(st->p.state)]++;
		v->baselines_left += st->need_baseline;
		left += st->runnable;
		if (live) {
			v->evaluations += st->live_evals;
			v->tokens += st->live_tokens;
			v->cost_usd += st->live_cost;
		} else if (st->have_rec) {
			v->evaluations += st->rec.evaluations;
			v->tokens += st->rec.tokens_in + st->rec.tokens_out;
			v->cost_usd += st->rec.cost_usd;
		}
		if (st->have_rec && st->rec.correct) {
			v->correct++;
			v->fast1 += st->rec.speedup[KP_SUITE_EAGER] > 1.0;
		}
	}
	v->elapsed_s = S->prev_elapsed + (now - S->t0);
	v->eta_s =
	    S->ended_count > 0 && S->nslots > 0 ? left * (S->ended_wall / S->ended_count) / S->nslots : NAN;
}

/* The suite's budget, counted over the whole shard (every session). */
static void check_budget(struct sched *S, const struct kp_bench_view *v)
{
	const struct kp_search_budget *b = &S->suite_budget;
	const char *what = NULL;
	if (S->stopping)
		return;
	if (b->evals && v->evaluations >= b->evals)
		what = "evaluations";
	else if (b->wall_s > 0 && v->elapsed_s >= b->wall_s)
		what = "time";
	else if (b->tokens && v->tokens >= b->tokens)
		what = "tokens";
	else if (b->cost > 0 && v->cost_usd >= b->cost)
		what = "cost";
	if (what) {
		kp__sched_note(S, 0, "the suite's budget (%s) is spent: stopping after the current steps",
		               what);
		kp__sched_stop(S, KP_BENCH_BUDGET);
	}
}

/* Delivers the queued notes on the caller's thread (mu is dropped around the calls). */
static void deliver(struct sched *S, const struct kp_bench_view *v, int tick)
{
	struct note *notes = S->notes;
	size_t n = S->nnotes;
	const struct kp_bench_opts *o = S->o;

	S->notes = NULL;
	S->nnotes = S->notes_alloc = 0;
	pthread_mutex_unlock(&S->mu);
	for (size_t i = 0; i < n; i++) {
		if (o->note)
			o->note(notes[i].run, notes[i].line, o->ud);
		free(notes[i].line);
	}
	free(notes);
	if (tick && o->tick)
		o->tick(v, o->ud);
	pthread_mutex_lock(&S->mu);
}

/* The caller's thread while the slots work: notes, the view, Ctrl-C and the suite's budget. */
static void watch(struct sched *S)
{
	const struct kp_bench_opts *o = S->o;
	double tick = o->tick_s > 0 ? o->tick_s : 0.25, last_touch = kp_now();
	struct kp_bench_view *v = kp_xcalloc(1, sizeof(*v));

	pthread_mutex_lock(&S->mu);
	while (S->running_slots > 0) {
		struct timespec ts;
		double when = kp_wall_time() + tick;
		ts.tv_sec = (time_t)when;
		ts.tv_nsec = (long)((when - (double)ts.tv_sec) * 1e9);
		/* CLOCK_REALTIME: the condition variable's default clock. */
		if (!S->nnotes)
			pthread_cond_timedwait(&S->cv, &S->mu, &ts);
		if (o->stop && *o->stop && !S->stopping) {
			kp__sched_note(
			    S, 0,
			    "stopping: no new task, each GPU's current step is stopped (Ctrl-C again to quit "
			    "now; --resume continues)");
			kp__sched_stop(S, KP_BENCH_STOPPED);
		}
		make_view(S, v);
		check_budget(S, v);
		if (kp_now() - last_touch > TOUCH_EVERY_S) {
			struct kp_error err = KP_ERROR_INIT;
			last_touch = kp_now();
			if (kp_store_session_touch(S->db, S->session, kp_now() - S->t0, &err))
				kp__sched_fatal(S, &err);
		}
		deliver(S, v, 1);
	}
	make_view(S, v);
	deliver(S, v, 1);
	pthread_mutex_unlock(&S->mu);
	free(v);
}

/* ---- the whole ------------------------------------------------------------------------------------ */

static void sched_release(struct sched *S)
{
	for (size_t i = 0; i < S->n; i++) {
		kp_suitedb_progress_release(&S->ts[i].p);
		kp_suite_task_release(&S->ts[i].rec);
	}
	free(S->ts);
	for (size_t i = 0; i < S->nnotes; i++)
		free(S->notes[i].line);
	free(S->notes);
	free(S->slots);
	free(S->exec);
	kp_store_close(S->db);
	if (S->lock_fd >= 0)
		close(S->lock_fd);
	kp_bench_close(S->b);
	pthread_mutex_destroy(&S->mu);
	pthread_cond_destroy(&S->cv);
}

static const char *end_reason(const struct sched *S)
{
	if (S->fatal)
		return "error";
	switch (S->end) {
	case KP_BENCH_STOPPED: return "stopped";
	case KP_BENCH_BUDGET: return "suite budget";
	default: return "done";
	}
}

int kp_bench_run(const struct kp_bench_opts *o, struct kp_bench_outcome *out, struct kp_error *err)
{
	struct sched S;
	struct kp_error end_err = KP_ERROR_INIT;
	int rc;

	memset(out, 0, sizeof(*out));
	memset(&S, 0, sizeof(S));
	S.o = o;
	S.lock_fd = -1;
	S.end = KP_BENCH_DONE;
	S.t0 = kp_now();
	pthread_mutex_init(&S.mu, NULL);
	pthread_cond_init(&S.cv, NULL);
	if ((rc = setup(&S, err)))
		goto out;
	rc = start_slots(&S, err);
	watch(&S);
	for (int i = 0; i < S.nslots; i++)
		if (S.slots[i].started)
			pthread_join(S.slots[i].thread, NULL);
	if (!rc && S.fatal) {
		*err = S.fatal_err;
		rc = err->code ? err->code : KP_EIO;
	}
	if (kp_store_session_end(S.db, S.session, kp_now() - S.t0, end_reason(&S), &end_err) && !rc)
		rc = kp_error_set(err, end_err.code, "%s", kp_error_msg(&end_err));
	out->end = S.end;
	out->started = S.started;
	out->finished = S.finished;
	out->failed = S.failed;
	out->evaluations = S.session_evals;
	out->baselines = S.session_baselines;
	pthread_mutex_lock(&S.mu);
	make_view(&S, &out->view);
	pthread_mutex_unlock(&S.mu);
out:
	sched_release(&S);
	return rc;
}
