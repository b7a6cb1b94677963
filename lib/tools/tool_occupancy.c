/*
 * occupancy: too few warps per SM to hide latency. Names the limiter
 * (registers, shared memory, block size) with the exact change that fits
 * one more block, and weighs it by how much of the time is latency that more
 * warps could hide. Achieved far below theoretical points at the grid.
 */
#include "base/setup.h"

#include "tools/tool_util.h"

enum { T_MIN_OCC, T_GAP, T_LATENCY_BUSY };

static const struct kp_threshold thresholds[] = {
	{"min_occupancy_pct", 50, "%", "theoretical (or achieved) occupancy below this share of the SM's warp slots fires"},
	{"max_gap_pts", 20, "%", "achieved below theoretical by more than this (and below min_occupancy_pct) is reported"},
	{"latency_busy", 0.3, "", "busiest unit below this share of its peak: latency-bound, so a resource-limited occupancy "
				   "is weighed up to a full SM, not only up to min_occupancy_pct"},
	{NULL, 0, NULL, NULL},
};

static const struct kp_tool_metric metrics[] = {
	{KP_M_WARPS_ACTIVE, KP_TM_OPTIONAL},
	{KP_M_OCC_LIMIT_BLOCKS, KP_TM_OPTIONAL},
	{KP_M_OCC_LIMIT_REGISTERS, KP_TM_OPTIONAL},
	{KP_M_OCC_LIMIT_SMEM, KP_TM_OPTIONAL},
	{KP_M_OCC_LIMIT_WARPS, KP_TM_OPTIONAL},
	{KP_M_OCC_LIMIT_BARRIERS, KP_TM_OPTIONAL},
	{KP_M_REGS, KP_TM_OPTIONAL},
	{KP_M_SMEM_PER_BLOCK, KP_TM_OPTIONAL},
	{KP_M_STALL_TOTAL, KP_TM_OPTIONAL},
	KP_TM_STALL(KP_M_STALL_LONG_SCOREBOARD),
	KP_TM_STALL(KP_M_STALL_SHORT_SCOREBOARD),
	KP_TM_STALL(KP_M_STALL_WAIT),
	KP_TM_STALL(KP_M_STALL_BARRIER),
	KP_TM_SOL,
	{NULL, 0},
};

/* The resource that allows the fewest blocks per SM, and that count. */
static const char *limiter(const struct kp_tool_input *m, double *blocks)
{
	static const char *const names[] = {"registers", "shared_mem", "warps", "blocks", "barriers"};
	static const char *const metric[] = {KP_M_OCC_LIMIT_REGISTERS, KP_M_OCC_LIMIT_SMEM, KP_M_OCC_LIMIT_WARPS,
					     KP_M_OCC_LIMIT_BLOCKS, KP_M_OCC_LIMIT_BARRIERS};
	const char *best = NULL;
	*blocks = NAN;
	for (size_t i = 0; i < KP_ARRAY_SIZE(names); i++) {
		double v = kp_tool_metric(m, metric[i]);
		if (!isnan(v) && (isnan(*blocks) || v < *blocks)) {
			*blocks = v;
			best = names[i];
		}
	}
	return best;
}

/*
 * Theoretical occupancy in % of the SM's warp slots, from the per-resource block limits and the block
 * size: the arithmetic of ncu's occupancy calculator, from launch metrics any collection can ask for
 * (ncu's own sm__maximum_warps_per_active_cycle_pct comes from its Occupancy section). NAN when unknown.
 */
static double theoretical(const struct kp_tool_input *m)
{
	double blocks, slots;
	unsigned warps = (kp_tool_block_threads(m) + 31) / 32;
	if (!limiter(m, &blocks) || !warps)
		return NAN;
	slots = m->hw && m->hw->spec.max_threads_per_sm > 0 ? m->hw->spec.max_threads_per_sm / 32.0 : 64;
	return fmin(100.0, 100.0 * blocks * warps / slots);
}

