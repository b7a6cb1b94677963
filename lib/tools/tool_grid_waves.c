/*
 * grid_waves: a grid too small to fill the GPU, or a last wave of blocks that
 * runs mostly empty (tail effect). Computes blocks per SM from ncu's limits
 * and the SM count, and the share of SM time left idle.
 */
#include "base/setup.h"

#include "tools/tool_util.h"

enum { T_MIN_GAIN };

static const struct kp_threshold thresholds[] = {
	{"min_idle_pct", 10, "%", "fires when the grid leaves at least this share of SM time idle (too few blocks or a partial last wave)"},
	{NULL, 0, NULL, NULL},
};

static const struct kp_tool_metric metrics[] = {
	{KP_M_GRID_SIZE, KP_TM_OPTIONAL},
	{KP_M_LAUNCH_SMS, KP_TM_OPTIONAL},
	{KP_M_WAVES, KP_TM_OPTIONAL},
	{KP_M_OCC_LIMIT_BLOCKS, KP_TM_OPTIONAL},
	{KP_M_OCC_LIMIT_REGISTERS, KP_TM_OPTIONAL},
	{KP_M_OCC_LIMIT_SMEM, KP_TM_OPTIONAL},
	{KP_M_OCC_LIMIT_WARPS, KP_TM_OPTIONAL},
	{KP_M_OCC_LIMIT_BARRIERS, KP_TM_OPTIONAL},
	KP_TM_SOL,
	{NULL, 0},
};

struct waves {
	double grid, sms, per_sm, waves, idle; /* idle: share of SM-slots x time left empty */
};

static int measure(const struct kp_tool_input *m, struct waves *w)
{
	static const char *const lim[] = {KP_M_OCC_LIMIT_BLOCKS, KP_M_OCC_LIMIT_REGISTERS, KP_M_OCC_LIMIT_SMEM,
					  KP_M_OCC_LIMIT_WARPS, KP_M_OCC_LIMIT_BARRIERS};
	double whole;
	w->grid = kp_tool_metric(m, KP_M_GRID_SIZE);
	if (isnan(w->grid) && kp_tool_threads(m) > 0)
		w->grid = kp_tool_threads(m) / kp_tool_block_threads(m);
	w->sms = kp_tool_metric(m, KP_M_LAUNCH_SMS);
	if (isnan(w->sms) && m->hw && m->hw->spec.sm_count > 0)
		w->sms = m->hw->spec.sm_count;
	w->per_sm = NAN;
	for (size_t i = 0; i < KP_ARRAY_SIZE(lim); i++) {
		double v = kp_tool_metric(m, lim[i]);
		if (!isnan(v) && (isnan(w->per_sm) || v < w->per_sm))
			w->per_sm = v;
	}
	if (isnan(w->grid) || isnan(w->sms) || w->sms <= 0 || w->grid <= 0)
		return KP_EMISSING;
	if (isnan(w->per_sm) || w->per_sm < 1)
		w->per_sm = 1;
	w->waves = w->grid / (w->sms * w->per_sm);
	if (w->grid < w->sms) {
		w->idle = 1.0 - w->grid / w->sms; /* SMs that never get a block */
	} else {
		whole = ceil(w->waves - 1e-9);
		w->idle = (whole - w->waves) / whole; /* the empty part of the last wave, over all waves */
	}
	return 0;
}

static int trigger(const struct kp_tool_input *m, const double *t)
{
	struct waves w;
	if (measure(m, &w))
		return KP_EMISSING;
	return w.idle * 100 >= t[T_MIN_GAIN];
}

static int analyze(const struct kp_tool_input *m, const double *t, struct kp_findings *out)
{
	struct waves w;
	struct kp_finding *f;

	if (measure(m, &w))
		return KP_EMISSING;
	if (w.grid < w.sms) {
		f = kp_finding_new(out, KP_SEV_NONE, "Grid too small: %.0f block(s) for %.0f SMs leave %.0f SMs idle", w.grid,
				   w.sms, w.sms - w.grid);
		kp_finding_cause(f, "The kernel launches fewer blocks than the GPU has SMs, so most of the GPU does "
				    "nothing while the few blocks loop over all the work.");
		kp_finding_rec(f, "Launch at least %.0f blocks (2-4 per SM): size the grid from the data, "
				  "gridDim.x = min((n + blockDim.x - 1) / blockDim.x, %.0f), and walk the data with a "
				  "grid-stride loop: for (i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)",
			       w.sms * 2, w.sms * 4);
		kp_finding_rec(f, "For a reduction or scan done by one block, split it in two passes (per-block partial "
				  "results, then one small block combines them); for GEMM-like work, split K (split-K) or "
				  "use smaller tiles so there are more blocks");
	} else {
		f = kp_finding_new(out, KP_SEV_NONE, "Tail effect: %.2f waves of blocks, the last one %.0f%% full",
				   w.waves, (w.waves - floor(w.waves)) * 100);
		kp_finding_cause(f, "%.0f blocks fill %.0f full waves of %.0f (%.0f per SM x %.0f SMs) and a partial "
				    "one; during the last wave most SMs are idle.",
				 w.grid, floor(w.waves), w.sms * w.per_sm, w.per_sm, w.sms);
		kp_finding_rec(f, "Make the block count a multiple of %.0f, or use a persistent-style grid of exactly "
				  "%.0f blocks that loops over the work",
			       w.sms * w.per_sm, w.sms * w.per_sm);
		kp_finding_rec(f, "Or use smaller blocks (more, shorter blocks quantize the last wave finer)");
	}
	kp_finding_evidence(f, "blocks in the grid", w.grid, w.sms, "");
	kp_finding_evidence(f, KP_M_WAVES, w.waves, NAN, "");
	kp_finding_evidence(f, "SM time idle because of the grid shape", w.idle * 100, t[T_MIN_GAIN], "%");
	kp_finding_gain(f, w.idle, "if every SM had work until the end");
	return 0;
}

const struct kp_tool kp_tool_grid_waves = {
	.name = "grid_waves",
	.description = "Too few blocks to fill the GPU, or a mostly empty last wave (tail effect)",
	.details = "From the grid size, the SM count and ncu's blocks-per-SM limits it computes how many waves "
		   "of blocks the launch needs and what share of SM time the grid shape leaves idle: SMs that get "
		   "no block when the grid is smaller than the SM count, or the empty part of the last wave. At or "
		   "above min_idle_pct it recommends a grid-stride loop sized to the GPU, two-pass reductions, "
		   "split-K, or a block count that is a multiple of a full wave.",
	.sources = KP_SRC_NCU,
	.metrics = metrics,
	.thresholds = thresholds,
	.trigger = trigger,
	.analyze = analyze,
};
