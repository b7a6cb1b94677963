/*
 * Unit tests: the tool engine (declared metrics, missing inputs, thresholds and their overrides,
 * selection by class, the metric union), feedback synthesis (folding, merging, ordering, bounds)
 * and the orchestration entry points (Stage 2, the reactive menu and call).
 */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/feedback.h"
#include "kernelpro/json.h"
#include "kernelpro/str.h"
#include "kp_test.h"
#include "kp_tools_fixture.h"

static struct kp_toolset *open_ts(void)
{
	struct kp_toolset *ts = NULL;
	struct kp_error err = KP_ERROR_INIT;
	KP_ASSERT_OK(kp_toolset_open(&ts, NULL, &err), &err);
	return ts;
}

static struct kp_strvec all_ids(const struct kp_toolset *ts)
{
	struct kp_strvec ids = KP_STRVEC_INIT;
	for (size_t i = 0; i < kp_toolset_count(ts); i++)
		kp_strvec_push(&ids, kp_toolset_at(ts, i)->name);
	return ids;
}

/* Every built-in, run with every metric it declares present (a built-in reading an undeclared metric
   aborts), then with none: no crash, no findings, and each says what it lacks. */
static void test_declared_metrics_and_empty_input(void **state)
{
	struct kp_toolset *ts = open_ts();
	struct kp_strvec ids = all_ids(ts);
	struct kp_diagnosis d = KP_DIAGNOSIS_INIT;
	struct kp_error err = KP_ERROR_INIT;
	static struct kp_fx fx;
	const char *canonical[] = {"sol_gap", "coalescing", "vector_width", "cache_reuse", "occupancy", "warp_stalls",
				   "bank_conflicts", "tensor_cores", "pipe_balance", "divergence", "grid_waves",
				   "local_memory", "instruction_mix", "atomics", "launch_overhead"};

	assert_int_equal(kp_builtin_tool_count(), 15);
	for (size_t i = 0; i < KP_ARRAY_SIZE(canonical); i++) {
		const struct kp_tool *t = kp_builtin_tool_find(canonical[i]);
		assert_non_null(t);
		assert_ptr_equal(kp_builtin_tool_at(i), t); /* registry order = docs/internals/design.md order */
		assert_true(t->description && *t->description && t->details && strlen(t->details) > 80);
		for (const struct kp_threshold *th = t->thresholds; th && th->name; th++)
			assert_true(th->doc && *th->doc);
	}
	kp_fx_init(&fx, NULL, 1024, 256);
	for (size_t i = 0; i < kp_toolset_count(ts); i++) {
		const struct kp_tool_info *t = kp_toolset_at(ts, i);
		for (size_t j = 0; j < t->nmetrics; j++)
			kp_fx_set(&fx, t->metrics[j].name, 1.0 + (double)(j % 7));
	}
	kp_fx_sass(&fx)->counts[KP_SASS_LDG_32] = 1;
	kp_fx_ptxas(&fx)->registers = 32;
	kp_fx_stage1(&fx, KP_BOUND_MIXED);
	kp_fx_trace(&fx, "_Z11test_kernelPf", 3, 1000, 2000);
	KP_ASSERT_OK(kp_toolset_run(ts, &ids, &fx.in, &d, &err), &err);
	assert_int_equal(d.nresults, 15);
	for (size_t i = 0; i < d.nresults; i++)
		assert_true(d.results[i].status == KP_TOOL_SILENT || d.results[i].status == KP_TOOL_FIRED);
	kp_diagnosis_release(&d);

	kp_fx_init(&fx, NULL, 1024, 256); /* no metrics, no SASS, no ptxas, no trace, no Stage 1 */
	KP_ASSERT_OK(kp_toolset_run(ts, &ids, &fx.in, &d, &err), &err);
	assert_int_equal(d.findings.n, 0);
	for (size_t i = 0; i < d.nresults; i++) {
		if (strcmp(d.results[i].tool, "grid_waves")) /* the launch record alone is enough for it */
			assert_int_equal(d.results[i].status, KP_TOOL_MISSING);
		if (d.results[i].status == KP_TOOL_MISSING)
			assert_true(strstr(d.results[i].message, "missing metric") || strstr(d.results[i].message, "no "));
	}
	kp_diagnosis_release(&d);
	kp_strvec_release(&ids);
	kp_toolset_free(ts);
}