static int trigger(const struct kp_tool_input *m, const double *t)
{
	double theo = theoretical(m), ach = kp_tool_metric(m, KP_M_WARPS_ACTIVE);
	if (isnan(theo))
		return KP_EMISSING;
	if (theo < t[T_MIN_OCC])
		return 1;
	return !isnan(ach) && ach < t[T_MIN_OCC] && theo - ach > t[T_GAP];
}

/* Share of the time that is latency more resident warps could overlap. */
static double latency_share(const struct kp_tool_input *m)
{
	static const char *const r[] = {KP_M_STALL_LONG_SCOREBOARD, KP_M_STALL_SHORT_SCOREBOARD,
					KP_M_STALL_WAIT, KP_M_STALL_BARRIER};
	double s = 0;
	int known = 0;
	for (size_t i = 0; i < KP_ARRAY_SIZE(r); i++) {
		double v = kp_tool_stall_share(m, r[i]);
		if (!isnan(v)) {
			s += v;
			known = 1;
		}
	}
	return known ? fmin(1.0, s) : 0.5;
}

static void recommend_limit(struct kp_finding *f, const struct kp_tool_input *m, const char *lim, double blocks)
{
	const struct kp_hw *hw = m->hw;
	unsigned threads = kp_tool_block_threads(m), warps = (threads + 31) / 32;
	double regs = kp_tool_metric(m, KP_M_REGS), smem = kp_tool_metric(m, KP_M_SMEM_PER_BLOCK);
	double regfile = hw && hw->spec.regs_per_sm > 0 ? hw->spec.regs_per_sm : 65536;
	double smem_sm = hw && hw->spec.smem_per_sm > 0 ? hw->spec.smem_per_sm : 233472;

	if (isnan(regs) && m->profile->ptxas)
		regs = m->profile->ptxas->registers;
	if (!strcmp(lim, "registers") && warps && !isnan(regs)) {
		double target = floor(regfile / ((blocks + 1) * warps * 32) / 8) * 8;
		kp_finding_cause(f, "%.0f registers per thread x %u threads per block leave room for only %.0f "
				    "block(s) per SM.",
				 regs, threads, blocks);
		kp_finding_rec(f, "Cap registers at %.0f per thread to fit %.0f blocks per SM: __launch_bounds__(%u, %.0f) "
				  "on the kernel (or -maxrregcount=%.0f); then check ptxas -v for spills",
			       target, blocks + 1, threads, blocks + 1, target);
		if (target < 0.6 * regs)
			kp_finding_rec(f, "That cap is far below today's %.0f registers and will likely spill (see "
					  "local_memory after the change); the alternative is more independent work per "
					  "thread (ILP), so the few resident warps keep the pipes busy",
				       regs);
		else
			kp_finding_rec(f, "Lower register pressure in the code: fewer live accumulators per thread, less "
					  "unrolling of the outer loop, recompute cheap values instead of keeping them");
	} else if (!strcmp(lim, "shared_mem") && !isnan(smem)) {
		double target = floor(smem_sm / (blocks + 1)) - 1024;
		kp_finding_cause(f, "%.0f bytes of shared memory per block leave room for only %.0f block(s) per SM.",
				 smem, blocks);
		kp_finding_rec(f, "Use at most %.0f bytes of shared memory per block to fit %.0f blocks per SM: smaller "
				  "tiles, fewer pipeline stages, or reuse one buffer for successive phases",
			       target > 0 ? target : 0, blocks + 1);
	} else if (!strcmp(lim, "blocks")) {
		kp_finding_cause(f, "Blocks of %u threads are so small that the per-SM block limit (%.0f blocks) "
				    "caps the resident warps.",
				 threads, blocks);
		kp_finding_rec(f, "Use blocks of 128-256 threads (4-8 warps), giving each thread the same work");
	} else {
		kp_finding_cause(f, "The block size (%u threads) does not divide the SM's warp slots evenly, or the "
				    "launch's %s limit allows only %.0f block(s) per SM.",
				 threads, lim, blocks);
		kp_finding_rec(f, "Use a block size that divides the SM's 2048 thread slots (128, 256 or 512 threads)");
	}
}

