/* Evaluations in the warm worker (worker.c starts and connects it): kp_eval_stage, kp_eval_submit,
 * kp_eval_job_poll, _finish, with a cold start whenever the worker cannot be had or misbehaves. */
#include "base/setup.h"

#include <signal.h>
#include <unistd.h>

#include "eval/evalrun.h"
#include "eval/worker_int.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/log.h"
#include "kernelpro/str.h"

#define GRACE_S 2.0           /* the worker's SIGTERM-to-SIGKILL grace */
#define BACKSTOP_S 30.0       /* past limit + grace + this, we stop trusting the worker with the job */
/* torch's words when it refuses CUDA in a child forked from a process that had called into CUDA
 * (harness/kp_worker.py: FORK_ERROR). The worker's fault, never the candidate's. */
#define FORK_ERROR "Cannot re-initialize CUDA in forked subprocess"

enum job_state {
	JOB_NO_RUN,  /* the verdict needs no harness run (refused, compile error, build-only) */
	JOB_STAGED,  /* checked and built (kp_eval_stage), not yet handed to a worker */
	JOB_QUEUED,  /* sent to the worker */
	JOB_STARTED, /* the worker forked it */
	JOB_DONE,    /* ended in the worker: `ran` says how */
	JOB_COLD,    /* to run as a fresh child when finished */
};

struct kp_eval_job {
	struct kp_eval_worker *w;
	struct kp_eval_job *next;
	struct kp_eval_pending p;
	struct kp_verdict v;
	enum job_state state;
	int in_process; /* the worker's forked child runs the adapter itself */
	long id;
	pid_t pid;
	double started_at;
	struct kp_child ran;
	struct kp_buf out_path, err_path;
};

/* --- jobs ------------------------------------------------------------------------------------------- */

static void unlink_job(struct kp_eval_job *j)
{
	if (!j->w)
		return;
	for (struct kp_eval_job **pp = &j->w->jobs; *pp; pp = &(*pp)->next)
		if (*pp == j) {
			*pp = j->next;
			break;
		}
	j->next = NULL;
	j->w = NULL;
}

/* The worker is gone or not to be trusted: its jobs run cold, and it gets no more. */
void kp__worker_broken(struct kp_eval_worker *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	while (w->jobs) {
		struct kp_eval_job *j = w->jobs;
		if (j->state == JOB_STARTED && j->pid > 0)
			kill(-j->pid, SIGKILL);
		j->state = JOB_COLD;
		unlink_job(j);
	}
}

/* Whether the cold command is `python3 -B harness/kp_torch.py` for the worker's interpreter: then the
 * forked child runs the adapter's main() itself; anything else (the native harness) it execs. */
static int runs_in_process(const struct kp_eval_worker *w, const struct kp_eval_cmd *cmd)
{
	char *py;
	int same;
	if (cmd->argv.n != 3 || strcmp(cmd->argv.v[2], w->adapter))
		return 0;
	py = kp_which(cmd->argv.v[0]);
	same = py && !strcmp(py, w->python);
	free(py);
	return same;
}

static int send_job(struct kp_eval_worker *w, struct kp_eval_job *j, struct kp_error *err)
{
	const struct kp_eval_cmd *cmd = &j->p.cmd;
	struct kp_buf in_path = KP_BUF_INIT, line = KP_BUF_INIT;
	struct kp_strvec env = KP_STRVEC_INIT;
	json_t *req = json_object(), *a;
	char cwd[4096];
	int rc = 0;

	kp_path_join(&in_path, cmd->work_dir, "harness.in");
	kp_path_join(&j->out_path, cmd->work_dir, "harness.out");
	kp_path_join(&j->err_path, cmd->work_dir, "harness.err");
	if ((rc = kp_write_file_atomic(in_path.buf, cmd->input.buf, cmd->input.len, err)))
		goto out;
	if (!getcwd(cwd, sizeof(cwd))) {
		rc = kp_error_set(err, KP_EIO, "getcwd: %s", strerror(errno));
		goto out;
	}
	j->id = ++w->next_id;
	kp__worker_merged_env(&cmd->env, &env);
	kp_json_set(req, "op", json_string("run"));
	kp_json_set(req, "id", json_integer(j->id));
	a = json_array();
	for (size_t i = 0; i < cmd->argv.n; i++)
		json_array_append_new(a, json_string(cmd->argv.v[i]));
	kp_json_set(req, "argv", a);
	a = json_array();
	for (size_t i = 0; i < env.n; i++)
		json_array_append_new(a, json_string(env.v[i]));
	kp_json_set(req, "env", a);
	kp_json_set(req, "cwd", json_string(cwd));
	kp_json_set(req, "stdin", json_string(in_path.buf));
	kp_json_set(req, "out", json_string(j->out_path.buf));
	kp_json_set(req, "err", json_string(j->err_path.buf));
	kp_json_set(req, "out_cap", json_integer(KP_EVAL_OUT_CAP));
	kp_json_set(req, "err_cap", json_integer(KP_EVAL_ERR_CAP));
	kp_json_set(req, "timeout_s", json_real(cmd->timeout_s));
	j->in_process = runs_in_process(w, cmd);
	kp_json_set(req, "in_process", json_boolean(j->in_process));
	if (kp_json_dump_buf(req, &line, 1) || kp_buf_addch(&line, '\n') ||
	    kp__worker_send_all(w->fd, line.buf, line.len)) {
		rc = kp_error_set(err, KP_EIO, "the warm worker did not take the job");
		goto out;
	}
	j->w = w;
	j->next = w->jobs;
	w->jobs = j;
	j->state = JOB_QUEUED;
out:
	json_decref(req);
	kp_strvec_release(&env);
	kp_buf_release(&in_path);
	kp_buf_release(&line);
	return rc;
}

