/*
 * The diagnosis pipeline: saved profiler output -> GPU model -> Stage 1 -> Stage 2 tools ->
 * feedback. The one path from a profile to findings and the LLM's feedback text, taken by
 * `kernelpro diagnose`, `analyze` and `profile`, by the search's harness evaluator (each
 * candidate) and by its reactive answerer (one tool on request). The commands render its
 * results; the search stores them.
 *
 * Lifecycle: kp_pipeline_open() (or _open_dir) loads the files and picks the GPU model;
 * kp_pipeline_kernel() runs both stages on one kernel into a kp_pipeline_result (released with
 * kp_pipeline_result_release); kp_pipeline_release() frees the rest. Nothing here prints.
 */
#ifndef KERNELPRO_PIPELINE_H
#define KERNELPRO_PIPELINE_H

#include "kernelpro/analyze.h"
#include "kernelpro/energy.h"
#include "kernelpro/feedback.h"
#include "kernelpro/hw.h"
#include "kernelpro/profile.h"
#include "kernelpro/tools.h"

struct kp_pipeline_opts {
	/*
	 * The GPU model, by the rule of kp_hw_for_profile (hw.h): gpu_key when given, else the GPU
	 * the profile was taken on (the ncu report's device name, else recorded_device), else the
	 * device present at gpu_index. `hw` overrides all of it: a model the caller already chose
	 * (the search keeps the first one it gets for the whole run).
	 */
	const char *gpu_key;
	const char *recorded_device;     /* profile.json's "device" when the report names none; may be NULL */
	int gpu_index;
	const struct kp_hw *hw;          /* borrowed; NULL: choose by the rule */
	struct kp_task_bytes task;       /* the task's minimum bytes and FLOPs; NAN when unknown */
	struct kp_toolset *toolset;      /* borrowed; NULL: Stage 1 only */
	struct kp_stage2_opts stage2;    /* tools (NULL: the class's), feedback mode, energy objective */
	int all_tools;                   /* every tool of the toolset instead of the class's */
	/* With stage2.energy: the NVML figure the energy paragraph quotes (NULL: the proxy's estimate). */
	const struct kp_energy_measurement *measured;
};

struct kp_pipeline {
	struct kp_pipeline_opts o;
	struct kp_profile_files files;   /* the files read (paths owned by the pipeline) */
	struct kp_strvec paths;
	struct kp_profile_set set;
	struct kp_hw hw;
	int have_hw;                     /* set when the profile has ncu data (files.ncu_csv) */
	char device[128];                /* the GPU the profile was taken on, "" when unknown */
	struct kp_energy_coeffs coeffs;  /* with stage2.energy: the proxy's coefficients for `device` */
	struct kp_kernel_profile trace_kernel; /* kp_pipeline_trace_kernel's */
	struct kp_buf sass_text;         /* the SASS file as read, for the loop shapes (kp_sass_shape_read) */
};

/*
 * Loads the files (kp_profile_set_load: an ncu CSV, or a trace alone for timing only) and, when
 * there is ncu data, the GPU model. `o` is copied (its pointers stay borrowed). Release `p`
 * whatever the result.
 */
int kp_pipeline_open(struct kp_pipeline *p, const struct kp_profile_files *f, const struct kp_pipeline_opts *o,
		     struct kp_error *err);
/*
 * The same for a profile directory (what `kernelpro profile` and the search write, read by
 * kp_profile_dir_files); its profile.json names the GPU when the report does not. Overrides
 * (a SASS or ptxas file given apart) may be set in `extra` (NULL fields: the directory's).
 * KP_EMISSING when the directory holds neither ncu_raw.csv nor trace.json.
 */
int kp_pipeline_open_dir(struct kp_pipeline *p, const char *dir, const struct kp_profile_files *extra,
			 const struct kp_pipeline_opts *o, struct kp_error *err);
void kp_pipeline_release(struct kp_pipeline *p);