static int analyze(const struct kp_tool_input *m, const double *t, struct kp_findings *out)
{
	double theo = theoretical(m), ach = kp_tool_metric(m, KP_M_WARPS_ACTIVE), blocks;
	double headroom = kp_tool_headroom(m), lat = latency_share(m), occ, gain, busy;
	const char *lim = limiter(m, &blocks);
	struct kp_finding *f;

	if (isnan(headroom))
		headroom = 1.0;
	if (theo < t[T_MIN_OCC]) {
		occ = theo;
		f = kp_finding_new(out, KP_SEV_NONE, "Low theoretical occupancy: %.0f%% of the SM's warp slots, limited by %s",
				   theo, lim ? (strcmp(lim, "shared_mem") ? lim : "shared memory") : "the launch configuration");
		if (lim)
			recommend_limit(f, m, lim, blocks);
		else
			kp_finding_cause(f, "The launch configuration admits few warps per SM.");
		kp_finding_evidence(f, "theoretical occupancy", theo, t[T_MIN_OCC], "%");
		kp_tool_evidence(f, KP_M_REGS, kp_tool_metric(m, KP_M_REGS), NAN, "");
		kp_tool_evidence(f, KP_M_SMEM_PER_BLOCK, kp_tool_metric(m, KP_M_SMEM_PER_BLOCK), NAN, "B");
	} else {
		occ = ach;
		f = kp_finding_new(out, KP_SEV_NONE, "Achieved occupancy %.0f%% is far below the theoretical %.0f%%", ach, theo);
		kp_finding_cause(f, "Warp slots sit empty although blocks would fit: the grid has too few blocks to "
				    "fill the SMs, the last wave is partial, or blocks finish at very different times.");
		kp_finding_rec(f, "Launch more, smaller blocks (at least 2-4 per SM) and balance the work per block");
		kp_finding_evidence(f, KP_M_WARPS_ACTIVE, ach, theo - t[T_GAP], "%");
		kp_finding_explained_by(f, "grid_waves");
	}
	kp_finding_evidence(f, "warp cycles stalled on latency more warps could hide", lat * 100, NAN, "%");
	busy = 1.0 - headroom;
	if (theo < t[T_MIN_OCC] && lim && strcmp(lim, "warps") && busy < t[T_LATENCY_BUSY]) {
		/* Latency-bound with a resource the kernel sets (registers, shared memory, block size) capping
		   the warps: more warps keep helping until a unit saturates or the SM is full, well past
		   min_occupancy_pct. Time scales down by the warp growth: at most 1 - max(busiest, occ/100). */
		gain = lat * (1.0 - fmax(busy, occ / 100.0));
		kp_finding_gain(f, gain, "the latency share, as more resident warps overlap it until the busiest unit "
					 "(%.0f%%) or the SM's warp slots fill",
				100 * busy);
		return 0;
	}
	/* More warps only hide latency: at most the headroom, times the latency share, times how far below
	   the target occupancy the kernel is. */
	gain = headroom * lat * fmax(0.0, 1.0 - occ / t[T_MIN_OCC]);
	kp_finding_gain(f, gain, "the latency share of the headroom, scaled by the occupancy shortfall");
	return 0;
}

const struct kp_tool kp_tool_occupancy = {
	.name = "occupancy",
	.description = "Too few resident warps to hide latency: achieved vs theoretical, and the limiter",
	.details = "Reads theoretical and achieved occupancy and ncu's per-resource block limits (registers, "
		   "shared memory, warps, blocks, barriers). Below min_occupancy_pct it names the limiting "
		   "resource and the exact change that fits one more block per SM (a register cap with "
		   "__launch_bounds__, a shared-memory budget, a block size). Achieved more than max_gap_pts below "
		   "theoretical points at the grid (grid_waves explains it when it fires). The gain counts only "
		   "the latency stalls more warps could hide, within the headroom to the busiest unit, so a "
		   "low-occupancy kernel that already saturates a pipe is not flagged as important.",
	.sources = KP_SRC_NCU | KP_SRC_PTXAS,
	.metrics = metrics,
	.thresholds = thresholds,
	.trigger = trigger,
	.analyze = analyze,
};
