/* Unit tests: kp_child runs, captures, caps, times out and kills whole process groups. */
#include "base/setup.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kp_test.h"
#include "kernelpro/child.h"
#include "kernelpro/fs.h"
#include "kernelpro/log.h"
#include "kernelpro/str.h"

static int wait_dead(long pid, double secs)
{
	double end = kp_now() + secs;
	while (kp_now() < end) {
		if (!kp_test_pid_alive(pid))
			return 1;
		usleep(20000);
	}
	return !kp_test_pid_alive(pid);
}

/* The pid a child wrote to `path`, once it has (0 after `secs`). */
static long read_pid(const char *path, double secs)
{
	struct kp_buf b = KP_BUF_INIT;
	double end = kp_now() + secs;
	long pid = 0;
	while (!pid && kp_now() < end) {
		kp_buf_reset(&b);
		if (kp_read_file(path, 64, &b, NULL) == 0 && b.len && b.buf[b.len - 1] == '\n') {
			kp_buf_rtrim(&b);
			if (kp_parse_long(b.buf, &pid))
				pid = 0;
		}
		if (!pid)
			usleep(20000);
	}
	kp_buf_release(&b);
	return pid;
}

static void test_echo(void **state)
{
	struct kp_child c = KP_CHILD_INIT;
	struct kp_error err = KP_ERROR_INIT;
	kp_strvec_pushl(&c.args, "echo", "hello", NULL);
	KP_ASSERT_OK(kp_child_run(&c, &err), &err);
	assert_true(kp_child_ok(&c));
	assert_string_equal(c.out.buf, "hello\n");
	assert_int_equal(c.err.len, 0);
	kp_child_release(&c);
	kp_child_release(&c);
}

static void test_stdin_large(void **state)
{
	struct kp_child c = KP_CHILD_INIT;
	struct kp_error err = KP_ERROR_INIT;
	size_t n = 3u << 20;
	char *data = kp_xmalloc(n);
	for (size_t i = 0; i < n; i++)
		data[i] = (char)('a' + i % 23);
	kp_strvec_push(&c.args, "cat");
	c.stdin_data = data;
	c.stdin_len = n;
	c.timeout_ms = 20000;
	KP_ASSERT_OK(kp_child_run(&c, &err), &err);
	assert_true(kp_child_ok(&c));
	assert_int_equal(c.out.len, n);
	assert_memory_equal(c.out.buf, data, n);
	free(data);
	kp_child_release(&c);
}

static void test_exit_status_and_signal(void **state)
{
	struct kp_child c = KP_CHILD_INIT;
	char how[128];
	kp_strvec_pushl(&c.args, "sh", "-c", "echo oops >&2; exit 3", NULL);
	assert_int_equal(kp_child_run(&c, NULL), 0);
	assert_false(kp_child_ok(&c));
	assert_int_equal(c.exit_code, 3);
	assert_string_equal(c.err.buf, "oops\n");
	assert_string_equal(kp_child_describe(&c, how, sizeof(how)), "exited with status 3");
	kp_child_release(&c);

	kp_strvec_pushl(&c.args, "sh", "-c", "kill -SEGV $$", NULL);
	assert_int_equal(kp_child_run(&c, NULL), 0);
	assert_int_equal(c.term_signal, SIGSEGV);
	assert_non_null(strstr(kp_child_describe(&c, how, sizeof(how)), "signal 11"));
	kp_child_release(&c);
}

static void test_timeout_kills_grandchildren(void **state)
{
	struct kp_child c = KP_CHILD_INIT;
	struct kp_error err = KP_ERROR_INIT;
	char *dir = kp_test_tmpdir();
	struct kp_buf pidfile = KP_BUF_INIT, pidtext = KP_BUF_INIT;
	long gpid;
	double t0 = kp_now();

	kp_buf_addf(&pidfile, "%s/pid", dir);
	kp_strvec_pushl(&c.args, "sh", "-c", "sleep 100 & echo $! > \"$1\"; sleep 100", "sh", pidfile.buf, NULL);
	c.timeout_ms = 300;
	c.kill_grace_ms = 200;
	KP_ASSERT_OK(kp_child_run(&c, &err), &err);
	assert_true(c.timed_out);
	assert_false(kp_child_ok(&c));
	assert_true(kp_now() - t0 < 5.0);
	KP_ASSERT_OK(kp_read_file(pidfile.buf, 64, &pidtext, &err), &err);
	kp_buf_rtrim(&pidtext);
	assert_int_equal(kp_parse_long(pidtext.buf, &gpid), 0);
	assert_true(wait_dead(gpid, 3.0));
	kp_buf_release(&pidfile);
	kp_buf_release(&pidtext);
	kp_child_release(&c);
	kp_test_tmpdir_remove(dir);
}

