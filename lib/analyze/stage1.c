/*
 * Stage 1: FLOPs from SASS-level executed-instruction counters, DRAM bytes,
 * the kernel's place on the roofline of the GPU in use, and its bottleneck
 * class. The rule is in classify(); docs/analyze.md explains it.
 */
#include "base/setup.h"

#include <math.h>

#include "analyze/stage1_impl.h"
#include "kernelpro/analyze.h"
#include "kernelpro/json.h"
#include "kernelpro/ncu_metrics.h"
#include "kernelpro/str.h"

const char *kp_bound_name(enum kp_bound b)
{
	switch (b) {
	case KP_BOUND_COMPUTE: return "compute";
	case KP_BOUND_MEMORY: return "memory";
	case KP_BOUND_LATENCY: return "latency";
	case KP_BOUND_MIXED: return "mixed";
	case KP_BOUND_UNKNOWN: break;
	}
	return "unknown";
}

void kp_stage1_thresholds_default(struct kp_stage1_thresholds *t)
{
	t->roof_frac = 0.60;
	t->latency_frac = 0.30;
	t->mixed_margin = 0.15;
	t->sm_margin = 0.10;
	t->starved_occupancy = 25;
	t->starved_stall = 0.5;
	t->issue_bound = 0.90;
}

static const char *const stage1_metrics[] = {
	KP_M_TIME, KP_M_DRAM_RD, KP_M_DRAM_WR, KP_M_SM_PCT, KP_M_MEM_PCT,
	KP_M_OP_FADD, KP_M_OP_FMUL, KP_M_OP_FFMA,
	KP_M_OP_DADD, KP_M_OP_DMUL, KP_M_OP_DFMA,
	KP_M_OP_HADD, KP_M_OP_HMUL, KP_M_OP_HFMA,
	KP_M_TENSOR_FP16, KP_M_TENSOR_BF16, KP_M_TENSOR_TF32, KP_M_TENSOR_FP8, KP_M_TENSOR_INT8, KP_M_TENSOR_FP64,
	/* measured utilization (classify.c) */
	KP_M_DRAM_PCT, KP_M_L2_PCT, KP_M_L1_PCT_ELAPSED, KP_M_WAVE_PCT, KP_M_WAVE_LD, KP_M_WAVE_ST, KP_M_CONF_LD,
	KP_M_CONF_ST, KP_M_PIPE_FMA_E, KP_M_PIPE_ALU_E, KP_M_PIPE_XU_E, KP_M_PIPE_FP64_E, KP_M_TENSOR_PCT_ELAPSED,
	KP_M_ISSUE_PCT_ELAPSED, KP_M_WARPS_ACTIVE, KP_M_STALL_TOTAL, KP_M_STALL_LONG_SCOREBOARD,
	KP_M_STALL_SHORT_SCOREBOARD, KP_M_STALL_WAIT, KP_M_STALL_BARRIER, KP_M_STALL_MEMBAR, KP_M_STALL_BRANCH_RESOLVING,
	KP_M_STALL_NO_INSTRUCTION, KP_M_STALL_DRAIN, KP_M_STALL_IMC_MISS, KP_M_STALL_SLEEPING,
	KP_M_STALL_MATH_PIPE_THROTTLE, KP_M_STALL_MIO_THROTTLE, KP_M_STALL_LG_THROTTLE, KP_M_STALL_TEX_THROTTLE,
	KP_M_STALL_DISPATCH_STALL, KP_M_STALL_GMMA,
	NULL,
};

const char *const *kp_stage1_metrics(void)
{
	return stage1_metrics;
}

struct ctx {
	const struct kp_launch *l;
	struct kp_stage1 *out;
	int rates; /* FLOP counters came as per-cycle rates (a --set full capture) */
};

static void note_missing(struct kp_stage1 *out, const char *name)
{
	size_t n = strlen(out->missing);
	if (strstr(out->missing, name))
		return;
	snprintf(out->missing + n, sizeof(out->missing) - n, "%s%s", n ? ", " : "", name);
	out->incomplete = 1;
}

