/* Stage 1: FLOPs and bytes, the kernel's place on the roofline, and its bottleneck class. */
#ifndef KERNELPRO_ANALYZE_H
#define KERNELPRO_ANALYZE_H

#include <jansson.h>

#include "kernelpro/hw.h"
#include "kernelpro/profile.h"

enum kp_bound {
	KP_BOUND_UNKNOWN = 0,
	KP_BOUND_COMPUTE = 1,
	KP_BOUND_MEMORY = 2,
	KP_BOUND_LATENCY = 3,  /* neither roof reached: both throughputs far below peak */
	KP_BOUND_MIXED = 4,
};

const char *kp_bound_name(enum kp_bound b); /* "compute", "memory", "latency", "mixed", "unknown" */

/* What the task knows about the minimum traffic (each input read once, each output written once). */
struct kp_task_bytes {
	double min_bytes;    /* NAN when unknown */
	double flops_hint;   /* NAN when unknown: FLOPs the task itself counts */
};

struct kp_stage1 {
	double time_s;            /* gpu__time_duration */
	/* FLOPs from executed-instruction counters (fadd + fmul + 2*ffma per precision) and tensor ops. */
	double flops_fp32, flops_fp64, flops_fp16, flops_tensor, flops;
	double dram_bytes;        /* measured DRAM read + write */
	double min_bytes;         /* from the task; NAN when unknown */
	double ai;                /* flops / dram_bytes */
	double ai_min;            /* flops / min_bytes; NAN when unknown */
	double compute_peak;      /* the roof for the dominant precision, FLOP/s */
	double memory_peak;       /* bytes/s */
	double ridge_ai;          /* compute_peak / memory_peak */
	double attainable;        /* min(compute_peak, ai * memory_peak) */
	double achieved_flops;    /* FLOP/s */
	double achieved_bw;       /* bytes/s */
	double compute_frac;      /* achieved / compute_peak, 0..1 */
	double memory_frac;       /* achieved_bw / memory_peak */
	double sm_sol_pct;        /* ncu sm__throughput (% of peak), NAN when missing */
	double mem_sol_pct;       /* ncu gpu__compute_memory_throughput (% of peak), NAN when missing */
	double floor_time_s;      /* max(flops/compute_peak, min_bytes/memory_peak): no version runs faster */
	enum kp_bound bound;
	const char *precision;    /* the roof that bounds the FLOPs: "fp32", "fp64", "fp16" (CUDA cores),
				     "tf32-tc", "bf16-tc", "fp16-tc", "fp8-tc", "int8-tc", "fp64-tc" */
	char reason[256];         /* one sentence: why this class */
	int incomplete;           /* some inputs were missing; numbers are partial */
	/* Added by issue 3: */
	double compute_busy;      /* max(compute_frac, sm_sol_pct/100): how busy the SM side is, 0..1 */
	double memory_busy;       /* max(memory_frac, mem_sol_pct/100): how busy the memory side is */
	double flops_int8;        /* INT8 tensor ops (counted in flops_tensor too) */
	const char *flops_source; /* "sass counters", "sass rates x cycles", or "missing" */
	char missing[256];        /* the metrics that were absent, comma-separated */
};

/* The thresholds of the classifier, named in one place (docs/analyze.md explains each). */
struct kp_stage1_thresholds {
	double roof_frac;     /* a roof counts as reached at this fraction of peak (default 0.60) */
	double latency_frac;  /* both below this fraction: latency-bound (default 0.30) */
	double mixed_margin;  /* both within this of each other and above roof_frac*0.75: mixed (default 0.15) */
};

void kp_stage1_thresholds_default(struct kp_stage1_thresholds *t);

/* The ncu metrics Stage 1 reads, NULL-terminated: what a targeted collection must ask for. */
const char *const *kp_stage1_metrics(void);

/* {"class", "reason", "time_s", "flops", ...}: one Stage-1 result as JSON (docs/diagnose-json.md). New reference. */
json_t *kp_stage1_to_json(const struct kp_stage1 *s);

/* Stage 1 for one kernel profile on one hardware model. `task` may be NULL. */
int kp_stage1_run(struct kp_stage1 *out, const struct kp_kernel_profile *p, const struct kp_hw *hw,
		  const struct kp_task_bytes *task, const struct kp_stage1_thresholds *t, struct kp_error *err);

/* ---- The diagnosis report (kernelpro diagnose / analyze; schema in docs/diagnose-json.md) ----- */

/*
 * The object for one launch: {"launch_id", "kernel", "function", "grid",
 * "block", "sources", "stage1", "findings": []}. The tools (lib/tools) append
 * their findings, in priority order, to its "findings" array. New reference.
 */
json_t *kp_diagnose_launch_json(const struct kp_kernel_profile *p, const struct kp_stage1 *s1);
/* {"key", "name", "device", "source", "calibrated", "dram_bw", "fp32", ...}: the model used. New reference. */
json_t *kp_hw_to_json(const struct kp_hw *hw);

/* Appends the human-readable Stage-1 lines of one launch (indented by two spaces) to out. */
void kp_stage1_describe(const struct kp_stage1 *s, struct kp_buf *out);

#endif