static void test_term_ignored_then_killed(void **state)
{
	struct kp_child c = KP_CHILD_INIT;
	kp_strvec_pushl(&c.args, "sh", "-c", "trap '' TERM; while :; do sleep 0.05; done", NULL);
	c.timeout_ms = 200;
	c.kill_grace_ms = 200;
	assert_int_equal(kp_child_run(&c, NULL), 0);
	assert_true(c.timed_out);
	assert_int_equal(c.term_signal, SIGKILL);
	kp_child_release(&c);
}

static void test_orphan_does_not_hold_pipes(void **state)
{
	struct kp_child c = KP_CHILD_INIT;
	double t0 = kp_now();
	long gpid;
	/* The child exits at once but leaves a grandchild holding stdout open. */
	kp_strvec_pushl(&c.args, "sh", "-c", "sleep 60 & echo $!", NULL);
	c.timeout_ms = 30000;
	assert_int_equal(kp_child_run(&c, NULL), 0);
	assert_true(kp_child_ok(&c));
	assert_true(kp_now() - t0 < 5.0);
	kp_buf_rtrim(&c.out);
	assert_int_equal(kp_parse_long(c.out.buf, &gpid), 0);
	assert_true(wait_dead(gpid, 3.0));
	kp_child_release(&c);
}

static void test_output_cap(void **state)
{
	struct kp_child c = KP_CHILD_INIT;
	kp_strvec_pushl(&c.args, "head", "-c", "100000", "/dev/zero", NULL);
	c.out_cap = 1000;
	assert_int_equal(kp_child_run(&c, NULL), 0);
	assert_true(kp_child_ok(&c));
	assert_int_equal(c.out.len, 1000);
	assert_int_equal(c.out_total, 100000);
	assert_true(c.out_truncated);
	kp_child_release(&c);
}

static void test_not_found(void **state)
{
	struct kp_child c = KP_CHILD_INIT;
	struct kp_error err = KP_ERROR_INIT;
	kp_strvec_push(&c.args, "kp-no-such-program-xyz");
	assert_int_equal(kp_child_run(&c, &err), KP_ENOTOOL);
	assert_non_null(strstr(kp_error_msg(&err), "kp-no-such-program-xyz"));
	kp_child_release(&c);
	kp_error_clear(&err);
	kp_strvec_push(&c.args, "/nonexistent/bin/tool");
	assert_int_equal(kp_child_run(&c, &err), KP_ENOTOOL);
	kp_child_release(&c);
}

static void test_env_and_cwd(void **state)
{
	struct kp_child c = KP_CHILD_INIT;
	char *dir = kp_test_tmpdir();
	setenv("KP_TEST_DROP", "1", 1);
	setenv("KP_TEST_KEEP", "keep", 1);
	kp_strvec_pushl(&c.args, "sh", "-c", "echo \"$KP_A|${KP_TEST_DROP-unset}|$KP_TEST_KEEP|$(pwd)\"", NULL);
	kp_strvec_push(&c.env, "KP_A=one");
	kp_strvec_push(&c.env_unset, "KP_TEST_DROP");
	c.cwd = dir;
	assert_int_equal(kp_child_run(&c, NULL), 0);
	kp_buf_rtrim(&c.out);
	{
		char want[4200];
		char *real = realpath(dir, NULL);
		snprintf(want, sizeof(want), "one|unset|keep|%s", real);
		assert_string_equal(c.out.buf, want);
		free(real);
	}
	kp_child_release(&c);

	kp_strvec_pushl(&c.args, "/bin/sh", "-c", "echo \"${KP_TEST_KEEP-none}\"", NULL);
	c.env_clear = 1;
	assert_int_equal(kp_child_run(&c, NULL), 0);
	assert_string_equal(c.out.buf, "none\n");
	kp_child_release(&c);
	kp_test_tmpdir_remove(dir);
}

