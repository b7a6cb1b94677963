/*
 * divergence: warps executing with many lanes masked off, from divergent
 * branches, predication, or a block size that leaves partial warps. The lost
 * lanes are work the SMs issue for nothing.
 */
#include "base/setup.h"

#include "tools/tool_util.h"

enum { T_MIN_ACTIVE };

static const struct kp_threshold thresholds[] = {
	{"min_active_threads", 24, "", "fires when fewer threads than this (of 32) are active, or not predicated off, per instruction"},
	{NULL, 0, NULL, NULL},
};

static const struct kp_tool_metric metrics[] = {
	{KP_M_THREADS_PER_INST, 0},
	{KP_M_THREADS_PRED_PER_INST, KP_TM_OPTIONAL},
	{KP_M_BRANCH_UNIFORM, KP_TM_OPTIONAL},
	KP_TM_SOL,
	{NULL, 0},
};

static int trigger(const struct kp_tool_input *m, const double *t)
{
	double active = kp_tool_metric(m, KP_M_THREADS_PER_INST);
	double pred = kp_tool_metric(m, KP_M_THREADS_PRED_PER_INST);
	return active < t[T_MIN_ACTIVE] || pred < t[T_MIN_ACTIVE];
}

static int analyze(const struct kp_tool_input *m, const double *t, struct kp_findings *out)
{
	double active = kp_tool_metric(m, KP_M_THREADS_PER_INST);
	double pred = kp_tool_metric(m, KP_M_THREADS_PRED_PER_INST);
	double uniform = kp_tool_metric(m, KP_M_BRANCH_UNIFORM), useful = isnan(pred) ? active : fmin(active, pred);
	unsigned threads = kp_tool_block_threads(m);
	struct kp_finding *f;

	if (threads && threads % 32 && threads < 32 * 4) {
		f = kp_finding_new(out, KP_SEV_NONE, "Partial warps: blocks of %u threads leave %u lanes of the last warp idle",
				   threads, 32 - threads % 32);
		kp_finding_cause(f, "The block size is not a multiple of 32, so every block's last warp runs with only "
				    "%u active threads.",
				 threads % 32);
		kp_finding_rec(f, "Use a block size that is a multiple of 32 (128 or 256) and guard the tail with "
				  "if (i < n)");
	} else if (active < t[T_MIN_ACTIVE]) {
		f = kp_finding_new(out, KP_SEV_NONE, "Divergent warps: on average %.1f of 32 threads active per instruction", active);
		kp_finding_cause(f, "Threads of one warp take different paths through data- or lane-dependent branches "
				    "(for example `if (i & 1)`), so the warp executes each path in turn with the other "
				    "lanes masked off.");
		kp_finding_rec(f, "Make the condition uniform per warp: remap work so that all 32 lanes of a warp take the "
				  "same path, e.g. branch on (i / 32) %% 2 instead of i %% 2 and permute the data "
				  "accordingly");
		kp_finding_rec(f, "Sort or bin the work items by the path they take before the kernel, or split the "
				  "kernel into one launch per path");
		kp_finding_rec(f, "When both sides are short, compute both and select (x = c ? a : b) so the warp "
				  "never splits");
	} else {
		f = kp_finding_new(out, KP_SEV_NONE, "Predicated-off lanes: on average %.1f of 32 threads do useful work per instruction",
				   pred);
		kp_finding_cause(f, "Instructions issue for the whole warp but many lanes are predicated off: guards "
				    "such as `if (i < n)` inside loops, or early exits that leave lanes idle.");
		kp_finding_rec(f, "Hoist bounds checks out of inner loops (handle the tail in a separate loop) and "
				  "launch exactly as many threads as there is work");
	}
	kp_finding_evidence(f, KP_M_THREADS_PER_INST, active, t[T_MIN_ACTIVE], "threads");
	kp_tool_evidence(f, KP_M_THREADS_PRED_PER_INST, pred, t[T_MIN_ACTIVE], "threads");
	kp_tool_evidence(f, KP_M_BRANCH_UNIFORM, uniform, NAN, "%");
	kp_finding_gain(f, (1.0 - useful / 32.0) * kp_tool_compute_weight(m),
			"the idle-lane share of issued work, in proportion to the compute-bound share of the time");
	return 0;
}

const struct kp_tool kp_tool_divergence = {
	.name = "divergence",
	.description = "Warps running with lanes masked off: divergent branches, predication, partial warps",
	.details = "Reads the average number of active threads per executed warp instruction and the number not "
		   "predicated off. Below min_active_threads (of 32) the warp does a fraction of the work it "
		   "issues: divergent branches, predicated guards in loops, or blocks whose size is not a "
		   "multiple of 32. The gain is the idle-lane share of issued work, weighted by how compute-bound "
		   "the kernel is.",
	.sources = KP_SRC_NCU,
	.metrics = metrics,
	.thresholds = thresholds,
	.trigger = trigger,
	.analyze = analyze,
};
