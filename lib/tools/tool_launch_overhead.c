/*
 * launch_overhead: many short kernels with the GPU idle between them, and
 * host synchronizations that serialize launches. Reads the program's launch
 * trace, not ncu: the cost is between kernels, where ncu does not look.
 */
#include "base/setup.h"

#include "tools/tool_util.h"

enum { T_MIN_LAUNCHES, T_MIN_IDLE, T_SHORT_US };

static const struct kp_threshold thresholds[] = {
	{"min_launches", 20, "", "at least this many kernel launches in the trace"},
	{"min_idle_pct", 30, "%", "and the GPU idle between kernels for at least this share of the traced span"},
	{"short_kernel_us", 10, "us", "kernels shorter than this on average are dominated by launch cost"},
	{NULL, 0, NULL, NULL},
};

static const struct kp_tool_metric metrics[] = {
	{NULL, 0},
};

struct launches {
	size_t n, same;       /* kernels in the trace; launches of this kernel (by name) */
	const char *name;     /* the most frequent kernel name */
	double avg_us, idle;  /* mean kernel duration; idle share of the span */
};

static void measure(const struct kp_tool_input *m, struct launches *x)
{
	const struct kp_trace *tr = m->profile->trace;
	const struct kp_launch *l = m->profile->launch;
	const char *fn = l && l->function ? l->function : NULL;

	x->n = tr->nkernels;
	x->avg_us = x->n ? (double)tr->kernel_ns / (double)x->n / 1e3 : 0;
	x->idle = tr->span_ns ? (double)tr->gap_ns / (double)tr->span_ns : 0;
	x->same = 0;
	x->name = NULL;
	/* The kernel this profile is about, else the most frequent one (quadratic, but traces are small). */
	for (size_t i = 0; i < tr->nevents; i++) {
		const struct kp_trace_event *e = &tr->events[i];
		size_t c = 0;
		if (e->kind != KP_TRACE_KERNEL || !e->name)
			continue;
		if (fn && !strstr(e->name, fn))
			continue;
		for (size_t j = i; j < tr->nevents; j++)
			if (tr->events[j].kind == KP_TRACE_KERNEL && tr->events[j].name &&
			    !strcmp(tr->events[j].name, e->name))
				c++;
		if (c > x->same) {
			x->same = c;
			x->name = e->name;
		}
		if (fn)
			break;
	}
}

static int trigger(const struct kp_tool_input *m, const double *t)
{
	struct launches x;
	measure(m, &x);
	return (double)x.n >= t[T_MIN_LAUNCHES] && x.idle * 100 >= t[T_MIN_IDLE];
}

static int analyze(const struct kp_tool_input *m, const double *t, struct kp_findings *out)
{
	const struct kp_trace *tr = m->profile->trace;
	struct launches x;
	struct kp_finding *f;

	measure(m, &x);
	f = kp_finding_new(out, KP_SEV_NONE, "Launch-bound: %zu kernel launches averaging %.1f us leave the GPU idle %.0f%% of the time",
			   x.n, x.avg_us, x.idle * 100);
	kp_finding_cause(f, "%s Each launch costs a few microseconds of CPU and driver time; when kernels run for "
			    "%s, the GPU waits for the next launch instead of computing%s.",
			 x.name && x.same > 1 ? "The same kernel is launched again and again." : "",
			 x.avg_us < t[T_SHORT_US] ? "less than that" : "about as long",
			 tr->nsyncs ? ", and host synchronizations between launches drain the queue" : "");
	kp_finding_evidence(f, "kernel launches", (double)x.n, t[T_MIN_LAUNCHES], "");
	if (x.name && x.same > 1)
		kp_finding_evidence(f, "launches of the most frequent kernel", (double)x.same, NAN, "");
	kp_finding_evidence(f, "mean kernel duration", x.avg_us, t[T_SHORT_US], "us");
	kp_finding_evidence(f, "GPU idle between kernels", x.idle * 100, t[T_MIN_IDLE], "%");
	if (tr->nsyncs)
		kp_finding_evidence(f, "host synchronizations", (double)tr->nsyncs, 0, "");
	kp_finding_rec(f, "Fuse the launches into one kernel: move the loop over steps inside the kernel (a "
			  "grid-stride or persistent kernel; a cooperative grid sync if steps depend on each other)");
	kp_finding_rec(f, "If the launches must stay separate, capture the sequence once in a CUDA Graph "
			  "(cudaStreamBeginCapture ... cudaGraphInstantiate, then cudaGraphLaunch) to cut the per-launch "
			  "cost to about a microsecond");
	if (tr->nsyncs)
		kp_finding_rec(f, "Remove the %zu host synchronizations between launches (cudaDeviceSynchronize, "
				  "cudaStreamSynchronize, blocking cudaMemcpy); synchronize once at the end",
			       tr->nsyncs);
	kp_finding_gain(f, x.idle, "if the GPU were busy for the whole traced span");
	return 0;
}

const struct kp_tool kp_tool_launch_overhead = {
	.name = "launch_overhead",
	.description = "Many short kernels, host gaps and synchronizations between launches",
	.details = "Reads the launch trace of the whole program (kernelpro's CUPTI tracer, or nsys): the number "
		   "of kernels, their mean duration, the idle time between them and the host synchronizations. "
		   "With at least min_launches kernels and the GPU idle min_idle_pct of the span, the program is "
		   "launch-bound; the fix is fusing the launches into one kernel, a CUDA Graph, and removing "
		   "per-launch synchronizations. The gain is the idle share of the span.",
	.sources = KP_SRC_TRACE,
	.needs = KP_SRC_TRACE,
	.metrics = metrics,
	.thresholds = thresholds,
	.trigger = trigger,
	.analyze = analyze,
};
