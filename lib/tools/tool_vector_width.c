/*
 * vector_width: global loads and stores issued 32 bits at a time where 64- or
 * 128-bit accesses would do, in a kernel whose warps mostly wait on memory.
 * Reads the SASS width histogram, else the width ncu's counters imply; ncu's
 * stall shares say whether it matters.
 */
#include "base/setup.h"

#include "tools/tool_util.h"

enum { T_SCALAR_PCT, T_WAIT_SHARE };

static const struct kp_threshold thresholds[] = {
	{"min_scalar_pct", 50, "%", "fires when at least this share of global load/store instructions is 32-bit or narrower"},
	{"min_wait_share", 0.30, "", "and warps spend at least this share of their cycles waiting on global memory"},
	{NULL, 0, NULL, NULL},
};

static const struct kp_tool_metric metrics[] = {
	{KP_M_STALL_TOTAL, KP_TM_OPTIONAL},
	{KP_M_GLD_SECTORS, KP_TM_OPTIONAL},
	{KP_M_GST_SECTORS, KP_TM_OPTIONAL},
	{KP_M_GLD_REQUESTS, KP_TM_OPTIONAL},
	{KP_M_GST_REQUESTS, KP_TM_OPTIONAL},
	{KP_M_BPS_LD, KP_TM_OPTIONAL},
	{KP_M_BPS_ST, KP_TM_OPTIONAL},
	KP_TM_STALL(KP_M_STALL_LONG_SCOREBOARD),
	KP_TM_STALL(KP_M_STALL_LG_THROTTLE),
	KP_TM_SOL,
	{NULL, 0},
};

struct width {
	double scalar, wide, total, scalar_frac, avg_bits, wait_share;
	int async;
	int counters; /* 1: no SASS, the widths come from ncu's counters */
};

/* Bytes a thread moves per global access of one kind, from ncu's counters: sectors per request (one
 * request per warp instruction) times the bytes used of each sector, over a warp's 32 threads. A full
 * warp's coalesced 32-bit access is 4 sectors of 32 bytes (4 B a thread), a 128-bit one 16 (16 B); a
 * scattered 32-bit one 32 sectors of 4 used bytes (4 B). NAN without such accesses. */
static double counter_bytes(const struct kp_tool_input *m, const char *sectors, const char *requests,
                            const char *bps, double *req)
{
	double sec = kp_tool_metric(m, sectors), b = kp_tool_metric(m, bps);
	*req = kp_tool_metric(m, requests);
	if (!(*req > 0) || !(sec > 0) || !(b > 0)) {
		*req = 0;
		return NAN;
	}
	return sec / *req * b / 32.0;
}

static void measure_counters(const struct kp_tool_input *m, struct width *w)
{
	double rl, rs;
	double bl = counter_bytes(m, KP_M_GLD_SECTORS, KP_M_GLD_REQUESTS, KP_M_BPS_LD, &rl);
	double bs = counter_bytes(m, KP_M_GST_SECTORS, KP_M_GST_REQUESTS, KP_M_BPS_ST, &rs);
	double bits = 0;

	w->counters = 1;
	w->scalar = (rl > 0 && bl <= 4.5 ? rl : 0) + (rs > 0 && bs <= 4.5 ? rs : 0);
	w->total = rl + rs;
	w->wide = w->total - w->scalar;
	if (rl > 0)
		bits += rl * fmin(128, 8 * bl);
	if (rs > 0)
		bits += rs * fmin(128, 8 * bs);
	w->avg_bits = w->total > 0 ? bits / w->total : 128;
}

static void measure(const struct kp_tool_input *m, struct width *w)
{
	const struct kp_sass_func *s = m->profile->sass;
	double ls = kp_tool_stall_share(m, KP_M_STALL_LONG_SCOREBOARD);
	double lg = kp_tool_stall_share(m, KP_M_STALL_LG_THROTTLE);

	memset(w, 0, sizeof(*w));
	if (s) {
		double b64 = kp_sass_n(s, KP_SASS_LDG_64) + kp_sass_n(s, KP_SASS_STG_64);
		double b128 = kp_sass_n(s, KP_SASS_LDG_128) + kp_sass_n(s, KP_SASS_STG_128);
		w->scalar = kp_sass_n(s, KP_SASS_LDG_32) + kp_sass_n(s, KP_SASS_STG_32) + kp_sass_n(s, KP_SASS_LDG_OTHER) +
			    kp_sass_n(s, KP_SASS_STG_OTHER);
		w->wide = b64 + b128;
		w->total = w->scalar + w->wide;
		w->avg_bits = w->total > 0 ? (32 * w->scalar + 64 * b64 + 128 * b128) / w->total : 128;
		w->async =
		    kp_sass_n(s, KP_SASS_LDGSTS) + kp_sass_n(s, KP_SASS_UTMALDG) + kp_sass_n(s, KP_SASS_UTMASTG) > 0;
	} else
		measure_counters(m, w); /* async copies (LDGSTS, TMA) go through other pipes than these counters */
	w->scalar_frac = w->total > 0 ? w->scalar / w->total : 0;
	/* Without stall counters, a memory-dominated kernel counts as waiting on memory. */
	w->wait_share = isnan(ls) ? (kp_tool_memory_weight(m) >= 0.9 ? 1.0 : 0.0) : ls + kp_nz(lg);
}