static void test_missing_required_metric(void **state)
{
	struct kp_toolset *ts = open_ts();
	struct kp_diagnosis d = KP_DIAGNOSIS_INIT;
	static struct kp_fx fx;
	const struct kp_fx_metric m[] = {{"smsp__thread_inst_executed_pred_on_per_inst_executed.ratio", 12}, {NULL, 0}};
	kp_fx_init(&fx, m, 1, 256);
	assert_int_equal(kp_fx_run(ts, "divergence", &fx, &d), KP_TOOL_MISSING);
	assert_string_equal(d.results[0].message, "missing metric 'smsp__thread_inst_executed_per_inst_executed.ratio'");
	assert_int_equal(d.findings.n, 0);
	kp_diagnosis_release(&d);
	kp_toolset_free(ts);
}

static void test_thresholds(void **state)
{
	struct kp_toolset *ts = open_ts();
	struct kp_diagnosis d = KP_DIAGNOSIS_INIT;
	struct kp_error err = KP_ERROR_INIT;
	static struct kp_fx fx;
	const struct kp_fx_metric div[] = {{"smsp__thread_inst_executed_per_inst_executed.ratio", 20}, {NULL, 0}};
	const struct kp_tool_info *t = kp_toolset_find(ts, "divergence");
	const char *conf = "# tool thresholds\n\n  divergence.min_active_threads = 16   # fewer lanes only\r\n";

	kp_fx_init(&fx, div, 1024, 256);
	assert_int_equal(kp_fx_run(ts, "divergence", &fx, &d), KP_TOOL_FIRED);
	KP_ASSERT_OK(kp_toolset_override(ts, "divergence.min_active_threads=18", &err), &err);
	assert_true(t->values[0] == 18 && t->thresholds[0].def == 24);
	assert_int_equal(kp_fx_run(ts, "divergence", &fx, &d), KP_TOOL_SILENT);
	KP_ASSERT_OK(kp_toolset_load_config(ts, "t.conf", conf, strlen(conf), &err), &err);
	assert_true(t->values[0] == 16);

	assert_int_equal(kp_toolset_override(ts, "nope.x=1", &err), KP_ENOENT);
	assert_non_null(strstr(err.msg, "unknown tool 'nope'"));
	kp_error_clear(&err);
	assert_int_equal(kp_toolset_override(ts, "divergence.nope=1", &err), KP_ENOENT);
	assert_non_null(strstr(err.msg, "valid: min_active_threads"));
	kp_error_clear(&err);
	assert_int_equal(kp_toolset_override(ts, "divergence.min_active_threads=lots", &err), KP_EINVAL);
	kp_error_clear(&err);
	assert_int_equal(kp_toolset_override(ts, "divergence.min_active_threads=inf", &err), KP_EINVAL);
	kp_error_clear(&err);
	assert_int_equal(kp_toolset_override(ts, "min_active_threads=3", &err), KP_EINVAL);
	kp_error_clear(&err);
	assert_int_equal(kp_toolset_load_config(ts, "t.conf", "\n\ndivergence min 3\n", 18, &err), KP_EPARSE);
	assert_non_null(strstr(err.msg, "t.conf:3:"));
	kp_error_clear(&err);
	assert_int_equal(kp_toolset_load_config(ts, "t.conf", "coalescing.x = 1\n", 17, &err), KP_ENOENT);
	assert_non_null(strstr(err.msg, "t.conf:1:"));
	assert_true(t->values[0] == 16); /* failures change nothing */
	kp_diagnosis_release(&d);
	kp_toolset_free(ts);
}

static void test_open_options(void **state)
{
	struct kp_toolset *ts = NULL;
	struct kp_error err = KP_ERROR_INIT;
	const char *over[] = {"grid_waves.min_idle_pct=5", NULL};
	const char *bad[] = {"grid_waves.min_idle=5", NULL};
	const char *dirs[] = {"/nonexistent/tools", NULL};
	struct kp_toolset_opts o = {0};

	o.overrides = over;
	KP_ASSERT_OK(kp_toolset_open(&ts, &o, &err), &err);
	assert_true(kp_toolset_find(ts, "grid_waves")->values[0] == 5);
	kp_toolset_free(ts);
	o.overrides = bad;
	assert_int_equal(kp_toolset_open(&ts, &o, &err), KP_ENOENT);
	assert_null(ts);
	kp_error_clear(&err);
	o.overrides = NULL;
	o.dirs = dirs;
	assert_int_equal(kp_toolset_open(&ts, &o, &err), KP_ENOENT);
	assert_non_null(strstr(err.msg, "/nonexistent/tools"));
	kp_error_clear(&err);
	o.dirs = NULL;
	o.config_path = "/nonexistent/thresholds.conf";
	assert_int_equal(kp_toolset_open(&ts, &o, &err), KP_ENOENT);
}