/*
 * One SASS thread-instruction count: the `.sum` counter of a targeted
 * collection, or (in a `--set full` capture, which has only the roofline
 * section's rates) `.sum.per_cycle_elapsed` times the elapsed SMSP cycles.
 * Returns 0 when found, -1 when neither form is present.
 */
static int sass_count(struct ctx *c, const char *metric, double *out)
{
	char name[128];
	double rate, cyc;
	if (kp_launch_get(c->l, metric, out) == 0)
		return 0;
	snprintf(name, sizeof(name), "%s" KP_M_PER_CYCLE_ELAPSED, metric);
	if (kp_launch_get(c->l, name, &rate) == 0 && kp_launch_get(c->l, KP_M_SMSP_CYCLES, &cyc) == 0) {
		c->rates = 1;
		*out = rate * cyc;
		return 0;
	}
	return -1;
}

/* add + mul + k*fma for one precision; NAN when the counters are absent. */
static double precision_flops(struct ctx *c, const char *add, const char *mul, const char *fma, double add_w,
			      double fma_w)
{
	double a, m, f;
	int found = 0;
	if (sass_count(c, add, &a))
		a = 0;
	else
		found++;
	if (sass_count(c, mul, &m))
		m = 0;
	else
		found++;
	if (sass_count(c, fma, &f))
		f = 0;
	else
		found++;
	if (!found)
		return NAN;
	if (found < 3)
		c->out->incomplete = 1;
	return add_w * (a + m) + fma_w * f;
}

static double tensor_ops(const struct kp_launch *l, const char *metric, int *found)
{
	double v;
	if (kp_launch_get(l, metric, &v) == 0) {
		(*found)++;
		return v;
	}
	if (!strcmp(metric, KP_M_TENSOR_FP8)) { /* a --set full capture splits FP8 by sparsity */
		double off, on;
		if (kp_launch_get(l, KP_M_TENSOR_FP8_DENSE, &off) == 0 &&
		    kp_launch_get(l, KP_M_TENSOR_FP8_SPARSE, &on) == 0) {
			(*found)++;
			return off + on;
		}
	}
	return 0;
}

struct roof {
	const char *name;
	double flops, peak;
};

/* Time, DRAM bytes and ncu's speed-of-light percentages; what is absent is noted missing. */
static void time_and_bytes(struct ctx *c)
{
	struct kp_stage1 *out = c->out;
	double ns, rd, wr;
	if (kp_launch_get(c->l, KP_M_TIME, &ns) == 0 && ns > 0) {
		out->time_s = ns * 1e-9;
	} else {
		out->time_s = NAN;
		note_missing(out, KP_M_TIME);
	}
	if (kp_launch_get(c->l, KP_M_DRAM_RD, &rd) == 0 && kp_launch_get(c->l, KP_M_DRAM_WR, &wr) == 0) {
		out->dram_bytes = rd + wr;
	} else if (kp_launch_get(c->l, KP_M_DRAM, &rd) == 0) {
		out->dram_bytes = rd;
	} else {
		out->dram_bytes = NAN;
		note_missing(out, KP_M_DRAM_RD);
		note_missing(out, KP_M_DRAM_WR);
	}
	out->sm_sol_pct = kp_launch_getd(c->l, KP_M_SM_PCT, NAN);
	out->mem_sol_pct = kp_launch_getd(c->l, KP_M_MEM_PCT, NAN);
	if (isnan(out->sm_sol_pct))
		note_missing(out, KP_M_SM_PCT);
	if (isnan(out->mem_sol_pct))
		note_missing(out, KP_M_MEM_PCT);
}

