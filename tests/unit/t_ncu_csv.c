/* Unit tests: ncu raw/details CSV on the real H200 capture, units, missing values, truncation, bad input. */
#include "base/setup.h"

#include <math.h>

#include "kp_test.h"
#include "kernelpro/profile.h"

#define RAW "tests/golden/h200-probe/ncu_raw.csv"
#define DETAILS "tests/golden/h200-probe/ncu_details.csv"

static void parse_file(struct kp_ncu_report *r, const char *rel)
{
	struct kp_buf b = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	kp_test_read(rel, &b);
	KP_ASSERT_OK(kp_ncu_parse_raw(r, rel, b.buf, b.len, &err), &err);
	kp_buf_release(&b);
}

static int parse_text(struct kp_ncu_report *r, const char *text, struct kp_error *err)
{
	return kp_ncu_parse_raw(r, "t.csv", text, strlen(text), err);
}

/* The golden dump: per launch, its identity, how many values parsed, and the Stage-1 inputs. */
static void dump(const struct kp_ncu_report *r, struct kp_buf *out)
{
	static const char *const keys[] = {
		"gpu__time_duration.sum",
		"dram__bytes_read.sum",
		"dram__bytes_write.sum",
		"sm__throughput.avg.pct_of_peak_sustained_elapsed",
		"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
		"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed",
		"smsp__cycles_elapsed.avg",
		"sm__ops_path_tensor_src_tf32_dst_fp32.sum",
		"launch__waves_per_multiprocessor",
		"dram__bytes.sum.per_second",
		"dramc__read_throughput.avg.pct_of_peak_sustained_elapsed",
		"LTS.TriageCompute.lts__throughput.avg.pct_of_peak_sustained_elapsed",
		"device__attribute_display_name",
	};
	for (size_t i = 0; i < r->nlaunches; i++) {
		const struct kp_launch *l = &r->launches[i];
		size_t numeric = 0;
		for (size_t j = 0; j < l->nmetrics; j++)
			numeric += !l->metrics[j].missing;
		kp_buf_addf(out, "launch %d %s grid=%u,%u,%u block=%u,%u,%u cc=%s dev=%d stream=%d metrics=%zu numeric=%zu\n",
			    l->id, l->function, l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1],
			    l->block[2], l->cc, l->device, l->stream, l->nmetrics, numeric);
		for (size_t k = 0; k < KP_ARRAY_SIZE(keys); k++) {
			const struct kp_metric *m = kp_launch_metric(l, keys[k]);
			if (!m)
				kp_buf_addf(out, "  %s: absent\n", keys[k]);
			else if (m->missing)
				kp_buf_addf(out, "  %s: missing (%s)\n", keys[k], m->text ? m->text : "cut");
			else
				kp_buf_addf(out, "  %s: %.12g %s\n", keys[k], m->value, m->unit);
		}
	}
}

