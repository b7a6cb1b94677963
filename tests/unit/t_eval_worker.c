/* Unit tests: the warm worker's client (lib/eval/worker.c) against the real harness/kp_worker.py
 * running a stand-in adapter (tests/python/fake_harness/kp_torch.py, no torch or GPU): evaluations
 * forked by the worker, a crash that ends only its evaluation, the asynchronous API with two jobs in
 * flight, a worker that dies under a job (the job runs cold), a worker that cannot be had (cold
 * too), no API key in the worker or its jobs, and a stop (Ctrl-C) that ends a job in the worker.
 * Needs python3 and nvcc (for the toolchain an evaluation resolves); skipped without them. */
#include "base/setup.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kp_test.h"
#include "kernelpro/child.h"
#include "kernelpro/eval.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/task.h"

struct fixture {
	char *home;      /* KERNELPRO_HOME with harness/kp_worker.py and the stand-in kp_torch.py */
	char *wdir;      /* KERNELPRO_WORKER_DIR */
	char *cache;
	struct kp_task task;
	struct kp_eval_opts o;
	struct kp_buf cand;
};

static int have(const char *tool)
{
	char *p = kp_which(tool);
	free(p);
	return p != NULL;
}

/* The absolute path of a file in the source tree (a symlink's target must not be relative). */
static const char *link_target(const char *cwd, const char *rel, struct kp_buf *b)
{
	const char *p = kp_test_path(rel);
	kp_buf_reset(b);
	if (*p == '/')
		kp_buf_adds(b, p);
	else
		kp_buf_addf(b, "%s/%s", cwd, p);
	return b->buf;
}

static int setup(void **state)
{
	struct fixture *f = kp_xcalloc(1, sizeof(*f));
	struct kp_buf p = KP_BUF_INIT, t = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	char cwd[4096];

	if (!have("python3") || !(have("nvcc") || access("/usr/local/cuda/bin/nvcc", X_OK) == 0)) {
		free(f);
		*state = NULL; /* each test skips */
		return 0;
	}
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	f->home = kp_test_tmpdir();
	f->wdir = kp_test_tmpdir();
	f->cache = kp_test_tmpdir();
	chmod(f->wdir, 0700);
	kp_buf_addf(&p, "%s/harness", f->home);
	assert_int_equal(mkdir(p.buf, 0700), 0);
	kp_buf_reset(&p);
	kp_buf_addf(&p, "%s/harness/kp_worker.py", f->home);
	assert_int_equal(symlink(link_target(cwd, "harness/kp_worker.py", &t), p.buf), 0);
	kp_buf_reset(&p);
	kp_buf_addf(&p, "%s/harness/kp_torch.py", f->home);
	assert_int_equal(symlink(link_target(cwd, "tests/python/fake_harness/kp_torch.py", &t), p.buf), 0);
	setenv("KERNELPRO_HOME", f->home, 1);
	setenv("KERNELPRO_WORKER_DIR", f->wdir, 1);
	setenv("KERNELPRO_WORKER_IDLE", "20", 1);
	/* The stand-in's switches reach it the way a user's variable reaches a harness (kp_child's allow-list). */
	setenv("KERNELPRO_PASS_ENV", "FAKE_DO,FAKE_CUDA_INIT,FAKE_PRELOAD_PIDFILE,FAKE_PRELOAD_GATE", 1);
	unsetenv("FAKE_DO");
	kp_task_init(&f->task);
	KP_ASSERT_OK(kp_task_load(&f->task, kp_test_path("examples/kernelbench/swish_scale.py"), &err), &err);
	kp_test_read("examples/kernelbench/swish_scale_fast.py", &f->cand);
	kp_eval_opts_init(&f->o);
	f->o.cache_dir = f->cache;
	f->o.sanitize = 0;
	kp_buf_release(&p);
	kp_buf_release(&t);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	if (!f)
		return 0;
	kp_task_release(&f->task);
	kp_buf_release(&f->cand);
	kp_test_tmpdir_remove(f->home);
	kp_test_tmpdir_remove(f->wdir);
	kp_test_tmpdir_remove(f->cache);
	unsetenv("KERNELPRO_HOME");
	unsetenv("KERNELPRO_WORKER_DIR");
	unsetenv("KERNELPRO_PASS_ENV");
	unsetenv("FAKE_DO");
	unsetenv("FAKE_PRELOAD_PIDFILE");
	unsetenv("FAKE_PRELOAD_GATE");
	free(f);
	return 0;
}