/* Lines of `env` output as one string with a newline before each, so strstr("\nNAME=") finds a name. */
static void child_env(struct kp_child *c, struct kp_buf *out)
{
	kp_strvec_push(&c->args, "env");
	assert_int_equal(kp_child_run(c, NULL), 0);
	kp_buf_addch(out, '\n');
	kp_buf_add(out, c->out.buf, c->out.len);
	kp_child_release(c);
}

/*
 * Secrets never reach a child: every child starts from an allow-list of the parent's environment
 * (what compilers, Python, CUDA and ncu read), so LLM-written code run by the harness or an
 * evaluator cannot read an API key, however its variable is named.
 */
/* ncu --target-processes all preloads its launcher into every process it follows (the GPU run of
 * g2101 found ncu profiling nothing once LD_PRELOAD and NVTX_* stopped reaching the harness). */
static void test_env_profiler_injection_kept(void **state)
{
	(void)state;
	assert_true(kp_child_env_allowed("LD_PRELOAD"));
	assert_true(kp_child_env_allowed("NVTX_INJECTION64_PATH"));
	assert_true(kp_child_env_allowed("CUDA_INJECTION64_PATH"));
	assert_false(kp_child_env_allowed("NVTX_API_TOKEN"));
}

static void test_env_secrets_scrubbed(void **state)
{
	static const char *const secret[] = {"OPENAI_API_KEY",  "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY",
					     "KERNELPRO_API_KEY", "KP_SERVICE_TOKEN", "AWS_SECRET_ACCESS_KEY",
					     "GITHUB_TOKEN",    "HF_TOKEN",          "MY_DB_PASSWORD",
					     "SSH_AUTH_SOCK",   "CUDA_SECRET_KEY",   "PYTHON_API_TOKEN",
					     "SLURM_JWT"};
	static const char *const kept[] = {
		"PATH",		    "HOME",	       "LANG",		    "LC_ALL",
		"TMPDIR",	    "CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", "LD_LIBRARY_PATH",
		"PYTHONPATH",	    "KERNELPRO_HOME",	    "KP_FAKE_SLEEP",	    "TORCH_EXTENSIONS_DIR",
		"TRITON_CACHE_DIR", "XDG_CACHE_HOME",	    "TRITON_HOME",	    "TRITON_PTXAS_PATH",
		"SLURM_JOB_ID",	    "SLURM_CONF",	    "SLURM_STEP_GPUS",	    "CUDA_HOME",
		/* a profiler kernelpro runs under follows the harness through these */
		"NVTX_INJECTION64_PATH", "CUDA_INJECTION64_PATH"};
	struct kp_child c = KP_CHILD_INIT;
	struct kp_buf env = KP_BUF_INIT;
	int set_here[KP_ARRAY_SIZE(kept)] = {0};
	char probe[128];

	for (size_t i = 0; i < KP_ARRAY_SIZE(secret); i++)
		setenv(secret[i], "sk-must-never-reach-a-child-0123456789", 1);
	for (size_t i = 0; i < KP_ARRAY_SIZE(kept); i++)
		if (!getenv(kept[i]))
			set_here[i] = !setenv(kept[i], "/kept", 1);
	child_env(&c, &env);
	for (size_t i = 0; i < KP_ARRAY_SIZE(secret); i++) {
		snprintf(probe, sizeof(probe), "\n%s=", secret[i]);
		if (strstr(env.buf, probe))
			fail_msg("the child saw %s", secret[i]);
	}
	assert_null(strstr(env.buf, "must-never-reach"));
	for (size_t i = 0; i < KP_ARRAY_SIZE(kept); i++) {
		snprintf(probe, sizeof(probe), "\n%s=", kept[i]);
		if (!strstr(env.buf, probe))
			fail_msg("the child lost %s, which the harness or its tools need", kept[i]);
	}
	/* A variable the caller sets on purpose always arrives, key-like name or not. */
	kp_buf_reset(&env);
	kp_strvec_push(&c.env, "KP_EVAL_TOKEN=given");
	child_env(&c, &env);
	assert_non_null(strstr(env.buf, "\nKP_EVAL_TOKEN=given\n"));
	kp_buf_release(&env);
	for (size_t i = 0; i < KP_ARRAY_SIZE(secret); i++)
		unsetenv(secret[i]);
	for (size_t i = 0; i < KP_ARRAY_SIZE(kept); i++)
		if (set_here[i])
			unsetenv(kept[i]);
}

