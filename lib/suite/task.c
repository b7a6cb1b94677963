/*
 * What a GPU slot does with one task: measure its baseline, or run `optimize` on it through lib/run
 * (its run made or resumed in SUITE/runs/NAME, the session's parts from the caller's hook), then
 * record how it ended and its results record in the shard database.
 */
#include "base/setup.h"

#include <math.h>
#include <time.h>

#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/log.h"
#include "kernelpro/run.h"
#include "kernelpro/str.h"
#include "kernelpro/task_kind.h"
#include "suite/sched_int.h"

static void set_str(char **dst, const char *v)
{
	free(*dst);
	*dst = v ? kp_xstrdup(v) : NULL;
}

static void view_begin(struct slot *sl, const struct sched_task *st, const char *phase)
{
	memset(&sl->view, 0, sizeof(sl->view));
	sl->view.gpu = sl->pub.gpu;
	sl->view.best_speedup = 1.0;
	kp_strlcpy(sl->view.task, st->t->name, sizeof(sl->view.task));
	kp_strlcpy(sl->view.phase, phase, sizeof(sl->view.phase));
}

/* ---- records --------------------------------------------------------------------------------------- */

void kp__task_load_record(struct sched_task *st)
{
	struct kp_error err = KP_ERROR_INIT;
	json_t *o = st->p.record ? json_loads(st->p.record, 0, NULL) : NULL;
	kp_suite_task_release(&st->rec);
	st->have_rec =
	    o && !kp_suite_task_from_json(&st->rec, o, &err) && !kp_suite_task_check(&st->rec, &err);
	if (!st->have_rec)
		kp_suite_task_release(&st->rec);
	json_decref(o);
}

/* ---- the baseline job ---------------------------------------------------------------------------- */

void kp__task_baseline(struct slot *sl, struct sched_task *st)
{
	struct sched *S = sl->S;
	struct kp_task task;
	struct kp_error err = KP_ERROR_INIT;
	json_t *doc = NULL;
	int rc;

	pthread_mutex_lock(&S->mu);
	view_begin(sl, st, "baseline");
	pthread_mutex_unlock(&S->mu);
	kp_task_init(&task);
	rc = kp_task_load(&task, st->t->path, &err);
	if (!rc) {
		struct kp__bench_baseline_req r = {.task = &task,
		                                   .sha256 = st->t->sha256,
		                                   .eval = &sl->pub.eval,
		                                   .compile = S->compile && kp_task_kind_info(task.kind)->compile_baseline,
		                                   .exec = S->exec,
		                                   .gpu_name = sl->pub.gpu_name};
		rc = kp__bench_baseline(&r, &doc, &err);
	}
	pthread_mutex_lock(&S->mu);
	st->need_baseline = 0;
	if (rc) {
		set_str(&st->p.baseline_error, kp_error_msg(&err));
		kp__sched_note(S, 0, "gpu%d %s: no baseline (%s); the task runs all the same", sl->pub.gpu,
		               st->t->name, kp_error_msg(&err));
	} else {
		free(st->p.baseline);
		st->p.baseline = json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS);
		st->p.est_ms = kp__bench_baseline_ms(doc, "eager");
		set_str(&st->p.baseline_error, NULL);
		S->session_baselines++;
	}
	kp__sched_put(S, st);
	pthread_mutex_unlock(&S->mu);
	json_decref(doc);
	kp_task_release(&task);
}

/* ---- the run job: the session's hooks ------------------------------------------------------------ */

static void on_progress(const struct kp_search_status *st, void *ud)
{
	struct slot *sl = ud;
	pthread_mutex_lock(&sl->S->mu);
	sl->view.evals = st->evals;
	sl->view.budget_evals = st->budget ? st->budget->evals : 0;
	sl->view.best_speedup = st->best_speedup;
	kp_strlcpy(sl->view.phase, st->phase ? st->phase : "", sizeof(sl->view.phase));
	if (sl->task) {
		sl->task->live_evals = st->evals;
		sl->task->live_tokens = st->tokens;
		sl->task->live_cost = st->cost;
	}
	pthread_mutex_unlock(&sl->S->mu);
}

static void on_note(const char *line, void *ud)
{
	struct slot *sl = ud;
	pthread_mutex_lock(&sl->S->mu);
	kp__sched_note(sl->S, 1, "gpu%d %s: %s", sl->pub.gpu, sl->task ? sl->task->t->name : "?", line);
	pthread_mutex_unlock(&sl->S->mu);
}

