/*
 * bank_conflicts: shared-memory accesses that serialize because several
 * threads of a warp hit the same bank. Reports the n-way factor and weighs
 * the conflicts by the time warps actually wait on shared memory.
 */
#include "base/setup.h"

#include "tools/tool_util.h"

enum { T_CONFLICT_PCT };

static const struct kp_threshold thresholds[] = {
	{"max_conflict_pct", 10, "%", "fires when more than this share of shared-memory wavefronts are bank conflicts"},
	{NULL, 0, NULL, NULL},
};

static const struct kp_tool_metric metrics[] = {
	{KP_M_CONF_LD, 0},
	{KP_M_WAVE_LD, 0},
	{KP_M_CONF_ST, KP_TM_OPTIONAL},
	{KP_M_WAVE_ST, KP_TM_OPTIONAL},
	{KP_M_SLD_INST, KP_TM_OPTIONAL},
	{KP_M_SST_INST, KP_TM_OPTIONAL},
	{KP_M_STALL_TOTAL, KP_TM_OPTIONAL},
	KP_TM_STALL(KP_M_STALL_SHORT_SCOREBOARD),
	KP_TM_STALL(KP_M_STALL_MIO_THROTTLE),
	KP_TM_SOL,
	{NULL, 0},
};

struct banks {
	double conf_ld, conf_st, wave_ld, wave_st, frac_ld, frac_st, frac, nway_ld, nway_st;
};

static double ratio(double a, double b)
{
	return b > 0 && !isnan(a) ? a / b : 0;
}

static void measure(const struct kp_tool_input *m, struct banks *b)
{
	b->conf_ld = kp_nz(kp_tool_metric(m, KP_M_CONF_LD));
	b->conf_st = kp_nz(kp_tool_metric(m, KP_M_CONF_ST));
	b->wave_ld = kp_nz(kp_tool_metric(m, KP_M_WAVE_LD));
	b->wave_st = kp_nz(kp_tool_metric(m, KP_M_WAVE_ST));
	b->frac_ld = ratio(b->conf_ld, b->wave_ld);
	b->frac_st = ratio(b->conf_st, b->wave_st);
	b->frac = ratio(b->conf_ld + b->conf_st, b->wave_ld + b->wave_st);
	b->nway_ld = ratio(b->wave_ld, kp_tool_metric(m, KP_M_SLD_INST));
	b->nway_st = ratio(b->wave_st, kp_tool_metric(m, KP_M_SST_INST));
}

static int trigger(const struct kp_tool_input *m, const double *t)
{
	struct banks b;
	measure(m, &b);
	return b.frac_ld * 100 > t[T_CONFLICT_PCT] || b.frac_st * 100 > t[T_CONFLICT_PCT];
}

static int analyze(const struct kp_tool_input *m, const double *t, struct kp_findings *out)
{
	struct banks b;
	double ss, mio, wait;
	int ld_worse;
	struct kp_finding *f;

	measure(m, &b);
	ld_worse = b.conf_ld >= b.conf_st;
	if ((ld_worse ? b.nway_ld : b.nway_st) >= 1.5)
		f = kp_finding_new(out, KP_SEV_NONE, "Shared-memory bank conflicts: %s serialize %.0f-way (%.0f%% of wavefronts are conflicts)",
				   ld_worse ? "loads" : "stores", ld_worse ? b.nway_ld : b.nway_st, b.frac * 100);
	else
		f = kp_finding_new(out, KP_SEV_NONE, "Shared-memory bank conflicts: %.0f%% of %s wavefronts are conflicts",
				   (ld_worse ? b.frac_ld : b.frac_st) * 100, ld_worse ? "load" : "store");
	kp_finding_cause(f, "Several threads of a warp access different addresses in the same 4-byte bank (32 banks), "
			    "typically a column walk of a [32][32] array (stride of 32 words), so the access is split "
			    "into one wavefront per conflicting thread.");
	kp_finding_evidence(f, "shared load wavefronts that are conflicts", b.frac_ld * 100, t[T_CONFLICT_PCT], "%");
	kp_finding_evidence(f, "shared store wavefronts that are conflicts", b.frac_st * 100, t[T_CONFLICT_PCT], "%");
	if (b.nway_ld > 0)
		kp_finding_evidence(f, "wavefronts per shared load instruction", b.nway_ld, 1, "");
	kp_finding_rec(f, "Pad the inner dimension by one element: __shared__ float tile[32][33] (instead of [32][32]) "
			  "so that column accesses hit 32 different banks");
	kp_finding_rec(f, "Or swizzle the column index, tile[r][c ^ (r %% 32)], which keeps rows aligned for vector "
			  "(float4) or ldmatrix access");
	kp_finding_rec(f, "For 8/16-byte elements, make consecutive threads access consecutive elements of a row; "
			  "a warp reading 128-bit words needs 4 wavefronts even without conflicts");
	ss = kp_tool_stall_share(m, KP_M_STALL_SHORT_SCOREBOARD);
	mio = kp_tool_stall_share(m, KP_M_STALL_MIO_THROTTLE);
	/* Conflicts cost time only while warps wait on shared memory. */
	wait = isnan(ss) && isnan(mio) ? 0.5 * kp_tool_memory_weight(m) : kp_nz(ss) + kp_nz(mio);
	kp_finding_evidence(f, "warp cycles waiting on shared memory", wait * 100, NAN, "%");
	kp_finding_gain(f, b.frac * fmin(1.0, wait), "the conflict share of the time warps wait on shared memory");
	return 0;
}

const struct kp_tool kp_tool_bank_conflicts = {
	.name = "bank_conflicts",
	.description = "Shared-memory bank conflicts: n-way serialization of shared loads and stores",
	.details = "Compares shared-memory bank conflicts with the wavefronts of shared loads and stores "
		   "(l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld/st over the wavefronts); more than "
		   "max_conflict_pct fires. The n-way factor is wavefronts per shared instruction. The estimated "
		   "gain is the conflict share of the time warps wait on shared memory (short_scoreboard + "
		   "mio_throttle), so conflicts in a kernel bound elsewhere stay low.",
	.sources = KP_SRC_NCU,
	.metrics = metrics,
	.thresholds = thresholds,
	.trigger = trigger,
	.analyze = analyze,
};
