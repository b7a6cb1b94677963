/* Derived quantities the built-in tools share: headroom to the busiest unit, stall shares, roof weights. */
#include "base/setup.h"

#include "tools/tool_util.h"

double kp_tool_dram_practical(const struct kp_tool_input *m)
{
	const struct kp_hw *hw = m->hw;
	if (hw && hw->calibrated && hw->dram_bw > 0 && hw->spec.dram_bw > 0) {
		double r = hw->dram_bw / hw->spec.dram_bw;
		if (r > 0.5 && r <= 1.0)
			return r;
	}
	return KP_DRAM_PRACTICAL;
}

double kp_tool_busiest(const struct kp_tool_input *m)
{
	double sm = kp_tool_metric(m, KP_M_SM_PCT), mem = kp_tool_metric(m, KP_M_MEM_PCT);
	double dram = kp_tool_metric(m, KP_M_DRAM_PCT);
	double u = NAN;

	if (!isnan(sm))
		u = sm / 100.0;
	if (!isnan(mem))
		u = isnan(u) ? mem / 100.0 : fmax(u, mem / 100.0);
	if (!isnan(dram))
		u = isnan(u) ? dram / 100.0 / kp_tool_dram_practical(m)
			     : fmax(u, dram / 100.0 / kp_tool_dram_practical(m));
	if (isnan(u) && m->stage1) {
		double c = m->stage1->compute_frac, b = m->stage1->memory_frac;
		if (!isnan(c) || !isnan(b))
			u = fmax(isnan(c) ? 0 : c, isnan(b) ? 0 : b);
	}
	if (isnan(u))
		return NAN;
	return u < 0 ? 0 : u > 1 ? 1 : u;
}

double kp_tool_headroom(const struct kp_tool_input *m)
{
	double u = kp_tool_busiest(m);
	return isnan(u) ? NAN : 1.0 - u;
}

/*
 * The share of the time one side accounts for: its busiest unit against the other side's. Stage 1's
 * sides when it measured both (shared memory counts with the SM, not with memory, so a kernel bound
 * by shared-memory loads is not "memory-bound" for a global-memory fix), else ncu's two SOL figures.
 */
static double weight(const struct kp_tool_input *m, int memory)
{
	double sm = kp_tool_metric(m, KP_M_SM_PCT), mem = kp_tool_metric(m, KP_M_MEM_PCT);
	double top;
	const struct kp_unit_busy *su = m->stage1 ? kp_stage1_busiest(m->stage1, KP_SIDE_SM) : NULL;
	const struct kp_unit_busy *mu = m->stage1 ? kp_stage1_busiest(m->stage1, KP_SIDE_MEMORY) : NULL;
	if (su && mu && fmax(su->busy, mu->busy) > 0) {
		sm = 100 * su->busy;
		mem = 100 * mu->busy;
	}
	if (isnan(sm) || isnan(mem)) {
		/* Without ncu's speed of light, go by the Stage-1 class. */
		if (m->stage1 && m->stage1->bound == (memory ? KP_BOUND_MEMORY : KP_BOUND_COMPUTE))
			return 1.0;
		return 0.5;
	}
	top = fmax(sm, mem);
	if (top <= 0)
		return 0.5;
	return (memory ? mem : sm) / top;
}

double kp_tool_memory_weight(const struct kp_tool_input *m)
{
	return weight(m, 1);
}

double kp_tool_compute_weight(const struct kp_tool_input *m)
{
	return weight(m, 0);
}

double kp_tool_stall_share(const struct kp_tool_input *m, const char *stall_metric)
{
	double total = kp_tool_metric(m, KP_M_STALL_TOTAL), v = kp_tool_metric(m, stall_metric);
	if (isnan(total) || isnan(v) || total <= 0)
		return NAN;
	v /= total;
	return v < 0 ? 0 : v > 1 ? 1 : v;
}

unsigned kp_tool_block_threads(const struct kp_tool_input *m)
{
	const struct kp_launch *l = m->profile ? m->profile->launch : NULL;
	if (!l)
		return 0;
	return (l->block[0] ? l->block[0] : 1) * (l->block[1] ? l->block[1] : 1) * (l->block[2] ? l->block[2] : 1);
}

