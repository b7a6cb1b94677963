/*
 * Golden tests on the real H200 capture (tests/golden/h200-probe): Stage 1 then proactive Stage 2
 * for every launch. The planted bottleneck of each labelled kernel is among its two first findings,
 * near-roofline kernels get nothing high or critical, every kernel gets fewer findings than Nsight
 * Compute's rule results, each tool fires on its planted kernel and stays silent on clean ones, and
 * the findings and one feedback text match the reviewed expected output
 * (KP_REGEN_GOLDEN=1 rewrites tests/golden/tools/expected/). The same checks run on a targeted-like
 * copy of the capture (ncu_raw_targeted.csv: only the metrics `kernelpro profile --tools all` collects,
 * no SourceCounters), where coalescing must estimate the excess sectors instead of reading them.
 */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/feedback.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kp_test.h"

#define PROBE "tests/golden/h200-probe/"

/* One capture of the probe kernels and Stage 1 on each launch. */
struct capture {
	const char *csv;
	struct kp_profile_set ps;
	struct kp_stage1 s1[32];
};

static struct capture full = {.csv = PROBE "ncu_raw.csv"}, targeted = {.csv = PROBE "ncu_raw_targeted.csv"};
static struct kp_hw hw;
static struct kp_toolset *ts;
static json_t *labels;
static struct kp_buf sass_text; /* the probe's SASS, for the loop shapes the pipeline hands the tools */

/* Proactive Stage 2 (or every tool) on launch `id` of a capture; the caller releases d and fb. */
static void stage2(const struct capture *c, int id, int all, int energy, struct kp_diagnosis *d,
		   struct kp_feedback *fb)
{
	struct kp_error err = KP_ERROR_INIT;
	struct kp_strvec ids = KP_STRVEC_INIT;
	struct kp_stage2_opts o = {0};
	struct kp_sass_shape shape;
	const struct kp_sass_func *sf = c->ps.kernels[id].sass;
	struct kp_tool_input in = {&c->ps.kernels[id], &c->s1[id], &hw, energy, NULL, NULL};
	assert_true((size_t)id < c->ps.nkernels);
	if (sf && kp_sass_shape_read(&shape, sass_text.buf, sass_text.len, sf->mangled ? sf->mangled : sf->demangled))
		in.shape = &shape;
	if (all) {
		for (size_t i = 0; i < kp_toolset_count(ts); i++)
			kp_strvec_push(&ids, kp_toolset_at(ts, i)->name);
		o.tools = &ids;
	}
	o.energy = energy;
	memset(d, 0, sizeof(*d));
	KP_ASSERT_OK(kp_stage2_run(ts, &in, &o, d, fb, &err), &err);
	kp_strvec_release(&ids);
}

static void load(struct capture *c)
{
	struct kp_error err = KP_ERROR_INIT;
	struct kp_profile_files f = {0};
	struct kp_stage1_thresholds th;
	char raw[4096], sass[4096], ptxas[4096], details[4096];

	snprintf(raw, sizeof(raw), "%s", kp_test_path(c->csv));
	snprintf(details, sizeof(details), "%s", kp_test_path(PROBE "ncu_details.csv"));
	snprintf(sass, sizeof(sass), "%s", kp_test_path(PROBE "sass.txt"));
	snprintf(ptxas, sizeof(ptxas), "%s", kp_test_path(PROBE "ptxas.txt"));
	f.ncu_csv = raw;
	f.ncu_details = details;
	f.sass = sass;
	f.ptxas = ptxas;
	memset(&c->ps, 0, sizeof(c->ps));
	KP_ASSERT_OK(kp_profile_set_load(&c->ps, &f, &err), &err);
	assert_int_equal(c->ps.nkernels, 17);
	kp_stage1_thresholds_default(&th);
	for (size_t i = 0; i < c->ps.nkernels; i++)
		KP_ASSERT_OK(kp_stage1_run(&c->s1[i], &c->ps.kernels[i], &hw, NULL, &th, &err), &err);
}

static int setup(void **state)
{
	struct kp_error err = KP_ERROR_INIT;
	KP_ASSERT_OK(kp_hw_load(&hw, "h200-sxm", 0, &err), &err);
	load(&full);
	load(&targeted);
	KP_ASSERT_OK(kp_toolset_open(&ts, NULL, &err), &err);
	KP_ASSERT_OK(kp_json_load_file(kp_test_path(PROBE "labels.json"), 1 << 20, &labels, &err), &err);
	KP_ASSERT_OK(kp_read_file(kp_test_path(PROBE "sass.txt"), KP_PROFILE_MAX_FILE, &sass_text, &err), &err);
	return 0;
}

static int teardown(void **state)
{
	json_decref(labels);
	kp_buf_release(&sass_text);
	kp_toolset_free(ts);
	kp_profile_set_release(&full.ps);
	kp_profile_set_release(&targeted.ps);
	return 0;
}

