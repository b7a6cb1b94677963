/*
 * Unit tests: ncu runs against tests/integration/fake-ncu (it records its command line, runs the
 * program and answers with the H200 pages): the pages exported side by side, and held runs (started
 * before their program's input, given it later, matched by command, stopped, timed from the input).
 */
#include "base/setup.h"

#include <unistd.h>

#include "kp_test.h"
#include "kernelpro/fs.h"
#include "kernelpro/log.h"
#include "kernelpro/profile.h"

struct fx {
	char *tmp;
	char ncu[1100], args[1100];
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	f->tmp = kp_test_tmpdir();
	snprintf(f->ncu, sizeof(f->ncu), "%s", kp_test_path("tests/integration/fake-ncu"));
	snprintf(f->args, sizeof(f->args), "%s/ncu.args", f->tmp);
	setenv("KP_FAKE_NCU_ARGS", f->args, 1);
	setenv("KP_FAKE_NCU_MODE", "ok", 1);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	kp_test_tmpdir_remove(f->tmp);
	free(f);
	return 0;
}

static const char *in_tmp(const struct fx *f, const char *name, char *buf, size_t n)
{
	snprintf(buf, n, "%s/%s", f->tmp, name);
	return buf;
}

static const char *const METRICS[] = {"dram__bytes.sum", "sm__throughput.avg.pct_of_peak_sustained_elapsed", NULL};

/* A request whose program copies its input to `got` (after writing its pid to `pid`). */
static void request(struct kp_ncu_run *r, const struct fx *f, const char *const *argv, const char *out_dir)
{
	memset(r, 0, sizeof(*r));
	r->ncu = f->ncu;
	r->argv = argv;
	r->metrics = METRICS;
	r->nvtx_include = "kp_candidate/";
	r->launch_count = 64;
	r->out_dir = out_dir;
	r->timeout_ms = 20000;
	r->details = 1;
	r->source_sass = 1;
}

static int file_is(const char *path, const char *want)
{
	struct kp_buf b = KP_BUF_INIT;
	int same = kp_read_file(path, 0, &b, NULL) == 0 && b.len == strlen(want) && !memcmp(b.buf, want, b.len);
	kp_buf_release(&b);
	return same;
}

static void test_pages_exported(void **state)
{
	struct fx *f = *state;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_ncu_run r;
	char dir[1100];
	const char *const argv[] = {"true", NULL};

	request(&r, f, argv, in_tmp(f, "p", dir, sizeof(dir)));
	KP_ASSERT_OK(kp_ncu_run(&r, &err), &err);
	assert_true(kp_path_exists(r.raw_csv));
	assert_true(kp_path_exists(r.details_csv));
	assert_true(kp_path_exists(r.sass_csv));
	assert_string_equal(r.warning, "");
	assert_string_equal(r.report, ""); /* not kept */
}

/* The held run: the program starts at once and waits; finish gives it its input, the files land in out_dir. */
static void test_held_gets_input_later(void **state)
{
	struct fx *f = *state;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_ncu_run r, req;
	struct kp_ncu_held *h = NULL;
	char hold[1100], dir[1100], got[1100], pid[1100], script[4000];
	const char *input = "{\"config\": 1}\n";

	snprintf(script, sizeof(script), "echo $$ > '%s'; cat > '%s'; echo program-output",
		 in_tmp(f, "pid", pid, sizeof(pid)), in_tmp(f, "got", got, sizeof(got)));
	const char *const argv[] = {"sh", "-c", script, NULL};
	request(&r, f, argv, in_tmp(f, "held", hold, sizeof(hold)));
	KP_ASSERT_OK(kp_ncu_hold(&r, &h, &err), &err);
	/* it has started and waits for its input */
	for (int i = 0; i < 500 && !kp_path_exists(pid); i++)
		usleep(10000);
	assert_true(kp_path_exists(pid));
	usleep(100000);
	assert_false(kp_path_exists(got) && !file_is(got, ""));

	request(&req, f, argv, in_tmp(f, "final", dir, sizeof(dir)));
	req.stdin_data = input;
	req.stdin_len = strlen(input);
	assert_true(kp_ncu_held_matches(h, &req));
	KP_ASSERT_OK(kp_ncu_held_finish(h, &req, &err), &err);
	assert_true(file_is(got, input));
	/* ncu's files where the request wanted them, the held directory gone */
	assert_non_null(strstr(req.log, "/final/ncu.log"));
	assert_true(kp_path_exists(req.log));
	assert_non_null(strstr(req.raw_csv, "/final/ncu_raw.csv"));
	assert_true(kp_path_exists(req.raw_csv));
	assert_true(kp_path_exists(req.details_csv));
	assert_true(kp_path_exists(req.sass_csv));
	{
		char plog[1200];
		struct kp_buf b = KP_BUF_INIT;
		snprintf(plog, sizeof(plog), "%s/program.log", dir);
		assert_int_equal(kp_read_file(plog, 0, &b, NULL), 0);
		assert_non_null(strstr(b.buf, "program-output"));
		kp_buf_release(&b);
	}
	assert_false(kp_path_exists(hold));
	assert_true(req.elapsed_s >= 0 && req.elapsed_s < 20);
}