/* How the job ended, as kp_child would have reported it: the worker's account and the output files. */
static void job_ended(struct kp_eval_job *j, const json_t *done)
{
	struct kp_child *c = &j->ran;
	const json_t *code = json_object_get(done, "exit_code");

	c->exit_code = json_is_integer(code) ? (int)json_integer_value(code) : -1;
	c->term_signal = (int)kp_json_int(done, "signal", 0);
	c->timed_out = kp_json_bool(done, "timed_out", 0) ? 1 : 0;
	c->elapsed_s = kp_json_num(done, "elapsed_s", kp_now() - j->started_at);
	c->out_total = (size_t)kp_json_int(done, "out_total", 0);
	c->err_total = (size_t)kp_json_int(done, "err_total", 0);
	c->out_truncated = kp_json_bool(done, "out_truncated", 0) ? 1 : 0;
	c->err_truncated = kp_json_bool(done, "err_truncated", 0) ? 1 : 0;
	c->pid = j->pid;
	c->timeout_ms = (long)(j->p.cmd.timeout_s * 1000);
	kp_read_file(j->out_path.buf, KP_EVAL_OUT_CAP, &c->out, NULL);
	kp_read_file(j->err_path.buf, KP_EVAL_ERR_CAP, &c->err, NULL);
	j->state = JOB_DONE;
	unlink_job(j);
}

static struct kp_eval_job *find_job(struct kp_eval_worker *w, long id)
{
	for (struct kp_eval_job *j = w->jobs; j; j = j->next)
		if (j->id == id)
			return j;
	return NULL;
}

static int has_text(const struct kp_buf *b, const char *s)
{
	return b->buf && memmem(b->buf, b->len, s, strlen(s)) != NULL;
}

/*
 * A child the worker forked in which torch refused CUDA (its fork handler was registered in the
 * worker: kp_worker.py's probe should have refused to serve). Whatever the verdict would say is the
 * worker's fault: the job runs cold, and the worker is asked to go (it is broken for everyone).
 */
static int refused_cuda_in_fork(struct kp_eval_worker *w, struct kp_eval_job *j)
{
	if (!j->in_process || (!has_text(&j->ran.out, FORK_ERROR) && !has_text(&j->ran.err, FORK_ERROR)))
		return 0;
	kp_warn("warm worker: torch refused CUDA in the child it forked ('%s'); running the evaluation cold and "
		"stopping this worker (its log is in the worker directory)",
		FORK_ERROR);
	kp_child_release(&j->ran);
	kp_child_init(&j->ran);
	j->state = JOB_COLD;
	kp__worker_ask_shutdown(w);
	kp__worker_broken(w);
	return 1;
}

static void event(struct kp_eval_worker *w, const json_t *ev)
{
	struct kp_eval_job *j = find_job(w, (long)kp_json_int(ev, "id", -1));
	if (!j)
		return;
	if (json_is_integer(json_object_get(ev, "started"))) {
		j->pid = (pid_t)kp_json_int(ev, "started", 0);
		j->started_at = kp_now();
		j->state = JOB_STARTED;
	} else if (json_is_object(json_object_get(ev, "done"))) {
		job_ended(j, json_object_get(ev, "done"));
		refused_cuda_in_fork(w, j);
	} else if (kp_json_str(ev, "error", NULL)) {
		kp_warn("warm worker: %s; running the evaluation cold", kp_json_str(ev, "error", "?"));
		j->state = JOB_COLD;
		unlink_job(j);
	}
}

/* A job past its limit that the worker did not end: we end it and stop trusting the worker. */
static void backstop(struct kp_eval_worker *w)
{
	double now = kp_now();
	for (struct kp_eval_job *j = w->jobs; j; j = j->next) {
		if (j->state != JOB_STARTED || now - j->started_at < j->p.cmd.timeout_s + GRACE_S + BACKSTOP_S)
			continue;
		kill(-j->pid, SIGKILL);
		kp_warn("warm worker: job %ld outlived its limit by %.0f s; not using this worker again", j->id,
			now - j->started_at - j->p.cmd.timeout_s);
		job_ended(j, NULL); /* a timeout, with what the job wrote so far */
		j->ran.timed_out = 1;
		j->ran.term_signal = SIGKILL;
		kp__worker_broken(w);
		return;
	}
}

