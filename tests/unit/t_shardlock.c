/*
 * Unit tests: the shard lock (lib/suite/shardlock.c). A lock whose holder is live is refused at
 * once, naming it; one whose holder has ended (a dead pid here, an earlier run of the same Slurm
 * element, a Slurm job squeue/sacct show ended) is waited out, as a dead node's lock on NFS must be.
 * "Another process" is a second open file description of the lock file, which flock treats the same.
 */
#include "base/setup.h"

#include <pthread.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "kp_test.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "suite/bench_int.h"

/* A suite directory with shards/ (the lock needs nothing else) and the path of shard 1 of 3's lock. */
static char *setup_suite(char **lock)
{
	char *dir = kp_test_tmpdir(), *shards = kp_xasprintf("%s/shards", dir);
	struct kp_error err = KP_ERROR_INIT;
	KP_ASSERT_OK(kp_mkdir_p(shards, 0755, &err), &err);
	*lock = kp_xasprintf("%s/1-of-3.lock", shards);
	free(shards);
	return dir;
}

/* Holds the lock as another process would, with `owner` written inside; returns the fd. */
static int hold(const char *lock, const char *owner)
{
	int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);
	assert_int_equal(ftruncate(fd, 0), 0);
	assert_int_equal(pwrite(fd, owner, strlen(owner), 0), (ssize_t)strlen(owner));
	return fd;
}

/* A pid that was this machine's and is no longer: a child that ended and was reaped. */
static pid_t dead_pid(void)
{
	pid_t p = fork();
	assert_true(p >= 0);
	if (p == 0)
		_exit(0);
	assert_int_equal(waitpid(p, NULL, 0), p);
	return p;
}

static char *owner_json(long long pid, const char *job, const char *task)
{
	char host[256] = "";
	json_t *o = json_object();
	char *text;
	gethostname(host, sizeof(host) - 1);
	kp_json_set(o, "pid", json_integer(pid));
	kp_json_set(o, "host", json_string(host));
	if (job)
		kp_json_set(o, "job", json_string(job));
	if (task)
		kp_json_set(o, "array_task", json_string(task));
	text = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return text;
}

static int take(const char *dir, double wait_s, const volatile sig_atomic_t *stop, int *fd,
                struct kp_error *err)
{
	struct kp__shardlock_req r = {dir, 1, 3, "bench test", wait_s, stop};
	return kp__shardlock_take(&r, fd, err);
}

static void test_free_lock(void **state)
{
	char *lock, *dir = setup_suite(&lock);
	struct kp_error err = KP_ERROR_INIT;
	json_t *o = NULL;
	int fd;
	KP_ASSERT_OK(take(dir, 0, NULL, &fd, &err), &err);
	KP_ASSERT_OK(kp_json_load_file(lock, 1 << 16, &o, &err), &err);
	assert_int_equal(kp_json_int(o, "pid", 0), getpid());
	assert_string_equal(kp_json_str(o, "argv", ""), "bench test");
	json_decref(o);
	close(fd);
	free(lock);
	kp_test_tmpdir_remove(dir);
}

/* A live holder is refused at once and named; an unreadable owner counts as live. */
static void test_live_holder(void **state)
{
	char *lock, *dir = setup_suite(&lock), *owner = owner_json(getpid(), NULL, NULL);
	struct kp_error err = KP_ERROR_INIT;
	int fd = -1, h = hold(lock, owner);
	/* A wait of 10 minutes: a holder taken for ended would hang the test. */
	assert_int_equal(take(dir, 600, NULL, &fd, &err), KP_EEXISTS);
	assert_true(kp_bench_busy(&err));
	assert_non_null(strstr(kp_error_msg(&err), "in use by another kernelpro process"));
	assert_non_null(strstr(kp_error_msg(&err), "on this host is alive"));
	close(h);
	kp_error_clear(&err);
	h = hold(lock, "not json");
	assert_int_equal(take(dir, 600, NULL, &fd, &err), KP_EEXISTS);
	assert_non_null(strstr(kp_error_msg(&err), "no owner written"));
	close(h);
	free(owner);
	free(lock);
	kp_test_tmpdir_remove(dir);
}

/* A dead holder whose lock does not lapse (NFS keeping a dead node's lock): refused after the wait. */
static void test_dead_holder_wait_runs_out(void **state)
{
	char *lock, *dir = setup_suite(&lock), *owner = owner_json(dead_pid(), NULL, NULL);
	struct kp_error err = KP_ERROR_INIT;
	int fd = -1, h = hold(lock, owner);
	assert_int_equal(take(dir, 0.3, NULL, &fd, &err), KP_EEXISTS);
	assert_true(kp_bench_busy(&err));
	assert_non_null(strstr(kp_error_msg(&err), "still locked after"));
	assert_non_null(strstr(kp_error_msg(&err), "has ended"));
	assert_int_equal(fd, -1);
	/* Stopped while waiting (SIGTERM, Slurm's signal): it gives up at once. */
	{
		volatile sig_atomic_t stop = 1;
		kp_error_clear(&err);
		assert_int_equal(take(dir, 600, &stop, &fd, &err), KP_ECANCELED);
	}
	close(h);
	free(owner);
	free(lock);
	kp_test_tmpdir_remove(dir);
}

