/*
 * cache_reuse: bytes moved beyond what the work needs. Two cases: DRAM
 * traffic above the task's minimum (data re-fetched because it left L2), and
 * inputs re-read many times from L1/L2 because nothing is tiled in shared
 * memory or registers (the load path, not DRAM, is the bottleneck).
 */
#include "base/setup.h"

#include "tools/tool_util.h"

enum { T_DRAM_EXCESS, T_REREAD, T_ONCHIP_GAP, T_GLOBAL_SHARE, T_TILE };

static const struct kp_threshold thresholds[] = {
	{"max_dram_excess", 1.5, "x", "DRAM bytes above this multiple of the task's minimum bytes fire (needs Stage 1's minimum)"},
	{"min_reread", 8, "x", "global bytes requested from L1 per DRAM byte read: at or above, inputs are re-read"},
	{"min_onchip_gap_pts", 20, "%", "and memory throughput exceeds DRAM throughput by this many points (L1/L2 bound)"},
	{"min_global_share", 0.5, "", "and global loads are at least this share of the kernel's load instructions"},
	{"tile", 16, "x", "reuse factor a shared-memory tile is assumed to give, for the gain estimate"},
	{NULL, 0, NULL, NULL},
};

static const struct kp_tool_metric metrics[] = {
	{KP_M_DRAM_RD, 0},
	{KP_M_DRAM_WR, KP_TM_OPTIONAL},
	{KP_M_GLD_INST, KP_TM_OPTIONAL},
	{KP_M_SLD_INST, KP_TM_OPTIONAL},
	KP_TM_EXCESS,
	{KP_M_L2_HIT, KP_TM_OPTIONAL},
	{KP_M_L1_HIT, KP_TM_OPTIONAL},
	KP_TM_SOL,
	{NULL, 0},
};

struct reuse {
	double dram, min_bytes, dram_excess;          /* dram_excess: dram / min_bytes, NAN when unknown */
	double reread, onchip_gap, global_share, onchip_frac, coalesced_frac;
};

static void measure(const struct kp_tool_input *m, struct reuse *r)
{
	double rd = kp_tool_metric(m, KP_M_DRAM_RD), gld = kp_tool_metric(m, KP_M_GLD_SECTORS);
	double gi = kp_tool_metric(m, KP_M_GLD_INST), si = kp_tool_metric(m, KP_M_SLD_INST);
	double mem = kp_tool_metric(m, KP_M_MEM_PCT), dram_pct = kp_tool_metric(m, KP_M_DRAM_PCT);
	enum kp_excess_src src;
	double excess = kp_tool_excess_sectors(m, &src);

	r->dram = rd + kp_nz(kp_tool_metric(m, KP_M_DRAM_WR));
	r->min_bytes = m->stage1 ? m->stage1->min_bytes : NAN;
	r->dram_excess = r->min_bytes > 0 ? r->dram / r->min_bytes : NAN;
	r->reread = rd > 0 && !isnan(gld) ? gld * 32.0 / rd : NAN;
	r->onchip_gap = isnan(mem) || isnan(dram_pct) ? NAN : mem - dram_pct;
	r->onchip_frac = isnan(r->onchip_gap) || !(mem > 0) ? NAN : r->onchip_gap / mem;
	r->global_share = isnan(gi) ? NAN : gi + kp_nz(si) > 0 ? gi / (gi + kp_nz(si)) : 0;
	/*
	 * What coalescing would leave of today's sector traffic: reuse gains apply to that part
	 * (measured, else estimated from sectors per request, so that a targeted run without
	 * SourceCounters does not credit tiling with the traffic a coalescing fix removes). Not from
	 * the bytes per sector alone: that counts the broadcasts of an untiled kernel as waste.
	 */
	r->coalesced_frac = src == KP_EXCESS_MEASURED || src == KP_EXCESS_REQUESTS ? 1.0 - excess : 1.0;
}

static int dram_case(const struct reuse *r, const double *t)
{
	return !isnan(r->dram_excess) && r->dram_excess >= t[T_DRAM_EXCESS];
}

static int onchip_case(const struct reuse *r, const double *t)
{
	return !isnan(r->reread) && r->reread >= t[T_REREAD] && !isnan(r->onchip_gap) &&
	       r->onchip_gap >= t[T_ONCHIP_GAP] && !isnan(r->global_share) && r->global_share >= t[T_GLOBAL_SHARE];
}

static int trigger(const struct kp_tool_input *m, const double *t)
{
	struct reuse r;
	measure(m, &r);
	return dram_case(&r, t) || onchip_case(&r, t);
}