/* Only the very same command matches: another program, environment, metric list or ncu does not. */
static void test_held_matches_only_same_command(void **state)
{
	struct fx *f = *state;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_ncu_run r, q;
	struct kp_ncu_held *h = NULL;
	char hold[1100], dir[1100];
	const char *const argv[] = {"cat", NULL};
	const char *const other[] = {"cat", "-", NULL};
	const char *const env1[] = {"CUDA_VISIBLE_DEVICES=0", NULL};
	const char *const env2[] = {"CUDA_VISIBLE_DEVICES=1", NULL};
	const char *const fewer[] = {"dram__bytes.sum", NULL};

	request(&r, f, argv, in_tmp(f, "held", hold, sizeof(hold)));
	r.env = env1;
	KP_ASSERT_OK(kp_ncu_hold(&r, &h, &err), &err);
	request(&q, f, argv, in_tmp(f, "elsewhere", dir, sizeof(dir)));
	q.env = env1;
	q.timeout_ms = 5; /* the limit and the directory are not the command */
	assert_true(kp_ncu_held_matches(h, &q));
	q.env = env2;
	assert_false(kp_ncu_held_matches(h, &q));
	q.env = env1;
	q.argv = other;
	assert_false(kp_ncu_held_matches(h, &q));
	q.argv = argv;
	q.metrics = fewer;
	assert_false(kp_ncu_held_matches(h, &q));
	q.metrics = METRICS;
	q.details = q.source_sass = 0; /* no report exported: another command line */
	assert_false(kp_ncu_held_matches(h, &q));
	q.details = q.source_sass = 1;
	q.ncu = "true";
	assert_false(kp_ncu_held_matches(h, &q));
	assert_false(kp_ncu_held_matches(NULL, &q));
	kp_ncu_held_free(h);
	assert_false(kp_path_exists(hold));
}

/* Freed without a finish: the waiting program (and ncu) end, nothing is left behind. */
static void test_held_free_stops_program(void **state)
{
	struct fx *f = *state;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_ncu_run r;
	struct kp_ncu_held *h = NULL;
	struct kp_buf b = KP_BUF_INIT;
	char hold[1100], pid[1100], script[2000];
	long p = 0;

	/* the program ignores the end of its input: only the stop ends it */
	snprintf(script, sizeof(script), "echo $$ > '%s'; cat >/dev/null; sleep 60", in_tmp(f, "pid", pid, sizeof(pid)));
	const char *const argv[] = {"sh", "-c", script, NULL};
	request(&r, f, argv, in_tmp(f, "held", hold, sizeof(hold)));
	KP_ASSERT_OK(kp_ncu_hold(&r, &h, &err), &err);
	for (int i = 0; i < 500 && !kp_path_exists(pid); i++)
		usleep(10000);
	assert_int_equal(kp_read_file(pid, 0, &b, NULL), 0);
	p = strtol(b.buf, NULL, 10);
	assert_true(p > 0);
	double t0 = kp_now();
	kp_ncu_held_free(h);
	assert_true(kp_now() - t0 < 10); /* stopped, not waited out */
	for (int i = 0; i < 200 && kp_test_pid_alive(p); i++)
		usleep(10000);
	assert_false(kp_test_pid_alive(p));
	assert_false(kp_path_exists(hold));
	kp_buf_release(&b);
}

