/*
 * warp_stalls: the dominant reasons warps are not issuing, each translated
 * into what the code is doing and what to change. A stall is a symptom: each
 * reason names the tools whose findings explain it, and folds into them.
 */
#include "base/setup.h"

#include "tools/tool_util.h"

enum { T_SHARE, T_ISSUE };

static const struct kp_threshold thresholds[] = {
	{"min_stall_share", 0.30, "", "a stall reason taking at least this share of the cycles between instructions fires"},
	{"max_issue_active", 0.80, "", "only when the schedulers issue on fewer than this share of cycles"},
	{NULL, 0, NULL, NULL},
};

struct stall {
	const char *reason;       /* ncu's name */
	const char *metric;
	const char *what;         /* what the warps wait for */
	const char *cause;
	const char *recs[2];
	const char *explained_by; /* space-separated tool ids */
};

static const struct stall stalls[] = {
	{"long_scoreboard", KP_M_STALL_LONG_SCOREBOARD, "global or local memory data (long scoreboard)",
	 "Loads from global or local memory are outstanding and the next instruction needs their data; there is "
	 "not enough independent work in flight to cover DRAM latency.",
	 {"Issue independent loads early and use the values late: unroll loops so several loads are in flight, "
	  "or give each thread several elements",
	  "Cut the bytes behind each stall: coalesced and vectorized accesses, data reused from shared memory"},
	 "coalescing vector_width cache_reuse local_memory grid_waves occupancy atomics"},
	{"lg_throttle", KP_M_STALL_LG_THROTTLE, "the local/global memory queue (LG throttle)",
	 "The load/store queue to L1 is full: too many separate global or local memory instructions.",
	 {"Issue fewer, wider memory instructions (float4 / 128-bit loads)",
	  "Remove local-memory traffic (spills, dynamically indexed arrays)"},
	 "local_memory vector_width atomics coalescing"},
	{"short_scoreboard", KP_M_STALL_SHORT_SCOREBOARD,
	 "shared memory or special-function results (short scoreboard)",
	 "Instructions wait for shared-memory loads or MUFU (exp, rcp, sin) results; bank conflicts make these "
	 "waits longer.",
	 {"Remove bank conflicts (pad shared arrays by one element, or swizzle) and load shared memory with "
	  "wider accesses",
	  "Interleave independent math between a shared-memory load and its first use"},
	 "bank_conflicts instruction_mix atomics"},
	{"mio_throttle", KP_M_STALL_MIO_THROTTLE, "the shared-memory/MIO queue (MIO throttle)",
	 "The memory-input/output queue is full: many shared-memory instructions, special-function ops or "
	 "dynamic branches.",
	 {"Use fewer, wider shared-memory accesses (LDS.128, ldmatrix) and remove bank conflicts",
	  "Reduce special-function instructions per element"},
	 "bank_conflicts instruction_mix atomics"},
	{"barrier", KP_M_STALL_BARRIER, "__syncthreads() barriers",
	 "Warps of a block wait at a barrier for the slowest warp: the work between barriers is uneven or "
	 "barriers are too frequent.",
	 {"Give every warp the same work between barriers, and remove barriers that order nothing",
	  "Double-buffer shared-memory tiles so one barrier per tile suffices; split blocks of 512+ threads"},
	 "divergence occupancy"},
	{"drain", KP_M_STALL_DRAIN, "memory stores to drain at exit (drain)",
	 "Warps that finished wait for their outstanding stores (or reductions) to complete before exiting.",
	 {"Make the final stores coalesced and wide; avoid many atomics/reductions at the end of the kernel",
	  "Give each thread more work so the exit cost is amortized"},
	 "atomics coalescing vector_width"},
	{"math_pipe_throttle", KP_M_STALL_MATH_PIPE_THROTTLE, "a busy math pipe (math pipe throttle)",
	 "One arithmetic pipe is oversubscribed: the kernel is compute-bound on it.",
	 {"Move the work to a faster unit (tensor cores for matrix math, FP32 instead of FP64)",
	  "Balance the instruction mix across pipes"},
	 "pipe_balance tensor_cores instruction_mix"},
	{"wait", KP_M_STALL_WAIT, "fixed-latency dependencies (wait)",
	 "Each instruction depends on the result of the previous one: a long dependent chain with no "
	 "instruction-level parallelism.",
	 {"Break dependency chains: several independent accumulators, unrolled loops",
	  "Use intrinsics (__fdividef, __expf) that shorten chains where precision allows"},
	 "instruction_mix"},
	{"branch_resolving", KP_M_STALL_BRANCH_RESOLVING, "branch targets (branch resolving)",
	 "Warps wait for branch targets to be computed: many or divergent branches.",
	 {"Replace short data-dependent branches by selects (x = c ? a : b)",
	  "Make conditions uniform across a warp"},
	 "divergence"},
	{"no_instruction", KP_M_STALL_NO_INSTRUCTION, "instruction fetch (no instruction)",
	 "The instruction cache misses or warps are not selected to fetch: typical of very short kernels or "
	 "huge unrolled code.",
	 {"Give each block more work so start-up costs are amortized", "Reduce code size (less unrolling)"},
	 "grid_waves launch_overhead"},
	{"membar", KP_M_STALL_MEMBAR, "memory fences (membar)",
	 "Memory barriers (__threadfence, atomics with fences) wait for prior memory operations.",
	 {"Remove fences that order nothing; use relaxed atomics", "Batch work between fences"},
	 "atomics"},
	{"imc_miss", KP_M_STALL_IMC_MISS, "the immediate constant cache (IMC miss)",
	 "Threads read constant memory at divergent addresses, so the constant cache serializes.",
	 {"Read constant memory at warp-uniform addresses only; move per-thread tables to global or shared memory",
	  NULL},
	 ""},
	{"tex_throttle", KP_M_STALL_TEX_THROTTLE, "the texture pipeline (tex throttle)",
	 "The texture/L1 pipeline is oversubscribed.",
	 {"Issue fewer texture or surface fetches per element", NULL},
	 ""},
	{"dispatch_stall", KP_M_STALL_DISPATCH_STALL, "the dispatcher (dispatch stall)",
	 "The pipeline cannot accept the instruction due to a dispatch conflict.",
	 {"Balance the instruction mix across pipes", NULL},
	 "pipe_balance"},
	{"gmma", KP_M_STALL_GMMA, "warpgroup MMA operations (GMMA)",
	 "Warps wait for asynchronous wgmma operations to complete.",
	 {"Deepen the software pipeline: issue the next wgmma batch before waiting on the previous one", NULL},
	 ""},
	{"misc", KP_M_STALL_MISC, "miscellaneous hardware reasons",
	 "A rare hardware condition keeps warps from issuing.",
	 {"Look at the per-instruction stall breakdown (ncu source view) for the hot instruction", NULL},
	 ""},
	{"sleeping", KP_M_STALL_SLEEPING, "__nanosleep (sleeping)",
	 "Warps sleep on purpose (__nanosleep in spin loops).",
	 {"Shorten or remove spin-wait loops", NULL},
	 ""},
};