/* A child that ignores SIGTERM and SIGINT and leaves a grandchild in its group: a wedged harness. */
#define WEDGED "trap '' TERM INT; sleep 100 & echo $! >\"$1.tmp\"; mv \"$1.tmp\" \"$1\"; wait"

struct runner {
	struct kp_child c;
	int rc;
	struct kp_error err;
};

static void *run_thread(void *ud)
{
	struct runner *r = ud;
	r->rc = kp_child_run(&r->c, &r->err);
	return NULL;
}

static int flag_set(void *ud)
{
	return *(volatile sig_atomic_t *)ud != 0;
}

/*
 * A cancel flag set from another thread (as a signal handler does) stops the child and its whole
 * group within the cancel grace, SIGTERM ignored or not; later children do not start.
 */
static void test_cancel_flag(void **state)
{
	static volatile sig_atomic_t flag;
	struct runner r = {.c = KP_CHILD_INIT, .err = KP_ERROR_INIT};
	char *dir = kp_test_tmpdir();
	char *pidfile = kp_xasprintf("%s/pid", dir), *marker = kp_xasprintf("%s/started", dir);
	pthread_t t;
	long gpid;

	flag = 0;
	kp_strvec_pushl(&r.c.args, "sh", "-c", WEDGED, "sh", pidfile, NULL);
	r.c.timeout_ms = 600000;
	r.c.cancel = flag_set;
	r.c.cancel_ud = (void *)&flag;
	assert_int_equal(pthread_create(&t, NULL, run_thread, &r), 0);
	gpid = read_pid(pidfile, 10);
	assert_true(gpid > 0);
	flag = 1;
	pthread_join(t, NULL);
	assert_int_equal(r.rc, KP_ECANCELED);
	assert_non_null(strstr(r.err.msg, "canceled"));
	assert_true(r.c.canceled);
	assert_false(r.c.timed_out);
	assert_int_equal(r.c.term_signal, SIGKILL);
	assert_true(wait_dead(gpid, 3.0));
	kp_child_release(&r.c);

	/* Once the flag is set, nothing starts. */
	kp_error_clear(&r.err);
	kp_strvec_pushl(&r.c.args, "touch", marker, NULL);
	r.c.cancel = flag_set;
	r.c.cancel_ud = (void *)&flag;
	assert_int_equal(kp_child_run(&r.c, &r.err), KP_ECANCELED);
	assert_false(kp_path_exists(marker));
	kp_child_release(&r.c);

	/* The process-wide flag works the same for children that name none. */
	r.c.cancel = NULL;
	kp_child_set_cancel(&flag);
	kp_strvec_pushl(&r.c.args, "touch", marker, NULL);
	assert_int_equal(kp_child_run(&r.c, NULL), KP_ECANCELED);
	assert_false(kp_path_exists(marker));
	kp_child_release(&r.c);
	/* ... except a stop-proof one: what stopping itself runs (scontrol requeue at SIGUSR1). */
	kp_strvec_pushl(&r.c.args, "touch", marker, NULL);
	r.c.stop_proof = 1;
	assert_int_equal(kp_child_run(&r.c, NULL), 0);
	assert_true(kp_path_exists(marker));
	kp_child_release(&r.c);
	assert_int_equal(unlink(marker), 0);
	flag = 0;
	kp_strvec_pushl(&r.c.args, "touch", marker, NULL);
	assert_int_equal(kp_child_run(&r.c, NULL), 0);
	assert_true(kp_path_exists(marker));
	kp_child_release(&r.c);
	kp_child_set_cancel(NULL);
	free(pidfile);
	free(marker);
	kp_test_tmpdir_remove(dir);
}