/* The time limit counts from the input, not from the start: a long wait is no timeout, a slow run is. */
static void test_held_timeout_from_input(void **state)
{
	struct fx *f = *state;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_ncu_run r;
	struct kp_ncu_held *h = NULL;
	char hold[1100], dir[1100];
	const char *const quick[] = {"cat", NULL};
	const char *const slow[] = {"sh", "-c", "cat >/dev/null; sleep 30", NULL};

	request(&r, f, quick, in_tmp(f, "held", hold, sizeof(hold)));
	r.timeout_ms = 300;
	KP_ASSERT_OK(kp_ncu_hold(&r, &h, &err), &err);
	usleep(600000); /* waiting longer than the limit */
	request(&r, f, quick, in_tmp(f, "d1", dir, sizeof(dir)));
	r.timeout_ms = 10000;
	r.stdin_data = "x";
	r.stdin_len = 1;
	KP_ASSERT_OK(kp_ncu_held_finish(h, &r, &err), &err);

	request(&r, f, slow, in_tmp(f, "held", hold, sizeof(hold)));
	KP_ASSERT_OK(kp_ncu_hold(&r, &h, &err), &err);
	request(&r, f, slow, in_tmp(f, "d2", dir, sizeof(dir)));
	r.timeout_ms = 300;
	double t0 = kp_now();
	assert_int_equal(kp_ncu_held_finish(h, &r, &err), KP_ETIMEOUT);
	assert_true(kp_now() - t0 < 10);
	assert_non_null(strstr(kp_error_msg(&err), "timed out"));
	assert_non_null(strstr(kp_error_msg(&err), "/d2/ncu.log"));
}

/* A program that fails before its input comes: the finish reports it as a run of its own would. */
static void test_held_program_failed(void **state)
{
	struct fx *f = *state;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_ncu_run r;
	struct kp_ncu_held *h = NULL;
	char hold[1100], dir[1100];
	const char *const argv[] = {"sh", "-c", "exit 3", NULL};

	request(&r, f, argv, in_tmp(f, "held", hold, sizeof(hold)));
	KP_ASSERT_OK(kp_ncu_hold(&r, &h, &err), &err);
	usleep(200000); /* it has ended: the input finds no reader */
	request(&r, f, argv, in_tmp(f, "d", dir, sizeof(dir)));
	r.stdin_data = "{}";
	r.stdin_len = 2;
	assert_int_equal(kp_ncu_held_finish(h, &r, &err), KP_ECHILD);
	assert_non_null(strstr(kp_error_msg(&err), "failed under ncu"));
	assert_non_null(strstr(kp_error_msg(&err), "/d/ncu.log"));
}

/* No ncu at all: the hold fails at once with the message a run gives. */
static void test_held_no_ncu(void **state)
{
	struct fx *f = *state;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_ncu_run r;
	struct kp_ncu_held *h = (struct kp_ncu_held *)1;
	char hold[1100];
	const char *const argv[] = {"cat", NULL};

	request(&r, f, argv, in_tmp(f, "held", hold, sizeof(hold)));
	r.ncu = "/nonexistent/ncu";
	assert_int_equal(kp_ncu_hold(&r, &h, &err), KP_ENOTOOL);
	assert_null(h);
	assert_non_null(strstr(kp_error_msg(&err), "ncu not found"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pages_exported, setup, teardown),
		cmocka_unit_test_setup_teardown(test_held_gets_input_later, setup, teardown),
		cmocka_unit_test_setup_teardown(test_held_matches_only_same_command, setup, teardown),
		cmocka_unit_test_setup_teardown(test_held_free_stops_program, setup, teardown),
		cmocka_unit_test_setup_teardown(test_held_timeout_from_input, setup, teardown),
		cmocka_unit_test_setup_teardown(test_held_program_failed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_held_no_ncu, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