static struct kp_eval_worker *start(struct fixture *f)
{
	struct kp_eval_worker *w = NULL;
	struct kp_error err = KP_ERROR_INIT;
	KP_ASSERT_OK(kp_eval_worker_start(0, &f->o, &w, &err), &err);
	assert_non_null(w);
	assert_true(kp_eval_worker_fd(w) >= 0);
	return w;
}

static long hello_pid(const struct kp_eval_worker *w)
{
	return (long)kp_json_int(kp_eval_worker_hello(w), "pid", -1);
}

/* Evaluates the candidate in worker w (NULL: cold) and returns the verdict's status. */
static enum kp_status eval(struct fixture *f, struct kp_eval_worker *w, struct kp_verdict *v)
{
	struct kp_eval_job *job = NULL;
	struct kp_error err = KP_ERROR_INIT;
	KP_ASSERT_OK(kp_eval_submit(w, &f->task, f->cand.buf, f->cand.len, "cand.py", &f->o, &job, &err), &err);
	KP_ASSERT_OK(kp_eval_job_finish(job, v, &err), &err);
	return v->status;
}

/* "fake pid=P ppid=Q[ cold]" from the stand-in adapter. */
static void pids(const struct kp_verdict *v, long *pid, long *ppid)
{
	assert_non_null(v->message);
	assert_int_equal(sscanf(v->message, "fake pid=%ld ppid=%ld", pid, ppid), 2);
}

static void test_forked_per_evaluation(void **state)
{
	struct fixture *f = *state;
	if (!f)
		skip();
	struct kp_eval_worker *w = start(f);
	struct kp_verdict v;
	long pid1, pid2, ppid;

	kp_verdict_init(&v);
	assert_int_equal(eval(f, w, &v), KP_STATUS_CORRECT);
	pids(&v, &pid1, &ppid);
	assert_int_equal(ppid, hello_pid(w)); /* a child of the worker, not a fresh python */
	assert_null(strstr(v.message, "cold"));
	assert_int_equal(eval(f, w, &v), KP_STATUS_CORRECT);
	pids(&v, &pid2, &ppid);
	assert_int_not_equal(pid1, pid2);
	kp_verdict_release(&v);
	kp_eval_worker_stop(w, 1);
}

static void test_crash_ends_only_its_evaluation(void **state)
{
	struct fixture *f = *state;
	if (!f)
		skip();
	struct kp_eval_worker *w = start(f);
	struct kp_verdict v;
	long pid, ppid;

	kp_verdict_init(&v);
	setenv("FAKE_DO", "crash", 1);
	assert_int_equal(eval(f, w, &v), KP_STATUS_RUNTIME_ERROR);
	assert_non_null(strstr(v.message, "signal 11"));
	assert_string_equal(v.phase, "correctness"); /* the last phase line survives the crash */
	unsetenv("FAKE_DO");
	assert_int_equal(eval(f, w, &v), KP_STATUS_CORRECT);
	pids(&v, &pid, &ppid);
	assert_int_equal(ppid, hello_pid(w)); /* the same worker, still serving */
	kp_verdict_release(&v);
	kp_eval_worker_stop(w, 1);
}

static void test_two_jobs_in_flight(void **state)
{
	struct fixture *f = *state;
	if (!f)
		skip();
	struct kp_eval_worker *w = start(f);
	struct kp_eval_job *a = NULL, *b = NULL;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_verdict va, vb;
	long pa, pb, ppid;
	int rounds = 0;

	kp_verdict_init(&va);
	kp_verdict_init(&vb);
	KP_ASSERT_OK(kp_eval_submit(w, &f->task, f->cand.buf, f->cand.len, "a.py", &f->o, &a, &err), &err);
	KP_ASSERT_OK(kp_eval_submit(w, &f->task, f->cand.buf, f->cand.len, "b.py", &f->o, &b, &err), &err);
	while (!(kp_eval_job_poll(a, 100) & kp_eval_job_poll(b, 100)))
		assert_true(++rounds < 600);
	KP_ASSERT_OK(kp_eval_job_finish(b, &vb, &err), &err);
	KP_ASSERT_OK(kp_eval_job_finish(a, &va, &err), &err);
	assert_int_equal(va.status, KP_STATUS_CORRECT);
	assert_int_equal(vb.status, KP_STATUS_CORRECT);
	pids(&va, &pa, &ppid);
	pids(&vb, &pb, &ppid);
	assert_int_not_equal(pa, pb);
	kp_verdict_release(&va);
	kp_verdict_release(&vb);
	kp_eval_worker_stop(w, 1);
}