/* kp_child_kill_all (a second Ctrl-C): every running child's group is killed at once. */
static void test_kill_all(void **state)
{
	struct runner r[2] = {{.c = KP_CHILD_INIT, .err = KP_ERROR_INIT},
			      {.c = KP_CHILD_INIT, .err = KP_ERROR_INIT}};
	char *dir = kp_test_tmpdir();
	pthread_t t[2];
	long gpid[2];

	for (int i = 0; i < 2; i++) {
		char *pidfile = kp_xasprintf("%s/pid%d", dir, i);
		kp_strvec_pushl(&r[i].c.args, "sh", "-c", WEDGED, "sh", pidfile, NULL);
		r[i].c.timeout_ms = 600000;
		assert_int_equal(pthread_create(&t[i], NULL, run_thread, &r[i]), 0);
		gpid[i] = read_pid(pidfile, 10);
		assert_true(gpid[i] > 0);
		free(pidfile);
	}
	kp_child_kill_all();
	for (int i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(r[i].rc, 0);
		assert_int_equal(r[i].c.term_signal, SIGKILL);
		assert_true(wait_dead(gpid[i], 3.0));
		kp_child_release(&r[i].c);
	}
	kp_test_tmpdir_remove(dir);
}

/* kill -9 of the process that started a child kills the child too (Linux: PR_SET_PDEATHSIG). */
static void test_dies_with_parent(void **state)
{
#ifdef __linux__
	char *dir = kp_test_tmpdir();
	char *pidfile = kp_xasprintf("%s/pid", dir);
	long child;
	pid_t mid = fork();
	assert_true(mid >= 0);
	if (mid == 0) {
		struct kp_child c = KP_CHILD_INIT;
		kp_strvec_pushl(&c.args, "sh", "-c", "echo $$ >\"$1.tmp\"; mv \"$1.tmp\" \"$1\"; exec sleep 100",
				"sh", pidfile, NULL);
		kp_child_run(&c, NULL);
		_exit(0);
	}
	child = read_pid(pidfile, 10);
	assert_true(child > 0);
	kill(mid, SIGKILL);
	waitpid(mid, NULL, 0);
	assert_true(wait_dead(child, 3.0));
	free(pidfile);
	kp_test_tmpdir_remove(dir);
#else
	skip();
#endif
}

/*
 * kill -9 of kernelpro while the program's own children run (issue 30, N4): PDEATHSIG reached only
 * the direct child, and a `sleep` it started, in its group, lived on. The keeper kills the group.
 */
static void test_grandchild_dies_with_parent(void **state)
{
#ifdef __linux__
	char *dir = kp_test_tmpdir();
	char *pidfile = kp_xasprintf("%s/pid", dir), *escfile = kp_xasprintf("%s/esc", dir);
	long grandchild, escapee = 0;
	char *setsid_path = kp_which("setsid");
	int have_setsid = setsid_path != NULL;
	pid_t mid;
	(void)state;
	free(setsid_path);
	/* One grandchild in the group, and (with setsid) one in a session of its own whose parent lives on. */
	mid = fork();
	assert_true(mid >= 0);
	if (mid == 0) {
		struct kp_child c = KP_CHILD_INIT;
		kp_strvec_pushl(&c.args, "sh", "-c",
				"if [ \"$3\" = 1 ]; then setsid sleep 100 & echo $! >\"$2.tmp\"; mv \"$2.tmp\" \"$2\"; fi; "
				"sleep 100 & echo $! >\"$1.tmp\"; mv \"$1.tmp\" \"$1\"; wait",
				"sh", pidfile, escfile, have_setsid ? "1" : "0", NULL);
		kp_child_run(&c, NULL);
		_exit(0);
	}
	grandchild = read_pid(pidfile, 10);
	assert_true(grandchild > 0);
	if (have_setsid) {
		escapee = read_pid(escfile, 10);
		assert_true(escapee > 0);
	}
	kill(mid, SIGKILL);
	waitpid(mid, NULL, 0);
	assert_true(wait_dead(grandchild, 5.0));
	if (escapee)
		assert_true(wait_dead(escapee, 5.0));
	free(pidfile);
	free(escfile);
	kp_test_tmpdir_remove(dir);
#else
	skip();
#endif
}

