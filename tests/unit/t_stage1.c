/* Unit tests: Stage 1 on the 17 H200 probe kernels (classes as in labels.json), the rule's edges, missing inputs. */
#include "base/setup.h"

#include <math.h>
#include <unistd.h>

#include "kp_test.h"
#include "kernelpro/analyze.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/ncu_metrics.h"

#define DIR "tests/golden/h200-probe/"

static char *cache_dir;

static int setup(void **state)
{
	/* no calibration file from this machine's cache may leak into the datasheet roofline */
	cache_dir = kp_test_tmpdir();
	setenv("XDG_CACHE_HOME", cache_dir, 1);
	return 0;
}

static int teardown(void **state)
{
	kp_test_tmpdir_remove(cache_dir);
	return 0;
}

static void load_hw(struct kp_hw *hw)
{
	struct kp_error err = KP_ERROR_INIT;
	KP_ASSERT_OK(kp_hw_load(hw, "h200-sxm", 0, &err), &err);
	assert_false(hw->calibrated);
}

static void test_probe_classes(void **state)
{
	struct kp_profile_set ps;
	struct kp_profile_files f = {DIR "ncu_raw.csv", NULL, DIR "sass.txt", DIR "ptxas.txt", NULL, NULL};
	struct kp_error err = KP_ERROR_INIT;
	struct kp_hw hw;
	json_t *labels = NULL, *kernels, *all = json_array();
	struct kp_buf out = KP_BUF_INIT;
	memset(&ps, 0, sizeof(ps));
	load_hw(&hw);
	KP_ASSERT_OK(kp_profile_set_load(&ps, &f, &err), &err);
	KP_ASSERT_OK(kp_json_load_file(kp_test_path(DIR "labels.json"), 0, &labels, &err), &err);
	kernels = json_object_get(labels, "kernels");
	assert_int_equal(json_array_size(kernels), ps.nkernels);
	for (size_t i = 0; i < ps.nkernels; i++) {
		struct kp_stage1 s;
		const json_t *lab = json_array_get(kernels, i);
		KP_ASSERT_OK(kp_stage1_run(&s, &ps.kernels[i], &hw, NULL, NULL, &err), &err);
		assert_int_equal(kp_json_int(lab, "id", -1), ps.kernels[i].launch->id);
		if (strcmp(kp_bound_name(s.bound), kp_json_str(lab, "class", "?")))
			fail_msg("launch %zu (%s): class %s, labels say %s: %s", i, kp_json_str(lab, "name", "?"),
				 kp_bound_name(s.bound), kp_json_str(lab, "class", "?"), s.reason);
		/* a --set full capture has FLOP rates, not counts: complete all the same */
		assert_string_equal(s.flops_source, "sass rates x cycles");
		assert_false(s.incomplete);
		json_array_append_new(all, kp_diagnose_launch_json(&ps.kernels[i], &s));
	}
	/* FLOPs from the counters: 2*N^3 for the 2048^3 SGEMMs, on the TF32 tensor roof for cuBLAS TF32 */
	{
		struct kp_stage1 s;
		kp_stage1_run(&s, &ps.kernels[5], &hw, NULL, NULL, &err);
		assert_true(fabs(s.flops_fp32 - 2.0 * 2048 * 2048 * 2048) / s.flops_fp32 < 1e-3);
		assert_string_equal(s.precision, "fp32");
		kp_stage1_run(&s, &ps.kernels[16], &hw, NULL, NULL, &err);
		assert_true(fabs(s.flops_tensor - 2.0 * 2048 * 2048 * 2048) / s.flops_tensor < 1e-3);
		assert_string_equal(s.precision, "tf32-tc");
		assert_true(s.compute_frac > 0.6); /* near its roof */
		kp_stage1_run(&s, &ps.kernels[1], &hw, NULL, NULL, &err);
		assert_true(s.memory_frac > 0.85); /* vec_add_f4 at the DRAM roof */
	}
	kp_json_dump_buf(all, &out, 0);
	kp_buf_addch(&out, '\n');
	kp_test_golden(DIR "expected/stage1.json", out.buf);
	kp_buf_release(&out);
	json_decref(all);
	json_decref(labels);
	kp_profile_set_release(&ps);
}

/* A launch with hand-set metrics. */
struct fake {
	struct kp_launch l;
	struct kp_metric m[48];
};

