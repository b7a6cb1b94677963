/* Unit tests: the native harness's spec (lib/eval/natspec.c): what the writer writes the reader reads
 * back, and every malformed line is an error naming it (the harness reads nothing else). */
#include "base/setup.h"

#include "eval/natspec.h"
#include "kp_test.h"
#include "kernelpro/buf.h"

static void sample(struct kp_natspec *s)
{
	const int64_t x[2] = {4096, 8192}, y[1] = {4096};
	kp_natspec_init(s);
	snprintf(s->ref, sizeof(s->ref), "/cache/aa/lib.so");
	snprintf(s->cand, sizeof(s->cand), "/cache/bb/lib.so");
	s->seed = 18446744073709551615ull;
	s->scaled_trial = 0;
	s->limit_check = 180;
	s->loop_s = 1.5;
	s->iters = 7;
	snprintf(s->off[s->noff++], sizeof(s->off[0]), "host_time");
	assert_int_equal(kp_natspec_add(s, 1, "x", 0, 2, x, 1, -1, 1, NULL), 0);
	assert_int_equal(kp_natspec_add(s, 0, "y", 0, 1, y, 0, 1e-3, 1e-4, NULL), 0);
}

static void test_round_trip(void **state)
{
	struct kp_natspec *s = kp_xcalloc(1, sizeof(*s)), *r = kp_xcalloc(1, sizeof(*r));
	struct kp_buf a = KP_BUF_INIT, b = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;

	sample(s);
	kp_natspec_write(s, &a);
	assert_non_null(strstr(a.buf, "in x 0 2 4096 8192 1 -1 1\n"));
	assert_non_null(strstr(a.buf, "scaled_trial 0\n"));
	kp_natspec_init(r);
	KP_ASSERT_OK(kp_natspec_parse(r, a.buf, a.len, &err), &err);
	kp_natspec_write(r, &b);
	assert_string_equal(a.buf, b.buf);
	assert_int_equal(r->in[0].numel, 4096 * 8192);
	assert_int_equal(r->in[0].bytes, 4096 * 8192 * 4);
	assert_int_equal(r->out[0].bytes, 4096 * 4);
	assert_true(r->out[0].a == 1e-3 && r->seed == 18446744073709551615ull);
	assert_true(kp_natspec_off(r, "host_time") && !kp_natspec_off(r, "input_memo"));
	kp_buf_release(&a);
	kp_buf_release(&b);
	free(s);
	free(r);
}

static void expect_bad(const char *text, const char *fragment)
{
	struct kp_natspec *s = kp_xcalloc(1, sizeof(*s));
	struct kp_error err = KP_ERROR_INIT;
	kp_natspec_init(s);
	if (kp_natspec_parse(s, text, strlen(text), &err) == 0)
		fail_msg("accepted: %s", text);
	if (!strstr(kp_error_msg(&err), fragment))
		fail_msg("error '%s' lacks '%s'", kp_error_msg(&err), fragment);
	free(s);
}

#define HEAD "kp-native-spec 1\nref /r.so\n"
#define OUT "out y 0 1 4 0.0001 0.0001\n"

static void test_malformed(void **state)
{
	expect_bad("", "no 'end'");
	expect_bad("kp-native-spec 2\nend\n", "line 1");
	expect_bad(HEAD OUT, "no 'end'");
	expect_bad(HEAD "end\n", "at least one output");
	expect_bad(HEAD "colour blue\n" OUT "end\n", "line 3: unknown key");
	expect_bad(HEAD "trials 0\n" OUT "end\n", "line 3: expected an integer in range");
	expect_bad(HEAD "trials 12abc\n" OUT "end\n", "line 3");
	expect_bad(HEAD "trials 5 6\n" OUT "end\n", "expected KEY VALUE");
	expect_bad(HEAD "seed -1\n" OUT "end\n", "unsigned");
	expect_bad(HEAD "loop_s nan\n" OUT "end\n", "seconds");
	expect_bad(HEAD "out y 9 1 4 0 0\nend\n", "NDIM");
	expect_bad(HEAD "out y 0 1 0 0 0\nend\n", "positive");
	expect_bad(HEAD "out y 0 1 4 0\nend\n", "two numbers");
	expect_bad(HEAD "out y 0 1 4 0 0 7\nend\n", "two numbers");
	expect_bad(HEAD "in x 0 1 4 9 0 1\n" OUT "end\n", "fill kind");
	expect_bad(HEAD "out y 0 2 4294967296 4294967296 0 0\nend\n", "dimension 1");
	expect_bad(HEAD "mode \n" OUT "end\n", "empty or too long");
	expect_bad("kp-native-spec 1\nref /r\0.so\n" OUT "end\n", "no 'end'"); /* strlen stops at the NUL */
	{
		struct kp_buf b = KP_BUF_INIT;
		kp_buf_adds(&b, HEAD);
		for (int i = 0; i < 65; i++)
			kp_buf_addf(&b, "out y%d 0 1 4 0 0\n", i);
		kp_buf_adds(&b, "end\n");
		expect_bad(b.buf, "more than 64 outputs");
		kp_buf_release(&b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_malformed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
