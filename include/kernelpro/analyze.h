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

/* Which side of the GPU a unit belongs to: the SMs' pipes and issue slots, or the memory system. */
enum kp_unit_side { KP_SIDE_SM = 0, KP_SIDE_MEMORY = 1 };

/* One unit and how busy it was: the share of its peak over the kernel's elapsed time, 0..1. */
struct kp_unit_busy {
	const char *name; /* "FMA pipe", "DRAM", "shared memory (conflict-free part)", ... */
	enum kp_unit_side side;
	double busy;
};

#define KP_STAGE1_MAX_UNITS 12

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
	char reason[400];         /* one or two sentences: why this class, with the evidence that decided */
	int incomplete;           /* some inputs were missing; numbers are partial */
	/* Added by issue 3: */
	double compute_busy;      /* max(compute_frac, sm_sol_pct/100): how busy the SM side is, 0..1 */
	double memory_busy;       /* max(memory_frac, mem_sol_pct/100): how busy the memory side is */
	double flops_int8;        /* INT8 tensor ops (counted in flops_tensor too) */
	const char *flops_source; /* "sass counters", "sass rates x cycles", or "missing" */
	char missing[256];        /* the metrics that were absent, comma-separated */
	/* Added by issue 19: the measured utilization the class rests on (docs/analyze.md). */
	struct kp_unit_busy units[KP_STAGE1_MAX_UNITS]; /* every unit measured, in a fixed order */
	size_t nunits;
	int sm_unit, mem_unit;    /* index in units of the busiest of each side; -1 when none measured */
	double occupancy_pct;     /* achieved occupancy (sm__warps_active), NAN when missing */
	const char *stall;        /* the stall reason with the most warp cycles ("long_scoreboard"); NULL if unknown */
	double stall_share;       /* its share of all stall cycles per issued instruction, 0..1 */
	double latency_stalls;    /* share of stall cycles that wait on latency (scoreboards, barriers), NAN if unknown */
	const char *rule;         /* the rule that decided: "idle", "starved", "mixed", "intensity", "utilization",
				     "throughput" (no FLOP counters) or "missing" */
};

/* The thresholds of the classifier, named in one place (docs/analyze.md explains each). */
struct kp_stage1_thresholds {
	double roof_frac;     /* a roof counts as reached at this fraction of peak (default 0.60) */
	double latency_frac;  /* both below this fraction: latency-bound (default 0.30) */
	double mixed_margin;  /* both within this of each other and above roof_frac*0.75: mixed (default 0.15) */
	double sm_margin;     /* below the ridge, the SM side must be this much busier than memory for compute (0.10) */
	double starved_occupancy; /* achieved occupancy (%) below which a kernel with no saturated unit is latency (25) */
	double starved_stall;  /* ...when a latency stall reason holds at least this share of the warp cycles (0.5) */
	double issue_bound;    /* issue slots count as the SM side's bound only from this share on (0.90) */
};

void kp_stage1_thresholds_default(struct kp_stage1_thresholds *t);

/* The unit the busiest of a side is, or NULL when that side has none measured. */
const struct kp_unit_busy *kp_stage1_busiest(const struct kp_stage1 *s, enum kp_unit_side side);

/* The ncu metrics Stage 1 reads, NULL-terminated: what a targeted collection must ask for. */
const char *const *kp_stage1_metrics(void);

/* {"class", "reason", "time_s", "flops", ...}: one Stage-1 result as JSON (docs/diagnose-json.md). New reference. */
json_t *kp_stage1_to_json(const struct kp_stage1 *s);

/* Stage 1 for one kernel profile on one hardware model. `task` may be NULL. */
int kp_stage1_run(struct kp_stage1 *out, const struct kp_kernel_profile *p, const struct kp_hw *hw,
		  const struct kp_task_bytes *task, const struct kp_stage1_thresholds *t, struct kp_error *err);

/* ---- The whole task: every kernel of a multi-kernel task (task.c) ---------------------------- */

/*
 * The fraction of the datasheet DRAM bandwidth a streaming kernel reaches in practice (measured
 * on the H200 probe: 89.7% in ncu, a device copy 88%): a kernel there has nothing left to save.
 */
#define KP_DRAM_PRACTICAL 0.90

/* Which kernels the tools run on: the largest savings first, until `share` of all the savings. */
struct kp_task_cutoff {
	double share;        /* stop once the selected kernels hold this share of the savings (0.80) */
	size_t max_kernels;  /* at most this many kernels (5) */
	double min_saving;   /* never a kernel that saves less than this share of the task's time (0.01) */
};

void kp_task_cutoff_default(struct kp_task_cutoff *c);

/* One kernel of a task: its launches (grouped by ncu's kernel name) together. */
struct kp_task_kernel {
	const char *name;        /* ncu's kernel name (borrowed from the profile) */
	const char *function;    /* the bare function name (borrowed) */
	size_t nlaunches;
	size_t longest;          /* index (into the arrays given to kp_task_stage1_build) of its longest launch */
	double longest_s;
	double time_s, flops, dram_bytes, share; /* share: of the task's kernel time */
	enum kp_bound bound;     /* the class of its longest launch */
	const char *rule;        /* the rule that decided it */
	double ai, compute_frac, memory_frac;
	double compute_s;        /* its FLOPs at their peaks */
	double roofline_s;       /* per launch max(FLOPs at their peaks, measured bytes at the practical DRAM
				    bandwidth), summed: the kernel at its roofline */
	double saving_s;         /* time - roofline_s: what could be saved */
	int selected;            /* within the cut-off: the tools run on its longest launch */
};

struct kp_task_stage1 {
	struct kp_task_kernel *kernels; /* by saving_s, largest first */
	size_t n, nlaunches, nselected;
	double time_s, flops, dram_bytes, ai, ridge_ai, compute_peak, memory_peak, compute_frac, memory_frac;
	double min_bytes;        /* the task's minimum traffic, NAN when unknown */
	double floor_s;          /* max(all FLOPs at their peaks, min_bytes at DRAM peak): NAN without min_bytes */
	double roofline_s;       /* the kernels' roofline times added up */
	double saving_s, selected_saving_s;
	struct kp_task_cutoff cutoff;
};

/*
 * Groups n launches (ks[i] with its Stage 1 s1[i]) by kernel and ranks them by the time that
 * could be saved; `task` (may be NULL) gives the minimum traffic, `cut` (NULL: defaults) the
 * cut-off. Release with kp_task_stage1_release.
 */
void kp_task_stage1_build(struct kp_task_stage1 *t, const struct kp_kernel_profile *ks, const struct kp_stage1 *s1,
			  size_t n, const struct kp_task_bytes *task, const struct kp_task_cutoff *cut);
void kp_task_stage1_release(struct kp_task_stage1 *t);
/* {"time_s", "ai", "floor_s", ..., "kernels": [{"rank", "kernel", "share", "class", "saving_s", "tools"}]}. New reference. */
json_t *kp_task_stage1_to_json(const struct kp_task_stage1 *t, const struct kp_kernel_profile *ks);
/* The ranking as text (at most max_rows kernels), for people and for the LLM. */
void kp_task_stage1_describe(const struct kp_task_stage1 *t, size_t max_rows, struct kp_buf *out);

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