static void test_worker_death_runs_the_job_cold(void **state)
{
	struct fixture *f = *state;
	if (!f)
		skip();
	struct kp_eval_worker *w = start(f);
	struct kp_eval_job *job = NULL;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_verdict v;
	long pid, ppid;

	kp_verdict_init(&v);
	setenv("FAKE_DO", "hang_in_worker", 1);
	KP_ASSERT_OK(kp_eval_submit(w, &f->task, f->cand.buf, f->cand.len, "cand.py", &f->o, &job, &err), &err);
	assert_int_equal(kp_eval_job_poll(job, 1000), 0); /* hanging in the worker */
	assert_int_equal(kill((pid_t)hello_pid(w), SIGKILL), 0);
	KP_ASSERT_OK(kp_eval_job_finish(job, &v, &err), &err);
	assert_int_equal(v.status, KP_STATUS_CORRECT);
	assert_non_null(strstr(v.message, "cold")); /* run again as a fresh child */
	pids(&v, &pid, &ppid);
	/* A fresh child of ours, not of the worker: its parent is the keeper kp_child puts between
	 * kernelpro and every program it starts (lib/base/child_keep.c), gone once the job ended. */
	assert_int_not_equal(ppid, hello_pid(w));
	assert_int_not_equal(ppid, getppid());
	assert_int_equal(kp_eval_worker_fd(w), -1); /* and the worker is not used again */
	assert_int_equal(eval(f, w, &v), KP_STATUS_CORRECT);
	assert_non_null(strstr(v.message, "cold"));
	kp_verdict_release(&v);
	kp_eval_worker_stop(w, 0);
}

/* torch refusing CUDA in the worker's fork (the H200 run of g1201): never the candidate's verdict. */
static void test_fork_error_is_the_workers(void **state)
{
	struct fixture *f = *state;
	if (!f)
		skip();
	struct kp_eval_worker *w = start(f);
	struct kp_verdict v;
	long pid, ppid;

	kp_verdict_init(&v);
	setenv("FAKE_DO", "fork_error_in_worker", 1);
	assert_int_equal(eval(f, w, &v), KP_STATUS_CORRECT); /* run again cold: the candidate's own verdict */
	assert_non_null(strstr(v.message, "cold"));
	pids(&v, &pid, &ppid);
	/* A fresh child of ours, not of the worker: its parent is the keeper kp_child puts between
	 * kernelpro and every program it starts (lib/base/child_keep.c), gone once the job ended. */
	assert_int_not_equal(ppid, hello_pid(w));
	assert_int_not_equal(ppid, getppid());
	assert_int_equal(kp_eval_worker_fd(w), -1); /* the worker is not used again */
	assert_int_equal(eval(f, w, &v), KP_STATUS_CORRECT);
	assert_non_null(strstr(v.message, "cold"));
	unsetenv("FAKE_DO");
	kp_verdict_release(&v);
	kp_eval_worker_stop(w, 0);
}

static void test_no_worker_means_cold(void **state)
{
	struct fixture *f = *state;
	if (!f)
		skip();
	struct kp_eval_worker *w = NULL;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_verdict v;

	kp_verdict_init(&v);
	chmod(f->wdir, 0755); /* a directory others could use: refused */
	assert_int_equal(kp_eval_worker_start(0, &f->o, &w, &err), KP_EPERM);
	assert_null(w);
	assert_non_null(strstr(err.msg, "0700"));
	f->o.worker = 1; /* kp_eval_file with a worker asked for: a cold start, the same verdict */
	KP_ASSERT_OK(kp_eval_file(&f->task, kp_test_path("examples/kernelbench/swish_scale_fast.py"), &f->o, &v, &err),
		     &err);
	assert_int_equal(v.status, KP_STATUS_CORRECT);
	assert_non_null(strstr(v.message, "cold"));
	chmod(f->wdir, 0700);
	setenv("FAKE_CUDA_INIT", "1", 1); /* a worker whose preload touched CUDA refuses to serve */
	kp_error_clear(&err);
	assert_int_equal(kp_eval_worker_start(0, &f->o, &w, &err), KP_ENOTOOL);
	assert_non_null(strstr(err.msg, "CUDA was initialised"));
	unsetenv("FAKE_CUDA_INIT");
	kp_verdict_release(&v);
}

