/* Unit tests: error codes, names, messages and the first-error-wins rule; string helpers. */
#include "base/setup.h"

#include <ctype.h>
#include <pthread.h>

#include "kp_test.h"
#include "kernelpro/str.h"

static void test_codes_map_to_messages(void **state)
{
	assert_string_equal(kp_strerror(0), "success");
	assert_string_equal(kp_strerror(KP_ENOMEM), "out of memory");
	assert_string_equal(kp_strerror(KP_EPARSE), "malformed input");
	assert_string_equal(kp_strerror(KP_ETIMEOUT), "time limit exceeded");
	assert_string_equal(kp_strerror(-9999), "unknown error");
	assert_string_equal(kp_strerror(5), "unknown error");
	assert_string_equal(kp_errname(KP_ENOTOOL), "notool");
	assert_string_equal(kp_errname(KP_EPARSE), "parse");
	/* Codes are persisted: the first ones must never move. */
	assert_int_equal(KP_ENOMEM, -1);
	assert_int_equal(KP_EINVAL, -2);
	assert_int_equal(KP_EPARSE, -5);
	/* Every code has a distinct, non-empty message. */
	for (int c = -1; c >= -KP__NERR; c--) {
		assert_true(strlen(kp_strerror(c)) > 0);
		assert_string_not_equal(kp_strerror(c), "unknown error");
		for (int d = c - 1; d >= -KP__NERR; d--)
			assert_string_not_equal(kp_strerror(c), kp_strerror(d));
	}
}

static void test_first_error_wins(void **state)
{
	struct kp_error err = KP_ERROR_INIT;
	assert_int_equal(kp_error_set(&err, KP_EPARSE, "line %d: bad", 3), KP_EPARSE);
	assert_int_equal(kp_error_set(&err, KP_EIO, "later"), KP_EIO);
	assert_int_equal(err.code, KP_EPARSE);
	assert_string_equal(kp_error_msg(&err), "line 3: bad");
	kp_error_prefix(&err, "reading '%s'", "x.csv");
	assert_string_equal(kp_error_msg(&err), "reading 'x.csv': line 3: bad");
	kp_error_clear(&err);
	assert_int_equal(err.code, 0);
	assert_int_equal(kp_error_set(NULL, KP_EIO, "no carrier"), KP_EIO);
	kp_error_set(&err, KP_ENOENT, NULL);
	assert_string_equal(kp_error_msg(&err), "not found");
}

static void test_long_prefix_is_cut_not_overflowed(void **state)
{
	struct kp_error err = KP_ERROR_INIT;
	char big[600];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	kp_error_set(&err, KP_EIO, "%s", big);
	kp_error_prefix(&err, "%s", big);
	assert_int_equal(strlen(err.msg), KP_ERROR_SIZE - 1);
	assert_string_equal(err.msg + KP_ERROR_SIZE - 4, "...");
}

static void test_parse_numbers(void **state)
{
	long l;
	double d;
	size_t z;
	assert_int_equal(kp_parse_long(" 42 ", &l), 0);
	assert_int_equal(l, 42);
	assert_int_equal(kp_parse_long("42x", &l), KP_EINVAL);
	assert_int_equal(kp_parse_long("", &l), KP_EINVAL);
	assert_int_equal(kp_parse_long("99999999999999999999999", &l), KP_EINVAL);
	assert_int_equal(kp_parse_double("1.5e3", &d), 0);
	assert_true(d == 1500.0);
	assert_int_equal(kp_parse_double("n/a", &d), KP_EINVAL);
	assert_int_equal(kp_parse_size("16M", &z), 0);
	assert_int_equal(z, 16u << 20);
	assert_int_equal(kp_parse_size("-1", &z), KP_EINVAL);
}

static void test_str_helpers(void **state)
{
	char dst[4], s[] = "  hi  ";
	assert_true(kp_starts_with("sm__cycles", "sm__"));
	assert_false(kp_starts_with("sm", "sm__"));
	assert_true(kp_ends_with("file.cu", ".cu"));
	assert_int_equal(kp_strlcpy(dst, "abcdef", sizeof(dst)), 6);
	assert_string_equal(dst, "abc");
	assert_string_equal(kp_str_trim(s), "hi");
}

/* Each name is its code's spelling in lowercase: the X-macro's two columns cannot drift apart. */
static void test_names_are_the_codes_lowercased(void **state)
{
#define ROW(NAME, name, msg) {KP_E##NAME, #NAME},
	static const struct {
		int code;
		const char *upper;
	} rows[] = {KP_ERRNO_MAP(ROW)};
#undef ROW
	assert_int_equal(KP_ARRAY_SIZE(rows), KP__NERR);
	for (size_t i = 0; i < KP_ARRAY_SIZE(rows); i++) {
		char want[32];
		size_t j;
		for (j = 0; rows[i].upper[j] && j + 1 < sizeof(want); j++)
			want[j] = (char)tolower((unsigned char)rows[i].upper[j]);
		want[j] = '\0';
		assert_string_equal(kp_errname(rows[i].code), want);
		for (size_t k = 0; k < i; k++)
			assert_string_not_equal(kp_errname(rows[i].code), kp_errname(rows[k].code));
	}
	assert_string_equal(kp_errname(0), "ok");
	assert_string_equal(kp_errname(-KP__NERR - 1), "unknown");
	assert_string_equal(kp_errname(7), "unknown");
}

static void *name_all(void *ud)
{
	int *bad = ud;
	for (int c = -1; c >= -KP__NERR; c--)
		if (!kp_errname(c)[0] || strcmp(kp_errname(c), kp_errname(c)))
			*bad = 1;
	return NULL;
}

/*
 * Many threads asking for names at once, as the search's worker threads may: the table is
 * constant data, so this is race-free (the lazily built table it replaced was a data race
 * that -fsanitize=thread reported here).
 */
static void test_names_from_threads(void **state)
{
	pthread_t t[8];
	int bad[8] = {0};
	for (int i = 0; i < 8; i++)
		assert_int_equal(pthread_create(&t[i], NULL, name_all, &bad[i]), 0);
	for (int i = 0; i < 8; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(bad[i], 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		/* First: the first names asked for in this process are asked for by many threads at once. */
		cmocka_unit_test(test_names_from_threads),
		cmocka_unit_test(test_codes_map_to_messages),
		cmocka_unit_test(test_names_are_the_codes_lowercased),
		cmocka_unit_test(test_first_error_wins),
		cmocka_unit_test(test_long_prefix_is_cut_not_overflowed),
		cmocka_unit_test(test_parse_numbers),
		cmocka_unit_test(test_str_helpers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
