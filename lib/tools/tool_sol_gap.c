/*
 * sol_gap: how far the kernel is from the compute and memory roofs, and what
 * that implies. Always runs. Near a roof it says so (only less work helps);
 * far from both it names the situation, and folds into any more specific
 * finding that explains the gap.
 */
#include "base/setup.h"

#include "tools/tool_util.h"

enum { T_NEAR_ROOF, T_FAR };

static const struct kp_threshold thresholds[] = {
	{"near_roof", 0.80, "", "busiest unit at or above this fraction of its practical peak: the kernel is at a roof"},
	{"far_pct", 60, "%", "SM and memory throughput both below this: latency-bound, neither roof approached"},
	{NULL, 0, NULL, NULL},
};

static const struct kp_tool_metric metrics[] = {
	KP_TM_SOL,
	{KP_M_L1_PCT, KP_TM_OPTIONAL},
	{KP_M_L2_PCT, KP_TM_OPTIONAL},
	{NULL, 0},
};

static int trigger(const struct kp_tool_input *m, const double *t)
{
	return isnan(kp_tool_busiest(m)) ? KP_EMISSING : 1;
}

/* The memory unit that is busiest, by ncu's own sub-throughputs. */
static const char *memory_unit(const struct kp_tool_input *m, double *pct)
{
	double dram = kp_tool_metric(m, KP_M_DRAM_PCT);
	double l1 = kp_tool_metric(m, KP_M_L1_PCT);
	double l2 = kp_tool_metric(m, KP_M_L2_PCT);
	const char *name = "DRAM";
	*pct = kp_nz(dram);
	if (kp_nz(l2) > *pct) {
		*pct = l2;
		name = "L2";
	}
	if (kp_nz(l1) > *pct) {
		*pct = l1;
		name = "L1/shared";
	}
	return name;
}

static void add_position(struct kp_finding *f, const struct kp_tool_input *m)
{
	const struct kp_stage1 *s = m->stage1;
	kp_tool_evidence(f, KP_M_SM_PCT, kp_tool_metric(m, KP_M_SM_PCT), NAN, "%");
	kp_tool_evidence(f, KP_M_MEM_PCT, kp_tool_metric(m, KP_M_MEM_PCT), NAN, "%");
	kp_tool_evidence(f, KP_M_DRAM_PCT, kp_tool_metric(m, KP_M_DRAM_PCT), NAN, "%");
	if (s) {
		kp_tool_evidence(f, "achieved DRAM bandwidth", s->achieved_bw, s->memory_peak, "B/s");
		kp_tool_evidence(f, "achieved FLOP rate", s->achieved_flops, s->compute_peak, "FLOP/s");
	}
}