static void test_eval_file_uses_the_worker(void **state)
{
	struct fixture *f = *state;
	if (!f)
		skip();
	struct kp_eval_worker *w = start(f);
	struct kp_error err = KP_ERROR_INIT;
	struct kp_verdict v;
	long pid, ppid;

	kp_verdict_init(&v);
	f->o.worker = 1;
	KP_ASSERT_OK(kp_eval_file(&f->task, kp_test_path("examples/kernelbench/swish_scale_fast.py"), &f->o, &v, &err),
		     &err);
	assert_int_equal(v.status, KP_STATUS_CORRECT);
	pids(&v, &pid, &ppid);
	assert_int_equal(ppid, hello_pid(w)); /* the same worker kp_eval_worker_start found */
	kp_verdict_release(&v);
	kp_eval_worker_stop(w, 1);
}

/* Issue 21: the worker and the candidates it runs see what a cold harness child sees, never a key. */
static void test_no_secret_in_the_worker(void **state)
{
	struct fixture *f = *state;
	if (!f)
		skip();
	struct kp_eval_worker *w;
	struct kp_verdict v;
	const json_t *seen;

	setenv("OPENAI_API_KEY", "sk-kp-test-worker", 1);
	setenv("KERNELPRO_API_KEY", "sk-kp-test-worker", 1);
	w = start(f);
	seen = json_object_get(kp_eval_worker_hello(w), "secrets_seen");
	assert_true(json_is_array(seen));
	assert_int_equal(json_array_size(seen), 0); /* the worker process itself */
	kp_verdict_init(&v);
	assert_int_equal(eval(f, w, &v), KP_STATUS_CORRECT);
	assert_null(strstr(v.message, "cold"));
	assert_null(strstr(v.message, "secrets=")); /* a job it forked */
	unsetenv("OPENAI_API_KEY");
	unsetenv("KERNELPRO_API_KEY");
	kp_verdict_release(&v);
	kp_eval_worker_stop(w, 1);
}

/* A stop (the program's cancel flag) ends a job hanging in the worker: KP_ECANCELED, no verdict. */
static void test_stop_ends_a_job_in_the_worker(void **state)
{
	struct fixture *f = *state;
	if (!f)
		skip();
	static volatile sig_atomic_t stop;
	struct kp_eval_worker *w = start(f);
	struct kp_eval_job *job = NULL;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_verdict v;
	long worker_pid = hello_pid(w);

	kp_verdict_init(&v);
	stop = 0;
	kp_child_set_cancel(&stop);
	setenv("FAKE_DO", "hang_hard", 1); /* ignores SIGTERM */
	KP_ASSERT_OK(kp_eval_submit(w, &f->task, f->cand.buf, f->cand.len, "cand.py", &f->o, &job, &err), &err);
	assert_int_equal(kp_eval_job_poll(job, 1000), 0); /* hanging in the worker */
	stop = 1;
	assert_int_equal(kp_eval_job_finish(job, &v, &err), KP_ECANCELED);
	assert_int_equal(v.status, KP_STATUS_NONE);
	assert_int_equal(kp_eval_worker_fd(w), -1);
	assert_int_equal(kill((pid_t)worker_pid, 0), 0); /* the worker itself goes on, for the next run */
	kp_child_set_cancel(NULL);
	unsetenv("FAKE_DO");
	kp_error_clear(&err);
	kp_verdict_release(&v);
	kp_eval_worker_stop(w, 0);
	kill((pid_t)worker_pid, SIGTERM);
}

/* The pid the stand-in's preload wrote to `path` (waiting up to 60 s for the worker to get there). */
static pid_t preload_pid(const char *path)
{
	struct kp_buf b = KP_BUF_INIT;
	long pid = 0;
	for (int i = 0; i < 3000 && pid <= 0; i++) {
		kp_buf_reset(&b);
		if (kp_read_file(path, 64, &b, NULL) == 0 && b.len)
			pid = strtol(b.buf, NULL, 10);
		else
			usleep(20000);
	}
	kp_buf_release(&b);
	assert_true(pid > 0);
	return (pid_t)pid;
}

/* Whether `pid` has ended (gone, or a zombie its new parent has yet to reap), waiting up to 30 s. */
static int ended(pid_t pid)
{
	char path[64];
	struct kp_buf stat = KP_BUF_INIT;
	int gone = 0;
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	for (int i = 0; i < 1500 && !gone; i++) {
		kp_buf_reset(&stat);
		gone = kill(pid, 0) != 0 || (kp_read_file(path, 4096, &stat, NULL) == 0 && strstr(stat.buf, ") Z "));
		if (!gone)
			usleep(20000);
	}
	kp_buf_release(&stat);
	return gone;
}