struct release {
	int fd;
	double after_s;
};

static void *release_later(void *arg)
{
	struct release *r = arg;
	struct timespec ts = {0, (long)(r->after_s * 1e9)};
	nanosleep(&ts, NULL);
	close(r->fd);
	return NULL;
}

/* An earlier run of this same Slurm element holds it: waited out, then taken over. */
static void test_same_element_taken_over(void **state)
{
	char *lock, *dir = setup_suite(&lock), *owner = owner_json(dead_pid(), "77", "1");
	struct kp_error err = KP_ERROR_INIT;
	struct release r = {hold(lock, owner), 0.3};
	pthread_t t;
	json_t *o = NULL;
	int fd = -1;
	setenv("SLURM_ARRAY_JOB_ID", "77", 1);
	setenv("SLURM_ARRAY_TASK_ID", "1", 1);
	setenv("SLURM_RESTART_COUNT", "1", 1);
	assert_int_equal(pthread_create(&t, NULL, release_later, &r), 0);
	KP_ASSERT_OK(take(dir, 600, NULL, &fd, &err), &err);
	pthread_join(t, NULL);
	KP_ASSERT_OK(kp_json_load_file(lock, 1 << 16, &o, &err), &err);
	assert_int_equal(kp_json_int(o, "pid", 0), getpid()); /* the new owner */
	assert_string_equal(kp_json_str(o, "restart", ""), "1");
	json_decref(o);
	close(fd);
	unsetenv("SLURM_ARRAY_JOB_ID");
	unsetenv("SLURM_ARRAY_TASK_ID");
	unsetenv("SLURM_RESTART_COUNT");
	free(owner);
	free(lock);
	kp_test_tmpdir_remove(dir);
}

/* Fake squeue and sacct on PATH that say element 88_0 is `state` (squeue: only while it is live). */
static void fake_slurm(const char *bin, const char *state)
{
	struct kp_error err = KP_ERROR_INIT;
	char *sq = kp_xasprintf("%s/squeue", bin), *sa = kp_xasprintf("%s/sacct", bin);
	char *live = kp_xasprintf("#!/bin/sh\necho '88|0|%s|None|kpn1'\n", state);
	char *acct = kp_xasprintf("#!/bin/sh\necho '88_0|%s|0:0|kpn1'\n", state);
	int running = !strcmp(state, "RUNNING");
	KP_ASSERT_OK(kp_write_file_atomic(sq, running ? live : "#!/bin/sh\nexit 0\n",
	                                  strlen(running ? live : "#!/bin/sh\nexit 0\n"), &err),
	             &err);
	KP_ASSERT_OK(kp_write_file_atomic(sa, acct, strlen(acct), &err), &err);
	assert_int_equal(chmod(sq, 0755), 0);
	assert_int_equal(chmod(sa, 0755), 0);
	free(sq);
	free(sa);
	free(live);
	free(acct);
}

/* Another element's job: live while Slurm shows it running, ended once it shows it completed. */
static void test_other_job(void **state)
{
	char *lock, *dir = setup_suite(&lock), *owner = owner_json(dead_pid(), "88", "0");
	char *bin = kp_xasprintf("%s/bin", dir), *path = kp_xasprintf("%s:%s", bin, getenv("PATH"));
	char *old = kp_xstrdup(getenv("PATH"));
	struct kp_error err = KP_ERROR_INIT;
	int fd = -1, h = hold(lock, owner);
	KP_ASSERT_OK(kp_mkdir_p(bin, 0755, &err), &err);
	setenv("PATH", path, 1);
	fake_slurm(bin, "RUNNING");
	assert_int_equal(take(dir, 600, NULL, &fd, &err), KP_EEXISTS);
	assert_non_null(strstr(kp_error_msg(&err), "Slurm job 88_0 is RUNNING"));
	assert_non_null(strstr(kp_error_msg(&err), "in use by another kernelpro process"));
	kp_error_clear(&err);
	fake_slurm(bin, "COMPLETED");
	assert_int_equal(take(dir, 0.3, NULL, &fd, &err), KP_EEXISTS);
	assert_non_null(strstr(kp_error_msg(&err), "still locked after"));
	assert_non_null(strstr(kp_error_msg(&err), "Slurm job 88_0 is COMPLETED"));
	close(h);
	KP_ASSERT_OK(take(dir, 0.3, NULL, &fd, &err), &err); /* the lock lapsed */
	close(fd);
	setenv("PATH", old, 1);
	free(old);
	free(path);
	free(bin);
	free(owner);
	free(lock);
	kp_test_tmpdir_remove(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_free_lock),
	    cmocka_unit_test(test_live_holder),
	    cmocka_unit_test(test_dead_holder_wait_runs_out),
	    cmocka_unit_test(test_same_element_taken_over),
	    cmocka_unit_test(test_other_job),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