static void test_select_and_metrics(void **state)
{
	struct kp_toolset *ts = open_ts();
	struct kp_strvec ids = KP_STRVEC_INIT, m = KP_STRVEC_INIT, one = KP_STRVEC_INIT;
	struct kp_error err = KP_ERROR_INIT;
	unsigned sources = 0;

	kp_toolset_select(ts, KP_BOUND_MEMORY, 0, &ids);
	assert_string_equal(ids.v[0], "sol_gap");
	assert_true(kp_strvec_find(&ids, "vector_width") >= 0 && kp_strvec_find(&ids, "coalescing") >= 0);
	assert_true(kp_strvec_find(&ids, "tensor_cores") < 0 && kp_strvec_find(&ids, "instruction_mix") < 0);
	kp_strvec_release(&ids);
	kp_toolset_select(ts, KP_BOUND_MEMORY, 1, &ids); /* energy: instruction_mix always */
	assert_true(kp_strvec_find(&ids, "instruction_mix") >= 0);
	kp_strvec_release(&ids);
	kp_toolset_select(ts, KP_BOUND_LATENCY, 0, &ids);
	assert_true(kp_strvec_find(&ids, "atomics") >= 0 && kp_strvec_find(&ids, "launch_overhead") >= 0);
	assert_true(kp_strvec_find(&ids, "coalescing") < 0);
	kp_strvec_release(&ids);
	kp_toolset_select(ts, KP_BOUND_MIXED, 0, &ids);
	assert_int_equal(ids.n, 15);

	KP_ASSERT_OK(kp_toolset_metrics(ts, &ids, &m, &sources, &err), &err);
	assert_int_equal(sources, KP_SRC_NCU | KP_SRC_SASS | KP_SRC_PTXAS | KP_SRC_TRACE);
	for (size_t i = 1; i < m.n; i++)
		assert_true(strcmp(m.v[i - 1], m.v[i]) < 0); /* sorted, unique */
	assert_true(kp_strvec_find(&m, "launch__occupancy_limit_registers") >= 0);
	kp_strvec_push(&one, "divergence");
	kp_strvec_release(&m);
	KP_ASSERT_OK(kp_toolset_metrics(ts, &one, &m, NULL, &err), &err);
	assert_int_equal(m.n, kp_toolset_find(ts, "divergence")->nmetrics);
	kp_strvec_push(&one, "no_such_tool");
	assert_int_equal(kp_toolset_metrics(ts, &one, &m, NULL, &err), KP_ENOENT);
	assert_non_null(strstr(err.msg, "no_such_tool"));
	kp_strvec_release(&m);
	kp_toolset_metrics_for_class(ts, KP_BOUND_COMPUTE, 0, &m, &sources);
	assert_true(kp_strvec_find(&m, "smsp__thread_inst_executed_per_inst_executed.ratio") >= 0);
	kp_strvec_release(&m);
	kp_strvec_release(&one);
	kp_strvec_release(&ids);
	kp_toolset_free(ts);
}

/* ---- Synthesis --------------------------------------------------------------------------------------- */

static struct kp_finding *add(struct kp_findings *fs, const char *tool, enum kp_finding_severity sev, double gain,
			      const char *title)
{
	struct kp_finding *f = kp_finding_new(fs, sev, "%s", title);
	f->tool = kp_xstrdup(tool);
	kp_finding_gain(f, gain, "test");
	kp_finding_evidence(f, tool, 1, NAN, "");
	kp_finding_rec(f, "fix %s", tool);
	return f;
}