static void test_raw_fixture(void **state)
{
	struct kp_ncu_report r = KP_NCU_REPORT_INIT;
	struct kp_buf out = KP_BUF_INIT;
	const struct kp_launch *l;
	parse_file(&r, RAW);
	assert_int_equal(r.nlaunches, 17);
	assert_false(r.incomplete);
	for (size_t i = 0; i < r.nlaunches; i++) {
		size_t numeric = 0;
		assert_int_equal(r.launches[i].id, (int)i);
		assert_int_equal(r.launches[i].nmetrics, 2227);
		for (size_t j = 0; j < r.launches[i].nmetrics; j++)
			numeric += !r.launches[i].metrics[j].missing;
		/* counted independently with Python's csv module: every numeric field parses */
		assert_int_equal(numeric, i == 10 || i == 16 ? 2208 : 2207);
	}
	l = &r.launches[0];
	assert_string_equal(l->function, "vec_add_naive");
	assert_string_equal(l->kernel, "vec_add_naive(const float *, const float *, float *, int)");
	assert_int_equal(l->grid[0], 262144);
	assert_int_equal(l->block[0], 256);
	assert_true(kp_launch_getd(l, "gpu__time_duration.sum", -1) == 232992.0);  /* "232,992" */
	assert_true(kp_launch_getd(l, "dram__bytes_read.sum", -1) == 536896000.0); /* "536,896,000" */
	assert_string_equal(kp_launch_metric(l, "gpu__time_duration.sum")->unit, "ns");
	/* section-prefixed columns are found by their metric name... */
	assert_non_null(kp_launch_metric(l, "dramc__read_throughput.avg.pct_of_peak_sustained_elapsed"));
	assert_string_equal(kp_launch_metric(l, "dramc__read_throughput.avg.pct_of_peak_sustained_elapsed")->column,
			    "FBSP.TriageCompute.dramc__read_throughput.avg.pct_of_peak_sustained_elapsed");
	/* ...unless a plain column has that name: then the prefixed one keeps its full name */
	assert_string_equal(kp_launch_metric(l, "lts__throughput.avg.pct_of_peak_sustained_elapsed")->column,
			    "lts__throughput.avg.pct_of_peak_sustained_elapsed");
	assert_non_null(kp_launch_metric(l, "LTS.TriageCompute.lts__throughput.avg.pct_of_peak_sustained_elapsed"));
	/* a text metric is missing as a number but keeps its text */
	assert_true(kp_launch_metric(l, "device__attribute_display_name")->missing);
	assert_string_equal(kp_launch_metric(l, "device__attribute_display_name")->text, "NVIDIA H200");
	assert_null(kp_launch_metric(l, "no__such_metric"));
	assert_int_equal(kp_launch_get(l, "no__such_metric", &(double){0}), KP_EMISSING);
	assert_string_equal(r.launches[15].function, "cutlass::Kernel2");
	assert_string_equal(r.launches[16].function,
			    "sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x256x32_warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas");
	assert_ptr_equal(kp_ncu_find_launch(&r, 16), &r.launches[16]);
	assert_null(kp_ncu_find_launch(&r, 17));

	dump(&r, &out);
	kp_test_golden("tests/golden/h200-probe/expected/ncu_raw.txt", out.buf);
	kp_buf_release(&out);
	kp_ncu_report_release(&r);
	kp_ncu_report_release(&r); /* safe twice */
}

static void test_details_fixture(void **state)
{
	struct kp_ncu_report r = KP_NCU_REPORT_INIT;
	struct kp_buf b = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	size_t opt = 0, inf = 0;
	parse_file(&r, RAW);
	kp_test_read(DETAILS, &b);
	KP_ASSERT_OK(kp_ncu_parse_details(&r, DETAILS, b.buf, b.len, &err), &err);
	assert_int_equal(r.nrules, 156);
	for (size_t i = 0; i < r.nrules; i++) {
		opt += !strcmp(r.rules[i].type, "OPT");
		inf += !strcmp(r.rules[i].type, "INF");
		assert_non_null(kp_ncu_find_launch(&r, r.rules[i].launch_id));
	}
	assert_int_equal(opt, 116);
	assert_int_equal(inf, 40);
	/* the raw page parser refuses a details page with a message that says so */
	{
		struct kp_ncu_report d = KP_NCU_REPORT_INIT;
		assert_int_equal(kp_ncu_parse_raw(&d, DETAILS, b.buf, b.len, &err), KP_EPARSE);
		kp_ncu_report_release(&d);
	}
	kp_buf_release(&b);
	kp_ncu_report_release(&r);
}

static void test_details_rule_fields(void **state)
{
	const char *text =
		"==PROF== Disconnected\n"
		"\"ID\",\"Kernel Name\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\",\"Rule Name\","
		"\"Rule Type\",\"Rule Description\",\"Estimated Speedup Type\",\"Estimated Speedup\"\n"
		"\"0\",\"k(int)\",\"Occupancy\",\"Achieved Occupancy\",\"%\",\"80.5\",\n"
		"\"0\",\"k(int)\",\"LaunchStats\",\"\",\"\",\"\",\"LaunchConfiguration\",\"OPT\",\"A wave, \"\"quoted\"\"\nacross lines\",\"global\",\"50\"\n"
		"\"0\",\"k(int)\",\"Occupancy\",\"\",\"\",\"\",\"TheoreticalOccupancy\",\"INF\",\"fine\",\"\",\"\"\n";
	struct kp_ncu_report r = KP_NCU_REPORT_INIT;
	struct kp_error err = KP_ERROR_INIT;
	KP_ASSERT_OK(kp_ncu_parse_details(&r, "d.csv", text, strlen(text), &err), &err);
	assert_int_equal(r.nrules, 2);
	assert_string_equal(r.rules[0].rule, "LaunchConfiguration");
	assert_string_equal(r.rules[0].section, "LaunchStats");
	assert_string_equal(r.rules[0].description, "A wave, \"quoted\"\nacross lines");
	assert_string_equal(r.rules[0].speedup_type, "global");
	assert_true(r.rules[0].est_speedup == 50.0);
	assert_true(isnan(r.rules[1].est_speedup));
	kp_ncu_report_release(&r);
}

