/*
 * pipe_balance: one execution pipe (FMA, ALU, XU/SFU, FP64, LSU) or the
 * issue slots themselves saturated while the rest idle. Names the pipe, what
 * instructions feed it, and how to shift or remove them.
 */
#include "base/setup.h"

#include "tools/tool_util.h"

enum { T_SATURATED, T_ISSUE, T_FP64 };

static const struct kp_threshold thresholds[] = {
	{"saturated_pct", 70, "%", "a pipe busy at least this share of active cycles is the bottleneck (near saturation)"},
	{"issue_bound_pct", 90, "%", "issue slots used at least this share of active cycles: instruction-bound"},
	{"fp64_pct", 15, "%", "FP64 pipe busier than this in a kernel that is not FP64 by design"},
	{NULL, 0, NULL, NULL},
};

struct pipe {
	const char *metric;
	const char *name;
	const char *feeds;
	const char *rec;
	const char *explained_by;
};

static const struct pipe pipes[] = {
	{KP_M_PIPE_FMA, "FMA (FP32 and IMAD)", "FP32 FFMA/FADD/FMUL and integer multiply-add (IMAD) address math",
	 "Move matrix-shaped math to tensor cores; hoist index arithmetic (IMAD) out of inner loops; use packed "
	 "half2/bfloat162 math (HFMA2) where precision allows",
	 "tensor_cores instruction_mix"},
	{KP_M_PIPE_ALU, "ALU (integer and logic)", "integer adds, comparisons, shifts, logic and min/max",
	 "Precompute indices and strides outside loops, replace division/modulo by powers of two with shifts and "
	 "masks, and drop redundant bounds checks inside unrolled loops",
	 "divergence instruction_mix"},
	{KP_M_PIPE_XU, "XU (special functions)", "MUFU transcendentals (exp, log, sin, rcp, rsqrt) and conversions",
	 "Compute fewer transcendentals per element (reuse exp/log results, algebraic rewrites), and keep "
	 "conversions out of inner loops",
	 "instruction_mix"},
	{KP_M_PIPE_FP64, "FP64", "double-precision arithmetic",
	 "Use FP64 tensor cores (DMMA, via cuBLAS/CUTLASS) for FP64 matrix math, or FP32 where the accuracy allows",
	 "instruction_mix"},
	{KP_M_PIPE_LSU, "LSU (load/store)", "load/store instructions to global, local and shared memory",
	 "Issue fewer, wider memory instructions (128-bit), and keep reused values in registers (register "
	 "blocking: each thread computes several outputs from one set of loaded values)",
	 "vector_width cache_reuse bank_conflicts local_memory tensor_cores"},
};

static const struct kp_tool_metric metrics[] = {
	{KP_M_PIPE_FMA, KP_TM_OPTIONAL},
	{KP_M_PIPE_ALU, KP_TM_OPTIONAL},
	{KP_M_PIPE_XU, KP_TM_OPTIONAL},
	{KP_M_PIPE_FP64, KP_TM_OPTIONAL},
	{KP_M_PIPE_LSU, KP_TM_OPTIONAL},
	{KP_M_ISSUE_PCT, KP_TM_OPTIONAL},
	KP_TM_SOL,
	{NULL, 0},
};

/* FP64 fed by float<->double conversions (F2F.F64 in the SASS) is promotion, not FP64 by design. */
static int fp64_promoted(const struct kp_tool_input *m)
{
	const struct kp_sass_func *s = m->profile->sass;
	return s && s->counts[KP_SASS_F2F_F64] > 0;
}

static int pipe_fires(const struct kp_tool_input *m, size_t i, const double *t)
{
	double v = kp_tool_metric(m, pipes[i].metric);
	if (!strcmp(pipes[i].name, "FP64") && fp64_promoted(m))
		return v > t[T_FP64];
	return v >= t[T_SATURATED];
}

static int trigger(const struct kp_tool_input *m, const double *t)
{
	int known = 0;
	for (size_t i = 0; i < KP_ARRAY_SIZE(pipes); i++) {
		if (!isnan(kp_tool_metric(m, pipes[i].metric)))
			known = 1;
		if (pipe_fires(m, i, t))
			return 1;
	}
	if (kp_tool_metric(m, KP_M_ISSUE_PCT) >= t[T_ISSUE])
		return 1;
	return known || !isnan(kp_tool_metric(m, KP_M_ISSUE_PCT)) ? 0 : KP_EMISSING;
}

