/*
 * Unit tests: the profile parsers' memory cap (issue 21: parsed data took ~10x its text without
 * bound). Every parser of outside data (ncu raw and details pages, SASS text and ncu source page,
 * ptxas, tracer JSON, nsys CSV) refuses an input that needs more than KERNELPRO_PROFILE_MEM_MB
 * with an error that names the file, the cap and how to raise it, and parses it under a larger cap.
 */
#include "base/setup.h"

#include "kp_test.h"
#include "kernelpro/profile.h"

#define CAP_MB "2"

enum which { NCU_RAW, NCU_DETAILS, SASS_TEXT, SASS_SOURCE, PTXAS, TRACE_JSON, NSYS_CSV };

static const char *const names[] = {"raw.csv",   "details.csv", "sass.txt", "source.csv",
                                    "ptxas.txt", "trace.json",  "nsys.csv"};

/* An input of each kind, small in text and large once parsed (n sets its size). */
static void make_input(enum which w, size_t n, struct kp_buf *b)
{
	switch (w) {
	case NCU_RAW:
		kp_buf_adds(b, "\"ID\",\"Kernel Name\"");
		for (size_t c = 0; c < 400; c++)
			kp_buf_addf(b, ",\"m%zu__x.sum\"", c);
		kp_buf_adds(b, "\n\"\",\"\"");
		for (size_t c = 0; c < 400; c++)
			kp_buf_adds(b, ",\"inst\"");
		for (size_t r = 0; r < n; r++) {
			kp_buf_addf(b, "\n\"%zu\",\"k\"", r);
			for (size_t c = 0; c < 400; c++)
				kp_buf_adds(b, ",1");
		}
		kp_buf_addch(b, '\n');
		break;
	case NCU_DETAILS:
		kp_buf_adds(b, "\"ID\",\"Section Name\",\"Metric Name\",\"Rule Name\",\"Rule Type\",\"Rule "
		               "Description\"\n");
		for (size_t r = 0; r < n * 40; r++)
			kp_buf_adds(b, "\"0\",\"S\",\"\",\"R\",\"OPT\",\"d\"\n");
		break;
	case SASS_TEXT:
		kp_buf_adds(b, "\tcode for sm_90\n");
		for (size_t f = 0; f < n * 10; f++)
			kp_buf_addf(b, "\t\tFunction : _Z1fv\n        /*0000*/ EXIT ;\n\t\t..........\n");
		break;
	case SASS_SOURCE:
		for (size_t f = 0; f < n * 10; f++)
			kp_buf_adds(b, "\"Kernel Name\",\"k\"\n\"Address\",\"Source\"\n\"0\",\"EXIT\"\n");
		break;
	case PTXAS:
		for (size_t f = 0; f < n * 10; f++)
			kp_buf_addf(b,
			            "ptxas info    : Compiling entry function '_Z%zuk' for 'sm_90'\n"
			            "ptxas info    : Used 8 registers\n",
			            f);
		break;
	case TRACE_JSON:
		kp_buf_adds(
		    b, "{\"format\": \"kernelpro-trace\", \"version\": 1, \"complete\": true, \"events\": [");
		for (size_t e = 0; e < n * 10; e++)
			kp_buf_addf(b, "%s{\"kind\":\"kernel\",\"name\":\"k\",\"start\":%zu,\"end\":%zu}",
			            e ? "," : "", e, e + 1);
		kp_buf_adds(b, "]}\n");
		break;
	case NSYS_CSV:
		kp_buf_adds(b, "Time (%),Total Time (ns),Instances,Name\n");
		for (size_t r = 0; r < n * 40; r++)
			kp_buf_adds(b, "1,2,1,k\n");
		break;
	}
}

static int parse(enum which w, const struct kp_buf *b, struct kp_error *err)
{
	struct kp_ncu_report r = KP_NCU_REPORT_INIT;
	struct kp_sass s = KP_SASS_INIT;
	struct kp_ptxas p = KP_PTXAS_INIT;
	struct kp_trace t = KP_TRACE_INIT;
	int rc = 0;
	switch (w) {
	case NCU_RAW: rc = kp_ncu_parse_raw(&r, names[w], b->buf, b->len, err); break;
	case NCU_DETAILS: rc = kp_ncu_parse_details(&r, names[w], b->buf, b->len, err); break;
	case SASS_TEXT:
	case SASS_SOURCE: rc = kp_sass_parse(&s, names[w], b->buf, b->len, err); break;
	case PTXAS: rc = kp_ptxas_parse(&p, names[w], b->buf, b->len, err); break;
	case TRACE_JSON: rc = kp_trace_parse_json(&t, names[w], b->buf, b->len, err); break;
	case NSYS_CSV: rc = kp_trace_parse_nsys_csv(&t, names[w], b->buf, b->len, err); break;
	}
	kp_ncu_report_release(&r);
	kp_sass_release(&s);
	kp_ptxas_release(&p);
	kp_trace_release(&t);
	return rc;
}

static void test_each_parser_is_capped(void **state)
{
	for (int w = NCU_RAW; w <= NSYS_CSV; w++) {
		struct kp_buf b = KP_BUF_INIT;
		struct kp_error err = KP_ERROR_INIT;
		int rc;
		make_input((enum which)w, 1000, &b);
		/* the text itself is well under the cap: it is what parsing makes of it that is not */
		assert_true(b.len < ((size_t)2 << 20));
		setenv("KERNELPRO_PROFILE_MEM_MB", CAP_MB, 1);
		rc = parse((enum which)w, &b, &err);
		if (rc != KP_ETOOBIG || !strstr(kp_error_msg(&err), names[w]) ||
		    !strstr(kp_error_msg(&err), "more than the " CAP_MB " MiB") ||
		    !strstr(kp_error_msg(&err), "KERNELPRO_PROFILE_MEM_MB="))
			fail_msg("%s (%zu bytes) under a " CAP_MB " MiB cap: %d '%s'", names[w], b.len, rc,
			         kp_error_msg(&err));
		kp_error_clear(&err);
		setenv("KERNELPRO_PROFILE_MEM_MB", "64", 1);
		KP_ASSERT_OK(parse((enum which)w, &b, &err), &err);
		unsetenv("KERNELPRO_PROFILE_MEM_MB");
		KP_ASSERT_OK(parse((enum which)w, &b, &err), &err); /* the default: KP_PROFILE_MEM_MB */
		kp_buf_release(&b);
	}
}

static void test_bad_setting(void **state)
{
	static const char *const values[] = {"abc", "0", "-5", "1.5", "99999999999999999999"};
	for (size_t i = 0; i < KP_ARRAY_SIZE(values); i++) {
		struct kp_buf b = KP_BUF_INIT;
		struct kp_error err = KP_ERROR_INIT;
		make_input(PTXAS, 1, &b);
		setenv("KERNELPRO_PROFILE_MEM_MB", values[i], 1);
		assert_int_equal(parse(PTXAS, &b, &err), KP_EINVAL);
		assert_non_null(strstr(kp_error_msg(&err), "KERNELPRO_PROFILE_MEM_MB"));
		assert_non_null(strstr(kp_error_msg(&err), values[i]));
		kp_buf_release(&b);
	}
	unsetenv("KERNELPRO_PROFILE_MEM_MB");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_each_parser_is_capped),
	    cmocka_unit_test(test_bad_setting),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