static void test_synthesize(void **state)
{
	struct kp_findings in = KP_FINDINGS_INIT, out = KP_FINDINGS_INIT;
	size_t folded = 0;

	add(&in, "warp_stalls", KP_SEV_HIGH, 0.45, "stalls");
	kp_finding_explained_by(&in.v[0], "vector_width");
	kp_finding_explained_by(&in.v[0], "coalescing");
	add(&in, "sol_gap", KP_SEV_MEDIUM, 0.3, "gap");
	kp_finding_explained_by(&in.v[1], "*");
	add(&in, "vector_width", KP_SEV_MEDIUM, 0.18, "scalar loads");
	add(&in, "divergence", KP_SEV_LOW, 0.05, "lanes");
	add(&in, "occupancy", KP_SEV_MEDIUM, NAN, "occ");
	add(&in, "my_tool", KP_SEV_LOW, 0.03, "Scalar Loads"); /* same title as vector_width's */
	kp_feedback_synthesize(&in, &out, &folded);

	assert_int_equal(folded, 3);
	assert_int_equal(out.n, 3);
	/* the cause outranks its symptom's severity? no: it keeps its own; it carries the symptom's evidence */
	assert_string_equal(out.v[0].tool, "vector_width");
	assert_true(kp_strvec_find(&out.v[0].also, "warp_stalls") >= 0);
	assert_true(kp_strvec_find(&out.v[0].also, "my_tool") >= 0);
	assert_true(out.v[0].nevidence >= 3);
	assert_string_equal(out.v[1].tool, "occupancy"); /* medium with unknown gain after medium with a gain */
	assert_string_equal(out.v[2].tool, "divergence");
	kp_findings_release(&out);

	/* A symptom whose explainers did not fire stays; "*" folds into any other medium-or-worse finding. */
	kp_findings_release(&in);
	add(&in, "warp_stalls", KP_SEV_HIGH, 0.45, "stalls");
	kp_finding_explained_by(&in.v[0], "vector_width");
	add(&in, "sol_gap", KP_SEV_LOW, NAN, "at the roof");
	kp_finding_explained_by(&in.v[1], "*");
	add(&in, "a", KP_SEV_LOW, 0.1, "x");
	kp_feedback_synthesize(&in, &out, &folded);
	assert_int_equal(folded, 1);
	assert_int_equal(out.n, 2);
	assert_string_equal(out.v[0].tool, "warp_stalls");
	assert_string_equal(out.v[0].also.v[0], "sol_gap");
	kp_findings_release(&out);

	/* Explaining each other: one folds, never both. */
	kp_findings_release(&in);
	add(&in, "a", KP_SEV_MEDIUM, 0.2, "a");
	kp_finding_explained_by(&in.v[0], "b");
	add(&in, "b", KP_SEV_MEDIUM, 0.3, "b");
	kp_finding_explained_by(&in.v[1], "a");
	kp_feedback_synthesize(&in, &out, &folded);
	assert_int_equal(out.n, 1);
	kp_findings_release(&out);
	kp_findings_release(&in);
}

/* ---- Feedback ------------------------------------------------------------------------------------------ */

static const struct kp_fx_metric vec_add_naive[] = {
	{"gpu__time_duration.sum", 232992}, {"sm__throughput.avg.pct_of_peak_sustained_elapsed", 42.2},
	{"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", 70.8},
	{"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", 70.8},
	{"smsp__average_warp_latency_per_inst_issued.ratio", 66.5},
	{"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio", 55.5},
	{"smsp__issue_active.avg.per_cycle_active", 0.18}, {NULL, 0}};

static void vec_add(struct kp_fx *fx)
{
	struct kp_stage1 *s1;
	kp_fx_init(fx, vec_add_naive, 262144, 256);
	fx->launch.function = "vec_add_naive";
	kp_fx_sass(fx)->counts[KP_SASS_LDG_32] = 2;
	fx->sass.counts[KP_SASS_STG_32] = 1;
	s1 = kp_fx_stage1(fx, KP_BOUND_MEMORY);
	s1->time_s = 232.992e-6;
	s1->achieved_bw = 3.41e12;
	s1->memory_peak = 4.8e12;
	s1->memory_frac = 3.41 / 4.8;
	s1->achieved_flops = 2.88e11;
	s1->compute_peak = 66.9e12;
	s1->compute_frac = 0.0043;
	s1->floor_time_s = 165e-6;
	kp_strlcpy(s1->reason, "memory: below the ridge", sizeof(s1->reason));
}