static int analyze(const struct kp_tool_input *m, const double *t, struct kp_findings *out)
{
	double issue = kp_tool_metric(m, KP_M_ISSUE_PCT);
	struct kp_finding *f;

	for (size_t i = 0; i < KP_ARRAY_SIZE(pipes); i++) {
		const struct pipe *p = &pipes[i];
		double v = kp_tool_metric(m, p->metric);
		if (!pipe_fires(m, i, t))
			continue;
		if (!strcmp(p->name, "FP64") && fp64_promoted(m)) {
			const struct kp_hw *hw = m->hw;
			double ratio = hw && hw->fp32 > 0 && hw->fp64 > 0 ? fmin(1.0, hw->fp64 / hw->fp32) : NAN;
			f = kp_finding_new(out, KP_SEV_NONE, "FP64 pipe busy %.0f%% of cycles on promoted float math", v);
			kp_finding_cause(f, "Double-precision instructions run at a fraction of the FP32 rate; they "
					    "usually come from double literals (1.0 instead of 1.0f), double math functions "
					    "(exp instead of expf) or implicit promotions.");
			kp_finding_rec(f, "Write float literals (1.0f, 0.5f) and float functions (expf, sqrtf, fabsf); "
					  "compile with -Xptxas -warn-double-usage to find each promotion");
			if (!isnan(ratio))
				kp_finding_gain(f, (v / 100.0) * (1.0 - ratio) * kp_tool_compute_weight(m),
						"the FP64 pipe's busy time at the FP32 rate (FP64 runs at %.0f%% of it here), "
						"in proportion to the compute-bound share", ratio * 100);
			kp_finding_evidence(f, p->metric, v, t[T_FP64], "%");
		} else {
			f = kp_finding_new(out, KP_SEV_NONE, "%s pipe saturated: busy %.0f%% of active cycles", p->name, v);
			kp_finding_cause(f, "The kernel is bound by %s; the other pipes wait on it.", p->feeds);
			kp_finding_rec(f, "%s", p->rec);
			kp_finding_evidence(f, p->metric, v, t[T_SATURATED], "%");
		}
		kp_tool_explained_by_list(f, p->explained_by);
	}
	if (issue >= t[T_ISSUE]) {
		f = kp_finding_new(out, KP_SEV_NONE, "Instruction-issue bound: the schedulers issue on %.0f%% of cycles", issue);
		kp_finding_cause(f, "Every cycle is spent issuing instructions: the kernel is limited by how many "
				    "instructions it needs per result, not by latency or memory.");
		kp_finding_rec(f, "Cut instructions per element: fast intrinsics (__sinf, __expf, __fdividef) where "
				  "precision allows, fewer index computations, predication instead of branches");
		kp_finding_rec(f, "Make every issued instruction do full work: no half-empty warps (divergence), "
				  "vector loads, packed half2 math");
		kp_finding_evidence(f, KP_M_ISSUE_PCT, issue, t[T_ISSUE], "%");
		kp_tool_explained_by_list(f, "divergence instruction_mix tensor_cores");
	}
	return 0;
}

const struct kp_tool kp_tool_pipe_balance = {
	.name = "pipe_balance",
	.description = "Saturated execution pipes (FMA, ALU, XU/SFU, FP64, LSU) or saturated issue slots",
	.details = "Reads each pipe's utilisation in active cycles. A pipe at or above saturated_pct is the "
		   "kernel's bottleneck: the finding names the instructions that feed it and how to move or remove "
		   "them. FP64 above fp64_pct when the SASS converts between float and double (F2F.F64) means "
		   "accidental promotion; its gain uses the hardware model's FP64/FP32 rate ratio. Issue slots at or above issue_bound_pct mean the kernel "
		   "needs fewer instructions per result. Each finding folds into the tool that names the cause "
		   "(tensor_cores for FMA, instruction_mix for XU/FP64, divergence for issue).",
	.sources = KP_SRC_NCU,
	.metrics = metrics,
	.thresholds = thresholds,
	.trigger = trigger,
	.analyze = analyze,
};
