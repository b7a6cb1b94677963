/*
 * Stage 1's class from measured utilization: how busy each unit of the GPU was (pipes, issue
 * slots, shared memory, L1, L2, DRAM, each as a share of its peak over the elapsed time), the
 * achieved occupancy and the stall reasons, weighed with the arithmetic intensity. The rule and
 * why it is shaped so: docs/analyze.md, "The classification rule".
 */
#include "base/setup.h"

#include <math.h>

#include "analyze/stage1_impl.h"
#include "kernelpro/ncu_metrics.h"

static double pct(const struct kp_launch *l, const char *metric)
{
	double v = kp_launch_getd(l, metric, NAN);
	return isnan(v) ? NAN : fmax(0, v / 100.0);
}

static void add_unit(struct kp_stage1 *s, const char *name, enum kp_unit_side side, double busy)
{
	if (isnan(busy) || s->nunits >= KP_STAGE1_MAX_UNITS)
		return;
	s->units[s->nunits++] = (struct kp_unit_busy){name, side, busy};
}

/*
 * Shared memory as SM-side work, without its bank conflicts: the wavefronts beyond one per
 * request are waste a conflict-free layout removes, like excess sectors; what remains is the
 * kernel's own shared-memory traffic, which only fewer accesses (register blocking) reduce.
 */
static double shared_conflict_free(const struct kp_launch *l)
{
	double busy = pct(l, KP_M_WAVE_PCT);
	double w = kp_launch_getd(l, KP_M_WAVE_LD, 0) + kp_launch_getd(l, KP_M_WAVE_ST, 0);
	double c = kp_launch_getd(l, KP_M_CONF_LD, 0) + kp_launch_getd(l, KP_M_CONF_ST, 0);
	if (isnan(busy))
		return NAN;
	return w > 0 ? busy * fmax(0, w - c) / w : busy;
}

/*
 * Whether a unit can stand for its side: the issue slots serve every instruction, memory ones
 * included, so a memory-bound kernel keeps them fairly busy too; only when they are nearly always
 * taken (issue_bound) is instruction issue itself the bound.
 */
static int decisive(const struct kp_unit_busy *u, const struct kp_stage1_thresholds *t)
{
	return strcmp(u->name, "issue slots") || u->busy >= t->issue_bound;
}

void kp__stage1_units(struct kp_stage1 *s, const struct kp_launch *l, const struct kp_stage1_thresholds *t)
{
	static const struct {
		const char *name, *metric;
	} pipes[] = {
		{"FMA pipe", KP_M_PIPE_FMA_E},         {"ALU pipe", KP_M_PIPE_ALU_E},
		{"XU (special-function) pipe", KP_M_PIPE_XU_E}, {"FP64 pipe", KP_M_PIPE_FP64_E},
		{"tensor pipe", KP_M_TENSOR_PCT_ELAPSED}, {"issue slots", KP_M_ISSUE_PCT_ELAPSED},
	};
	double l1 = pct(l, KP_M_L1_PCT_ELAPSED), shared = pct(l, KP_M_WAVE_PCT), l2 = pct(l, KP_M_L2_PCT);
	double dram = pct(l, KP_M_DRAM_PCT);
	size_t first = s->nunits;

	/* The SM side: each pipe, the issue slots, conflict-free shared memory, the FLOP roof. */
	for (size_t i = 0; i < KP_ARRAY_SIZE(pipes); i++)
		add_unit(s, pipes[i].name, KP_SIDE_SM, pct(l, pipes[i].metric));
	add_unit(s, "shared memory", KP_SIDE_SM, shared_conflict_free(l));
	if (s->nunits == first) /* none of the detail: ncu's SM speed of light stands for the side */
		add_unit(s, "SM (ncu speed of light)", KP_SIDE_SM, isnan(s->sm_sol_pct) ? NAN : s->sm_sol_pct / 100);
	if (s->flops > 0)
		add_unit(s, "FLOP roof", KP_SIDE_SM, s->compute_frac);
	/* The memory side: DRAM (roofline bytes or ncu's DRAM throughput), L2, L1 without shared memory. */
	add_unit(s, "DRAM", KP_SIDE_MEMORY,
		 fmax(isnan(s->memory_frac) ? 0 : s->memory_frac, isnan(dram) ? 0 : dram));
	first = s->nunits;
	add_unit(s, "L2", KP_SIDE_MEMORY, l2);
	add_unit(s, "L1 (global and local accesses)", KP_SIDE_MEMORY,
		 isnan(l1) ? NAN : fmax(0, l1 - (isnan(shared) ? 0 : shared)));
	if (s->nunits == first)
		add_unit(s, "memory (ncu speed of light)", KP_SIDE_MEMORY,
			 isnan(s->mem_sol_pct) ? NAN : s->mem_sol_pct / 100);
	s->sm_unit = s->mem_unit = -1;
	for (size_t i = 0; i < s->nunits; i++) {
		int *best = s->units[i].side == KP_SIDE_SM ? &s->sm_unit : &s->mem_unit;
		if (decisive(&s->units[i], t) && (*best < 0 || s->units[i].busy > s->units[*best].busy))
			*best = (int)i;
	}
}

