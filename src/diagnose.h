/* The diagnosis report shared by `kernelpro diagnose` (files given one by one) and `kernelpro analyze` (a profile directory). */
#ifndef KP_SRC_DIAGNOSE_H
#define KP_SRC_DIAGNOSE_H

#include <jansson.h>

#include "cli.h"
#include "kernelpro/feedback.h"
#include "kernelpro/profile.h"

/* The tools' part of the report (src/diagnose_tools.c). */
struct kp_diagnose_tools {
	struct kp_toolset *ts;        /* NULL: Stage 1 only */
	struct kp_stage2_opts stage2; /* feedback mode, energy */
	int all;                      /* run every tool, not the class's */
	int text;                     /* print the LLM's feedback text */
};

struct kp_diagnose_opts {
	struct kp_profile_files files;
	const char *gpu_key;          /* NULL: the report's device, else the local GPU */
	int gpu_index;
	const struct kp_strvec *launches; /* launch IDs to report; NULL or empty: all */
	double min_bytes;             /* NAN when the task does not say */
	const char *device_name;      /* the profiled GPU (profile.json) when the report does not name it */
	struct kp_diagnose_tools tools;
};

/* Loads, runs Stage 1 per launch and prints the report; returns the exit code. */
int kp_diagnose_report(struct kp_cli *cli, const struct kp_diagnose_opts *o);

/*
 * Timing only (no ncu): the trace's kernels by name, launches, GPU time and
 * gaps, and the trace tools' findings when o->tools is set (o may be NULL);
 * returns the exit code.
 */
int kp_trace_report(struct kp_cli *cli, const char *trace_path, const struct kp_diagnose_opts *o);

/* Opens o->tools from the KP_TOOLS_OPTS/KP_FEEDBACK_OPTS of args; 0 or an exit code. */
int kp_diagnose_tools_open(struct kp_cli *cli, const struct kp_args *args, struct kp_diagnose_opts *o);
void kp_diagnose_tools_close(struct kp_diagnose_opts *o);
/*
 * Stage 2 on one kernel (k->launch may be NULL: trace only; s1 may be NULL):
 * adds "findings", "tool_runs", "folded", "omitted", "feedback_text" to lj
 * when given, else prints the findings. Returns 0 or an exit code.
 */
int kp_diagnose_tools(struct kp_cli *cli, const struct kp_diagnose_opts *o, const struct kp_kernel_profile *k,
		      const struct kp_stage1 *s1, const struct kp_hw *hw, json_t *lj);

/*
 * The GPU a profile directory written by `kernelpro profile` was taken on (profile.json's
 * "device", else NULL); the string is allocated in sv. Its files: kp_profile_dir_files (profile.h).
 */
const char *kp_profile_dir_device(const char *dir, struct kp_strvec *sv);

#endif