/* CUDA-core FLOPs and their roofs: add + mul + 2*fma; packed half (HADD2/HMUL2/HFMA2) counts two lanes. */
static int cuda_core_flops(struct ctx *c, const struct kp_hw *hw, struct roof *roofs, size_t *nroofs)
{
	struct kp_stage1 *out = c->out;
	int have_flops;
	out->flops_fp32 = precision_flops(c, KP_M_OP_FADD, KP_M_OP_FMUL, KP_M_OP_FFMA, 1, 2);
	out->flops_fp64 = precision_flops(c, KP_M_OP_DADD, KP_M_OP_DMUL, KP_M_OP_DFMA, 1, 2);
	out->flops_fp16 = precision_flops(c, KP_M_OP_HADD, KP_M_OP_HMUL, KP_M_OP_HFMA, 2, 4);
	if (isnan(out->flops_fp32))
		note_missing(out, KP_M_OP_FFMA);
	have_flops = !isnan(out->flops_fp32);
	if (isnan(out->flops_fp64))
		out->flops_fp64 = 0, note_missing(out, KP_M_OP_DFMA);
	if (isnan(out->flops_fp16))
		out->flops_fp16 = 0, note_missing(out, KP_M_OP_HFMA);
	if (!have_flops)
		out->flops_fp32 = 0;
	out->flops_source = !have_flops ? "missing" : c->rates ? "sass rates x cycles" : "sass counters";
	roofs[(*nroofs)++] = (struct roof){"fp32", out->flops_fp32, hw->fp32};
	roofs[(*nroofs)++] = (struct roof){"fp64", out->flops_fp64, hw->fp64};
	roofs[(*nroofs)++] = (struct roof){"fp16", out->flops_fp16, hw->fp16 > 0 ? hw->fp16 : 2 * hw->fp32};
	return have_flops;
}

/* Tensor-core ops and their roofs; missing counters matter only when the tensor pipe ran. */
static void tensor_flops(struct ctx *c, const struct kp_hw *hw, const struct kp_sass_func *f, struct roof *roofs,
			 size_t *nroofs)
{
	struct kp_stage1 *out = c->out;
	int found = 0;
	double tf32 = tensor_ops(c->l, KP_M_TENSOR_TF32, &found);
	double bf16 = tensor_ops(c->l, KP_M_TENSOR_BF16, &found);
	double fp16 = tensor_ops(c->l, KP_M_TENSOR_FP16, &found);
	double fp8 = tensor_ops(c->l, KP_M_TENSOR_FP8, &found);
	double i8 = tensor_ops(c->l, KP_M_TENSOR_INT8, &found);
	double f64 = tensor_ops(c->l, KP_M_TENSOR_FP64, &found);

	roofs[(*nroofs)++] = (struct roof){"tf32-tc", tf32, hw->tf32_tc};
	roofs[(*nroofs)++] = (struct roof){"bf16-tc", bf16, hw->bf16_tc};
	roofs[(*nroofs)++] = (struct roof){"fp16-tc", fp16, hw->fp16_tc};
	roofs[(*nroofs)++] = (struct roof){"fp8-tc", fp8, hw->fp8_tc > 0 ? hw->fp8_tc : hw->fp16_tc};
	roofs[(*nroofs)++] = (struct roof){"int8-tc", i8, hw->int8_tc > 0 ? hw->int8_tc : hw->fp16_tc};
	roofs[(*nroofs)++] = (struct roof){"fp64-tc", f64, hw->fp64_tc > 0 ? hw->fp64_tc : hw->fp64};
	out->flops_tensor = tf32 + bf16 + fp16 + fp8 + i8 + f64;
	out->flops_int8 = i8;
	if (!found) {
		double pipe = kp_launch_getd(c->l, KP_M_TENSOR_PCT_ELAPSED, 0);
		if (pipe > 1 || (f && (f->counts[KP_SASS_HGMMA] || f->counts[KP_SASS_HMMA] || f->counts[KP_SASS_IMMA] ||
				       f->counts[KP_SASS_IGMMA] || f->counts[KP_SASS_QGMMA])))
			note_missing(out, KP_M_TENSOR_ANY);
	}
}

/* The time the FLOPs need at their own peaks (a mix of precisions adds up); *dominant: the slowest roof. */
static double compute_time(const struct roof *roofs, size_t n, size_t *dominant)
{
	double total = 0, worst = 0;
	*dominant = 0;
	for (size_t i = 0; i < n; i++) {
		double t = roofs[i].flops > 0 && roofs[i].peak > 0 ? roofs[i].flops / roofs[i].peak : 0;
		total += t;
		if (t > worst) {
			worst = t;
			*dominant = i;
		}
	}
	return total;
}