/* What the pipeline made of one kernel. */
struct kp_pipeline_result {
	const struct kp_kernel_profile *kernel; /* borrowed from the pipeline */
	struct kp_stage1 stage1;
	int have_stage1;                 /* 0 for a trace-only profile */
	struct kp_diagnosis diagnosis;   /* every tool run: status, findings (empty without a toolset) */
	struct kp_feedback feedback;     /* the synthesized feedback (valid when have_feedback) */
	int have_feedback;
	char *energy_text;               /* the energy paragraph (stage2.energy, feedback mode tools); else NULL */
	double stage2_s;                 /* time spent in Stage 2 */
};

/*
 * Stage 1 on k (when it has an ncu launch) and, with a toolset, Stage 2: the tools named in
 * o.stage2.tools, else all (all_tools), else the trace tools for a trace-only kernel, else the
 * class's; then the feedback and, with the energy objective, the energy paragraph. `out` is
 * the caller's to release whatever the result.
 */
int kp_pipeline_kernel(struct kp_pipeline *p, const struct kp_kernel_profile *k, struct kp_pipeline_result *out,
		       struct kp_error *err);
/* The kernel of a trace-only profile (no ncu launch), for kp_pipeline_kernel. */
const struct kp_kernel_profile *kp_pipeline_trace_kernel(struct kp_pipeline *p);
void kp_pipeline_result_release(struct kp_pipeline_result *r);

/*
 * The whole task: Stage 1 on every launch of the profile, the launches grouped by kernel and
 * ranked by the time that could be saved (kp_task_stage1_build, default cut-off), then, with a
 * toolset, kp_pipeline_kernel on the longest launch of each kernel within the cut-off.
 */
struct kp_pipeline_task {
	struct kp_task_stage1 task;
	struct kp_stage1 *stage1;            /* per launch, in the profile's order (p->set.kernels) */
	size_t n;
	struct kp_pipeline_result *results;  /* one per selected kernel, in ranking order */
	const struct kp_task_kernel **of;    /* the kernel (in task.kernels) each result is for */
	size_t nresults;
};

/* `out` is the caller's to release (kp_pipeline_task_release) whatever the result. */
int kp_pipeline_task(struct kp_pipeline *p, struct kp_pipeline_task *out, struct kp_error *err);
void kp_pipeline_task_release(struct kp_pipeline_task *t);
/*
 * What the LLM gets for the whole task. One kernel: exactly kp_pipeline_feedback_text of it.
 * Several: the ranking (time that could be saved, by kernel), then each selected kernel's
 * feedback under its own heading, the text budget (feedback.max_chars) shared among them.
 */
void kp_pipeline_task_feedback_text(const struct kp_pipeline_task *t, struct kp_buf *out);

/*
 * The feedback text the LLM gets: the tools' feedback (kp_feedback_text, at most
 * feedback.max_chars) followed by the energy paragraph when there is one (at most 1,500 bytes).
 */
void kp_pipeline_feedback_text(const struct kp_pipeline_result *r, struct kp_buf *out);

/*
 * The reactive protocol on one kernel: Stage 1, then the one tool `name`, its status and
 * findings appended to `out` as text (kp_toolset_call). KP_ENOENT for an unknown tool.
 */
int kp_pipeline_call_tool(struct kp_pipeline *p, const struct kp_kernel_profile *k, const char *name,
			  const struct kp_feedback_opts *fo, struct kp_buf *out, struct kp_error *err);

/*
 * The collection set: what one ncu run must ask for so that the pipeline has everything it
 * reads: Stage 1's metrics, then those of the tools in `ids` (every tool when ids is NULL; none
 * when ts is NULL), then the energy proxy's when `energy`; each name once, appended to
 * `metrics`. The tools' source-level metrics (KP_TM_SOURCE) cannot go to --metrics: `sections`
 * (may be NULL) receives the sections that collect them. KP_ENOENT for an unknown tool id.
 */
int kp_pipeline_collection(const struct kp_toolset *ts, const struct kp_strvec *ids, int energy,
			   struct kp_strvec *metrics, struct kp_strvec *sections, struct kp_error *err);

#endif
