/*
 * local_memory: traffic to thread-local memory (register spills, or arrays
 * the compiler could not keep in registers). ncu measures the traffic; ptxas
 * and SASS say whether it is spilling or a local array, even without ncu.
 */
#include "base/setup.h"

#include "tools/tool_util.h"

enum { T_MIN_SHARE };

static const struct kp_threshold thresholds[] = {
	{"min_local_pct", 5, "%", "fires when local-memory sectors are at least this share of the kernel's memory traffic"},
	{NULL, 0, NULL, NULL},
};

static const struct kp_tool_metric metrics[] = {
	{KP_M_LLD_SECTORS, KP_TM_OPTIONAL},
	{KP_M_LST_SECTORS, KP_TM_OPTIONAL},
	{KP_M_LLD_INST, KP_TM_OPTIONAL},
	{KP_M_LST_INST, KP_TM_OPTIONAL},
	{KP_M_GLD_SECTORS, KP_TM_OPTIONAL},
	{KP_M_GST_SECTORS, KP_TM_OPTIONAL},
	{KP_M_DRAM_RD, KP_TM_OPTIONAL},
	{KP_M_DRAM_WR, KP_TM_OPTIONAL},
	KP_TM_SOL,
	{NULL, 0},
};

struct local {
	double sectors, share;       /* measured local traffic and its share of all traffic; NAN without ncu */
	long spill_bytes, stack;     /* ptxas; -1 when unknown */
	unsigned ldl, stl;           /* SASS static counts */
	int spills;                  /* register spilling (vs a local array) */
};

static void measure(const struct kp_tool_input *m, struct local *x)
{
	const struct kp_ptxas_func *p = m->profile->ptxas;
	const struct kp_sass_func *s = m->profile->sass;
	double ld = kp_tool_metric(m, KP_M_LLD_SECTORS), st = kp_tool_metric(m, KP_M_LST_SECTORS);
	double other = kp_nz(kp_tool_metric(m, KP_M_GLD_SECTORS)) + kp_nz(kp_tool_metric(m, KP_M_GST_SECTORS)) +
		       (kp_nz(kp_tool_metric(m, KP_M_DRAM_RD)) + kp_nz(kp_tool_metric(m, KP_M_DRAM_WR))) / 32.0;

	x->sectors = isnan(ld) && isnan(st) ? NAN : kp_nz(ld) + kp_nz(st);
	/* DRAM sectors join the denominator so TMA-fed kernels (no LSU global traffic) are weighed fairly. */
	x->share = isnan(x->sectors) ? NAN : x->sectors > 0 ? x->sectors / (x->sectors + other) : 0;
	x->spill_bytes = p ? p->spill_stores + p->spill_loads : -1;
	x->stack = p ? p->stack_frame : -1;
	x->ldl = s ? s->counts[KP_SASS_LDL] : 0;
	x->stl = s ? s->counts[KP_SASS_STL] : 0;
	x->spills = x->spill_bytes > 0;
}

static int trigger(const struct kp_tool_input *m, const double *t)
{
	struct local x;
	measure(m, &x);
	if (!isnan(x.share))
		return x.share * 100 >= t[T_MIN_SHARE];
	/* Static evidence only: spills reported by ptxas, or a stack frame that SASS reads and writes. */
	if (m->profile->ptxas || m->profile->sass)
		return x.spill_bytes > 0 || (x.stack > 0 && x.ldl + x.stl > 0) || (!m->profile->ptxas && x.ldl + x.stl > 0);
	return KP_EMISSING;
}

static int analyze(const struct kp_tool_input *m, const double *t, struct kp_findings *out)
{
	struct local x;
	struct kp_finding *f;

	measure(m, &x);
	if (x.spills)
		f = kp_finding_new(out, KP_SEV_NONE, "Register spills to local memory%s",
				   isnan(x.share) ? "" : " carry a large share of the memory traffic");
	else
		f = kp_finding_new(out, KP_SEV_NONE, "A per-thread array lives in local memory%s",
				   isnan(x.share) ? "" : ", and its traffic dominates");
	if (!isnan(x.share))
		kp_finding_evidence(f, "local-memory share of memory traffic (sectors)", x.share * 100, t[T_MIN_SHARE], "%");
	kp_tool_evidence(f, KP_M_LLD_INST, kp_tool_metric(m, KP_M_LLD_INST), NAN, "");
	kp_tool_evidence(f, KP_M_LST_INST, kp_tool_metric(m, KP_M_LST_INST), NAN, "");
	if (x.spill_bytes >= 0)
		kp_finding_evidence(f, "ptxas spill stores + loads", (double)x.spill_bytes, 0, "B");
	if (x.stack >= 0)
		kp_finding_evidence(f, "ptxas stack frame", (double)x.stack, 0, "B");
	if (x.ldl + x.stl)
		kp_finding_evidence(f, "LDL/STL instructions (SASS)", x.ldl + x.stl, 0, "");
	if (x.spills) {
		kp_finding_cause(f, "The kernel needs more registers than it may use, so ptxas stores live values to "
				    "local memory (off-chip, cached in L1/L2) and reloads them.");
		kp_finding_rec(f, "Relax the register cap: drop -maxrregcount or raise the minBlocks argument of "
				  "__launch_bounds__ that forces it, if occupancy allows");
		kp_finding_rec(f, "Reduce live values: fewer accumulators per thread, less unrolling of outer loops "
				  "(#pragma unroll 2 instead of full), recompute cheap values instead of keeping them");
	} else {
		kp_finding_cause(f, "An array declared inside the kernel (stack frame %ld bytes) is indexed with a value "
				    "known only at run time, so the compiler cannot map it to registers and every access "
				    "goes through local memory.",
				 x.stack);
		kp_finding_rec(f, "Index per-thread arrays only with compile-time constants: fully unroll the loops "
				  "that touch them (#pragma unroll with a constant trip count) and replace computed "
				  "indices such as buf[(j*k + i) & 63] by a different formulation");
		kp_finding_rec(f, "If the indexing must be dynamic, keep the array in shared memory laid out "
				  "[element][threadIdx.x] (conflict-free), or restructure into a register-resident sliding "
				  "window");
	}
	if (!isnan(x.share))
		kp_finding_gain(f, x.share * kp_tool_memory_weight(m),
				"if the local traffic disappears, in proportion to the memory-bound share of the time");
	else
		f->severity = x.spills ? KP_SEV_MEDIUM : KP_SEV_LOW; /* static evidence only: no traffic measured */
	return 0;
}

const struct kp_tool kp_tool_local_memory = {
	.name = "local_memory",
	.description = "Register spills and local arrays: traffic to thread-local memory (LDL/STL)",
	.details = "With ncu, measures local-memory sectors (l1tex local loads and stores) against the kernel's "
		   "global and DRAM traffic; at least min_local_pct fires, and the gain is that share of the "
		   "memory-bound time. ptxas -v says whether it is register spilling (spill stores/loads) or an "
		   "array placed in local memory (stack frame without spills); SASS LDL/STL counts confirm it "
		   "when ncu is absent. Spills get register-pressure advice; local arrays get indexing advice.",
	.sources = KP_SRC_NCU | KP_SRC_PTXAS | KP_SRC_SASS,
	.metrics = metrics,
	.thresholds = thresholds,
	.trigger = trigger,
	.analyze = analyze,
};
