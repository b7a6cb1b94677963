/*
 * launch_overhead: many short kernels with the GPU idle between them, and
 * host synchronizations that serialize launches. Reads the program's launch
 * trace, not ncu: the cost is between kernels, where ncu does not look.
 */
#include "base/setup.h"

#include "tools/tool_util.h"

enum { T_MIN_LAUNCHES, T_MIN_IDLE, T_SHORT_US };

static const struct kp_threshold thresholds[] = {
	{"min_launches", 20, "", "at least this many launches of the kernel in the trace"},
	{"min_idle_pct", 30, "%", "and the GPU idle before its launches for at least this share of their time"},
	{"short_kernel_us", 10, "us", "kernels shorter than this on average are dominated by launch cost"},
	{NULL, 0, NULL, NULL},
};

static const struct kp_tool_metric metrics[] = {
	{NULL, 0},
};

struct launches {
	double n;             /* kernel launches in the whole trace */
	const char *name;     /* the kernel: this profile's, else the most launched one */
	double same;          /* its launches (an nsys summary row stands for `count` of them) */
	double avg_us;        /* its mean duration */
	double idle;          /* share of its launches' time the GPU sits idle before them; NAN when unknown */
	int idle_from_api;    /* estimated from host launch time (a summary trace has no timeline) */
	size_t syncs_between; /* host synchronizations before the last kernel started */
};

static double count_of(const struct kp_trace_event *e)
{
	return e->count ? (double)e->count : 1;
}

/* The kernel to report on: the profiled one (by name), else the most launched. */
static const char *pick_kernel(const struct kp_trace *tr, const char *fn)
{
	const char *best = NULL;
	double best_n = 0;
	for (size_t i = 0; i < tr->nevents; i++) {
		const struct kp_trace_event *e = &tr->events[i];
		double c = 0;
		if (e->kind != KP_TRACE_KERNEL || !e->name || (fn && !strstr(e->name, fn)) ||
		    (best && !strcmp(best, e->name)))
			continue;
		for (size_t j = 0; j < tr->nevents; j++) /* quadratic, but traces are small */
			if (tr->events[j].kind == KP_TRACE_KERNEL && tr->events[j].name &&
			    !strcmp(tr->events[j].name, e->name))
				c += count_of(&tr->events[j]);
		if (c > best_n) {
			best_n = c;
			best = e->name;
		}
	}
	return best;
}

static void measure(const struct kp_tool_input *m, struct launches *x)
{
	const struct kp_trace *tr = m->profile->trace;
	const struct kp_launch *l = m->profile->launch;
	double ns = 0, gap = 0;
	uint64_t prev_end = 0, last_start = 0;

	memset(x, 0, sizeof(*x));
	x->n = (double)tr->nkernels;
	x->name = pick_kernel(tr, l && l->function ? l->function : NULL);
	for (size_t i = 0; i < tr->nevents; i++) {
		const struct kp_trace_event *e = &tr->events[i];
		if (e->kind != KP_TRACE_KERNEL)
			continue;
		if (x->name && e->name && !strcmp(e->name, x->name)) {
			x->same += count_of(e);
			ns += (double)(e->end_ns - e->start_ns);
			/* The GPU's idle time just before this launch (events are sorted by start). */
			if (tr->timeline && prev_end && e->start_ns > prev_end)
				gap += (double)(e->start_ns - prev_end);
		}
		if (e->end_ns > prev_end)
			prev_end = e->end_ns;
		if (e->start_ns > last_start)
			last_start = e->start_ns;
	}
	x->avg_us = x->same > 0 ? ns / x->same / 1e3 : 0;
	x->idle = NAN;
	if (tr->timeline && ns + gap > 0) {
		x->idle = gap / (ns + gap);
	} else if (!tr->timeline && tr->api_launch_ns && x->n > 0) {
		/* No timeline: a kernel shorter than its host launch call leaves the GPU waiting for the next one. */
		double api_us = (double)tr->api_launch_ns / x->n / 1e3;
		x->idle = api_us > x->avg_us ? 1.0 - x->avg_us / api_us : 0;
		x->idle_from_api = 1;
	}
	for (size_t i = 0; i < tr->nevents; i++)
		if (tr->events[i].kind == KP_TRACE_SYNC && tr->events[i].start_ns < last_start)
			x->syncs_between++;
}