/* Stall reasons: those that wait on a latency (a dependency, a barrier) and those that wait on a busy unit. */
static const struct {
	const char *metric, *name;
	int latency;
} stalls[] = {
	{KP_M_STALL_LONG_SCOREBOARD, "long_scoreboard", 1}, {KP_M_STALL_SHORT_SCOREBOARD, "short_scoreboard", 1},
	{KP_M_STALL_WAIT, "wait", 1},                       {KP_M_STALL_BARRIER, "barrier", 1},
	{KP_M_STALL_MEMBAR, "membar", 1},                   {KP_M_STALL_BRANCH_RESOLVING, "branch_resolving", 1},
	{KP_M_STALL_NO_INSTRUCTION, "no_instruction", 1},   {KP_M_STALL_DRAIN, "drain", 1},
	{KP_M_STALL_IMC_MISS, "imc_miss", 1},               {KP_M_STALL_SLEEPING, "sleeping", 1},
	{KP_M_STALL_MATH_PIPE_THROTTLE, "math_pipe_throttle", 0}, {KP_M_STALL_MIO_THROTTLE, "mio_throttle", 0},
	{KP_M_STALL_LG_THROTTLE, "lg_throttle", 0},        {KP_M_STALL_TEX_THROTTLE, "tex_throttle", 0},
	{KP_M_STALL_DISPATCH_STALL, "dispatch_stall", 0},   {KP_M_STALL_GMMA, "gmma", 0},
};

static int stall_is_latency(const char *name)
{
	for (size_t i = 0; i < KP_ARRAY_SIZE(stalls); i++)
		if (!strcmp(stalls[i].name, name))
			return stalls[i].latency;
	return 0;
}

void kp__stage1_stalls(struct kp_stage1 *s, const struct kp_launch *l)
{
	double lat = 0, thr = 0, best = 0, total = kp_launch_getd(l, KP_M_STALL_TOTAL, NAN);
	int found = 0;
	s->occupancy_pct = kp_launch_getd(l, KP_M_WARPS_ACTIVE, NAN);
	s->stall = NULL;
	s->stall_share = s->latency_stalls = NAN;
	for (size_t i = 0; i < KP_ARRAY_SIZE(stalls); i++) {
		double v = kp_launch_getd(l, stalls[i].metric, NAN);
		if (isnan(v))
			continue;
		found = 1;
		*(stalls[i].latency ? &lat : &thr) += v;
		if (v > best) {
			best = v;
			s->stall = stalls[i].name;
		}
	}
	if (!found)
		return;
	if (lat + thr > 0)
		s->latency_stalls = lat / (lat + thr);
	if (s->stall)
		s->stall_share = total > 0 ? fmin(1, best / total) : NAN;
}

/* "; stalls mostly long_scoreboard (85% of warp cycles)" when known, else "". */
static void stall_detail(const struct kp_stage1 *s, char *b, size_t n)
{
	b[0] = '\0';
	if (s->stall && !isnan(s->stall_share))
		snprintf(b, n, "; stalls mostly %s (%.0f%% of warp cycles)", s->stall, 100 * s->stall_share);
}

static const char *uname(const struct kp_stage1 *s, int i)
{
	return i >= 0 ? s->units[i].name : "nothing measured";
}

static double ubusy(const struct kp_stage1 *s, int i)
{
	return i >= 0 ? s->units[i].busy : 0;
}

/* Over 80 lines: the classification rules in the order they are tried, each with the reason it
 * writes; one ordered rule list is easier to check against docs/analyze.md than several functions. */
