/*
 * coalescing: global accesses whose warps touch more 32-byte sectors than the
 * bytes they use need. Reads ncu's excess-sector counts (SourceCounters) when
 * collected, else estimates the excess from sectors per request (what a
 * targeted --metrics run has); the excess share is the traffic a fix removes.
 */
#include "base/setup.h"

#include "tools/tool_util.h"

enum { T_EXCESS_PCT, T_MIN_BPS };

static const struct kp_threshold thresholds[] = {
	{"max_excess_pct", 10, "%", "fires when more than this share of global sectors is excess over the ideal (measured, or estimated from sectors per request)"},
	{"min_bytes_per_sector", 16, "B", "without excess-sector or request counts: fires when fewer bytes of each 32-byte sector are used"},
	{NULL, 0, NULL, NULL},
};

static const struct kp_tool_metric metrics[] = {
	KP_TM_EXCESS,
	KP_TM_SOL,
	{NULL, 0},
};

struct coal {
	double excess_frac;    /* NAN when unknown */
	enum kp_excess_src src; /* where excess_frac comes from */
	double total, ideal;   /* NAN without SourceCounters */
	double bps_ld, bps_st; /* bytes used per sector; NAN when no such accesses */
};

static void measure(const struct kp_tool_input *m, struct coal *c)
{
	c->excess_frac = kp_tool_excess_sectors(m, &c->src);
	c->total = kp_tool_metric(m, KP_M_L2_SECTORS);
	c->ideal = kp_tool_metric(m, KP_M_L2_SECTORS_IDEAL);
	c->bps_ld = kp_tool_metric(m, KP_M_BPS_LD);
	c->bps_st = kp_tool_metric(m, KP_M_BPS_ST);
	/* A ratio of 0 means "no such accesses", not "nothing used". */
	if (!(c->bps_ld > 0) || kp_tool_metric(m, KP_M_GLD_SECTORS) == 0)
		c->bps_ld = NAN;
	if (!(c->bps_st > 0) || kp_tool_metric(m, KP_M_GST_SECTORS) == 0)
		c->bps_st = NAN;
}

static int trigger(const struct kp_tool_input *m, const double *t)
{
	struct coal c;
	measure(m, &c);
	switch (c.src) {
	case KP_EXCESS_MEASURED:
	case KP_EXCESS_REQUESTS:
		return c.excess_frac * 100 > t[T_EXCESS_PCT];
	case KP_EXCESS_BYTES:
		return (!isnan(c.bps_ld) && c.bps_ld < t[T_MIN_BPS]) || (!isnan(c.bps_st) && c.bps_st < t[T_MIN_BPS]);
	case KP_EXCESS_NONE:
		break;
	}
	return (isnan(c.total) && isnan(kp_tool_metric(m, KP_M_BPS_LD))) ? KP_EMISSING : 0;
}

