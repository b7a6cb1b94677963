/*
 * Unit tests: the diagnosis pipeline (lib/tools/pipeline.c): the GPU-model rule without a device,
 * Stage 1 and the tools on the H200 probe, the energy paragraph with the energy objective (and only
 * then), the recorded device of a profile directory, a trace alone, one tool on request, and the
 * collection set. The rule with a device present: tests/integration/t0305-diagnosis-pipeline.sh.
 */
#include "base/setup.h"

#include <math.h>
#include <unistd.h>

#include "kp_test.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/ncu_metrics.h"
#include "kernelpro/pipeline.h"
#include "kernelpro/str.h"

#define DIR "tests/golden/h200-probe/"

static char *tmp;
static struct kp_toolset *ts;

static int setup(void **state)
{
	struct kp_error err = KP_ERROR_INIT;
	/* No GPU (whatever this machine has) and no calibration from this machine's cache. */
	setenv("KP_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
	tmp = kp_test_tmpdir();
	setenv("XDG_CACHE_HOME", tmp, 1);
	unsetenv("KERNELPRO_TOOLS_PATH");
	KP_ASSERT_OK(kp_toolset_open(&ts, NULL, &err), &err);
	return 0;
}

static int teardown(void **state)
{
	kp_toolset_free(ts);
	kp_test_tmpdir_remove(tmp);
	return 0;
}

static void opts_init(struct kp_pipeline_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->task.min_bytes = o->task.flops_hint = NAN;
}

/* A profile directory whose raw page names no GPU: one launch of the strided copy, and profile.json. */
static char *write_unnamed_dir(const char *device)
{
	static const char csv[] =
		"\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\","
		"\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"dram__bytes_read.sum\",\"dram__bytes_write.sum\","
		"\"gpu__time_duration.sum\"\n"
		"\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"byte\",\"byte\",\"ns\"\n"
		"\"2\",\"594\",\"kernels\",\"127.0.0.1\",\"copy_strided(const float *, float *, int, int)\",\"1\",\"7\","
		"\"(256, 1, 1)\",\"(262144, 1, 1)\",\"0\",\"9.0\",\"6,440,280,576\",\"2,146,843,648\",\"3,252,448\"\n";
	struct kp_buf p = KP_BUF_INIT, j = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	kp_buf_addf(&p, "%s/prof", tmp);
	KP_ASSERT_OK(kp_mkdir_p(p.buf, 0755, &err), &err);
	kp_buf_adds(&p, "/ncu_raw.csv");
	KP_ASSERT_OK(kp_write_file_atomic(p.buf, csv, sizeof(csv) - 1, &err), &err);
	kp_buf_setlen(&p, p.len - strlen("/ncu_raw.csv"));
	if (device) {
		struct kp_buf pj = KP_BUF_INIT;
		kp_buf_addf(&j, "{\"schema\": 1, \"device\": \"%s\"}\n", device);
		kp_path_join(&pj, p.buf, "profile.json");
		KP_ASSERT_OK(kp_write_file_atomic(pj.buf, j.buf, j.len, &err), &err);
		kp_buf_release(&pj);
	}
	kp_buf_release(&j);
	return kp_buf_detach(&p, NULL);
}

static void test_gpu_rule_without_device(void **state)
{
	struct kp_hw hw;
	struct kp_error err = KP_ERROR_INIT;

	/* 1. The key wins over the profiled GPU. */
	KP_ASSERT_OK(kp_hw_for_profile(&hw, "a100-80", "NVIDIA H200", 0, &err), &err);
	assert_string_equal(hw.spec.key, "a100-80");
	/* 2. The profiled GPU, from the table when it is not the device present (here: none). */
	KP_ASSERT_OK(kp_hw_for_profile(&hw, NULL, "NVIDIA H200", 0, &err), &err);
	assert_string_equal(hw.spec.key, "h200-sxm");
	assert_false(hw.from_device);
	assert_string_equal(hw.source, "datasheet");
	/* 4. Nothing to model: say what to pass. */
	assert_int_equal(kp_hw_for_profile(&hw, NULL, NULL, 0, &err), KP_ENODEV);
	assert_non_null(strstr(kp_error_msg(&err), "pass --gpu-model KEY"));
	kp_error_clear(&err);
	/* A profiled GPU the table does not know is named in the message. */
	assert_int_equal(kp_hw_for_profile(&hw, NULL, "NVIDIA X9000", 0, &err), KP_ENODEV);
	assert_non_null(strstr(kp_error_msg(&err), "taken on 'NVIDIA X9000'"));
	assert_non_null(strstr(kp_error_msg(&err), "pass --gpu-model KEY"));
	kp_error_clear(&err);
	assert_int_equal(kp_hw_for_profile(&hw, "gtx-480", "NVIDIA H200", 0, &err), KP_ENOENT);
	kp_error_clear(&err);
}

static void test_stage1_and_tools(void **state)
{
	struct kp_profile_files f = {DIR "ncu_raw.csv", NULL, DIR "sass.txt", DIR "ptxas.txt", NULL, NULL};
	struct kp_pipeline_opts o;
	struct kp_pipeline p;
	struct kp_pipeline_result r;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf text = KP_BUF_INIT;

	opts_init(&o);
	KP_ASSERT_OK(kp_pipeline_open(&p, &f, &o, &err), &err);
	assert_string_equal(p.device, "NVIDIA H200"); /* from the report */
	assert_string_equal(p.hw.spec.key, "h200-sxm");
	assert_int_equal(p.set.nkernels, 17);
	/* Stage 1 only without a toolset: launch 0 is the memory-bound naive vector add. */
	KP_ASSERT_OK(kp_pipeline_kernel(&p, &p.set.kernels[0], &r, &err), &err);
	assert_true(r.have_stage1);
	assert_int_equal(r.stage1.bound, KP_BOUND_MEMORY);
	assert_false(r.have_feedback);
	kp_pipeline_result_release(&r);
	kp_pipeline_release(&p);

	/* With the tools: the class's, the feedback text, and no energy paragraph without the objective. */
	o.toolset = ts;
	KP_ASSERT_OK(kp_pipeline_open(&p, &f, &o, &err), &err);
	KP_ASSERT_OK(kp_pipeline_kernel(&p, &p.set.kernels[0], &r, &err), &err);
	assert_true(r.have_feedback);
	assert_true(r.diagnosis.nresults > 0);
	assert_null(r.energy_text);
	kp_pipeline_feedback_text(&r, &text);
	assert_non_null(strstr(text.buf, "# Feedback for vec_add_naive"));
	assert_null(strstr(text.buf, "Energy"));
	kp_pipeline_result_release(&r);
	kp_pipeline_release(&p);
	kp_buf_release(&text);
}

static int ran(const struct kp_pipeline_result *r, const char *tool)
{
	for (size_t i = 0; i < r->diagnosis.nresults; i++)
		if (!strcmp(r->diagnosis.results[i].tool, tool))
			return 1;
	return 0;
}

/* The pipeline on the probe's launch 0: its feedback text into `text`; returns whether instruction_mix ran. */
static int launch0_feedback(const struct kp_pipeline_opts *o, struct kp_buf *text, int *has_paragraph)
{
	struct kp_profile_files f = {DIR "ncu_raw.csv", NULL, DIR "sass.txt", NULL, NULL, NULL};
	struct kp_pipeline p;
	struct kp_pipeline_result r;
	struct kp_error err = KP_ERROR_INIT;
	int mix;

	kp_buf_reset(text);
	KP_ASSERT_OK(kp_pipeline_open(&p, &f, o, &err), &err);
	KP_ASSERT_OK(kp_pipeline_kernel(&p, &p.set.kernels[0], &r, &err), &err);
	kp_pipeline_feedback_text(&r, text);
	mix = ran(&r, "instruction_mix");
	*has_paragraph = r.energy_text != NULL;
	kp_pipeline_result_release(&r);
	kp_pipeline_release(&p);
	return mix;
}

/* The probe as one task: 17 kernels ranked by the time they could save, the tools on the top ones. */
static void test_whole_task(void **state)
{
	struct kp_profile_files f = {DIR "ncu_raw.csv", NULL, DIR "sass.txt", DIR "ptxas.txt", NULL, NULL};
	struct kp_pipeline_opts o;
	struct kp_pipeline p;
	struct kp_pipeline_task t;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf text = KP_BUF_INIT;
	double sum = 0;

	opts_init(&o);
	o.toolset = ts;
	o.task.min_bytes = 1e12;
	KP_ASSERT_OK(kp_pipeline_open(&p, &f, &o, &err), &err);
	KP_ASSERT_OK(kp_pipeline_task(&p, &t, &err), &err);
	assert_int_equal(t.task.n, 17);
	assert_int_equal(t.task.nlaunches, 17);
	for (size_t i = 0; i < t.task.n; i++) {
		sum += t.task.kernels[i].share;
		if (i)
			assert_true(t.task.kernels[i].saving_s <= t.task.kernels[i - 1].saving_s);
	}
	assert_true(fabs(sum - 1) < 1e-9);
	/* reduce_atomic: 77% of the time, nearly all of it recoverable, holds 80% of the savings alone */
	assert_string_equal(t.task.kernels[0].function, "reduce_atomic");
	assert_int_equal(t.task.kernels[0].bound, KP_BOUND_LATENCY);
	assert_true(t.task.kernels[0].selected);
	assert_int_equal(t.task.nselected, 1);
	assert_int_equal(t.nresults, 1);
	assert_string_equal(t.results[0].kernel->launch->function, "reduce_atomic");
	assert_string_equal(t.results[0].feedback.findings.v[0].tool, "atomics");
	/* the task's floor from its minimum traffic: 1 TB at 4.8 TB/s, longer than its FLOPs at peak */
	assert_true(fabs(t.task.floor_s - 1e12 / p.hw.dram_bw) / t.task.floor_s < 1e-9);
	kp_pipeline_task_feedback_text(&t, &text);
	assert_non_null(strstr(text.buf, "# The whole task"));
	assert_non_null(strstr(text.buf, "1. reduce_atomic: 77% of the time"));
	assert_non_null(strstr(text.buf, "# Kernel 1: reduce_atomic"));
	assert_non_null(strstr(text.buf, "Contended atomics"));
	kp_buf_release(&text);
	kp_pipeline_task_release(&t);
	kp_pipeline_release(&p);
}

static void test_energy_paragraph(void **state)
{
	struct kp_pipeline_opts o;
	struct kp_energy_measurement m;
	struct kp_buf text = KP_BUF_INIT;
	int para;

	/* --objective speed+energy: instruction_mix runs, and the paragraph follows the tools' text. */
	opts_init(&o);
	o.toolset = ts;
	o.stage2.energy = 1;
	assert_true(launch0_feedback(&o, &text, &para));
	assert_true(para);
	assert_non_null(strstr(text.buf, "# Feedback for vec_add_naive"));
	assert_non_null(strstr(text.buf, "\n\nEnergy (estimate from counters): "));
	assert_non_null(strstr(text.buf, "Move fewer DRAM bytes"));
	assert_true(strstr(text.buf, "Energy (") > strstr(text.buf, "# Feedback for"));

	/* A measured figure is quoted instead of the estimate. */
	memset(&m, 0, sizeof(m));
	m.energy_j = 0.121;
	m.time_s = 0.000233;
	m.power_w = 520;
	m.dynamic_j = NAN;
	o.measured = &m;
	launch0_feedback(&o, &text, &para);
	assert_non_null(strstr(text.buf, "Energy: 121 mJ per launch measured (NVML"));

	/* The raw ablation gets no interpreted paragraph. */
	o.measured = NULL;
	o.stage2.feedback.mode = KP_FEEDBACK_RAW;
	launch0_feedback(&o, &text, &para);
	assert_false(para);
	assert_null(strstr(text.buf, "Energy"));

	/* Nor does a run without the energy objective. */
	o.stage2.feedback.mode = KP_FEEDBACK_TOOLS;
	o.stage2.energy = 0;
	launch0_feedback(&o, &text, &para);
	assert_false(para);
	assert_non_null(strstr(text.buf, "# Feedback for vec_add_naive"));
	assert_null(strstr(text.buf, "Energy"));
	kp_buf_release(&text);
}

static void test_recorded_device(void **state)
{
	char *dir = write_unnamed_dir("NVIDIA H100 PCIe");
	struct kp_pipeline_opts o;
	struct kp_pipeline p;
	struct kp_energy_coeffs c;
	struct kp_buf path = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;

	/* Calibrated energy coefficients for the recorded GPU are the ones the proxy uses. */
	kp_energy_coeffs_default(&c);
	kp_strlcpy(c.device, "NVIDIA H100 PCIe", sizeof(c.device));
	kp_strlcpy(c.source, "calibrated for the test", sizeof(c.source));
	KP_ASSERT_OK(kp_energy_coeffs_path("NVIDIA H100 PCIe", &path, &err), &err);
	KP_ASSERT_OK(kp_energy_coeffs_save(&c, path.buf, &err), &err);

	opts_init(&o);
	o.stage2.energy = 1;
	KP_ASSERT_OK(kp_pipeline_open_dir(&p, dir, NULL, &o, &err), &err);
	assert_string_equal(p.device, "NVIDIA H100 PCIe");
	assert_string_equal(p.hw.spec.key, "h100-pcie");
	assert_string_equal(p.coeffs.source, "calibrated for the test");
	assert_non_null(p.files.ncu_csv);
	assert_null(p.files.trace);
	kp_pipeline_release(&p);

	/* --gpu still wins; a file the caller names replaces the directory's. */
	o.gpu_key = "h200-sxm";
	KP_ASSERT_OK(kp_pipeline_open_dir(&p, dir, NULL, &o, &err), &err);
	assert_string_equal(p.hw.spec.key, "h200-sxm");
	kp_pipeline_release(&p);

	/* Without profile.json and without a device there is nothing to model. */
	kp_buf_reset(&path);
	kp_path_join(&path, dir, "profile.json");
	unlink(path.buf);
	o.gpu_key = NULL;
	assert_int_equal(kp_pipeline_open_dir(&p, dir, NULL, &o, &err), KP_ENODEV);
	kp_error_clear(&err);
	kp_pipeline_release(&p);

	kp_rm_rf(dir, NULL);
	assert_int_equal(kp_pipeline_open_dir(&p, dir, NULL, &o, &err), KP_EMISSING);
	assert_non_null(strstr(kp_error_msg(&err), "neither ncu_raw.csv nor trace.json"));
	kp_pipeline_release(&p);
	kp_buf_release(&path);
	free(dir);
}

static void test_trace_only(void **state)
{
	struct kp_profile_files f = {NULL, NULL, NULL, NULL, "tests/golden/tools/tiny_trace.json", NULL};
	struct kp_pipeline_opts o;
	struct kp_pipeline p;
	struct kp_pipeline_result r;
	struct kp_error err = KP_ERROR_INIT;

	opts_init(&o);
	o.toolset = ts;
	KP_ASSERT_OK(kp_pipeline_open(&p, &f, &o, &err), &err); /* no GPU model needed */
	assert_false(p.have_hw);
	assert_int_equal(p.set.nkernels, 0);
	assert_non_null(kp_pipeline_trace_kernel(&p));
	KP_ASSERT_OK(kp_pipeline_kernel(&p, kp_pipeline_trace_kernel(&p), &r, &err), &err);
	assert_false(r.have_stage1);
	assert_true(ran(&r, "launch_overhead"));
	assert_false(ran(&r, "coalescing"));
	kp_pipeline_result_release(&r);
	kp_pipeline_release(&p);
}

static void test_call_tool(void **state)
{
	struct kp_profile_files f = {DIR "ncu_raw.csv", NULL, DIR "sass.txt", NULL, NULL, NULL};
	struct kp_pipeline_opts o;
	struct kp_pipeline p;
	struct kp_buf out = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;

	opts_init(&o);
	o.toolset = ts;
	KP_ASSERT_OK(kp_pipeline_open(&p, &f, &o, &err), &err);
	KP_ASSERT_OK(kp_pipeline_call_tool(&p, &p.set.kernels[0], "vector_width", NULL, &out, &err), &err);
	assert_non_null(strstr(out.buf, "Tool vector_width: fired"));
	assert_int_equal(kp_pipeline_call_tool(&p, &p.set.kernels[0], "nope", NULL, &out, &err), KP_ENOENT);
	assert_non_null(strstr(kp_error_msg(&err), "no tool named 'nope'"));
	kp_pipeline_release(&p);
	kp_buf_release(&out);
}

static void test_collection(void **state)
{
	struct kp_strvec m = KP_STRVEC_INIT, secs = KP_STRVEC_INIT, ids = KP_STRVEC_INIT;
	struct kp_error err = KP_ERROR_INIT;
	const char *const *s1 = kp_stage1_metrics();
	size_t n1 = 0;

	/* Stage 1 alone, in its order. */
	KP_ASSERT_OK(kp_pipeline_collection(NULL, NULL, 0, &m, &secs, &err), &err);
	for (; s1[n1]; n1++)
		assert_string_equal(m.v[n1], s1[n1]);
	assert_int_equal(m.n, n1);
	assert_int_equal(secs.n, 0);

	/* Every tool: Stage 1 first, then the tools' names; source-level ones as a section, not names. */
	kp_strvec_release(&m);
	KP_ASSERT_OK(kp_pipeline_collection(ts, NULL, 0, &m, &secs, &err), &err);
	for (size_t i = 0; i < n1; i++)
		assert_string_equal(m.v[i], s1[i]);
	assert_true(kp_strvec_find(&m, KP_M_STALL_TOTAL) >= 0);
	assert_true(kp_strvec_find(&m, KP_M_L2_SECTORS) < 0);
	assert_true(kp_strvec_find(&secs, "SourceCounters") >= 0);
	assert_true(kp_strvec_find(&m, KP_M_OP_INTEGER) < 0); /* the energy proxy's only */
	for (size_t i = 0; i < m.n; i++)
		for (size_t j = i + 1; j < m.n; j++)
			assert_string_not_equal(m.v[i], m.v[j]);

	/* The energy objective adds the proxy's counts. */
	kp_strvec_release(&m);
	KP_ASSERT_OK(kp_pipeline_collection(ts, NULL, 1, &m, NULL, &err), &err);
	for (const char *const *e = kp_energy_proxy_metrics(); *e; e++)
		assert_true(kp_strvec_find(&m, *e) >= 0);

	kp_strvec_push(&ids, "bogus");
	assert_int_equal(kp_pipeline_collection(ts, &ids, 0, &m, NULL, &err), KP_ENOENT);
	kp_strvec_release(&m);
	kp_strvec_release(&secs);
	kp_strvec_release(&ids);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gpu_rule_without_device),
		cmocka_unit_test(test_stage1_and_tools),
		cmocka_unit_test(test_whole_task),
		cmocka_unit_test(test_energy_paragraph),
		cmocka_unit_test(test_recorded_device),
		cmocka_unit_test(test_trace_only),
		cmocka_unit_test(test_call_tool),
		cmocka_unit_test(test_collection),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
