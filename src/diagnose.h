/* The diagnosis report shared by `kernelpro diagnose` (files given one by one) and `kernelpro analyze` (a profile directory). */
#ifndef KP_SRC_DIAGNOSE_H
#define KP_SRC_DIAGNOSE_H

#include "cli.h"
#include "kernelpro/profile.h"

struct kp_diagnose_opts {
	struct kp_profile_files files;
	const char *gpu_key;          /* NULL: the report's device, else the local GPU */
	int gpu_index;
	const struct kp_strvec *launches; /* launch IDs to report; NULL or empty: all */
	double min_bytes;             /* NAN when the task does not say */
};

/* Loads, runs Stage 1 per launch and prints the report; returns the exit code. */
int kp_diagnose_report(struct kp_cli *cli, const struct kp_diagnose_opts *o);

/* Timing only (no ncu): the trace's kernels by name, launches, GPU time and gaps; returns the exit code. */
int kp_trace_report(struct kp_cli *cli, const char *trace_path);

/* The files of a profile directory written by `kernelpro profile` (those that exist). Strings are allocated in sv. */
void kp_profile_dir_files(const char *dir, struct kp_profile_files *f, struct kp_strvec *sv);

#endif