static int in_array(const json_t *a, const char *s)
{
	size_t i;
	const json_t *v;
	json_array_foreach(a, i, v) if (json_is_string(v) && !strcmp(json_string_value(v), s)) return 1;
	return 0;
}

/* Nsight Compute's actionable rule results (OPT, WRN) for one launch. */
static size_t ncu_rules(int id)
{
	const struct kp_profile_set *ps = &full.ps;
	size_t n = 0;
	for (size_t i = 0; i < ps->ncu.nrules; i++)
		if (ps->ncu.rules[i].launch_id == id && strcmp(ps->ncu.rules[i].type, "INF"))
			n++;
	return n;
}

static void check_labels(const struct capture *c)
{
	const json_t *ks = json_object_get(labels, "kernels"), *k;
	size_t i, labelled = 0;

	json_array_foreach(ks, i, k) {
		int id = (int)kp_json_int(k, "id", -1);
		const json_t *expect = json_object_get(k, "expect_top2");
		struct kp_diagnosis d;
		struct kp_feedback fb;
		stage2(c, id, 0, 0, &d, &fb);
		if (expect) {
			int hit = 0;
			for (size_t j = 0; j < fb.findings.n && j < 2; j++)
				hit |= in_array(expect, fb.findings.v[j].tool);
			if (!hit)
				fail_msg("%s launch %d (%s): planted bottleneck not in the top two (%s, %s)", c->csv, id,
					 kp_json_str(k, "name", "?"), fb.findings.n ? fb.findings.v[0].tool : "none",
					 fb.findings.n > 1 ? fb.findings.v[1].tool : "none");
			labelled++;
		}
		if (kp_json_bool(k, "near_roofline", 0))
			for (size_t j = 0; j < fb.findings.n; j++)
				if (fb.findings.v[j].severity >= KP_SEV_HIGH)
					fail_msg("launch %d is near the roofline but %s says %s", id, fb.findings.v[j].tool,
						 kp_finding_severity_name(fb.findings.v[j].severity));
		if (fb.findings.n >= ncu_rules(id))
			fail_msg("launch %d: %zu findings, Nsight Compute %zu rule results", id, fb.findings.n, ncu_rules(id));
		kp_feedback_release(&fb);
		kp_diagnosis_release(&d);
		/* With energy as an objective, the energy-relevant tool must speak up. */
		if (json_object_get(k, "expect_any_with_energy")) {
			int hit = 0;
			stage2(c, id, 0, 1, &d, &fb);
			for (size_t j = 0; j < fb.findings.n; j++)
				hit |= in_array(json_object_get(k, "expect_any_with_energy"), fb.findings.v[j].tool);
			assert_true(hit);
			kp_feedback_release(&fb);
			kp_diagnosis_release(&d);
		}
	}
	assert_int_equal(labelled, 11); /* the twelfth, tiny_kernel, is test_trace */
}

static void test_labels(void **state)
{
	check_labels(&full);
}

/*
 * Without SourceCounters (what a targeted --tools run collects) the planted bottlenecks stay in the
 * top two: sgemm_naive_uncoal's coalescing once ranked below tensor_cores and cache_reuse there,
 * because neither tool knew the excess sectors.
 */