static int analyze(const struct kp_tool_input *m, const double *t, struct kp_findings *out)
{
	struct coal c;
	int bad_ld, bad_st;
	double worst, frac;
	char what[80];
	struct kp_finding *f;

	measure(m, &c);
	bad_ld = !isnan(c.bps_ld) && c.bps_ld < 32 * 0.9;
	bad_st = !isnan(c.bps_st) && c.bps_st < 32 * 0.9;
	if (!bad_ld && !bad_st)
		bad_ld = 1; /* excess counted without a per-direction ratio: call it loads */
	worst = fmin(isnan(c.bps_ld) ? 32 : c.bps_ld, isnan(c.bps_st) ? 32 : c.bps_st);
	frac = c.excess_frac; /* the trigger fired, so it is known */

	f = kp_finding_new(out, KP_SEV_NONE, "Uncoalesced global %s: %.0f%% of the sectors moved are excess (%.1f of 32 bytes used per sector)",
			   bad_ld && bad_st ? "loads and stores" : bad_st ? "stores" : "loads", frac * 100, worst);
	kp_finding_cause(f, "Neighbouring threads of a warp access addresses %s apart, so each 32-byte sector "
			    "brought in serves only %.1f useful bytes and the memory system moves %.1fx the data the "
			    "kernel uses.",
			 worst <= 4.5 ? "32 bytes or more" : "several elements", worst, 32.0 / fmax(worst, 1.0));
	snprintf(what, sizeof(what), "excess global sectors (%s)", kp_excess_src_name(c.src));
	kp_tool_evidence(f, what, frac * 100, c.src == KP_EXCESS_BYTES ? NAN : t[T_EXCESS_PCT], "%");
	kp_tool_evidence(f, KP_M_BPS_LD, c.bps_ld, t[T_MIN_BPS], "B");
	kp_tool_evidence(f, KP_M_BPS_ST, c.bps_st, t[T_MIN_BPS], "B");
	kp_tool_evidence(f, KP_M_L2_SECTORS, c.total, NAN, "");
	kp_tool_evidence(f, KP_M_L2_SECTORS_IDEAL, c.ideal, NAN, "");
	{
		/* what this kernel's accesses look like: sectors per warp request against a coalesced access */
		double sec = kp_tool_metric(m, bad_ld ? KP_M_GLD_SECTORS : KP_M_GST_SECTORS);
		double req = kp_tool_metric(m, bad_ld ? KP_M_GLD_REQUESTS : KP_M_GST_REQUESTS);
		char per[96] = "";
		if (sec > 0 && req > 0)
			snprintf(per, sizeof(per), ", %.1f sectors per warp request where 4 would do for 4-byte elements",
				 sec / req);
		kp_finding_rec(f, "Map threadIdx.x to the contiguous (fastest-varying) index of every global array: this "
				  "kernel's %s use %.1f of each 32-byte sector%s, so a warp's lanes are %s apart; for "
				  "row-major A[r*N + c], consecutive threads must differ in c, not r (swap the roles of "
				  "threadIdx.x and threadIdx.y if they are reversed; a thread that walks its own row or "
				  "chunk with k++ is the same mistake: let the lanes take consecutive k)",
			       bad_ld && bad_st ? "loads and stores" : bad_st ? "stores" : "loads", worst, per,
			       worst <= 4.5 ? "at least a sector" : "several elements");
	}
	kp_finding_rec(f, "If the strided order is inherent (transpose, gather, column access), stage through "
			  "shared memory: load a 32x32 tile with coalesced reads, __syncthreads(), read it back in the "
			  "strided order from the tile (declared [32][33] to avoid bank conflicts), write coalesced");
	kp_finding_rec(f, "For arrays of structs, switch to a struct of arrays so each field is contiguous; for "
			  "index-driven gathers, sort or bucket the indices so a warp's accesses fall in few sectors");
	kp_finding_gain(f, frac * kp_tool_memory_weight(m),
			"if the excess sectors disappear, in proportion to the memory-bound share of the time");
	return 0;
}

const struct kp_tool kp_tool_coalescing = {
	.name = "coalescing",
	.description = "Excess global sectors: warps touching more 32-byte sectors than the bytes they use",
	.details = "Compares the L2 sectors the kernel's global accesses touched with the ideal count for the "
		   "same bytes (memory_l2_theoretical_sectors_global vs _ideal, from ncu's SourceCounters), and "
		   "reports the bytes used per 32-byte sector for loads and stores. Without SourceCounters (a "
		   "targeted run) it estimates the excess from L1 sectors per request against the sectors a "
		   "coalesced warp access of the same width needs. Fires when the excess exceeds max_excess_pct, "
		   "or, with only the bytes per sector, when fewer than min_bytes_per_sector bytes are used. "
		   "The recommendation is the code change: thread-to-index mapping, a shared-memory tile for "
		   "inherently strided access, SoA layouts.",
	.sources = KP_SRC_NCU,
	.metrics = metrics,
	.thresholds = thresholds,
	.trigger = trigger,
	.analyze = analyze,
};