/* A process that left the group (setsid) is the keeper's to kill when the program ends. */
static void test_setsid_escapee_killed(void **state)
{
#ifdef __linux__
	struct kp_child c = KP_CHILD_INIT;
	struct kp_error err = KP_ERROR_INIT;
	char *dir = kp_test_tmpdir();
	char *pidfile = kp_xasprintf("%s/pid", dir);
	long escapee;
	char *setsid_path = kp_which("setsid");
	(void)state;
	if (!setsid_path)
		skip();
	free(setsid_path);
	kp_strvec_pushl(&c.args, "sh", "-c", "setsid sleep 100 & echo $! >\"$1.tmp\"; mv \"$1.tmp\" \"$1\"; sleep 0.3",
			"sh", pidfile, NULL);
	c.timeout_ms = 20000;
	KP_ASSERT_OK(kp_child_run(&c, &err), &err);
	assert_int_equal(c.exit_code, 0);
	escapee = read_pid(pidfile, 1);
	assert_true(escapee > 0);
	assert_true(wait_dead(escapee, 5.0));
	kp_child_release(&c);
	free(pidfile);
	kp_test_tmpdir_remove(dir);
#else
	skip();
#endif
}

/* The keeper ends as the program did: its status, its signal. */
static void test_keeper_relays_end(void **state)
{
	struct kp_child c = KP_CHILD_INIT;
	struct kp_error err = KP_ERROR_INIT;
	(void)state;
	kp_strvec_pushl(&c.args, "sh", "-c", "kill -SEGV $$", NULL);
	KP_ASSERT_OK(kp_child_run(&c, &err), &err);
	assert_int_equal(c.term_signal, SIGSEGV);
	kp_child_release(&c);
	kp_child_init(&c);
	kp_strvec_pushl(&c.args, "sh", "-c", "exit 7", NULL);
	KP_ASSERT_OK(kp_child_run(&c, &err), &err);
	assert_int_equal(c.exit_code, 7);
	assert_int_equal(c.term_signal, 0);
	kp_child_release(&c);
}

/*
 * Descriptors without close-on-exec reach the program as they would without the keeper: ncu
 * --target-processes all reaches the processes it follows through them (issue 30: the keeper once
 * closed them all, and nvcc under ncu failed). A close-on-exec one (another child's pipe) does not.
 */
static void test_inherited_descriptors(void **state)
{
	struct kp_child c = KP_CHILD_INIT;
	struct kp_error err = KP_ERROR_INIT;
	int open_p[2], cloexec_p[2];
	char buf[16] = "";
	char *script;
	ssize_t n;
	(void)state;
	assert_int_equal(pipe(open_p), 0);
	assert_int_equal(pipe2(cloexec_p, O_CLOEXEC), 0);
	script = kp_xasprintf("echo inherited >&%d; echo leaked >&%d 2>/dev/null; exit 0", open_p[1], cloexec_p[1]);
	kp_strvec_pushl(&c.args, "sh", "-c", script, NULL);
	KP_ASSERT_OK(kp_child_run(&c, &err), &err);
	close(open_p[1]);
	close(cloexec_p[1]);
	n = read(open_p[0], buf, sizeof(buf) - 1);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_string_equal(buf, "inherited\n");
	assert_int_equal(read(cloexec_p[0], buf, sizeof(buf)), 0); /* EOF: nobody else held it */
	close(open_p[0]);
	close(cloexec_p[0]);
	free(script);
	kp_child_release(&c);
}

/* N5: a program that never stops writing is killed at the cap, not read until its time limit. */
static void test_kill_at_cap(void **state)
{
	struct kp_child c = KP_CHILD_INIT;
	struct kp_error err = KP_ERROR_INIT;
	(void)state;
	kp_strvec_pushl(&c.args, "yes", NULL);
	c.out_cap = 1u << 20;
	c.kill_at_cap = 1;
	c.timeout_ms = 60000;
	KP_ASSERT_OK(kp_child_run(&c, &err), &err);
	assert_true(c.output_capped);
	assert_true(c.out_truncated);
	assert_false(c.timed_out);
	assert_int_equal(c.term_signal, SIGKILL);
	assert_int_equal(c.out.len, 1u << 20);
	kp_child_release(&c);
}