/* Issue 31: at most 3 findings by default, the others named by tool and severity in one line. */
static void test_feedback_three_findings(void **state)
{
	struct kp_launch launch;
	struct kp_kernel_profile prof = {.launch = &launch};
	struct kp_tool_input in = {.profile = &prof};
	struct kp_diagnosis d = KP_DIAGNOSIS_INIT;
	struct kp_feedback fb;
	struct kp_feedback_opts o = {.mode = KP_FEEDBACK_TOOLS};
	struct kp_buf text = KP_BUF_INIT;
	(void)state;

	memset(&launch, 0, sizeof(launch));
	add(&d.findings, "coalescing", KP_SEV_CRITICAL, 0.8, "one");
	add(&d.findings, "grid_waves", KP_SEV_HIGH, 0.5, "two");
	add(&d.findings, "occupancy", KP_SEV_MEDIUM, 0.3, "three");
	add(&d.findings, "bank_conflicts", KP_SEV_LOW, 0.08, "four");
	add(&d.findings, "divergence", KP_SEV_LOW, 0.06, "five");
	kp_feedback_build(&fb, NULL, NULL, &in, &d, &o);
	assert_int_equal(fb.findings.n, 3);
	assert_int_equal(fb.nomitted, 2);
	assert_string_equal(fb.findings.v[2].tool, "occupancy");
	kp_feedback_text(&fb, &text);
	assert_non_null(strstr(text.buf, "2 more finding(s) omitted: bank_conflicts (low), divergence (low); "));
	assert_null(strstr(text.buf, "### 4."));
	kp_feedback_release(&fb);
	kp_diagnosis_release(&d);
	kp_buf_release(&text);
}

static void test_stage2_and_feedback(void **state)
{
	struct kp_toolset *ts = open_ts();
	struct kp_diagnosis d = KP_DIAGNOSIS_INIT;
	struct kp_feedback fb;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf text = KP_BUF_INIT, js = KP_BUF_INIT;
	struct kp_stage2_opts o = {0};
	static struct kp_fx fx;
	json_t *j;

	vec_add(&fx);
	KP_ASSERT_OK(kp_stage2_run(ts, &fx.in, &o, &d, &fb, &err), &err);
	assert_true(d.nresults >= 8 && d.nresults < 15); /* the memory class's tools, not all */
	assert_int_equal(fb.findings.n, 1);
	assert_string_equal(fb.findings.v[0].tool, "vector_width");
	assert_true(kp_strvec_find(&fb.findings.v[0].also, "warp_stalls") >= 0);
	kp_feedback_text(&fb, &text);
	assert_non_null(strstr(text.buf, "# Feedback for vec_add_naive"));
	assert_non_null(strstr(text.buf, "Bottleneck: memory-bound. DRAM 3.41 TB/s of 4.8 TB/s datasheet peak (71%)"));
	assert_non_null(strstr(text.buf, "## What to try first\n1. Load and store 16 bytes"));
	assert_non_null(strstr(text.buf, "### 1. [medium] Global memory accessed 32 bits"));
	assert_non_null(strstr(strstr(text.buf, "Also seen by: "), "warp_stalls"));
	assert_null(strstr(text.buf, "nan"));
	j = kp_feedback_json(&fb);
	kp_json_dump_buf(j, &js, 1);
	assert_non_null(strstr(js.buf, "\"tool\":\"vector_width\""));
	assert_non_null(strstr(js.buf, "\"bound\":\"memory\""));
	json_decref(j);
	kp_feedback_release(&fb);
	kp_diagnosis_release(&d);

	/* Bounded: a tiny cap keeps whole sections only, and says what it left out. */
	o.feedback.max_chars = 1200;
	KP_ASSERT_OK(kp_stage2_run(ts, &fx.in, &o, &d, &fb, &err), &err);
	kp_buf_reset(&text);
	kp_feedback_text(&fb, &text);
	assert_true(text.len <= 1200);
	assert_null(strstr(text.buf, "### 1."));
	assert_non_null(strstr(text.buf, "omitted"));
	kp_feedback_release(&fb);
	kp_diagnosis_release(&d);

	/* Raw: the metrics the selected tools read, missing ones marked; no tool runs. */
	o.feedback.max_chars = 0;
	o.feedback.mode = KP_FEEDBACK_RAW;
	KP_ASSERT_OK(kp_stage2_run(ts, &fx.in, &o, &d, &fb, &err), &err);
	assert_int_equal(d.nresults, 0);
	kp_buf_reset(&text);
	kp_feedback_text(&fb, &text);
	assert_non_null(strstr(text.buf, "| gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed | 70.8"));
	assert_non_null(strstr(text.buf, "| missing |"));
	assert_non_null(strstr(text.buf, "| sass.LDG_32 | 2 inst |"));
	assert_null(strstr(text.buf, "## Findings"));
	kp_feedback_release(&fb);

	/* None: timing only. */
	o.feedback.mode = KP_FEEDBACK_NONE;
	KP_ASSERT_OK(kp_stage2_run(ts, &fx.in, &o, &d, &fb, &err), &err);
	kp_buf_reset(&text);
	kp_feedback_text(&fb, &text);
	assert_string_equal(text.buf, "# Feedback for vec_add_naive\nTime 233.0 us.\n");
	kp_feedback_release(&fb);

	/* Reactive: nothing runs up front. */
	o.feedback.mode = KP_FEEDBACK_TOOLS;
	o.orchestration = KP_ORCH_REACTIVE;
	KP_ASSERT_OK(kp_stage2_run(ts, &fx.in, &o, &d, &fb, &err), &err);
	assert_int_equal(d.nresults, 0);
	assert_int_equal(fb.findings.n, 0);
	kp_feedback_release(&fb);
	kp_diagnosis_release(&d);
	kp_buf_release(&text);
	kp_buf_release(&js);
	kp_toolset_free(ts);
}

