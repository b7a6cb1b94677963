/* Unit tests: log levels and sinks; the progress line on a TTY and on a plain file. */
#include "base/setup.h"

#include "kp_test.h"
#include "kernelpro/log.h"

static char last[256];
static int calls;

static void capture(enum kp_log_level level, const char *msg, void *ud)
{
	snprintf(last, sizeof(last), "%d:%s", (int)level, msg);
	calls++;
}

static void test_levels(void **state)
{
	calls = 0;
	kp_log(KP_LOG_ERROR, "dropped: no sink");
	assert_int_equal(calls, 0);
	kp_log_set_sink(capture, NULL);
	kp_log_set_level(KP_LOG_WARN);
	kp_info("not shown");
	assert_int_equal(calls, 0);
	kp_warn("shown %d", 1);
	assert_int_equal(calls, 1);
	assert_string_equal(last, "1:shown 1");
	kp_log_set_level(KP_LOG_DEBUG);
	assert_true(kp_log_enabled(KP_LOG_DEBUG));
	kp_debug("dbg");
	assert_string_equal(last, "3:dbg");
	kp_log_set_sink(NULL, NULL);
}

static void test_progress_plain_file(void **state)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&buf, &n);
	struct kp_progress p;
	kp_progress_init(&p, fp, 1);
	assert_false(p.is_tty);
	kp_progress_update(&p, "step %d", 1);
	kp_progress_update(&p, "step %d", 2); /* within the interval: not printed */
	kp_progress_done(&p, "finished");
	fclose(fp);
	assert_string_equal(buf, "step 1\nfinished\n");
	free(buf);
}

static void test_progress_disabled(void **state)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&buf, &n);
	struct kp_progress p;
	kp_progress_init(&p, fp, 0);
	kp_progress_update(&p, "x");
	kp_progress_done(&p, "y");
	fclose(fp);
	assert_int_equal(n, 0);
	free(buf);
}

static void test_progress_tty_redraws(void **state)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&buf, &n);
	struct kp_progress p;
	kp_progress_init(&p, fp, 1);
	p.is_tty = 1; /* as if on a terminal */
	p.min_interval_s = 0;
	kp_progress_update(&p, "a");
	kp_progress_update(&p, "b");
	kp_progress_clear(&p);
	kp_progress_done(&p, "c");
	fclose(fp);
	assert_string_equal(buf, "\r\033[Ka\r\033[Kb\r\033[K\r\033[Kc\n");
	free(buf);
}

/* A block of lines redraws in place: up to its first line, erased to the end of the screen. */
static void test_progress_block_tty(void **state)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&buf, &n);
	struct kp_progress p;
	kp_progress_init(&p, fp, 1);
	p.is_tty = 1;
	p.min_interval_s = 0;
	kp_progress_block(&p, "g0\ng1\nsum", 0);
	kp_progress_block(&p, "g0'\ng1'\nsum'", 0);
	kp_progress_note(&p, "a note");
	kp_progress_block(&p, "x\ny", 1);
	fclose(fp);
	assert_string_equal(buf, "g0\ng1\nsum"
				 "\r\033[A\033[A\033[Jg0'\ng1'\nsum'"
				 "\r\033[A\033[A\033[Ja note\n"
				 "x\ny\n");
	assert_int_equal(p.active, 0);
	free(buf);
}

/* Elsewhere the block is printed whole, notes as plain lines. */
static void test_progress_block_file(void **state)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&buf, &n);
	struct kp_progress p;
	kp_progress_init(&p, fp, 1);
	kp_progress_block(&p, "a\nb", 0);
	kp_progress_block(&p, "c\nd", 0); /* within min_interval_s: skipped */
	kp_progress_note(&p, "note");
	kp_progress_block(&p, "e\nf", 1);
	fclose(fp);
	assert_string_equal(buf, "a\nb\nnote\ne\nf\n");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_levels),
		cmocka_unit_test(test_progress_plain_file),
		cmocka_unit_test(test_progress_disabled),
		cmocka_unit_test(test_progress_tty_redraws),
		cmocka_unit_test(test_progress_block_tty),
		cmocka_unit_test(test_progress_block_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