/* The sweep kills a process carrying an earlier session's mark, and nothing else. */
static void test_sweep_owner(void **state)
{
#ifdef __linux__
	pid_t marked, other;
	(void)state;
	marked = fork();
	assert_true(marked >= 0);
	if (marked == 0) {
		char *const argv[] = {"sleep", "100", NULL};
		char *const envp[] = {KP_CHILD_OWNER_VAR "=1.2.test-mark", "PATH=/usr/bin:/bin", NULL};
		execve("/bin/sleep", argv, envp);
		_exit(127);
	}
	other = fork();
	assert_true(other >= 0);
	if (other == 0) {
		char *const argv[] = {"sleep", "100", NULL};
		char *const envp[] = {KP_CHILD_OWNER_VAR "=1.2.test-mark-other", NULL};
		execve("/bin/sleep", argv, envp);
		_exit(127);
	}
	usleep(200000); /* both have exec'd */
	assert_int_equal(kp_child_sweep("1.2.test-mark"), 1);
	assert_int_equal(waitpid(marked, NULL, 0), marked);
	assert_true(kp_test_pid_alive(other));
	assert_int_equal(kp_child_sweep(kp_child_owner()), 0); /* never our own */
	kill(other, SIGKILL);
	waitpid(other, NULL, 0);
#else
	skip();
#endif
}

/* stdin_from_fd: the input comes later, from another thread, through the caller's end of a pipe. */
struct feeder {
	int fd;
	const char *data;
	int rc;
};

static void *feed_later(void *arg)
{
	struct feeder *fd = arg;
	struct kp_error err = KP_ERROR_INIT;
	usleep(100000); /* the child is running by now, blocked on its input */
	fd->rc = kp_child_feed(fd->fd, fd->data, strlen(fd->data), &err);
	close(fd->fd);
	return NULL;
}

static void test_stdin_from_fd(void **state)
{
	struct kp_child c = KP_CHILD_INIT;
	struct kp_error err = KP_ERROR_INIT;
	struct feeder fd = {.data = "given later\n"};
	pthread_t th;
	int p[2];
	(void)state;

	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	kp_strvec_pushl(&c.args, "cat", NULL);
	c.stdin_from_fd = 1;
	c.stdin_fd = p[0];
	c.timeout_ms = 10000;
	fd.fd = p[1];
	assert_int_equal(pthread_create(&th, NULL, feed_later, &fd), 0);
	KP_ASSERT_OK(kp_child_run(&c, &err), &err);
	pthread_join(th, NULL);
	assert_int_equal(fd.rc, 0);
	assert_true(kp_child_ok(&c));
	assert_string_equal(c.out.buf, "given later\n");
	assert_int_equal(c.stdin_fd, -1); /* closed in the parent once the child had it */
	kp_child_release(&c);

	/* a child that never reads and has ended: the feed fails instead of raising SIGPIPE */
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	kp_strvec_pushl(&c.args, "true", NULL);
	c.stdin_from_fd = 1;
	c.stdin_fd = p[0];
	KP_ASSERT_OK(kp_child_run(&c, &err), &err);
	assert_int_equal(kp_child_feed(p[1], "x", 1, &err), KP_EIO);
	close(p[1]);
	kp_child_release(&c);
}

static void test_merge_stderr(void **state)
{
	struct kp_child c = KP_CHILD_INIT;
	kp_strvec_pushl(&c.args, "sh", "-c", "echo a; echo b >&2", NULL);
	c.merge_stderr = 1;
	assert_int_equal(kp_child_run(&c, NULL), 0);
	assert_non_null(strstr(c.out.buf, "a\n"));
	assert_non_null(strstr(c.out.buf, "b\n"));
	kp_child_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_echo),
		cmocka_unit_test(test_stdin_large),
		cmocka_unit_test(test_exit_status_and_signal),
		cmocka_unit_test(test_timeout_kills_grandchildren),
		cmocka_unit_test(test_term_ignored_then_killed),
		cmocka_unit_test(test_orphan_does_not_hold_pipes),
		cmocka_unit_test(test_output_cap),
		cmocka_unit_test(test_not_found),
		cmocka_unit_test(test_env_and_cwd),
		cmocka_unit_test(test_env_profiler_injection_kept),
		cmocka_unit_test(test_env_secrets_scrubbed),
		cmocka_unit_test(test_merge_stderr),
		cmocka_unit_test(test_stdin_from_fd),
		cmocka_unit_test(test_cancel_flag),
		cmocka_unit_test(test_kill_all),
		cmocka_unit_test(test_dies_with_parent),
		cmocka_unit_test(test_grandchild_dies_with_parent),
		cmocka_unit_test(test_setsid_escapee_killed),
		cmocka_unit_test(test_keeper_relays_end),
		cmocka_unit_test(test_inherited_descriptors),
		cmocka_unit_test(test_kill_at_cap),
		cmocka_unit_test(test_sweep_owner),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