static const char small_hdr[] =
	"==PROF== Connected to process 1 (./app)\n"
	"app output with an \"unbalanced quote\n"
	"\"ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\",\"a__dur.sum\",\"a__bytes.sum\",\"a__rate.sum.per_second\","
	"\"a__clk.avg.per_second\",\"a__pct.pct\",\"a__cnt.sum\"\n"
	"\"\",\"\",\"\",\"\",\"usecond\",\"Kbyte\",\"Gbyte/second\",\"Mhz\",\"%\",\"Ksector\"\n";

static void test_units_and_missing(void **state)
{
	struct kp_buf t = KP_BUF_INIT;
	struct kp_ncu_report r = KP_NCU_REPORT_INIT;
	struct kp_error err = KP_ERROR_INIT;
	const struct kp_launch *l;
	kp_buf_adds(&t, small_hdr);
	kp_buf_adds(&t, "\"0\",\"k<float, 2>(float *, int)\",\"(128, 1, 1)\",\"(80, 2, 1)\",\"1,215.5\",\"2\",\"3.5\",\"1,755\",\"n/a\",\"\"\n");
	kp_buf_adds(&t, "==PROF== Disconnected from process 1\n");
	KP_ASSERT_OK(parse_text(&r, t.buf, &err), &err);
	assert_int_equal(r.nlaunches, 1);
	l = &r.launches[0];
	assert_string_equal(l->function, "k");
	assert_int_equal(l->grid[1], 2);
	assert_true(fabs(kp_launch_getd(l, "a__dur.sum", -1) - 1215500.0) < 1e-6);
	assert_string_equal(kp_launch_metric(l, "a__dur.sum")->unit, "ns");
	assert_true(kp_launch_getd(l, "a__bytes.sum", -1) == 2000.0);
	assert_string_equal(kp_launch_metric(l, "a__rate.sum.per_second")->unit, "byte/s");
	assert_true(kp_launch_getd(l, "a__rate.sum.per_second", -1) == 3.5e9);
	assert_true(kp_launch_getd(l, "a__clk.avg.per_second", -1) == 1755e6);
	assert_string_equal(kp_launch_metric(l, "a__clk.avg.per_second")->unit, "hz");
	/* "n/a" and "" are missing, never 0 */
	assert_true(kp_launch_metric(l, "a__pct.pct")->missing);
	assert_true(kp_launch_metric(l, "a__cnt.sum")->missing);
	assert_true(kp_launch_getd(l, "a__cnt.sum", -7) == -7);
	kp_ncu_report_release(&r);
	kp_buf_release(&t);
}

static void test_unit_factor(void **state)
{
	const char *base;
	assert_true(kp_ncu_unit_factor("msecond", &base) == 1e6);
	assert_string_equal(base, "ns");
	assert_true(kp_ncu_unit_factor("cycle/nsecond", &base) == 1e9);
	assert_string_equal(base, "cycle/s");
	assert_true(kp_ncu_unit_factor("inst/cycle", &base) == 1);
	assert_string_equal(base, "inst/cycle");
	assert_true(kp_ncu_unit_factor("Minst", &base) == 1e6);
	assert_string_equal(base, "inst");
	assert_true(kp_ncu_unit_factor("register/thread", &base) == 1);
	assert_true(kp_ncu_unit_factor("", &base) == 1);
	assert_string_equal(base, "");
	assert_true(kp_ncu_unit_factor("Mwhatever", &base) == 1); /* unknown: unchanged */
}