/* Peaks, intensity, achieved rates and fractions, how busy each side is, and the floor time. */
static void place_on_roofline(struct kp_stage1 *out, const struct kp_hw *hw, const struct roof *roofs, size_t n,
			      const struct kp_task_bytes *task)
{
	size_t dominant;
	double tc_time = compute_time(roofs, n, &dominant);

	out->flops = out->flops_fp32 + out->flops_fp64 + out->flops_fp16 + out->flops_tensor;
	out->precision = roofs[dominant].name;
	out->compute_peak = out->flops > 0 && tc_time > 0 ? out->flops / tc_time : hw->fp32;
	out->memory_peak = hw->dram_bw;
	out->ridge_ai = out->memory_peak > 0 ? out->compute_peak / out->memory_peak : NAN;
	out->ai = out->dram_bytes > 0 ? out->flops / out->dram_bytes : (out->flops > 0 ? INFINITY : 0);
	if (task && task->min_bytes > 0)
		out->ai_min = out->flops / task->min_bytes;
	out->attainable = fmin(out->compute_peak, out->ai * out->memory_peak);
	if (out->time_s > 0) {
		out->achieved_flops = out->flops / out->time_s;
		out->achieved_bw = out->dram_bytes / out->time_s;
		out->compute_frac = out->compute_peak > 0 ? out->achieved_flops / out->compute_peak : 0;
		out->memory_frac = out->memory_peak > 0 ? out->achieved_bw / out->memory_peak : 0;
	} else {
		out->achieved_flops = out->achieved_bw = out->compute_frac = out->memory_frac = NAN;
	}
	out->compute_busy = fmax(isnan(out->compute_frac) ? 0 : out->compute_frac,
				 isnan(out->sm_sol_pct) ? 0 : out->sm_sol_pct / 100);
	out->memory_busy = fmax(isnan(out->memory_frac) ? 0 : out->memory_frac,
				isnan(out->mem_sol_pct) ? 0 : out->mem_sol_pct / 100);
	if (task && task->min_bytes > 0 && out->memory_peak > 0)
		out->floor_time_s = fmax(tc_time, task->min_bytes / out->memory_peak);
}

int kp_stage1_run(struct kp_stage1 *out, const struct kp_kernel_profile *p, const struct kp_hw *hw,
		  const struct kp_task_bytes *task, const struct kp_stage1_thresholds *th, struct kp_error *err)
{
	struct kp_stage1_thresholds def;
	struct ctx c;
	struct roof roofs[9];
	size_t nroofs = 0;
	int have_flops;

	memset(out, 0, sizeof(*out));
	if (!p || !p->launch || !hw)
		return kp_error_set(err, KP_EINVAL, "stage 1 needs a launch and a hardware model");
	if (!th) {
		kp_stage1_thresholds_default(&def);
		th = &def;
	}
	c.l = p->launch;
	c.out = out;
	c.rates = 0;
	out->min_bytes = task ? task->min_bytes : NAN;
	out->ai_min = NAN;
	out->floor_time_s = NAN;
	out->precision = "fp32";

	time_and_bytes(&c);
	have_flops = cuda_core_flops(&c, hw, roofs, &nroofs);
	tensor_flops(&c, hw, p->sass, roofs, &nroofs);
	place_on_roofline(out, hw, roofs, nroofs, task);
	kp__stage1_units(out, p->launch, th);
	kp__stage1_stalls(out, p->launch);
	kp__stage1_classify(out, th, have_flops);
	return 0;
}

const struct kp_unit_busy *kp_stage1_busiest(const struct kp_stage1 *s, enum kp_unit_side side)
{
	int i = side == KP_SIDE_SM ? s->sm_unit : s->mem_unit;
	return i >= 0 && (size_t)i < s->nunits ? &s->units[i] : NULL;
}