static int analyze(const struct kp_tool_input *m, const double *t, struct kp_findings *out)
{
	double sm = kp_tool_metric(m, KP_M_SM_PCT), mem = kp_tool_metric(m, KP_M_MEM_PCT);
	double busiest = kp_tool_busiest(m), unit_pct;
	const char *unit = memory_unit(m, &unit_pct);
	int memory_side = isnan(sm) || isnan(mem) ? (m->stage1 && m->stage1->bound == KP_BOUND_MEMORY) : mem >= sm;
	struct kp_finding *f;

	if (busiest >= t[T_NEAR_ROOF]) {
		f = kp_finding_new(out, KP_SEV_LOW, "At the %s roof: the busiest unit runs at %.0f%% of its practical peak",
				   memory_side ? "memory" : "compute", busiest * 100);
		kp_finding_cause(f, "%s", memory_side
			? "The kernel moves its bytes about as fast as the memory system allows; reordering the same "
			  "accesses cannot gain much more."
			: "The kernel issues its arithmetic about as fast as the SMs allow; the same instructions cannot "
			  "run much faster.");
		if (memory_side) {
			kp_finding_rec(f, "Move fewer bytes: fuse this kernel with its producer or consumer so "
					  "intermediates stay in registers or shared memory instead of a DRAM round trip");
			kp_finding_rec(f, "Store inputs/outputs in a narrower type (bf16/fp16, or fp8 with a scale) if "
					  "the task's tolerance allows: half the bytes, half the time");
		} else {
			kp_finding_rec(f, "Do less arithmetic: hoist loop-invariant work, reuse computed values, "
					  "simplify the math algebraically");
			kp_finding_rec(f, "Move the math to a faster unit: tensor cores (TF32/BF16 wgmma) for "
					  "matrix products, packed half2 (HFMA2) where precision allows");
		}
		/* No gain to claim: the message is that there is little left. It gives way to any finding that
		   names a bigger change (a busy L1 in a naive GEMM is "at a roof" that tiling removes). */
		kp_finding_evidence(f, "busiest unit's share of its practical peak", busiest * 100, t[T_NEAR_ROOF] * 100, "%");
		kp_finding_explained_by(f, "*");
		add_position(f, m);
		return 0;
	}
	if (!isnan(sm) && !isnan(mem) && sm < t[T_FAR] && mem < t[T_FAR]) {
		f = kp_finding_new(out, KP_SEV_NONE,
				   "Latency-bound: neither roof is approached (SM %.0f%%, memory %.0f%% of peak)", sm, mem);
		kp_finding_cause(f, "Warps spend most cycles waiting rather than issuing: too few warps, too little "
				    "independent work per warp, or serialization (atomics, barriers) hide no latency.");
		kp_finding_rec(f, "Expose more parallelism: at least 2-4 blocks per SM, and several independent "
				  "loads or FMAs per thread (unroll loops, process 4 elements per thread)");
		kp_finding_rec(f, "Remove serialization points: per-thread atomics on one address, __syncthreads() "
				  "inside loops, dependent chains of global loads");
	} else {
		/* A gap with no named cause is worth a look, not an alarm: at most medium. */
		enum kp_finding_severity sev = kp_finding_severity_for_gain(1.0 - busiest);
		f = kp_finding_new(out, sev > KP_SEV_MEDIUM ? KP_SEV_MEDIUM : sev, "%s throughput at %.0f%% of peak (%s busiest at %.0f%%)",
				   memory_side ? "Memory" : "Compute", (memory_side ? mem : sm),
				   memory_side ? unit : "SM", memory_side ? unit_pct : sm);
		kp_finding_cause(f, "%s", memory_side
			? "The memory system is the busiest part of the GPU but not saturated: access patterns or too "
			  "few bytes in flight keep it from its peak."
			: "The SMs are the busiest part of the GPU but not saturated: instruction dependencies or "
			  "an oversubscribed pipe limit issue.");
		kp_finding_rec(f, "%s", memory_side
			? "Keep more bytes in flight per thread (vector loads, unrolled independent loads) and make "
			  "every 32-byte sector fully used"
			: "Raise instruction-level parallelism: independent accumulators, unrolled loops, fewer "
			  "dependent instruction chains");
	}
	kp_finding_gain(f, 1.0 - busiest, "headroom to the busiest unit's practical peak");
	kp_finding_explained_by(f, "*");
	add_position(f, m);
	return 0;
}

const struct kp_tool kp_tool_sol_gap = {
	.name = "sol_gap",
	.description = "Distance to the compute and memory roofs, and what it implies",
	.details = "Reads ncu's speed-of-light percentages (SM, memory, DRAM against its practical peak) and, when "
		   "present, Stage 1's achieved bandwidth and FLOP rate. At a roof (busiest unit >= near_roof) it "
		   "reports that only less work helps: fewer bytes (fusion, narrower types) or fewer operations. "
		   "Far from both roofs (< far_pct) it names the kernel latency-bound. Otherwise it states the "
		   "gap to the busiest unit. Except at a roof, its finding folds into any other tool's finding, "
		   "which explains the gap more precisely.",
	.sources = KP_SRC_NCU,
	.metrics = metrics,
	.thresholds = thresholds,
	.trigger = trigger,
	.analyze = analyze,
};