/* ---- the run job: making or reopening the run ------------------------------------------------------ */

/* The budget a new run gets: the suite's, then the task's own (a list file's), then the command lines'. */
static void new_run_budget(const struct sched *S, const struct kp_bench_task_settings *set,
                           struct kp_search_budget *b)
{
	*b = S->b->budget;
	kp__bench_budget_merge(b, &set->budget, set->which);
	kp__bench_budget_merge(b, &S->override, S->override_which);
}

static int create_run(struct sched *S, struct sched_task *st, const char *dir, struct kp_task *task,
                      struct kp_run **r, struct kp_error *err)
{
	struct kp_bench_task_settings set;
	struct kp_run_settings rs;
	struct kp_buf root = KP_BUF_INIT;
	int rc;

	kp__bench_task_settings(st->t, &set);
	kp_run_settings_init(&rs);
	rs.params = S->b->settings.params;
	rs.orchestration = S->b->settings.orchestration;
	rs.tool_rounds = S->b->settings.tool_rounds;
	rs.family = S->b->settings.family ? kp_xstrdup(S->b->settings.family) : NULL;
	rs.llm = set.llm ? kp_xstrdup(set.llm) : S->b->settings.llm ? kp_xstrdup(S->b->settings.llm) : NULL;
	rs.evaluator = kp_xstrdup(S->evaluator ? S->evaluator : "harness");
	new_run_budget(S, &set, &rs.budget);
	kp_path_join(&root, S->b->dir, "runs");
	if (!(rc = kp_task_load(task, st->t->path, err))) {
		struct kp_run_new n = {root.buf, st->t->name, task, &rs};
		rc = kp_run_create(r, &n, err); /* replaces what a killed creation left, refuses a run */
	}
	kp_run_settings_release(&rs);
	kp__bench_task_settings_release(&set);
	kp_buf_release(&root);
	return rc;
}

/*
 * The task's run: reopened (and given this session's limits) when it exists, else made. A run that
 * does not open because its creation was killed is made again (kp_run_create replaces it); any
 * other keeps its reason. *created: made now.
 */
static int open_run(struct sched *S, struct sched_task *st, const char *dir, struct kp_task *task,
                    struct kp_run **r, int *created, struct kp_error *err)
{
	struct kp_error open_err = KP_ERROR_INIT;
	int rc = 0, made;

	*created = 0;
	if (kp_run_exists(dir)) {
		rc = kp_run_open(r, dir, 0, &open_err);
		if (!rc) {
			if ((rc = kp_run_set_budget(*r, &S->override, S->override_which, err)) ||
			    (rc = kp_run_load_task(*r, NULL, task, err))) {
				kp_run_close(*r);
				*r = NULL;
			}
			return rc;
		}
		if (rc == KP_EEXISTS)
			return kp_error_set(err, rc, "%s", kp_error_msg(&open_err));
	}
	*created = 1;
	made = create_run(S, st, dir, task, r, err);
	if (made && rc) { /* a run that does not open and is no half-made one: say why it does not open */
		kp_error_clear(err);
		return kp_error_set(err, rc, "%s", kp_error_msg(&open_err));
	}
	return made;
}

/* baseline.json beside run.db: the run view reads the eager and torch.compile times from it. */
static void write_baseline(const struct sched_task *st, const char *dir)
{
	struct kp_buf p = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	if (st->p.baseline) {
		kp_path_join(&p, dir, "baseline.json");
		if (kp_write_file_atomic(p.buf, st->p.baseline, strlen(st->p.baseline), &err))
			kp_warn("%s (the results lack its baseline until it is written)", kp_error_msg(&err));
	}
	kp_buf_release(&p);
}

/* Failures that would fail every task the same way: the bench stops and the task resumes later. */
static int fails_every_task(int code)
{
	switch (code) {
	case KP_ENOMEM:
	case KP_EIO:
	case KP_ENOTOOL:
	case KP_ENODEV:
	case KP_EPERM:
	case KP_EHTTP:
	case KP_EDB:
	case KP_EAUTH:
	case KP_EINVAL:
	case KP_EBUDGET: return 1;
	default: return 0;
	}
}