static void test_labels_targeted(void **state)
{
	double v;
	for (size_t i = 0; i < targeted.ps.nkernels; i++) {
		const struct kp_launch *l = targeted.ps.kernels[i].launch;
		assert_int_not_equal(kp_launch_get(l, "memory_l2_theoretical_sectors_global", &v), 0);
		assert_int_equal(kp_launch_get(l, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", &v), 0);
	}
	check_labels(&targeted);
}

/* Per tool: the kernels it must find (planted) and clean kernels where it must say nothing. */
static const struct {
	const char *tool;
	int fires[4];  /* -1 ends */
	int silent[8]; /* -1 ends */
} matrix[] = {
	{"coalescing", {2, 6, -1}, {0, 1, 4, 5, 8, 9, -1}},
	{"vector_width", {0, 4, -1}, {1, 8, -1}},
	{"cache_reuse", {5, -1}, {0, 1, 2, 7, 15, 16, -1}},
	{"occupancy", {14, -1}, {0, 1, 2, 4, 5, 11, -1}},
	{"warp_stalls", {0, -1}, {1, 11, 15, -1}},
	{"bank_conflicts", {8, -1}, {1, 7, 9, 15, 16, -1}},
	{"tensor_cores", {5, 6, 7, 15}, {1, 8, 11, 12, 16, -1}},
	/* 7 and 15 keep a pipe near saturation (LSU 78%, FMA 79%); tensor_cores explains both */
	{"pipe_balance", {11, -1}, {1, 5, 16, -1}},
	{"divergence", {11, -1}, {0, 1, 5, 10, 12, 14, 16, -1}},
	{"grid_waves", {14, -1}, {0, 1, 4, 7, 15, 16, -1}},
	{"local_memory", {10, -1}, {0, 1, 5, 11, 16, -1}},
	{"instruction_mix", {12, -1}, {1, 11, 13, 16, -1}},
	{"atomics", {3, -1}, {0, 1, 4, -1}},
};

static int fired(const struct kp_diagnosis *d, const char *tool)
{
	for (size_t i = 0; i < d->nresults; i++)
		if (!strcmp(d->results[i].tool, tool))
			return d->results[i].status == KP_TOOL_FIRED;
	fail_msg("%s did not run", tool);
	return 0;
}

static void check_each_tool(const struct capture *c)
{
	struct kp_diagnosis d[17];
	struct kp_feedback fb;
	for (int id = 0; id < 17; id++) {
		stage2(c, id, 1, 0, &d[id], &fb);
		kp_feedback_release(&fb);
	}
	for (size_t t = 0; t < KP_ARRAY_SIZE(matrix); t++) {
		for (size_t j = 0; j < 4 && matrix[t].fires[j] >= 0; j++)
			if (!fired(&d[matrix[t].fires[j]], matrix[t].tool))
				fail_msg("%s: %s is silent on launch %d, its planted kernel", c->csv, matrix[t].tool,
					 matrix[t].fires[j]);
		for (size_t j = 0; j < 8 && matrix[t].silent[j] >= 0; j++)
			if (fired(&d[matrix[t].silent[j]], matrix[t].tool))
				fail_msg("%s: %s fires on launch %d, a kernel without its bottleneck", c->csv,
					 matrix[t].tool, matrix[t].silent[j]);
	}
	for (int id = 0; id < 17; id++)
		kp_diagnosis_release(&d[id]);
}

static void test_each_tool(void **state)
{
	check_each_tool(&full);
	check_each_tool(&targeted);
}

static void test_trace(void **state)
{
	struct kp_trace t = KP_TRACE_INIT;
	struct kp_buf b = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_kernel_profile p = {NULL, NULL, NULL, &t, NULL};
	struct kp_tool_input in = {&p, NULL, NULL, 0, NULL, NULL};
	struct kp_diagnosis d = KP_DIAGNOSIS_INIT;

	kp_test_read("tests/golden/tools/tiny_trace.json", &b);
	KP_ASSERT_OK(kp_trace_parse_json(&t, "tiny_trace.json", b.buf, b.len, &err), &err);
	KP_ASSERT_OK(kp_toolset_run_one(ts, "launch_overhead", &in, &d, &err), &err);
	assert_int_equal(d.results[0].status, KP_TOOL_FIRED);
	assert_int_equal(d.findings.v[0].severity, KP_SEV_CRITICAL);
	assert_non_null(strstr(d.findings.v[0].title, "200 launches of tiny_kernel"));
	kp_diagnosis_release(&d);
	kp_buf_release(&b);
	kp_trace_release(&t);
}

/* The proactive findings of every launch, and the feedback text of sgemm_naive, against reviewed copies. */
static void findings_text(const struct capture *c, struct kp_buf *out, struct kp_buf *text)
{
	for (int id = 0; id < 17; id++) {
		struct kp_diagnosis d;
		struct kp_feedback fb;
		stage2(c, id, 0, 0, &d, &fb);
		kp_buf_addf(out, "launch %d %s [%s]: %zu findings, %zu folded, %zu negligible\n", id,
			    c->ps.kernels[id].launch->function, fb.bound, fb.findings.n, fb.nfolded, fb.ndropped);
		for (size_t j = 0; j < fb.findings.n; j++) {
			const struct kp_finding *f = &fb.findings.v[j];
			kp_buf_addf(out, "  %s %s: %s", kp_finding_severity_name(f->severity), f->tool, f->title);
			if (!isnan(f->gain))
				kp_buf_addf(out, " (gain %.0f%%)", f->gain * 100);
			kp_buf_adds(out, "\n");
		}
		if (id == 5 && text)
			kp_feedback_text(&fb, text);
		kp_feedback_release(&fb);
		kp_diagnosis_release(&d);
	}
}

static void test_golden_output(void **state)
{
	struct kp_buf out = KP_BUF_INIT, text = KP_BUF_INIT;
	findings_text(&full, &out, &text);
	kp_test_golden("tests/golden/tools/expected/probe_findings.txt", out.buf);
	kp_test_golden("tests/golden/tools/expected/feedback_sgemm_naive.md", text.buf);
	kp_buf_reset(&out);
	findings_text(&targeted, &out, NULL);
	kp_test_golden("tests/golden/tools/expected/probe_findings_targeted.txt", out.buf);
	kp_buf_release(&out);
	kp_buf_release(&text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_labels),
		cmocka_unit_test(test_labels_targeted),
		cmocka_unit_test(test_each_tool),
		cmocka_unit_test(test_trace),
		cmocka_unit_test(test_golden_output),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