/*
 * The early start: kp_eval_worker_launch returns while the worker still imports (its preload waits on a
 * gate only this test opens), a second client's launch finds it starting (its lock) and starts none, and
 * both connect to that one worker once it serves; the evaluation then runs in it.
 */
static void test_launch_returns_before_the_worker_serves(void **state)
{
	struct fixture *f = *state;
	if (!f)
		skip();
	struct kp_eval_worker *a = NULL, *b = NULL;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf gate = KP_BUF_INIT, pidfile = KP_BUF_INIT;
	struct kp_verdict v;
	long pid, ppid;
	pid_t wpid;

	kp_verdict_init(&v);
	kp_buf_addf(&gate, "%s/gate", f->cache);
	kp_buf_addf(&pidfile, "%s/worker.pid", f->cache);
	setenv("FAKE_PRELOAD_GATE", gate.buf, 1);
	setenv("FAKE_PRELOAD_PIDFILE", pidfile.buf, 1);
	KP_ASSERT_OK(kp_eval_worker_launch(0, &f->o, &a, &err), &err);
	assert_int_equal(kp_eval_worker_fd(a), -1);
	wpid = preload_pid(pidfile.buf); /* importing, behind the gate */
	KP_ASSERT_OK(kp_eval_worker_launch(0, &f->o, &b, &err), &err);
	assert_int_equal(kp_eval_worker_fd(b), -1);
	KP_ASSERT_OK(kp_write_file_atomic(gate.buf, "", 0, &err), &err);
	KP_ASSERT_OK(kp_eval_worker_connect(b, &err), &err); /* the one a started */
	KP_ASSERT_OK(kp_eval_worker_connect(a, &err), &err);
	assert_int_equal(hello_pid(a), (long)wpid);
	assert_int_equal(hello_pid(b), (long)wpid);
	assert_int_equal(eval(f, a, &v), KP_STATUS_CORRECT);
	pids(&v, &pid, &ppid);
	assert_int_equal(ppid, (long)wpid); /* forked by the worker */
	kp_eval_worker_stop(b, 0);
	kp_eval_worker_stop(a, 1);
	assert_true(ended(wpid));
	kp_verdict_release(&v);
	kp_buf_release(&gate);
	kp_buf_release(&pidfile);
}

/*
 * A handle stopped before its worker serves (a run that ends before its first candidate) ends that
 * worker at once, never waiting for its import; the next launch starts a fresh one.
 */
static void test_stop_before_it_serves_ends_the_worker(void **state)
{
	struct fixture *f = *state;
	if (!f)
		skip();
	struct kp_eval_worker *w = NULL;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf gate = KP_BUF_INIT, pidfile = KP_BUF_INIT;
	pid_t first, second;

	kp_buf_addf(&gate, "%s/gate", f->cache);
	kp_buf_addf(&pidfile, "%s/worker.pid", f->cache);
	setenv("FAKE_PRELOAD_GATE", gate.buf, 1); /* never opened: the import "takes" 60 s */
	setenv("FAKE_PRELOAD_PIDFILE", pidfile.buf, 1);
	KP_ASSERT_OK(kp_eval_worker_launch(0, &f->o, &w, &err), &err);
	first = preload_pid(pidfile.buf);
	kp_eval_worker_stop(w, 0);
	assert_true(ended(first));
	unlink(pidfile.buf);
	unsetenv("FAKE_PRELOAD_GATE");
	w = start(f);
	second = preload_pid(pidfile.buf);
	assert_int_not_equal(second, first);
	assert_int_equal(hello_pid(w), (long)second);
	kp_eval_worker_stop(w, 1);
	assert_true(ended(second));
	kp_buf_release(&gate);
	kp_buf_release(&pidfile);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_forked_per_evaluation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_crash_ends_only_its_evaluation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_jobs_in_flight, setup, teardown),
		cmocka_unit_test_setup_teardown(test_worker_death_runs_the_job_cold, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fork_error_is_the_workers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_worker_means_cold, setup, teardown),
		cmocka_unit_test_setup_teardown(test_eval_file_uses_the_worker, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_secret_in_the_worker, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_ends_a_job_in_the_worker, setup, teardown),
		cmocka_unit_test_setup_teardown(test_launch_returns_before_the_worker_serves, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_before_it_serves_ends_the_worker, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
