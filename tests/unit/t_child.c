/* Unit tests: kp_child runs, captures, caps, times out and kills whole process groups. */
#include "base/setup.h"

#include <signal.h>
#include <unistd.h>

#include "kp_test.h"
#include "kernelpro/child.h"
#include "kernelpro/fs.h"
#include "kernelpro/log.h"
#include "kernelpro/str.h"

/* True while pid exists and is not a zombie. */
static int alive(long pid)
{
	struct kp_buf b = KP_BUF_INIT;
	char path[64];
	const char *p;
	int live = 0;
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (kp_read_file(path, 0, &b, NULL) == 0) {
		p = strrchr(b.buf, ')');
		live = p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
	}
	kp_buf_release(&b);
	return live;
}

static int wait_dead(long pid, double secs)
{
	double end = kp_now() + secs;
	while (kp_now() < end) {
		if (!alive(pid))
			return 1;
		usleep(20000);
	}
	return !alive(pid);
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
		cmocka_unit_test(test_merge_stderr),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