void kp__stage1_classify(struct kp_stage1 *o, const struct kp_stage1_thresholds *t, int have_flops)
{
	double sm = ubusy(o, o->sm_unit), mem = ubusy(o, o->mem_unit);
	/* Whether anything is busy goes by what ran, conflicts and ncu's speed of light included. */
	double top = fmax(fmax(sm, mem), fmax(o->compute_busy, o->memory_busy));
	const char *topname = sm >= mem ? uname(o, o->sm_unit) : uname(o, o->mem_unit);
	char occ[48] = "", stall[96];

	stall_detail(o, stall, sizeof(stall));
	if (!isnan(o->occupancy_pct))
		snprintf(occ, sizeof(occ), "; achieved occupancy %.0f%%", o->occupancy_pct);
	if (!(o->time_s > 0) || !(o->dram_bytes >= 0)) {
		o->bound = KP_BOUND_UNKNOWN;
		o->rule = "missing";
		snprintf(o->reason, sizeof(o->reason), "cannot place the kernel on the roofline: %.180s missing",
			 o->missing[0] ? o->missing : "inputs");
		return;
	}
	if (top > fmax(sm, mem))
		topname = o->compute_busy >= o->memory_busy ? "SM (ncu speed of light)" : "memory (ncu speed of light)";
	if (top < t->latency_frac) {
		o->bound = KP_BOUND_LATENCY;
		o->rule = "idle";
		snprintf(o->reason, sizeof(o->reason),
			 "no unit is busy, the busiest (%s) at %.0f%% of its peak, below %.0f%%%s%s; the "
			 "kernel waits on latency (too little parallelism, serialization or launch size)",
			 topname, 100 * top, 100 * t->latency_frac, occ, stall);
		return;
	}
	if (o->occupancy_pct < t->starved_occupancy && top < t->roof_frac &&
	    (!o->stall || (stall_is_latency(o->stall) && o->stall_share >= t->starved_stall))) {
		o->bound = KP_BOUND_LATENCY;
		o->rule = "starved";
		snprintf(o->reason, sizeof(o->reason),
			 "too few warps in flight to saturate anything (achieved occupancy %.0f%%, below "
			 "%.0f%%); the busiest unit (%s) reaches %.0f%% of its peak%s",
			 o->occupancy_pct, t->starved_occupancy, topname, 100 * top, stall);
		return;
	}
	if (!have_flops) {
		/* Without FLOP counters there is no arithmetic intensity: the busier side decides. */
		o->bound = sm >= mem ? KP_BOUND_COMPUTE : KP_BOUND_MEMORY;
		o->rule = "throughput";
		snprintf(o->reason, sizeof(o->reason),
			 "FLOP counters missing: classified from throughput alone (SM side %s %.0f%%, memory side %s "
			 "%.0f%%)",
			 uname(o, o->sm_unit), 100 * sm, uname(o, o->mem_unit), 100 * mem);
		return;
	}
	if ((o->compute_frac >= 0.75 * t->roof_frac && o->memory_frac >= 0.75 * t->roof_frac &&
	     fabs(o->compute_frac - o->memory_frac) <= t->mixed_margin) ||
	    (sm >= t->roof_frac && mem >= t->roof_frac && fabs(sm - mem) <= t->mixed_margin)) {
		o->bound = KP_BOUND_MIXED;
		o->rule = "mixed";
		snprintf(o->reason, sizeof(o->reason),
			 "near the ridge point (AI %.3g vs ridge %.3g FLOP/B) and close to both roofs: %s %.0f%% "
			 "and %s %.0f%% of peak (%.0f%% of the %s roof, %.0f%% of DRAM bandwidth)",
			 o->ai, o->ridge_ai, uname(o, o->sm_unit), 100 * sm, uname(o, o->mem_unit), 100 * mem,
			 100 * o->compute_frac, o->precision, 100 * o->memory_frac);
		return;
	}
	if (o->compute_frac >= o->memory_frac) {
		o->bound = KP_BOUND_COMPUTE;
		o->rule = "intensity";
		snprintf(o->reason, sizeof(o->reason),
			 "arithmetic intensity %.3g FLOP/B is above the ridge (%.3g), so DRAM cannot bound it; "
			 "it reaches %.0f%% of the %s roof; the busiest unit: %s %.0f%% of its peak",
			 o->ai, o->ridge_ai, 100 * o->compute_frac, o->precision,
			 sm >= mem ? uname(o, o->sm_unit) : uname(o, o->mem_unit), 100 * fmax(sm, mem));
		return;
	}
	if (sm >= mem + t->sm_margin) {
		o->bound = KP_BOUND_COMPUTE;
		o->rule = "utilization";
		snprintf(o->reason, sizeof(o->reason),
			 "%s %.0f%% of peak while the memory side peaks at %.0f%% (%s); intensity %.3g FLOP/B "
			 "is below the ridge (%.3g), but the SM's own work, not DRAM, is what limits it",
			 uname(o, o->sm_unit), 100 * sm, 100 * mem, uname(o, o->mem_unit), o->ai, o->ridge_ai);
		return;
	}
	o->bound = KP_BOUND_MEMORY;
	o->rule = "intensity";
	snprintf(o->reason, sizeof(o->reason),
		 "arithmetic intensity %.3g FLOP/B is below the ridge (%.3g) and the memory side is the busy "
		 "one: %s %.0f%% of peak, %.0f%% of the DRAM roof, against %s %.0f%% on the SM side",
		 o->ai, o->ridge_ai, uname(o, o->mem_unit), 100 * mem, 100 * o->memory_frac, uname(o, o->sm_unit),
		 100 * sm);
}