/* One session of the task's run: 0 with out->end, or the failure (*setup: the caller's hook failed). */
static int drive(struct slot *sl, struct sched_task *st, const char *dir, struct kp_search_outcome *out,
                 int *setup, struct kp_error *err)
{
	struct sched *S = sl->S;
	const struct kp_bench_opts *o = S->o;
	struct kp_run *r = NULL;
	struct kp_task task;
	struct kp_run_session s;
	struct kp_bench_task_settings set;
	int created = 0, hooked = 0, rc;

	kp_task_init(&task);
	kp__bench_task_settings(st->t, &set);
	memset(&s, 0, sizeof(s));
	if ((rc = open_run(S, st, dir, &task, &r, &created, err)))
		goto out;
	write_baseline(st, dir);
	if (o->hooks && o->hooks->session) {
		struct kp_bench_task_info info = {st->t->idx, st->t->name, &task, set.llm, !created, set.kernel};
		if ((rc = o->hooks->session(&sl->pub, &info, &s, o->ud, err))) {
			*setup = 1;
			goto out;
		}
		hooked = 1;
	}
	s.task = &task;
	s.from_source = set.kernel_source; /* a re-judged kernel: the run's one version */
	s.from_name = set.kernel;
	s.eval = &sl->pub.eval;
	s.evaluator_spec = o->evaluator;
	s.argv_text = o->argv_text;
	s.stop = &sl->stop;
	s.progress = on_progress;
	s.note = on_note;
	s.started = NULL;
	s.ud = sl;
	rc = kp_run_optimize(r, &s, out, err);
out:
	if (hooked && o->hooks->session_done)
		o->hooks->session_done(&sl->pub, &s, o->ud);
	if (r && rc && created && !kp_store_session_count(kp_run_store(r)))
		kp_run_abandon(r); /* nothing began: no empty run is left behind */
	else
		kp_run_close(r);
	kp__bench_task_settings_release(&set);
	kp_task_release(&task);
	return rc;
}

/* ---- the run job ------------------------------------------------------------------------------------ */

/*
 * Whether a task's failure came from this process being asked to stop (a signal: the caller's stop
 * flag; not the bench stopping itself after a failure, whose tasks keep their own reasons). Slurm
 * ends a job (node failure, scancel, a requeue, the time limit) by signalling every process of it,
 * so an evaluator or LLM child may die of the signal just before this process's own handler runs.
 * A failure while a stop is asked is a stop, and the task resumes; a child's death gets a moment
 * for the request to arrive.
 */
static int stop_asked(const struct slot *sl, int rc)
{
	const volatile sig_atomic_t *stop = sl->S->o->stop;
	struct timespec ts = {0, 10 * 1000 * 1000};
	for (int i = 0;; i++) {
		if (stop && *stop)
			return 1;
		if (rc != KP_ECHILD || i >= 20)
			return 0;
		nanosleep(&ts, NULL);
	}
}

/* The task's results record from its run, as the shard database keeps it (JSON, no source). */
static char *make_record(const struct sched_task *st, const char *dir, const char *state, const char *reason)
{
	struct kp_suite_task t;
	struct kp_error err = KP_ERROR_INIT;
	char *text = NULL;
	json_t *o;

	kp_suite_task_init(&t);
	if (kp_run_exists(dir) && !kp_suite_task_from_run(dir, &t, &err)) {
		struct kp_buf rel = KP_BUF_INIT;
		kp_buf_addf(&rel, "runs/%s", st->t->name);
		free(t.run);
		t.run = kp_buf_detach(&rel, NULL);
		t.state = (enum kp_suite_state)kp_suite_state_parse(state);
		set_str(&t.reason, reason);
		free(t.source); /* the run keeps it; results read it from there */
		t.source = NULL;
		if (!kp_suite_task_check(&t, &err)) {
			o = kp_suite_task_to_json(&t);
			text = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
			json_decref(o);
		}
	}
	if (err.code)
		kp_warn("task '%s': no results record (%s)", st->t->name, kp_error_msg(&err));
	kp_suite_task_release(&t);
	return text;
}

/* Over 80 lines: one attempt as the scheduler records it (started, under the lock; the run; its end
 * state, counters and note, under the lock again); the states decided in the middle (busy, interrupted,
 * fatal) are read by every line after them. */
