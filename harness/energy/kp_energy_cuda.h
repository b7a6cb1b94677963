/*
 * The CUDA side of energy measurement, shared by the kp-energy driver and the energy benchmarks:
 * a workload made of launches on one stream and timed with events, NVML opened for the CUDA
 * device, seeded input fills, and the driver's exit protocol (one JSON object on stdout).
 */
#ifndef KP_ENERGY_CUDA_H
#define KP_ENERGY_CUDA_H

#include <cuda_runtime.h>
#include <stdint.h>

extern "C" {
#include "kernelpro/buf.h"
#include "kernelpro/energy.h"
}

/* Enqueues one launch (or one call of a task's kp_run) on `s`; returns 0 or an error number. */
typedef int (*kp_launch_fn)(void *ud, cudaStream_t s);

struct kp_cuda_workload {
	const char *name;
	kp_launch_fn launch;
	void *ud;
	cudaStream_t stream;
	cudaEvent_t e0, e1;
	struct kp_energy_workload w; /* what kp_energy_measure takes; w.ud points back here */
};

/* Creates the stream and events; kp_cuda_workload_release() frees them. */
int kp_cuda_workload_init(struct kp_cuda_workload *cw, const char *name, kp_launch_fn f, void *ud,
			  struct kp_error *err);
void kp_cuda_workload_release(struct kp_cuda_workload *cw);

/* Sets the current device and opens NVML for it, matched by PCI bus id. */
int kp_cuda_open_meter(int device, struct kp_energy_nvml **nvml, struct kp_energy_meter *m, struct kp_error *err);

/* A CUDA failure as a kernelpro error ("what: cudaErrorX: text"); returns the code. */
int kp_cuda_error(struct kp_error *err, cudaError_t e, const char *what);

/*
 * Fills n elements of type `dtype` (KP_ABI_* of kp_native.h) on the device: kind 0 uniform [a, b),
 * 1 normal (mean a, sd b), 2 integers in [a, b), 3 constant a, 4 a + i*b. Seeded and
 * deterministic: the same generator as the native harness, so input i filled with seed
 * kp_cuda_input_seed(42, i) holds what `kernelpro eval` timed.
 */
int kp_cuda_fill(void *ptr, int dtype, size_t n, int kind, double a, double b, uint64_t seed, cudaStream_t s,
		 struct kp_error *err);

uint64_t kp_cuda_input_seed(uint64_t seed, int i);

/* A whole-string number within [lo, hi], for the programs' options; 0 or -1. */
int kp_cuda_parse_num(const char *s, double lo, double hi, double *out);

/*
 * The driver protocol: print the result (or the failure) as one JSON object on stdout and
 * return the process exit status (0; 3 for a missing NVML or GPU; 1 otherwise).
 */
int kp_energy_exit_ok(const struct kp_energy_measurement *m, size_t n, const char *workload);
int kp_energy_exit_fail(const struct kp_error *err);

#endif
