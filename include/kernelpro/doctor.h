/* Environment checks behind `kernelpro doctor`: toolchain, GPU, profilers, NVML, Python, CUTLASS, LLM settings. */
#ifndef KERNELPRO_DOCTOR_H
#define KERNELPRO_DOCTOR_H

#include <jansson.h>

#include "kernelpro/device.h"

enum kp_check_status {
	KP_CHECK_OK = 0,  /* present and working */
	KP_CHECK_MISSING, /* not installed or not configured */
	KP_CHECK_BROKEN,  /* present but failing */
	KP_CHECK_INFO,    /* neither good nor bad (e.g. no GPU on a CPU machine) */
};

struct kp_check {
	char name[32];
	enum kp_check_status status;
	char detail[384];
	char fix[384];   /* what to do; empty when nothing */
};

#define KP_DOCTOR_MAX 24

struct kp_doctor {
	int count;
	struct kp_check checks[KP_DOCTOR_MAX];
	struct kp_gpu_list gpus;   /* filled by the GPU check */
	int have_gpu;
	double elapsed_s;
};

enum kp_doctor_flags {
	KP_DOCTOR_SKIP_COUNTERS = 1 << 0, /* don't profile the probe kernel under ncu */
	KP_DOCTOR_SKIP_PYTHON = 1 << 1,   /* don't start python3 */
};

/* Runs every check; never fails (each problem is a check result). */
void kp_doctor_run(struct kp_doctor *d, unsigned flags);

const char *kp_check_status_name(enum kp_check_status s);

/* {"checks": [{name, status, detail, fix}], "gpus": [...], "elapsed_s"}; new reference. */
json_t *kp_doctor_to_json(const struct kp_doctor *d);

#endif