void kp__task_run(struct slot *sl, struct sched_task *st)
{
	struct sched *S = sl->S;
	struct kp_search_outcome out;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf dir = KP_BUF_INIT;
	const char *state;
	char *record;
	int rc, fatal = 0, busy = 0, setup = 0, interrupted;
	double t0 = kp_now();

	kp__bench_run_dir(&dir, S->b->dir, st->t->name);
	pthread_mutex_lock(&S->mu);
	view_begin(sl, st, "starting");
	set_str(&st->p.state, "running");
	set_str(&st->p.reason, NULL);
	st->p.attempts++;
	st->p.gpu = sl->pub.gpu;
	st->p.ended = NAN;
	st->live_evals = st->live_tokens = 0;
	st->live_cost = 0;
	if (isnan(st->p.started))
		st->p.started = kp_wall_time();
	S->started++;
	kp__sched_put(S, st);
	kp__sched_note(S, 0, "gpu%d: %s %s", sl->pub.gpu, st->p.attempts > 1 ? "resuming" : "starting",
	               st->t->name);
	pthread_mutex_unlock(&S->mu);

	memset(&out, 0, sizeof(out));
	rc = drive(sl, st, dir.buf, &out, &setup, &err);
	busy = rc == KP_EEXISTS && kp_run_exists(dir.buf); /* another process holds the run: left for later */
	/* KP_ECANCELED: a stop (Ctrl-C) reached it outside the search loop. */
	interrupted = rc && !busy && (rc == KP_ECANCELED || stop_asked(sl, rc));
	fatal = rc && !busy && !interrupted && (setup || fails_every_task(rc));
	if (!rc)
		state = out.end == KP_END_STOPPED ? "stopped" : "finished";
	else if (busy)
		state = "pending";
	else
		state = fatal || interrupted ? "stopped" : "failed";
	record = make_record(st, dir.buf, state, rc && !interrupted ? kp_error_msg(&err) : NULL);

	pthread_mutex_lock(&S->mu);
	S->session_evals += out.evals;
	set_str(&st->p.state, state);
	set_str(&st->p.reason, interrupted                 ? "stopped"
	                       : rc                        ? kp_error_msg(&err)
	                       : out.end == KP_END_STOPPED ? "stopped"
	                                                   : NULL);
	if (!strcmp(state, "finished") || !strcmp(state, "failed")) {
		st->p.ended = kp_wall_time();
		st->runnable = 0;
		S->ended_wall += kp_now() - t0;
		S->ended_count++;
	}
	if (record) {
		free(st->p.record);
		st->p.record = record;
		kp__task_load_record(st);
	}
	if (!strcmp(state, "finished")) {
		S->finished++;
		if (st->have_rec && st->rec.correct)
			kp__sched_note(S, 0,
			               "gpu%d: %s finished: best #%ld, %.2fx over eager, %ld evaluations",
			               sl->pub.gpu, st->t->name, st->rec.best_node,
			               st->rec.speedup[KP_SUITE_EAGER], st->rec.evaluations);
		else if (st->have_rec && st->rec.failure_node)
			/* Which check refused the latest version, and why: the reason, not just "CH". */
			kp__sched_note(
			    S, 0,
			    "gpu%d: %s finished: no correct version in %ld evaluations; #%ld %s%s%s%s%s",
			    sl->pub.gpu, st->t->name, st->rec.evaluations, st->rec.failure_node,
			    st->rec.failure_outcome ? st->rec.failure_outcome : "failed",
			    st->rec.failure_check ? " by " : "",
			    st->rec.failure_check ? st->rec.failure_check : "",
			    st->rec.failure_message ? ": " : "",
			    st->rec.failure_message ? st->rec.failure_message : "");
		else
			kp__sched_note(S, 0, "gpu%d: %s finished: no correct version in %ld evaluations",
			               sl->pub.gpu, st->t->name,
			               st->have_rec ? st->rec.evaluations : out.evals);
	} else if (!strcmp(state, "failed")) {
		S->failed++;
		sl->wedged = rc == KP_ECHILD || rc == KP_ETIMEOUT;
		kp__sched_note(S, 0, "gpu%d: %s failed: %s", sl->pub.gpu, st->t->name, kp_error_msg(&err));
	} else if (busy) {
		st->runnable = 0;
		kp__sched_note(S, 0, "gpu%d: %s skipped: %s", sl->pub.gpu, st->t->name, kp_error_msg(&err));
	} else if (interrupted) {
		kp__sched_note(S, 0, "gpu%d: %s stopped with the bench (%s); it resumes", sl->pub.gpu,
		               st->t->name, kp_error_msg(&err));
	}
	kp__sched_put(S, st);
	if (fatal)
		kp__sched_fatal(S, &err);
	pthread_mutex_unlock(&S->mu);
	kp_buf_release(&dir);
}
