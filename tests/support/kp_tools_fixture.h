/* Hand-built kernels for the tools' unit tests: a launch with chosen metrics, SASS counts, ptxas, a trace. */
#ifndef KP_TOOLS_FIXTURE_H
#define KP_TOOLS_FIXTURE_H

#include "kernelpro/analyze.h"
#include "kernelpro/tools.h"

#define KP_FX_MAX_METRICS 512

/* A metric value for kp_fx_set; the list ends with {NULL, 0}. */
struct kp_fx_metric {
	const char *name;
	double value;
};

/* One kernel, everything inline: point in.profile at prof and pass &in to the tools. */
struct kp_fx {
	struct kp_launch launch;
	struct kp_metric metrics[KP_FX_MAX_METRICS];
	struct kp_sass_func sass;
	struct kp_ptxas_func ptxas;
	struct kp_trace trace;
	struct kp_trace_event events[512];
	struct kp_kernel_profile prof;
	struct kp_stage1 s1;
	struct kp_hw hw;
	struct kp_tool_input in;
};

/* An H200 launch of grid x block threads with the given metrics (sorted here), no SASS/ptxas/trace/Stage 1. */
void kp_fx_init(struct kp_fx *f, const struct kp_fx_metric *m, unsigned grid, unsigned block);
/* Adds or replaces one metric (keeps them sorted). */
void kp_fx_set(struct kp_fx *f, const char *name, double value);
/* Attaches SASS (counts zeroed, sm_90) / ptxas / Stage 1 (NAN fields, class b) / an empty timeline trace. */
struct kp_sass_func *kp_fx_sass(struct kp_fx *f);
struct kp_ptxas_func *kp_fx_ptxas(struct kp_fx *f);
struct kp_stage1 *kp_fx_stage1(struct kp_fx *f, enum kp_bound b);
/* A timeline trace of n launches of `name`, each dur_ns long, one every period_ns. */
void kp_fx_trace(struct kp_fx *f, const char *name, size_t n, uint64_t dur_ns, uint64_t period_ns);

/* Runs one tool; returns its status and leaves the findings in d (the caller releases d). */
enum kp_tool_status kp_fx_run(struct kp_toolset *ts, const char *tool, struct kp_fx *f, struct kp_diagnosis *d);

#endif