static int mcmp(const void *a, const void *b)
{
	return strcmp(((const struct kp_metric *)a)->name, ((const struct kp_metric *)b)->name);
}

static void fake_set(struct fake *f, const char *name, double v)
{
	struct kp_metric *m;
	for (size_t i = 0; i < f->l.nmetrics; i++)
		if (!strcmp(f->m[i].name, name)) {
			f->m[i].value = v;
			return;
		}
	assert_true(f->l.nmetrics < KP_ARRAY_SIZE(f->m));
	m = &f->m[f->l.nmetrics++];
	m->name = name;
	m->value = v;
	m->unit = "";
	qsort(f->m, f->l.nmetrics, sizeof(f->m[0]), mcmp);
	f->l.metrics = f->m;
}

static void fake_init(struct fake *f, double time_ns, double flops_ffma, double bytes, double sm, double mem)
{
	memset(f, 0, sizeof(*f));
	f->l.kernel = f->l.function = "k";
	if (time_ns > 0)
		fake_set(f, "gpu__time_duration.sum", time_ns);
	fake_set(f, "dram__bytes_read.sum", bytes / 2);
	fake_set(f, "dram__bytes_write.sum", bytes / 2);
	fake_set(f, "sm__throughput.avg.pct_of_peak_sustained_elapsed", sm);
	fake_set(f, "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", mem);
	if (flops_ffma >= 0) {
		fake_set(f, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", flops_ffma / 2);
		fake_set(f, "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", 0);
		fake_set(f, "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", 0);
		fake_set(f, "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum", 0);
		fake_set(f, "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum", 0);
		fake_set(f, "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum", 0);
		fake_set(f, "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum", 0);
		fake_set(f, "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum", 0);
		fake_set(f, "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum", 0);
		fake_set(f, "sm__ops_path_tensor_src_tf32_dst_fp32.sum", 0);
	}
}

static enum kp_bound classify(struct fake *f, const struct kp_hw *hw, struct kp_stage1 *s)
{
	struct kp_kernel_profile p = {&f->l, NULL, NULL, NULL, NULL};
	struct kp_error err = KP_ERROR_INIT;
	KP_ASSERT_OK(kp_stage1_run(s, &p, hw, NULL, NULL, &err), &err);
	return s->bound;
}

static void test_rule_edges(void **state)
{
	struct kp_hw hw;
	struct fake f;
	struct kp_stage1 s;
	load_hw(&hw);
	/* 1 ms at 70% of both roofs, AI at the ridge: mixed */
	fake_init(&f, 1e6, 0.7 * hw.fp32 * 1e-3, 0.7 * hw.dram_bw * 1e-3, 70, 70);
	assert_int_equal(classify(&f, &hw, &s), KP_BOUND_MIXED);
	assert_false(s.incomplete);
	assert_true(fabs(s.ai - s.ridge_ai) / s.ridge_ai < 1e-9);
	/* the same traffic with a tenth of the FLOPs: memory */
	fake_init(&f, 1e6, 0.07 * hw.fp32 * 1e-3, 0.7 * hw.dram_bw * 1e-3, 20, 70);
	assert_int_equal(classify(&f, &hw, &s), KP_BOUND_MEMORY);
	/* far above the ridge but the SM is busy only through ncu's SOL: compute */
	fake_init(&f, 1e6, 0.1 * hw.fp32 * 1e-3, 0.001 * hw.dram_bw * 1e-3, 65, 90);
	assert_int_equal(classify(&f, &hw, &s), KP_BOUND_COMPUTE);
	/* nothing busy: latency, whatever the intensity */
	fake_init(&f, 1e6, 0.1 * hw.fp32 * 1e-3, 0.001 * hw.dram_bw * 1e-3, 5, 10);
	assert_int_equal(classify(&f, &hw, &s), KP_BOUND_LATENCY);
	/* just at the latency threshold counts as busy */
	fake_init(&f, 1e6, 0, 0.30 * hw.dram_bw * 1e-3, 5, 30);
	assert_int_equal(classify(&f, &hw, &s), KP_BOUND_MEMORY);
}

/* Utilization as ncu reports it: percent of peak over the elapsed cycles. */
static void fake_pct(struct fake *f, const char *metric, double pct)
{
	fake_set(f, metric, pct);
}

/* A kernel below the ridge (AI ~0.3) moving DRAM at `dram` percent, with one SM unit at `pct`. */
static void below_ridge(struct fake *f, const struct kp_hw *hw, double dram, const char *metric, double pct)
{
	double bytes = dram / 100 * hw->dram_bw * 1e-3;
	fake_init(f, 1e6, 0.3 * bytes, bytes, pct, dram);
	fake_pct(f, KP_M_DRAM_PCT, dram);
	fake_pct(f, KP_M_L2_PCT, dram + 5);
	fake_pct(f, KP_M_PIPE_FMA_E, 3);
	fake_pct(f, KP_M_ISSUE_PCT_ELAPSED, 20);
	fake_pct(f, KP_M_WARPS_ACTIVE, 85);
	if (metric)
		fake_pct(f, metric, pct);
}

static void test_utilization_rules(void **state)
{
	struct kp_hw hw;
	struct fake f;
	struct kp_stage1 s;
	load_hw(&hw);
	/* integer division in the index math: ALU pipe 78% while DRAM 12%, intensity far below the ridge */
	below_ridge(&f, &hw, 12, KP_M_PIPE_ALU_E, 78);
	assert_int_equal(classify(&f, &hw, &s), KP_BOUND_COMPUTE);
	assert_string_equal(s.rule, "utilization");
	assert_true(s.ai < s.ridge_ai);
	assert_non_null(strstr(s.reason, "ALU pipe 78% of peak while the memory side peaks at 17% (L2)"));
	assert_non_null(strstr(s.reason, "below the ridge"));
	assert_string_equal(kp_stage1_busiest(&s, KP_SIDE_SM)->name, "ALU pipe");
	assert_string_equal(kp_stage1_busiest(&s, KP_SIDE_MEMORY)->name, "L2");
	/* a special-function chain: the XU pipe */
	below_ridge(&f, &hw, 30, KP_M_PIPE_XU_E, 92);
	assert_int_equal(classify(&f, &hw, &s), KP_BOUND_COMPUTE);
	assert_non_null(strstr(s.reason, "XU (special-function) pipe 92%"));
	/* the SM side only a little busier than memory: still memory (sm_margin) */
	below_ridge(&f, &hw, 45, KP_M_PIPE_ALU_E, 55);
	assert_int_equal(classify(&f, &hw, &s), KP_BOUND_MEMORY);
	assert_string_equal(s.rule, "intensity");
	/* a conflict-free shared-memory loop: the SM side */
	below_ridge(&f, &hw, 28, KP_M_WAVE_PCT, 88);
	fake_set(&f, KP_M_WAVE_LD, 1e9);
	fake_set(&f, KP_M_CONF_LD, 0);
	assert_int_equal(classify(&f, &hw, &s), KP_BOUND_COMPUTE);
	assert_non_null(strstr(s.reason, "shared memory 88%"));
	/* the same traffic made of 16-way conflicts: a layout fix leaves DRAM as the bound, memory */
	below_ridge(&f, &hw, 28, KP_M_WAVE_PCT, 88);
	fake_set(&f, KP_M_WAVE_LD, 16e9);
	fake_set(&f, KP_M_CONF_LD, 15e9);
	assert_int_equal(classify(&f, &hw, &s), KP_BOUND_MEMORY);
	/* both sides near their roofs and close: mixed */
	below_ridge(&f, &hw, 68, KP_M_PIPE_FMA_E, 72);
	assert_int_equal(classify(&f, &hw, &s), KP_BOUND_MIXED);
	/* busy issue slots alone (an elementwise kernel's index math and memory instructions) are no bound... */
	below_ridge(&f, &hw, 41, KP_M_ISSUE_PCT_ELAPSED, 69);
	fake_pct(&f, KP_M_PIPE_ALU_E, 45);
	assert_int_equal(classify(&f, &hw, &s), KP_BOUND_MEMORY);
	assert_string_equal(kp_stage1_busiest(&s, KP_SIDE_SM)->name, "ALU pipe");
	/* ... until the schedulers issue nearly every cycle: instruction-bound */
	fake_pct(&f, KP_M_ISSUE_PCT_ELAPSED, 95);
	assert_int_equal(classify(&f, &hw, &s), KP_BOUND_COMPUTE);
	assert_non_null(strstr(s.reason, "issue slots 95%"));
}

static void test_latency_rules(void **state)
{
	struct kp_hw hw;
	struct fake f;
	struct kp_stage1 s;
	load_hw(&hw);
	/* too few warps in flight: 6% occupancy, nothing saturated, long-scoreboard stalls */
	below_ridge(&f, &hw, 20, KP_M_L1_PCT_ELAPSED, 45);
	fake_pct(&f, KP_M_WARPS_ACTIVE, 6);
	fake_set(&f, KP_M_STALL_TOTAL, 100);
	fake_set(&f, KP_M_STALL_LONG_SCOREBOARD, 80);
	fake_set(&f, KP_M_STALL_MATH_PIPE_THROTTLE, 2);
	assert_int_equal(classify(&f, &hw, &s), KP_BOUND_LATENCY);
	assert_string_equal(s.rule, "starved");
	assert_non_null(strstr(s.reason, "achieved occupancy 6%"));
	assert_non_null(strstr(s.reason, "long_scoreboard (80%"));
	assert_true(fabs(s.latency_stalls - 80.0 / 82) < 1e-9);
	/* low occupancy but a saturated pipe (a register-heavy GEMM): not latency */
	below_ridge(&f, &hw, 20, KP_M_PIPE_FMA_E, 80);
	fake_pct(&f, KP_M_WARPS_ACTIVE, 12);
	assert_int_equal(classify(&f, &hw, &s), KP_BOUND_COMPUTE);
	/* low occupancy, nothing saturated, but the warps wait on a busy pipe: not latency */
	below_ridge(&f, &hw, 20, KP_M_PIPE_XU_E, 50);
	fake_pct(&f, KP_M_WARPS_ACTIVE, 12);
	fake_set(&f, KP_M_STALL_TOTAL, 100);
	fake_set(&f, KP_M_STALL_MATH_PIPE_THROTTLE, 70);
	fake_set(&f, KP_M_STALL_LONG_SCOREBOARD, 10);
	assert_int_equal(classify(&f, &hw, &s), KP_BOUND_COMPUTE);
	/* low occupancy by design (a tensor-core convolution), a unit fairly busy, no latency stall dominating */
	fake_init(&f, 1e6, 0.36 * hw.tf32_tc * 1e-3, 0.13 * hw.dram_bw * 1e-3, 60, 50);
	fake_set(&f, KP_M_TENSOR_TF32, 0.36 * hw.tf32_tc * 1e-3);
	fake_set(&f, KP_M_OP_FFMA, 0);
	fake_pct(&f, KP_M_TENSOR_PCT_ELAPSED, 54);
	fake_pct(&f, KP_M_WARPS_ACTIVE, 12);
	fake_set(&f, KP_M_STALL_TOTAL, 10);
	fake_set(&f, KP_M_STALL_WAIT, 2.9);
	fake_set(&f, KP_M_STALL_BARRIER, 2);
	fake_set(&f, KP_M_STALL_MATH_PIPE_THROTTLE, 1.5);
	assert_int_equal(classify(&f, &hw, &s), KP_BOUND_COMPUTE);
	assert_string_equal(s.stall, "wait");
	/* nothing busy at all, whatever the occupancy: idle */
	below_ridge(&f, &hw, 10, KP_M_L1_PCT_ELAPSED, 12);
	assert_int_equal(classify(&f, &hw, &s), KP_BOUND_LATENCY);
	assert_string_equal(s.rule, "idle");
	assert_non_null(strstr(s.reason, "achieved occupancy 85%"));
}

/* Three kernels, one launched twice: grouping, shares, the ranking by time that could be saved, the cut-off. */
static void test_whole_task(void **state)
{
	struct kp_hw hw;
	struct fake f[4];
	struct kp_kernel_profile ks[4];
	struct kp_stage1 s1[4];
	struct kp_task_stage1 t;
	struct kp_task_bytes task = {1e9, NAN};
	struct kp_task_cutoff cut;
	struct kp_buf b = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	json_t *j;
	load_hw(&hw);
	/* "norm": two 1 ms launches at 30% of DRAM: 2/3 of each could go */
	below_ridge(&f[0], &hw, 30, NULL, 0);
	below_ridge(&f[1], &hw, 30, NULL, 0);
	f[0].l.kernel = f[1].l.kernel = "norm(float *)";
	f[0].l.function = f[1].l.function = "norm";
	/* "gemm": 1 ms at 80% of the FP32 roof, above the ridge */
	fake_init(&f[2], 1e6, 0.8 * hw.fp32 * 1e-3, 0.01 * hw.dram_bw * 1e-3, 80, 10);
	f[2].l.kernel = "gemm(float *)";
	f[2].l.function = "gemm";
	/* "relu": 1 ms at the practical DRAM ceiling: nothing to save */
	below_ridge(&f[3], &hw, 90, NULL, 0);
	f[3].l.kernel = "relu(float *)";
	f[3].l.function = "relu";
	for (int i = 0; i < 4; i++) {
		f[i].l.id = i;
		ks[i] = (struct kp_kernel_profile){&f[i].l, NULL, NULL, NULL, NULL};
		KP_ASSERT_OK(kp_stage1_run(&s1[i], &ks[i], &hw, &task, NULL, &err), &err);
	}
	kp_task_stage1_build(&t, ks, s1, 4, &task, NULL);
	assert_int_equal(t.n, 3);
	assert_int_equal(t.nlaunches, 4);
	assert_true(fabs(t.time_s - 4e-3) < 1e-12);
	assert_string_equal(t.kernels[0].function, "norm");
	assert_int_equal(t.kernels[0].nlaunches, 2);
	assert_true(fabs(t.kernels[0].share - 0.5) < 1e-9);
	assert_true(fabs(t.kernels[0].saving_s - 2e-3 * (1 - 0.30 / KP_DRAM_PRACTICAL)) < 1e-6);
	assert_string_equal(t.kernels[1].function, "gemm");
	assert_int_equal(t.kernels[1].bound, KP_BOUND_COMPUTE);
	assert_true(fabs(t.kernels[1].saving_s - 0.2e-3) < 1e-6);
	assert_string_equal(t.kernels[2].function, "relu");
	assert_true(t.kernels[2].saving_s < 1e-9);
	/* norm holds 1.33 of 1.53 ms of savings (87%): the tools run on it alone */
	assert_true(t.kernels[0].selected && !t.kernels[1].selected && !t.kernels[2].selected);
	/* all FLOPs at peak (the GEMM's 0.8 ms, the others' 0.3 FLOP/B) outlast 1 GB at DRAM speed */
	assert_true(fabs(t.floor_s - (0.8e-3 + 0.3 * (0.3 + 0.3 + 0.9) * hw.dram_bw * 1e-3 / hw.fp32)) < 1e-9);
	kp_task_stage1_describe(&t, 10, &b);
	assert_non_null(strstr(b.buf, "3 kernels in 4 launches"));
	assert_non_null(strstr(b.buf, "1. norm: 50% of the time (2 ms, 2 launches), memory-bound; could save 1.33 ms"));
	assert_non_null(strstr(b.buf, "3. (not diagnosed) relu"));
	j = kp_task_stage1_to_json(&t, ks);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(json_object_get(j, "kernels"), 1),
							   "longest_launch_id")), 2);
	json_decref(j);
	kp_task_stage1_release(&t);
	/* a tighter cut-off share still takes the first; more kernels with a looser one */
	kp_task_cutoff_default(&cut);
	cut.share = 0.95;
	kp_task_stage1_build(&t, ks, s1, 4, &task, &cut);
	assert_int_equal(t.nselected, 2);
	kp_task_stage1_release(&t);
	cut.max_kernels = 1;
	kp_task_stage1_build(&t, ks, s1, 4, &task, &cut);
	assert_int_equal(t.nselected, 1);
	kp_task_stage1_release(&t);
	kp_buf_release(&b);
}