static void test_truncated(void **state)
{
	struct kp_buf b = KP_BUF_INIT;
	struct kp_ncu_report r = KP_NCU_REPORT_INIT;
	struct kp_error err = KP_ERROR_INIT;
	size_t cut;
	kp_test_read(RAW, &b);
	/* cut inside the third launch row (ID 2), in the middle of a quoted number */
	{
		const char *p = b.buf;
		for (int nl = 0; nl < 4; p++)
			nl += *p == '\n';
		p = strstr(p, "\"6,440,280,576\""); /* launch 2's dram__bytes_read.sum */
		assert_non_null(p);
		cut = (size_t)(p - b.buf) + 4; /* "\"6,4" */
	}
	KP_ASSERT_OK(kp_ncu_parse_raw(&r, "cut.csv", b.buf, cut, &err), &err);
	assert_int_equal(r.nlaunches, 3);
	assert_true(r.incomplete);
	assert_true(r.launches[2].incomplete);
	assert_false(r.launches[1].incomplete);
	/* the cut field is missing, not 6 or 64 */
	assert_int_equal(kp_launch_get(&r.launches[2], "dram__bytes_read.sum", &(double){0}), KP_EMISSING);
	assert_true(kp_launch_getd(&r.launches[2], "dram__bytes.sum.per_second", -1) == 2640203386495.34);
	/* columns after the cut are missing too */
	assert_int_equal(kp_launch_get(&r.launches[2], "gpu__time_duration.sum", &(double){0}), KP_EMISSING);
	assert_non_null(strstr(r.warnings.buf, "cut.csv:5: launch 2 has"));
	kp_ncu_report_release(&r);

	/* cut before any launch: an error that names the file */
	cut = (size_t)(strchr(b.buf, '\n') - b.buf) + 1;
	assert_int_equal(kp_ncu_parse_raw(&r, "cut.csv", b.buf, cut, &err), KP_EPARSE);
	assert_non_null(strstr(kp_error_msg(&err), "cut.csv"));
	kp_ncu_report_release(&r);
	kp_buf_release(&b);
}

static void test_bad_input(void **state)
{
	struct kp_ncu_report r = KP_NCU_REPORT_INIT;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf t = KP_BUF_INIT;
	assert_int_equal(parse_text(&r, "", &err), KP_EPARSE);
	assert_non_null(strstr(kp_error_msg(&err), "t.csv: no ncu CSV header"));
	kp_ncu_report_release(&r);
	kp_error_clear(&err);
	assert_int_equal(parse_text(&r, "==ERROR== ERR_NVGPUCTRPERM\n", &err), KP_EPARSE);
	kp_ncu_report_release(&r);
	kp_error_clear(&err);
	/* more fields than the header: misaligned columns would give wrong values, so refuse */
	kp_buf_adds(&t, small_hdr);
	kp_buf_adds(&t, "\"0\",\"k\",\"(1, 1, 1)\",\"(1, 1, 1)\",\"1\",\"2\",\"3\",\"4\",\"5\",\"6\",\"7\"\n");
	assert_int_equal(parse_text(&r, t.buf, &err), KP_EPARSE);
	assert_non_null(strstr(kp_error_msg(&err), "t.csv:5: row has 11 fields but the header has 10"));
	kp_ncu_report_release(&r);
	kp_error_clear(&err);
	/* junk after a closing quote */
	assert_int_equal(parse_text(&r, "\"ID\",\"Kernel Name\"x\n", &err), KP_EPARSE);
	assert_non_null(strstr(kp_error_msg(&err), "t.csv:1:"));
	kp_ncu_report_release(&r);
	kp_buf_release(&t);
}

/* A CSV from an ncu that lacks metrics we ask for: the report says which, and is marked incomplete. */
static void test_require(void **state)
{
	struct kp_ncu_report r = KP_NCU_REPORT_INIT;
	static const char *const want[] = {"gpu__time_duration.sum", "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"};
	parse_file(&r, RAW);
	assert_int_equal(kp_ncu_require(&r, "ncu_raw.csv", want, 2), 1);
	assert_true(r.incomplete);
	assert_non_null(strstr(r.warnings.buf, "'smsp__sass_thread_inst_executed_op_ffma_pred_on.sum' is not in the report"));
	kp_ncu_report_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_raw_fixture),
		cmocka_unit_test(test_details_fixture),
		cmocka_unit_test(test_details_rule_fields),
		cmocka_unit_test(test_units_and_missing),
		cmocka_unit_test(test_unit_factor),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_require),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