static void test_reactive(void **state)
{
	struct kp_toolset *ts = open_ts();
	struct kp_buf menu = KP_BUF_INIT, text = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	static struct kp_fx fx;
	json_t *j = NULL, *m;

	kp_toolset_menu(ts, &menu);
	assert_non_null(strstr(menu.buf, "- coalescing: "));
	assert_non_null(strstr(menu.buf, "- launch_overhead: "));
	m = kp_toolset_menu_json(ts);
	assert_int_equal(json_array_size(m), 15);
	json_decref(m);

	vec_add(&fx);
	KP_ASSERT_OK(kp_toolset_call(ts, "vector_width", &fx.in, NULL, &text, &j, &err), &err);
	assert_non_null(strstr(text.buf, "Tool vector_width: fired"));
	assert_non_null(strstr(text.buf, "float4"));
	assert_string_equal(kp_json_str(j, "status", ""), "fired");
	json_decref(j);
	kp_buf_reset(&text);
	KP_ASSERT_OK(kp_toolset_call(ts, "launch_overhead", &fx.in, NULL, &text, NULL, &err), &err);
	assert_non_null(strstr(text.buf, "Tool launch_overhead: missing (no launch trace)"));
	assert_int_equal(kp_toolset_call(ts, "nope", &fx.in, NULL, &text, NULL, &err), KP_ENOENT);
	kp_buf_release(&menu);
	kp_buf_release(&text);
	kp_toolset_free(ts);
}

static void test_modes_parse(void **state)
{
	enum kp_feedback_mode m;
	enum kp_orchestration o;
	enum kp_finding_severity s;
	assert_int_equal(kp_feedback_mode_parse("raw", &m), 0);
	assert_int_equal(m, KP_FEEDBACK_RAW);
	assert_int_equal(kp_feedback_mode_parse("lots", &m), KP_EINVAL);
	assert_int_equal(kp_orchestration_parse("reactive", &o), 0);
	assert_int_equal(o, KP_ORCH_REACTIVE);
	assert_int_equal(kp_finding_severity_parse("critical", &s), 0);
	assert_int_equal(kp_finding_severity_parse("none", &s), KP_EINVAL);
	assert_int_equal(kp_finding_severity_for_gain(0.6), KP_SEV_CRITICAL);
	assert_int_equal(kp_finding_severity_for_gain(0.39), KP_SEV_MEDIUM);
	assert_int_equal(kp_finding_severity_for_gain(0.1), KP_SEV_LOW);
	assert_int_equal(kp_finding_severity_for_gain(NAN), KP_SEV_MEDIUM);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_declared_metrics_and_empty_input),
		cmocka_unit_test(test_missing_required_metric),
		cmocka_unit_test(test_thresholds),
		cmocka_unit_test(test_open_options),
		cmocka_unit_test(test_select_and_metrics),
		cmocka_unit_test(test_synthesize),
		cmocka_unit_test(test_feedback_three_findings), cmocka_unit_test(test_stage2_and_feedback),
		cmocka_unit_test(test_reactive),
		cmocka_unit_test(test_modes_parse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