static void test_missing_inputs(void **state)
{
	struct kp_hw hw;
	struct fake f;
	struct kp_stage1 s;
	json_t *j;
	load_hw(&hw);
	/* no duration: no roofline, and it says why */
	fake_init(&f, 0, 1e9, 1e9, 50, 50);
	assert_int_equal(classify(&f, &hw, &s), KP_BOUND_UNKNOWN);
	assert_true(s.incomplete);
	assert_non_null(strstr(s.missing, "gpu__time_duration.sum"));
	assert_non_null(strstr(s.reason, "gpu__time_duration.sum"));
	j = kp_stage1_to_json(&s);
	assert_true(json_is_null(json_object_get(j, "time_s"))); /* never a silent 0 */
	json_decref(j);
	/* an ncu without the FLOP counters: classified from throughput, marked incomplete */
	fake_init(&f, 1e6, -1, 0.5 * hw.dram_bw * 1e-3, 20, 70);
	assert_int_equal(classify(&f, &hw, &s), KP_BOUND_MEMORY);
	assert_true(s.incomplete);
	assert_string_equal(s.flops_source, "missing");
	assert_non_null(strstr(s.reason, "FLOP counters missing"));
}

static void test_hw_table(void **state)
{
	struct kp_hw hw;
	struct kp_error err = KP_ERROR_INIT;
	static const char *const keys[] = {"h100-sxm", "h100-pcie", "h200-sxm", "a100-40", "a100-80", "l40s", "rtx-4090", "b200"};
	for (size_t i = 0; i < KP_ARRAY_SIZE(keys); i++) {
		const struct kp_hw_spec *s = kp_hw_spec_find(keys[i]);
		assert_non_null(s);
		assert_true(s->sm_count > 0 && s->fp32 > 0 && s->dram_bw > 0 && s->bf16_tc > 0 && s->l2_bytes > 0);
	}
	assert_string_equal(kp_hw_spec_find("NVIDIA H200")->key, "h200-sxm");
	assert_string_equal(kp_hw_spec_find("NVIDIA H200 NVL")->key, "h200-nvl");
	assert_string_equal(kp_hw_spec_find("NVIDIA H100 80GB HBM3")->key, "h100-sxm");
	assert_string_equal(kp_hw_spec_find("NVIDIA H100 PCIe")->key, "h100-pcie");
	assert_string_equal(kp_hw_spec_find("NVIDIA A100-SXM4-40GB")->key, "a100-40");
	assert_string_equal(kp_hw_spec_find("NVIDIA GeForce RTX 4090")->key, "rtx-4090");
	assert_null(kp_hw_spec_find("NVIDIA GeForce GTX 480"));
	assert_int_equal(kp_hw_load(&hw, "gtx-480", 0, &err), KP_ENOENT);
	assert_non_null(strstr(kp_error_msg(&err), "kernelpro hw show --list"));
}

