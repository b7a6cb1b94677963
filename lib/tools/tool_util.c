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

static double weight(const struct kp_tool_input *m, int memory)
{
	double sm = kp_tool_metric(m, KP_M_SM_PCT), mem = kp_tool_metric(m, KP_M_MEM_PCT);
	double top;
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