#define STALL_METRIC(r) KP_TM_STALL(KP_M_STALL_##r),
static const struct kp_tool_metric metrics[] = {
	{KP_M_STALL_TOTAL, 0},
	{KP_M_ISSUE, KP_TM_OPTIONAL},
	/* Every reason of the table above (the unit tests run each one). */
	STALL_METRIC(LONG_SCOREBOARD) STALL_METRIC(LG_THROTTLE) STALL_METRIC(SHORT_SCOREBOARD)
	STALL_METRIC(MIO_THROTTLE) STALL_METRIC(BARRIER) STALL_METRIC(DRAIN) STALL_METRIC(MATH_PIPE_THROTTLE)
	STALL_METRIC(WAIT) STALL_METRIC(BRANCH_RESOLVING) STALL_METRIC(NO_INSTRUCTION) STALL_METRIC(MEMBAR)
	STALL_METRIC(IMC_MISS) STALL_METRIC(TEX_THROTTLE) STALL_METRIC(DISPATCH_STALL) STALL_METRIC(GMMA)
	STALL_METRIC(MISC) STALL_METRIC(SLEEPING)
	KP_TM_SOL,
	{NULL, 0},
};
#undef STALL_METRIC

static int trigger(const struct kp_tool_input *m, const double *t)
{
	double issue = kp_tool_metric(m, KP_M_ISSUE);
	if (!isnan(issue) && issue >= t[T_ISSUE])
		return 0;
	for (size_t i = 0; i < KP_ARRAY_SIZE(stalls); i++)
		if (kp_tool_stall_share(m, stalls[i].metric) >= t[T_SHARE])
			return 1;
	return 0;
}

static int analyze(const struct kp_tool_input *m, const double *t, struct kp_findings *out)
{
	double headroom = kp_tool_headroom(m), total = kp_tool_metric(m, KP_M_STALL_TOTAL);
	double issue = kp_tool_metric(m, KP_M_ISSUE);

	if (isnan(headroom))
		headroom = 1.0;
	for (size_t i = 0; i < KP_ARRAY_SIZE(stalls); i++) {
		const struct stall *s = &stalls[i];
		double share = kp_tool_stall_share(m, s->metric);
		struct kp_finding *f;
		if (!(share >= t[T_SHARE]))
			continue;
		f = kp_finding_new(out, KP_SEV_NONE, "Warps stall on %s: %.0f%% of the cycles between instructions",
				   s->what, share * 100);
		kp_finding_cause(f, "%s", s->cause);
		kp_finding_evidence(f, s->metric, kp_tool_metric(m, s->metric), NAN, "cycles");
		kp_finding_evidence(f, "share of warp cycles per issued instruction", share * 100, t[T_SHARE] * 100, "%");
		kp_tool_evidence(f, KP_M_STALL_TOTAL, total, NAN, "cycles");
		kp_tool_evidence(f, KP_M_ISSUE, issue, t[T_ISSUE], "");
		for (size_t r = 0; r < 2 && s->recs[r]; r++)
			kp_finding_rec(f, "%s", s->recs[r]);
		kp_finding_gain(f, headroom * share, "this stall's share of the headroom to the busiest unit");
		kp_tool_explained_by_list(f, s->explained_by);
	}
	return 0;
}

const struct kp_tool kp_tool_warp_stalls = {
	.name = "warp_stalls",
	.description = "Dominant warp stall reasons and what each means for the code",
	.details = "Reads ncu's CPI stack (smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio over "
		   "the warp cycles per issued instruction). When the schedulers issue on fewer than "
		   "max_issue_active of cycles, each reason above min_stall_share becomes a finding that says "
		   "what the warps wait for and what to change. A stall is a symptom: each reason names the "
		   "tools that find its cause (long_scoreboard: coalescing, vector_width, cache_reuse, "
		   "local_memory, ...; short_scoreboard: bank_conflicts, ...), and folds into their finding when "
		   "they fire.",
	.sources = KP_SRC_NCU,
	.metrics = metrics,
	.thresholds = thresholds,
	.trigger = trigger,
	.analyze = analyze,
};
