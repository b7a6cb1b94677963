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
	const char *device_name;      /* the profiled GPU (profile.json) when the report does not name it */
};

/* Loads, runs Stage 1 per launch and prints the report; returns the exit code. */
int kp_diagnose_report(struct kp_cli *cli, const struct kp_diagnose_opts *o);

/* Timing only (no ncu): the trace's kernels by name, launches, GPU time and gaps; returns the exit code. */
int kp_trace_report(struct kp_cli *cli, const char *trace_path);

/*
 * The files of a profile directory written by `kernelpro profile` (those that exist), and the
 * GPU it was taken on (profile.json's "device", else NULL). Strings are allocated in sv.
 */
void kp_profile_dir_files(const char *dir, struct kp_profile_files *f, struct kp_strvec *sv);
const char *kp_profile_dir_device(const char *dir, struct kp_strvec *sv);

#endif