static void analyze_dram(const struct kp_tool_input *m, const struct reuse *r, const double *t,
			 struct kp_findings *out)
{
	struct kp_finding *f = kp_finding_new(out, KP_SEV_NONE, "DRAM traffic is %.1fx the task's minimum (%.3g MB moved, %.3g MB needed)",
					      r->dram_excess, r->dram / 1e6, r->min_bytes / 1e6);
	kp_finding_cause(f, "Data is fetched from DRAM more than once: it is evicted from L2 (%.0f MB on this GPU) "
			    "between uses, or several passes/kernels each read the same inputs.",
			 m->hw ? m->hw->spec.l2_bytes / 1e6 : 50.0);
	kp_finding_evidence(f, "DRAM bytes / minimum bytes", r->dram_excess, t[T_DRAM_EXCESS], "x");
	kp_tool_evidence(f, KP_M_L2_HIT, kp_tool_metric(m, KP_M_L2_HIT), NAN, "%");
	kp_finding_rec(f, "Fuse the passes that read the same data into one kernel, so each input is read once "
			  "and intermediates stay on chip");
	kp_finding_rec(f, "Order the work so blocks that share inputs run together (tile the iteration space into "
			  "L2-sized chunks; swizzle blockIdx so neighbouring blocks reuse the same rows/columns)");
	kp_finding_rec(f, "For data reused across launches, pin it in L2 with cudaStreamSetAttribute("
			  "cudaStreamAttributeAccessPolicyWindow, ...) (persisting accesses)");
	kp_finding_gain(f, (1.0 - 1.0 / r->dram_excess) * kp_tool_memory_weight(m),
			"if DRAM traffic falls to the minimum, in proportion to the memory-bound share of the time");
	kp_finding_explained_by(f, "local_memory");
	kp_finding_explained_by(f, "coalescing");
}

static void analyze_onchip(const struct kp_tool_input *m, const struct reuse *r, const double *t,
			   struct kp_findings *out)
{
	double tile = t[T_TILE] > 1 ? t[T_TILE] : 2;
	struct kp_finding *f = kp_finding_new(out, KP_SEV_NONE, "Inputs re-read ~%.0fx through L1/L2: nothing is tiled in shared memory or registers",
					      r->reread);
	kp_finding_cause(f, "Every thread loads its operands straight from global memory and neighbouring threads "
			    "load the same elements, so the caches serve each DRAM byte %.0f times; the load path "
			    "(memory %.0f points busier than DRAM) is the bottleneck, not DRAM.",
			 r->reread, r->onchip_gap);
	kp_finding_evidence(f, "global bytes requested per DRAM byte read", r->reread, t[T_REREAD], "x");
	kp_finding_evidence(f, "memory minus DRAM throughput", r->onchip_gap, t[T_ONCHIP_GAP], "%");
	kp_tool_evidence(f, KP_M_L1_HIT, kp_tool_metric(m, KP_M_L1_HIT), NAN, "%");
	kp_finding_rec(f, "Tile the loop: each block loads a %.0fx%.0f (or 32x32) tile of each input into __shared__ "
			  "arrays with coalesced loads, __syncthreads(), then computes from shared memory, so each "
			  "loaded element is used %.0f times",
		       tile, tile, tile);
	kp_finding_rec(f, "Then block in registers: each thread computes a 4x4 or 8x8 patch of outputs from values "
			  "held in registers, so each shared-memory value feeds several FMAs");
	kp_finding_rec(f, "Double-buffer the tiles (cp.async / TMA on sm_90) so the next tile loads while the "
			  "current one is used");
	kp_finding_gain(f, (1.0 - 1.0 / tile) * r->onchip_frac * r->global_share * r->coalesced_frac *
				   kp_tool_memory_weight(m),
			"if a %.0fx tile cuts the L1/L2 traffic %.0fx (after any coalescing fix)", tile, tile);
}

static int analyze(const struct kp_tool_input *m, const double *t, struct kp_findings *out)
{
	struct reuse r;
	measure(m, &r);
	if (dram_case(&r, t))
		analyze_dram(m, &r, t, out);
	if (onchip_case(&r, t))
		analyze_onchip(m, &r, t, out);
	return 0;
}

const struct kp_tool kp_tool_cache_reuse = {
	.name = "cache_reuse",
	.description = "Bytes moved beyond what the work needs: DRAM re-fetches, untiled re-reads through L1/L2",
	.details = "Two checks. (1) DRAM bytes against the task's minimum (each input read once, each output "
		   "written once, from Stage 1): above max_dram_excess the data leaves L2 between uses; the fix "
		   "is fusion and L2-aware ordering. (2) Global bytes requested from L1 per DRAM byte read: at or "
		   "above min_reread, with the memory system min_onchip_gap_pts busier than DRAM and global loads "
		   "dominating, the kernel re-reads its inputs through the caches instead of tiling them in "
		   "shared memory and registers; the load path is the bottleneck.",
	.sources = KP_SRC_NCU,
	.metrics = metrics,
	.thresholds = thresholds,
	.trigger = trigger,
	.analyze = analyze,
};