static int trigger(const struct kp_tool_input *m, const double *t)
{
	struct launches x;
	measure(m, &x);
	if (x.same < t[T_MIN_LAUNCHES])
		return 0;
	if (isnan(x.idle))
		return x.avg_us < t[T_SHORT_US];
	return x.idle * 100 >= t[T_MIN_IDLE];
}

static int analyze(const struct kp_tool_input *m, const double *t, struct kp_findings *out)
{
	struct launches x;
	struct kp_finding *f;
	char *key;

	measure(m, &x);
	key = x.name ? kp_kernel_name_key(x.name) : NULL;
	if (isnan(x.idle))
		f = kp_finding_new(out, KP_SEV_MEDIUM, "Launch-bound: %.0f launches of %.60s averaging %.2f us", x.same,
				   key ? key : "one kernel", x.avg_us);
	else
		f = kp_finding_new(out, KP_SEV_NONE, "Launch-bound: %.0f launches of %.60s averaging %.2f us leave the GPU idle %.0f%% of the time",
				   x.same, key ? key : "one kernel", x.avg_us, x.idle * 100);
	free(key);
	kp_finding_cause(f, "%s kernel is launched %.0f times; each launch costs a few microseconds of CPU and driver "
			    "time, and kernels of %.1f us cannot cover it, so the GPU waits for the next launch "
			    "instead of computing%s.",
			 x.same > 1 ? "The same" : "A", x.same, x.avg_us,
			 x.syncs_between ? "; host synchronizations between launches drain the queue as well" : "");
	kp_finding_evidence(f, "launches of this kernel", x.same, t[T_MIN_LAUNCHES], "");
	kp_finding_evidence(f, "kernel launches in the trace", x.n, NAN, "");
	kp_finding_evidence(f, "mean kernel duration", x.avg_us, t[T_SHORT_US], "us");
	kp_tool_evidence(f, x.idle_from_api ? "GPU idle, from host launch time" : "GPU idle between kernels",
			 x.idle * 100, t[T_MIN_IDLE], "%");
	if (x.syncs_between)
		kp_finding_evidence(f, "host synchronizations between launches", (double)x.syncs_between, 0, "");
	kp_finding_rec(f, "Fuse the launches into one kernel: move the loop over steps inside the kernel (a "
			  "grid-stride or persistent kernel; a cooperative grid sync if steps depend on each other)");
	kp_finding_rec(f, "If the launches must stay separate, capture the sequence once in a CUDA Graph "
			  "(cudaStreamBeginCapture ... cudaGraphInstantiate, then cudaGraphLaunch) to cut the per-launch "
			  "cost to about a microsecond");
	if (x.syncs_between)
		kp_finding_rec(f, "Remove the %zu host synchronizations between launches (cudaDeviceSynchronize, "
				  "cudaStreamSynchronize, blocking cudaMemcpy); synchronize once at the end",
			       x.syncs_between);
	if (!isnan(x.idle))
		kp_finding_gain(f, x.idle, "if the GPU never waited between these launches");
	return 0;
}

const struct kp_tool kp_tool_launch_overhead = {
	.name = "launch_overhead",
	.description = "Many short kernels, host gaps and synchronizations between launches",
	.details = "Reads the launch trace of the whole program (kernelpro's CUPTI tracer, or nsys): the number "
		   "of kernels, their mean duration, the idle time between them and the host synchronizations. "
		   "With at least min_launches launches (of the profiled kernel, when there is one) and the GPU "
		   "idle min_idle_pct of the span, the program is launch-bound (a summary trace without a "
		   "timeline estimates the idle share from the host's launch time, or falls back to kernels "
		   "shorter than short_kernel_us); the fix is fusing the launches into one kernel, a CUDA Graph, and removing "
		   "per-launch synchronizations. The gain is the idle share of the span.",
	.sources = KP_SRC_TRACE,
	.needs = KP_SRC_TRACE,
	.metrics = metrics,
	.thresholds = thresholds,
	.trigger = trigger,
	.analyze = analyze,
};