double kp_tool_threads(const struct kp_tool_input *m)
{
	const struct kp_launch *l = m->profile ? m->profile->launch : NULL;
	if (!l || !l->grid[0])
		return 0;
	return (double)l->grid[0] * (l->grid[1] ? l->grid[1] : 1) * (l->grid[2] ? l->grid[2] : 1) *
	       kp_tool_block_threads(m);
}

double kp_tool_time_s(const struct kp_tool_input *m)
{
	double ns = kp_tool_metric(m, KP_M_TIME);
	if (!isnan(ns) && ns > 0)
		return ns * 1e-9;
	if (m->stage1 && m->stage1->time_s > 0)
		return m->stage1->time_s;
	return NAN;
}

void kp_tool_evidence(struct kp_finding *f, const char *metric, double value, double threshold, const char *unit)
{
	if (!isnan(value))
		kp_finding_evidence(f, metric, value, threshold, unit);
}

void kp_tool_explained_by_list(struct kp_finding *f, const char *ids)
{
	struct kp_strvec v = KP_STRVEC_INIT;
	kp_strvec_split(&v, ids, ' ');
	for (size_t i = 0; i < v.n; i++)
		if (*v.v[i])
			kp_finding_explained_by(f, v.v[i]);
	kp_strvec_release(&v);
}

/*
 * One direction's excess sectors from L1 sectors per request. A request is
 * one warp-wide instruction; coalesced, it needs (32 threads x width) / 32 B
 * = width sectors. The bytes it uses (bytes per sector x sectors per request)
 * give the width, except that ncu counts a broadcast address once, so a
 * width below 4 B is taken as 4 B, the narrowest common access; a request
 * never needs fewer sectors than the bytes it uses. Adds to *excess and
 * *total; nothing when the counts or the bytes per sector (the width) are
 * unknown, e.g. cp.async copies, which issue no LDG.
 */
static void excess_by_requests(const struct kp_tool_input *m, const char *sectors, const char *requests,
			       const char *bps, double *excess, double *total)
{
	double s = kp_tool_metric(m, sectors), r = kp_tool_metric(m, requests), b = kp_tool_metric(m, bps);
	double used, width = 4;

	if (!(s > 0) || !(r > 0) || !(b > 0))
		return;
	used = b * s / r / 32.0; /* bytes used per request, per thread of a full warp */
	while (width < 16 && width * 1.1 < used)
		width *= 2;
	*excess += fmax(0, s - r * fmax(width, used));
	*total += s;
}

double kp_tool_excess_sectors(const struct kp_tool_input *m, enum kp_excess_src *src)
{
	double tot = kp_tool_metric(m, KP_M_L2_SECTORS), ideal = kp_tool_metric(m, KP_M_L2_SECTORS_IDEAL);
	double excess = 0, total = 0, worst = NAN;
	enum kp_excess_src dummy;

	if (!src)
		src = &dummy;
	*src = KP_EXCESS_MEASURED;
	if (!isnan(tot) && !isnan(ideal) && tot > 0)
		return fmax(0, tot - ideal) / tot;
	*src = KP_EXCESS_REQUESTS;
	excess_by_requests(m, KP_M_GLD_SECTORS, KP_M_GLD_REQUESTS, KP_M_BPS_LD, &excess, &total);
	excess_by_requests(m, KP_M_GST_SECTORS, KP_M_GST_REQUESTS, KP_M_BPS_ST, &excess, &total);
	if (total > 0)
		return excess / total;
	/* Bytes per sector alone: an upper bound, a broadcast's unused bytes count as waste. */
	*src = KP_EXCESS_BYTES;
	for (int st = 0; st < 2; st++) {
		double b = kp_tool_metric(m, st ? KP_M_BPS_ST : KP_M_BPS_LD);
		double s = kp_tool_metric(m, st ? KP_M_GST_SECTORS : KP_M_GLD_SECTORS);
		if (b > 0 && s != 0) /* a ratio of 0 means "no such accesses" */
			worst = fmin(isnan(worst) ? 32 : worst, b);
	}
	if (!isnan(worst))
		return 1.0 - worst / 32.0;
	*src = KP_EXCESS_NONE;
	return NAN;
}

const char *kp_excess_src_name(enum kp_excess_src src)
{
	switch (src) {
	case KP_EXCESS_MEASURED:
		return "measured";
	case KP_EXCESS_REQUESTS:
		return "estimated from sectors per request";
	case KP_EXCESS_BYTES:
		return "estimated from bytes used per sector";
	case KP_EXCESS_NONE:
		break;
	}
	return "unknown";
}