/* Reads the worker's events for up to timeout_ms and applies them. */
static void worker_read(struct kp_eval_worker *w, long timeout_ms)
{
	struct kp_buf line = KP_BUF_INIT;
	json_t *ev;
	int r;

	if (w->fd < 0)
		return;
	r = kp__worker_read_some(w->fd, &w->rbuf, timeout_ms);
	while (r >= 0 && kp__worker_take_line(&w->rbuf, &line)) {
		if (kp_json_load_mem("warm worker", line.buf, line.len, &ev, NULL) == 0) {
			event(w, ev);
			json_decref(ev);
		}
	}
	kp_buf_release(&line);
	if (r < 0) {
		if (w->jobs)
			kp_warn("warm worker: the connection closed with %s pending; running them cold",
				w->jobs->next ? "evaluations" : "an evaluation");
		kp__worker_broken(w);
		return;
	}
	backstop(w);
}

int kp_eval_stage(const struct kp_task *task, const char *src, size_t len, const char *name,
		  const struct kp_eval_opts *o, struct kp_eval_job **out, struct kp_error *err)
{
	struct kp_eval_job *j = kp_xcalloc(1, sizeof(*j));
	int rc;

	*out = NULL;
	kp_verdict_init(&j->v);
	kp_child_init(&j->ran);
	j->out_path = (struct kp_buf)KP_BUF_INIT;
	j->err_path = (struct kp_buf)KP_BUF_INIT;
	if ((rc = kp_eval_begin(&j->p, task, src, len, name, o, &j->v, err))) {
		kp_eval_pending_release(&j->p);
		kp_verdict_release(&j->v);
		free(j);
		return rc;
	}
	j->state = j->p.done ? JOB_NO_RUN : JOB_STAGED;
	*out = j;
	return 0;
}

void kp_eval_job_start(struct kp_eval_worker *w, struct kp_eval_job *j)
{
	struct kp_error ignored = KP_ERROR_INIT;

	if (j->state != JOB_STAGED)
		return;
	if (!w || w->fd < 0) {
		j->state = JOB_COLD;
	} else if (send_job(w, j, &ignored)) {
		kp_warn("%s; running the evaluation cold", ignored.msg);
		kp__worker_broken(w);
		j->state = JOB_COLD;
	}
}

int kp_eval_submit(struct kp_eval_worker *w, const struct kp_task *task, const char *src, size_t len,
		   const char *name, const struct kp_eval_opts *o, struct kp_eval_job **out, struct kp_error *err)
{
	int rc = kp_eval_stage(task, src, len, name, o, out, err);
	if (!rc)
		kp_eval_job_start(w, *out);
	return rc;
}

int kp_eval_job_poll(struct kp_eval_job *j, long timeout_ms)
{
	if ((j->state == JOB_QUEUED || j->state == JOB_STARTED) && j->w)
		worker_read(j->w, timeout_ms);
	/*
	 * A stop (Ctrl-C, kp_child_set_cancel): the running job's group is killed and the connection
	 * closed (the worker drops the rest); the jobs fall back to a cold start, which kp_child refuses
	 * at once (KP_ECANCELED), as for an evaluation without the worker.
	 */
	if ((j->state == JOB_QUEUED || j->state == JOB_STARTED) && j->w && kp_child_canceled())
		kp__worker_broken(j->w);
	return j->state != JOB_QUEUED && j->state != JOB_STARTED;
}

int kp_eval_job_finish(struct kp_eval_job *j, struct kp_verdict *v, struct kp_error *err)
{
	struct kp_child c = KP_CHILD_INIT;
	int rc = 0;

	while (!kp_eval_job_poll(j, 250))
		;
	if (j->state == JOB_NO_RUN)
		rc = kp_eval_end(&j->p, NULL, &j->v, err);
	else if (j->state == JOB_DONE)
		rc = kp_eval_end(&j->p, &j->ran, &j->v, err);
	else if ((rc = kp_eval_run_child(&j->p.cmd, &c, err)) == 0)
		rc = kp_eval_end(&j->p, &c, &j->v, err);
	else {
		j->v.status = KP_STATUS_NONE;
		kp_eval_pending_release(&j->p);
	}
	kp_verdict_release(v);
	*v = j->v; /* the verdict's storage moves to the caller */
	kp_child_release(&c);
	kp_child_release(&j->ran);
	kp_buf_release(&j->out_path);
	kp_buf_release(&j->err_path);
	free(j);
	return rc;
}

void kp_eval_job_discard(struct kp_eval_job *j)
{
	if (!j)
		return;
	if (j->w && j->state == JOB_STARTED && j->pid > 0)
		kill(-j->pid, SIGKILL);
	unlink_job(j);
	kp_eval_pending_release(&j->p);
	kp_verdict_release(&j->v);
	kp_child_release(&j->ran);
	kp_buf_release(&j->out_path);
	kp_buf_release(&j->err_path);
	free(j);
}
