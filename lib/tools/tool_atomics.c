/*
 * atomics: global or shared atomics issued so often that they serialize:
 * many atomic operations per thread while every unit of the GPU sits nearly
 * idle. The usual cause is many threads updating one address.
 */
#include "base/setup.h"

#include "tools/tool_util.h"

enum { T_PER_THREAD, T_MAX_BUSY };

static const struct kp_threshold thresholds[] = {
	{"min_per_thread", 0.05, "", "atomic L2 operations per launched thread at or above this count as atomic-heavy"},
	{"max_busy_pct", 20, "%", "and the busiest unit below this share of its peak: the atomics serialize"},
	{NULL, 0, NULL, NULL},
};

static const struct kp_tool_metric metrics[] = {
	{KP_M_L2_RED, KP_TM_OPTIONAL},
	{KP_M_L2_ATOM, KP_TM_OPTIONAL},
	{KP_M_SATOM_INST, KP_TM_OPTIONAL},
	{KP_M_STALL_TOTAL, KP_TM_OPTIONAL},
	KP_TM_STALL(KP_M_STALL_DRAIN),
	KP_TM_STALL(KP_M_STALL_LG_THROTTLE),
	KP_TM_STALL(KP_M_STALL_MEMBAR),
	KP_TM_SOL,
	{NULL, 0},
};

struct atom {
	double ops, shared_ops, per_thread, busiest, time;
};

static int measure(const struct kp_tool_input *m, struct atom *a)
{
	double red = kp_tool_metric(m, KP_M_L2_RED), at = kp_tool_metric(m, KP_M_L2_ATOM);
	double threads = kp_tool_threads(m);
	if (isnan(red) && isnan(at))
		return KP_EMISSING;
	a->ops = kp_nz(red) + kp_nz(at);
	a->shared_ops = kp_nz(kp_tool_metric(m, KP_M_SATOM_INST)) * 32;
	a->per_thread = threads > 0 ? (a->ops + a->shared_ops) / threads : NAN;
	a->busiest = kp_tool_busiest(m);
	a->time = kp_tool_time_s(m);
	return 0;
}

static int trigger(const struct kp_tool_input *m, const double *t)
{
	struct atom a;
	if (measure(m, &a))
		return KP_EMISSING;
	return a.per_thread >= t[T_PER_THREAD] && !(a.busiest * 100 >= t[T_MAX_BUSY]);
}

static int analyze(const struct kp_tool_input *m, const double *t, struct kp_findings *out)
{
	struct atom a;
	double drain, lg;
	struct kp_finding *f;

	if (measure(m, &a))
		return KP_EMISSING;
	f = kp_finding_new(out, KP_SEV_NONE, "Contended atomics: %.3g atomic operations (%.2f per thread) serialize the kernel",
			   a.ops + a.shared_ops, a.per_thread);
	kp_finding_cause(f, "Many threads update the same few addresses with atomicAdd; updates to one address "
			    "execute one after another in the L2 slice that owns it, so the GPU is %.1f%% busy while "
			    "the kernel waits in line.",
			 a.busiest * 100);
	kp_finding_evidence(f, "atomic operations per launched thread", a.per_thread, t[T_PER_THREAD], "");
	kp_finding_evidence(f, "busiest unit's share of its peak", a.busiest * 100, t[T_MAX_BUSY], "%");
	if (a.time > 0)
		kp_finding_evidence(f, "atomic operations per second", a.ops / a.time, NAN, "op/s");
	drain = kp_tool_stall_share(m, KP_M_STALL_DRAIN);
	lg = kp_tool_stall_share(m, KP_M_STALL_LG_THROTTLE);
	kp_tool_evidence(f, "warp cycles in drain + lg_throttle stalls", (kp_nz(drain) + kp_nz(lg)) * 100, NAN, "%");
	kp_finding_rec(f, "Reduce before the atomic: sum within the warp with __shfl_down_sync (or "
			  "cooperative_groups::reduce), then across warps in shared memory, and issue one atomicAdd "
			  "per block (%ux fewer atomics with this launch's blocks)",
		       kp_tool_block_threads(m) ? kp_tool_block_threads(m) : 256);
	kp_finding_rec(f, "Or write one partial result per block to global memory and combine them in a second, "
			  "small kernel (deterministic, no atomics)");
	kp_finding_rec(f, "For histograms, privatize: keep per-block bins in shared memory (shared atomics), merge "
			  "them into global memory once per block");
	kp_finding_gain(f, 1.0 - a.busiest, "if the kernel ran at the speed its memory traffic allows");
	return 0;
}

const struct kp_tool kp_tool_atomics = {
	.name = "atomics",
	.description = "Contended atomics: many atomic updates per thread serializing on few addresses",
	.details = "Counts atomic and reduction operations arriving at L2 (lts__t_sectors_srcunit_tex_op_red/atom) "
		   "and shared-memory atomics, per launched thread. At or above min_per_thread, with the busiest "
		   "unit of the GPU below max_busy_pct of its peak, the atomics serialize (typically many threads "
		   "on one address). The fix is hierarchical reduction (warp shuffle, shared memory, one atomic "
		   "per block) or a two-pass scheme; the gain is the time beyond what the traffic needs.",
	.sources = KP_SRC_NCU,
	.metrics = metrics,
	.thresholds = thresholds,
	.trigger = trigger,
	.analyze = analyze,
};