static int trigger(const struct kp_tool_input *m, const double *t)
{
	struct width w;
	measure(m, &w);
	if (w.counters && w.total == 0 && isnan(kp_tool_metric(m, KP_M_GLD_REQUESTS)) &&
	    isnan(kp_tool_metric(m, KP_M_GST_REQUESTS)))
		return KP_EMISSING; /* neither the SASS nor the load/store counters */
	return !w.async && w.total > 0 && w.scalar_frac * 100 >= t[T_SCALAR_PCT] && w.wait_share >= t[T_WAIT_SHARE];
}

static int analyze(const struct kp_tool_input *m, const double *t, struct kp_findings *out)
{
	const struct kp_sass_func *s = m->profile->sass;
	struct width w;
	double headroom, cap, gain;
	struct kp_finding *f;

	measure(m, &w);
	if (w.counters)
		f = kp_finding_new(out, KP_SEV_NONE, "Global memory accessed 32 bits at a time (%.0f%% of executed load/store instructions move at most 4 bytes a thread)",
				   w.scalar_frac * 100);
	else if (s->has_executed)
		f = kp_finding_new(out, KP_SEV_NONE, "Global memory accessed 32 bits at a time (%.0f%% of executed load/store instructions are scalar)",
				   w.scalar_frac * 100);
	else
		f = kp_finding_new(out, KP_SEV_NONE, "Global memory accessed 32 bits at a time (%.0f of %.0f load/store instructions are scalar)",
				   w.scalar, w.total);
	kp_finding_cause(f, "Each thread moves 4 bytes per instruction, so a warp keeps few bytes in flight and the "
			    "load/store unit issues up to 4x the instructions a 128-bit access needs; warps wait on "
			    "global memory %.0f%% of their cycles.",
			 w.wait_share * 100);
	kp_finding_evidence(f, w.counters ? "scalar global load/store requests (ncu: sectors per request x bytes used per sector)"
			    : s->has_executed ? "scalar global load/store instructions (executed SASS)"
					      : "scalar global load/store instructions (SASS)",
			    w.scalar_frac * 100, t[T_SCALAR_PCT], "%");
	kp_finding_evidence(f, w.counters ? "average global access width (ncu counters)" : "average global access width (SASS)",
			    w.avg_bits, 128, "bit");
	kp_finding_evidence(f, "warp cycles waiting on global memory", w.wait_share * 100, t[T_WAIT_SHARE] * 100, "%");
	if (s && s->counts[KP_SASS_LDG_32])
		kp_finding_evidence(f, "LDG.E (32-bit) instructions (SASS)", s->counts[KP_SASS_LDG_32], NAN, "");
	kp_finding_rec(f, "Load and store 16 bytes per thread: %.0f of this kernel's %.0f global load/store "
			  "instructions move 4 bytes (one element per thread per access) while warps wait on memory "
			  "%.0f%% of their cycles; use reinterpret_cast<const float4*>(in)[i] and "
			  "reinterpret_cast<float4*>(out)[i] (int4/uint4/__half2x4 for other types) when the pointers "
			  "are 16-byte aligned, and finish the last n %% 4 elements with a scalar loop",
		       w.scalar, w.total, w.wait_share * 100);
	kp_finding_rec(f, "Give each thread several independent elements (a grid-stride loop unrolled 4x, or 4 "
			  "consecutive elements per thread) so more loads are in flight before the first one returns");
	kp_finding_rec(f, "Declare read-only inputs const float* __restrict__ so the compiler may emit "
			  "LDG.E.128.CONSTANT (the read-only path)");
	/* Widening multiplies the bytes in flight by 128/width: time shrinks at most by 1 - width/128, never
	   past the busiest unit's headroom, and only in the part of the time warps wait on memory. */
	headroom = kp_tool_headroom(m);
	cap = 1.0 - w.avg_bits / 128.0;
	gain = fmin(isnan(headroom) ? cap : headroom, cap) * w.wait_share * w.scalar_frac;
	kp_finding_gain(f, gain, "the memory-wait share of the headroom to the busiest unit's practical peak");
	return 0;
}

const struct kp_tool kp_tool_vector_width = {
	.name = "vector_width",
	.description = "32-bit global loads/stores where 64/128-bit would do, in a memory-waiting kernel",
	.details = "Counts global load/store instructions by width in the SASS (LDG.E vs LDG.E.64/.128, same for "
		   "STG); without the SASS, a kind of access is 32-bit when ncu's sectors per request times bytes "
		   "used per sector, over a warp's 32 threads, is at most 4.5 bytes a thread. Fires when at least min_scalar_pct of them are 32-bit or narrower, the kernel uses no "
		   "async copies (LDGSTS, TMA), and ncu says warps spend at least min_wait_share of their cycles "
		   "waiting on global memory (long_scoreboard + lg_throttle stalls). The estimated gain is that "
		   "waiting share of the headroom to the busiest unit: widening accesses keeps 4x more bytes in "
		   "flight but cannot pass the roof.",
	.sources = KP_SRC_SASS | KP_SRC_NCU,
	.needs = KP_SRC_NCU,
	.metrics = metrics,
	.thresholds = thresholds,
	.trigger = trigger,
	.analyze = analyze,
};