static void test_calibration_used(void **state)
{
	struct kp_hw hw;
	struct kp_hw_calibration c, back;
	struct kp_buf path = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	const char *json = "{\"schema\":1,\"key\":\"h200-sxm\",\"device\":\"NVIDIA H200\",\"measured_at\":\"2026-11-29T12:00:00Z\","
			   "\"dram_bw\":4.0e12,\"fp32\":6.0e13,\"bf16_tc\":7.9e14}";
	KP_ASSERT_OK(kp_hw_calibration_from_json(&c, "cal", json, strlen(json), &err), &err);
	KP_ASSERT_OK(kp_hw_calibration_path("h200-sxm", &path, &err), &err);
	assert_non_null(strstr(path.buf, cache_dir));
	KP_ASSERT_OK(kp_hw_calibration_save(&c, path.buf, &err), &err);
	KP_ASSERT_OK(kp_hw_calibration_load(&back, path.buf, &err), &err);
	assert_true(back.dram_bw == 4.0e12);
	KP_ASSERT_OK(kp_hw_load(&hw, "h200-sxm", 0, &err), &err);
	assert_true(hw.calibrated);
	assert_true(hw.dram_bw == 4.0e12 && hw.fp32 == 6.0e13 && hw.bf16_tc == 7.9e14);
	assert_true(hw.tf32_tc == hw.spec.tf32_tc); /* not measured: datasheet */
	assert_non_null(strstr(hw.source, "measured 2026-11-29 on NVIDIA H200"));
	/* a broken file is an error that names it, not a silent datasheet fallback */
	KP_ASSERT_OK(kp_write_file_atomic(path.buf, "{\"schema\":1}", 12, &err), &err);
	assert_int_equal(kp_hw_load(&hw, "h200-sxm", 0, &err), KP_EPARSE);
	assert_non_null(strstr(kp_error_msg(&err), path.buf));
	unlink(path.buf);
	kp_buf_release(&path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe_classes),
		cmocka_unit_test(test_rule_edges),
		cmocka_unit_test(test_utilization_rules),
		cmocka_unit_test(test_latency_rules),
		cmocka_unit_test(test_whole_task),
		cmocka_unit_test(test_missing_inputs),
		cmocka_unit_test(test_hw_table),
		cmocka_unit_test(test_calibration_used),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