static json_t *unit_json(const struct kp_unit_busy *u)
{
	json_t *o = json_object();
	kp_json_set(o, "unit", json_string(u->name));
	kp_json_set(o, "side", json_string(u->side == KP_SIDE_SM ? "sm" : "memory"));
	kp_json_set(o, "busy", kp_json_real(u->busy));
	return o;
}

/* {"rule", "sm", "memory", "units": [...], "occupancy_pct", "stall", ...}: what decided the class. */
static json_t *evidence_json(const struct kp_stage1 *s)
{
	json_t *o = json_object(), *units = json_array();
	const struct kp_unit_busy *sm = kp_stage1_busiest(s, KP_SIDE_SM), *mem = kp_stage1_busiest(s, KP_SIDE_MEMORY);
	for (size_t i = 0; i < s->nunits; i++)
		json_array_append_new(units, unit_json(&s->units[i]));
	kp_json_set(o, "rule", json_string(s->rule ? s->rule : "missing"));
	kp_json_set(o, "sm", sm ? unit_json(sm) : NULL);
	kp_json_set(o, "memory", mem ? unit_json(mem) : NULL);
	kp_json_set(o, "units", units);
	kp_json_set(o, "occupancy_pct", kp_json_real(s->occupancy_pct));
	kp_json_set(o, "stall", s->stall ? json_string(s->stall) : NULL);
	kp_json_set(o, "stall_share", kp_json_real(s->stall_share));
	kp_json_set(o, "latency_stalls", kp_json_real(s->latency_stalls));
	return o;
}

json_t *kp_stage1_to_json(const struct kp_stage1 *s)
{
	json_t *o = json_object();
	kp_json_set(o, "class", json_string(kp_bound_name(s->bound)));
	kp_json_set(o, "reason", json_string(s->reason));
	kp_json_set(o, "incomplete", json_boolean(s->incomplete));
	kp_json_set(o, "missing_metrics", json_string(s->missing));
	kp_json_set(o, "time_s", kp_json_real(s->time_s));
	kp_json_set(o, "flops", kp_json_real(s->flops));
	kp_json_set(o, "flops_fp32", kp_json_real(s->flops_fp32));
	kp_json_set(o, "flops_fp64", kp_json_real(s->flops_fp64));
	kp_json_set(o, "flops_fp16", kp_json_real(s->flops_fp16));
	kp_json_set(o, "flops_tensor", kp_json_real(s->flops_tensor));
	kp_json_set(o, "flops_source", json_string(s->flops_source ? s->flops_source : "missing"));
	kp_json_set(o, "precision", json_string(s->precision ? s->precision : "fp32"));
	kp_json_set(o, "dram_bytes", kp_json_real(s->dram_bytes));
	kp_json_set(o, "min_bytes", kp_json_real(s->min_bytes));
	kp_json_set(o, "ai", kp_json_real(s->ai));
	kp_json_set(o, "ai_min", kp_json_real(s->ai_min));
	kp_json_set(o, "compute_peak", kp_json_real(s->compute_peak));
	kp_json_set(o, "memory_peak", kp_json_real(s->memory_peak));
	kp_json_set(o, "ridge_ai", kp_json_real(s->ridge_ai));
	kp_json_set(o, "attainable_flops", kp_json_real(s->attainable));
	kp_json_set(o, "achieved_flops", kp_json_real(s->achieved_flops));
	kp_json_set(o, "achieved_bw", kp_json_real(s->achieved_bw));
	kp_json_set(o, "compute_frac", kp_json_real(s->compute_frac));
	kp_json_set(o, "memory_frac", kp_json_real(s->memory_frac));
	kp_json_set(o, "sm_sol_pct", kp_json_real(s->sm_sol_pct));
	kp_json_set(o, "mem_sol_pct", kp_json_real(s->mem_sol_pct));
	kp_json_set(o, "compute_busy", kp_json_real(s->compute_busy));
	kp_json_set(o, "memory_busy", kp_json_real(s->memory_busy));
	kp_json_set(o, "floor_time_s", kp_json_real(s->floor_time_s));
	kp_json_set(o, "evidence", evidence_json(s));
	return o;
}
