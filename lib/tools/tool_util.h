/*
 * Shared by the built-in tools (lib/tools/tool_*.c): the metric groups several
 * tools declare (names: kernelpro/ncu_metrics.h) and the derived quantities
 * they share (headroom to the busiest unit, stall shares, which roof
 * dominates). Not a public header.
 */
#ifndef KP_TOOLS_TOOL_UTIL_H
#define KP_TOOLS_TOOL_UTIL_H

#include <math.h>

#include "kernelpro/ncu_metrics.h"
#include "kernelpro/tools.h"

/* Declared by every tool that calls kp_tool_headroom(), kp_tool_time_s() or the weights below. */
#define KP_TM_SOL                                                                                  \
	{KP_M_SM_PCT, KP_TM_OPTIONAL}, {KP_M_MEM_PCT, KP_TM_OPTIONAL}, {KP_M_DRAM_PCT, KP_TM_OPTIONAL}, \
		{KP_M_TIME, KP_TM_OPTIONAL}

/* Declared by every tool that calls kp_tool_excess_sectors(). */
#define KP_TM_EXCESS                                                                                         \
	{KP_M_L2_SECTORS, KP_TM_OPTIONAL | KP_TM_SOURCE}, {KP_M_L2_SECTORS_IDEAL, KP_TM_OPTIONAL | KP_TM_SOURCE}, \
		{KP_M_GLD_SECTORS, KP_TM_OPTIONAL}, {KP_M_GST_SECTORS, KP_TM_OPTIONAL},                          \
		{KP_M_GLD_REQUESTS, KP_TM_OPTIONAL}, {KP_M_GST_REQUESTS, KP_TM_OPTIONAL},                        \
		{KP_M_BPS_LD, KP_TM_OPTIONAL}, {KP_M_BPS_ST, KP_TM_OPTIONAL}

/* Declared by every tool that calls kp_tool_stall_share() for this reason (a KP_M_STALL_* name). */
#define KP_TM_STALL(metric) {metric, KP_TM_OPTIONAL}

/* KP_DRAM_PRACTICAL (kernelpro/analyze.h): the DRAM ceiling a streaming kernel reaches in practice. */

/* ---- Derived quantities ------------------------------------------------------------------- */

/* The practical DRAM ceiling as a fraction of the datasheet peak. */
double kp_tool_dram_practical(const struct kp_tool_input *m);

/*
 * Utilisation of the busiest unit (0..1): max of SM throughput, memory
 * throughput, and DRAM throughput against its practical ceiling. NAN when
 * ncu's speed-of-light metrics are missing (falls back to Stage 1).
 */
double kp_tool_busiest(const struct kp_tool_input *m);

/*
 * 1 - kp_tool_busiest(): the most a change that keeps the same work (more
 * warps, wider loads, fewer stalls) can save before a unit saturates.
 */
double kp_tool_headroom(const struct kp_tool_input *m);

/*
 * mem / max(sm, mem), the busiest unit of each side (Stage 1's units, else ncu's SOL): 1 when memory
 * dominates; the share of a memory fix that shows in time.
 */
double kp_tool_memory_weight(const struct kp_tool_input *m);
/* sm% / max(sm%, mem%). */
double kp_tool_compute_weight(const struct kp_tool_input *m);

/* Where kp_tool_excess_sectors() got its share from. */
enum kp_excess_src {
	KP_EXCESS_NONE,     /* no global sector counts at all */
	KP_EXCESS_MEASURED, /* ncu's theoretical vs ideal L2 sectors (SourceCounters) */
	KP_EXCESS_REQUESTS, /* estimated: L1 sectors per request against the ideal for the access width */
	KP_EXCESS_BYTES,    /* estimated: 1 - bytes used per sector / 32 (counts broadcasts as waste) */
};

/*
 * The share (0..1) of the global sectors the kernel moves that are excess over a
 * coalesced access of the same data; NAN with KP_EXCESS_NONE. Measured from
 * SourceCounters when collected; otherwise estimated from counters a plain
 * --metrics run collects, so a targeted run ranks coalescing (and discounts
 * what tiling would save) like a full one. *src may be NULL.
 */
double kp_tool_excess_sectors(const struct kp_tool_input *m, enum kp_excess_src *src);
/* A few words for the evidence line: "measured", "from sectors per request", ... */
const char *kp_excess_src_name(enum kp_excess_src src);

/* Fraction (0..1) of warp cycles per issued instruction spent in one stall reason; NAN when missing. */
double kp_tool_stall_share(const struct kp_tool_input *m, const char *stall_metric);

/* Threads per launch from the launch record (grid x block), 0 when unknown. */
double kp_tool_threads(const struct kp_tool_input *m);
/* Threads per block, 0 when unknown. */
unsigned kp_tool_block_threads(const struct kp_tool_input *m);

/* The kernel's time in seconds: gpu__time_duration, else Stage 1; NAN when unknown. */
double kp_tool_time_s(const struct kp_tool_input *m);

/*
 * One SASS class count: warp-level executions when the SASS came with them (ncu's source page),
 * else the static count. Dynamic counts ignore code that never runs (cold paths, prologues).
 */
static inline double kp_sass_n(const struct kp_sass_func *s, enum kp_sass_class c)
{
	return s->has_executed ? s->executed[c] : (double)s->counts[c];
}

/* value or 0 when NAN (for sums of optional counters). */
static inline double kp_nz(double v)
{
	return isnan(v) ? 0.0 : v;
}

/* Adds each tool id of a space-separated list to the finding's explained_by. */
void kp_tool_explained_by_list(struct kp_finding *f, const char *ids);

/* Appends evidence only when the value is known. */
void kp_tool_evidence(struct kp_finding *f, const char *metric, double value, double threshold, const char *unit);

#endif
