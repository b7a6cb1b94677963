/* Unit tests: kp_buf and kp_strvec. */
#include "base/setup.h"

#include "kp_test.h"
#include "kernelpro/strvec.h"

static void test_buf_basic(void **state)
{
	struct kp_buf b = KP_BUF_INIT;
	assert_string_equal(b.buf, "");
	assert_int_equal(kp_buf_adds(&b, "abc"), 0);
	assert_int_equal(kp_buf_addf(&b, "-%d-%s", 42, "x"), 0);
	assert_int_equal(kp_buf_addch(&b, '!'), 0);
	assert_string_equal(b.buf, "abc-42-x!");
	assert_int_equal(b.len, 9);
	kp_buf_reset(&b);
	assert_string_equal(b.buf, "");
	kp_buf_release(&b);
	kp_buf_release(&b); /* safe twice */
	assert_string_equal(b.buf, "");
}

static void test_buf_cap(void **state)
{
	struct kp_buf b;
	kp_buf_init(&b, 8);
	assert_int_equal(kp_buf_adds(&b, "12345678"), 0);
	assert_int_equal(kp_buf_adds(&b, "9"), KP_ETOOBIG);
	assert_string_equal(b.buf, "12345678"); /* nothing appended on failure */
	assert_int_equal(kp_buf_addf(&b, "%s", "x"), KP_ETOOBIG);
	kp_buf_release(&b);
}

static void test_buf_grow_large(void **state)
{
	struct kp_buf b = KP_BUF_INIT;
	for (int i = 0; i < 100000; i++)
		assert_int_equal(kp_buf_addch(&b, (char)('a' + i % 26)), 0);
	assert_int_equal(b.len, 100000);
	assert_int_equal(b.buf[b.len], '\0');
	assert_int_equal(b.buf[26], 'a');
	kp_buf_release(&b);
}

static void test_buf_detach_and_escape(void **state)
{
	struct kp_buf b = KP_BUF_INIT;
	size_t n;
	char *s;
	kp_buf_add_escaped(&b, "a\"b\\c\n\x01", 7);
	assert_string_equal(b.buf, "a\\\"b\\\\c\\n\\u0001");
	s = kp_buf_detach(&b, &n);
	assert_int_equal(n, strlen(s));
	assert_string_equal(b.buf, "");
	free(s);
	s = kp_buf_detach(&b, &n); /* detaching an empty buffer gives an allocated "" */
	assert_string_equal(s, "");
	free(s);
}

static void test_buf_rtrim(void **state)
{
	struct kp_buf b = KP_BUF_INIT;
	kp_buf_adds(&b, "text \n\t\r\n");
	kp_buf_rtrim(&b);
	assert_string_equal(b.buf, "text");
	kp_buf_release(&b);
}

static void test_strvec(void **state)
{
	struct kp_strvec sv = KP_STRVEC_INIT;
	char *j;
	kp_strvec_pushl(&sv, "a", "b", NULL);
	kp_strvec_pushf(&sv, "n=%d", 3);
	assert_int_equal(sv.n, 3);
	assert_null(sv.v[3]);
	assert_int_equal(kp_strvec_find(&sv, "b"), 1);
	assert_int_equal(kp_strvec_find(&sv, "zz"), -1);
	j = kp_strvec_join(&sv, ",");
	assert_string_equal(j, "a,b,n=3");
	free(j);
	kp_strvec_pop(&sv);
	assert_int_equal(sv.n, 2);
	assert_null(sv.v[2]);
	kp_strvec_release(&sv);
	kp_strvec_split(&sv, "x::y", ':');
	assert_int_equal(sv.n, 3);
	assert_string_equal(sv.v[1], "");
	assert_string_equal(sv.v[2], "y");
	kp_strvec_release(&sv);
	kp_strvec_release(&sv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buf_basic),      cmocka_unit_test(test_buf_cap),
		cmocka_unit_test(test_buf_grow_large), cmocka_unit_test(test_buf_detach_and_escape),
		cmocka_unit_test(test_buf_rtrim),      cmocka_unit_test(test_strvec),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
