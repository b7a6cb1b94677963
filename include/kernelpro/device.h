/* The GPUs actually present, read through the CUDA driver (libcuda) and NVML, both loaded with dlopen. */
#ifndef KERNELPRO_DEVICE_H
#define KERNELPRO_DEVICE_H

#include <stddef.h>

#include "kernelpro/error.h"

#define KP_MAX_GPUS 16

struct kp_gpu {
	int index;
	char name[128];
	int cc_major, cc_minor;
	size_t total_mem;        /* bytes */
	int sm_count;
	int sm_clock_khz;        /* CU_DEVICE_ATTRIBUTE_CLOCK_RATE (max boost, kHz) */
	int mem_clock_khz;       /* peak memory clock, kHz */
	int mem_bus_bits;
	int l2_bytes;
	int smem_per_sm;         /* bytes */
	int regs_per_sm;
	int max_threads_per_sm;
	char pci_bus_id[32];
};

struct kp_gpu_list {
	int driver_version;      /* cuDriverGetVersion: 13000 for CUDA 13.0 */
	int count;
	struct kp_gpu gpus[KP_MAX_GPUS];
};

/*
 * Loads libcuda.so.1 (or $KP_LIBCUDA) and lists the devices. Returns
 * KP_ENOTOOL when the driver library is missing, KP_ENODEV when it loads but
 * finds no device (count 0 is still filled in), 0 otherwise.
 */
int kp_device_query(struct kp_gpu_list *out, struct kp_error *err);

/*
 * NVML, loaded from libnvidia-ml.so.1 (or $KP_LIBNVML). Only the entry points
 * kernelpro uses; all may be NULL when missing from an old driver.
 */
struct kp_nvml {
	void *lib;
	int (*init)(void);
	int (*shutdown)(void);
	const char *(*error_string)(int);
	int (*system_driver_version)(char *, unsigned int);
	int (*device_count)(unsigned int *);
	int (*device_handle_by_index)(unsigned int, void **);
	int (*device_handle_by_pci_bus_id)(const char *, void **); /* "0000:19:00.0", as CUDA prints it */
	int (*device_name)(void *, char *, unsigned int);
	int (*device_total_energy)(void *, unsigned long long *); /* mJ */
	int (*device_power_usage)(void *, unsigned int *);        /* mW */
	int (*device_clock)(void *, int type, unsigned int *);    /* MHz; type 0 graphics, 1 sm, 2 mem */
	int (*device_temperature)(void *, int sensor, unsigned int *); /* sensor 0: GPU */
	int (*device_power_limit)(void *, unsigned int *);        /* enforced limit, mW */
};

/* Loads and initialises NVML. KP_ENOTOOL when the library is missing, KP_ENODEV when init fails. */
int kp_nvml_open(struct kp_nvml *n, struct kp_error *err);
void kp_nvml_close(struct kp_nvml *n);

#endif
