/* Hardware model: a table of GPU specs, matched to the device present, with measured ceilings when calibrated. */
#ifndef KERNELPRO_HW_H
#define KERNELPRO_HW_H

#include "kernelpro/device.h"
#include "kernelpro/error.h"

/* Datasheet figures for one GPU model. Rates are dense (no sparsity), per second. */
struct kp_hw_spec {
	const char *key;        /* stable id: "h200-sxm" */
	const char *name;       /* "NVIDIA H200" */
	const char *match;      /* '|'-separated substrings of the driver's device name */
	int cc_major, cc_minor;
	int sm_count;
	double boost_clock_hz;
	double dram_bw;         /* bytes/s */
	double dram_bytes;      /* capacity */
	double l2_bytes;
	double smem_per_sm;     /* bytes usable by blocks */
	int regs_per_sm;
	int max_threads_per_sm;
	int max_blocks_per_sm;
	double fp32, fp64;      /* FLOP/s on CUDA cores (FFMA = 2) */
	double fp64_tc, tf32_tc, bf16_tc, fp16_tc, fp8_tc, int8_tc; /* tensor cores, 0 when absent */
	double tdp_w;
};

/* The model a run uses: the spec plus measured ceilings (kernelpro hw calibrate) where known. */
struct kp_hw {
	struct kp_hw_spec spec;
	int from_device;        /* matched to a device actually present */
	int calibrated;         /* ceilings below were measured on this machine */
	double dram_bw;         /* the ceiling to use: measured if calibrated, else datasheet */
	double fp32;
	double bf16_tc;
	double tf32_tc;
	double fp64;
	char source[128];       /* "datasheet" or "measured 2026-11-29 on NVIDIA H200" */
};

size_t kp_hw_spec_count(void);
const struct kp_hw_spec *kp_hw_spec_at(size_t i);
/* By key ("h200-sxm") or by a device name; NULL when unknown. */
const struct kp_hw_spec *kp_hw_spec_find(const char *key_or_name);

/*
 * Fills `hw` for the GPU at `index` (or by `key` when not NULL), using measured
 * ceilings from the cache when present. Without a GPU and without a key it
 * fails with KP_ENODEV; pass a key ("h200-sxm") to work offline.
 */
int kp_hw_load(struct kp_hw *hw, const char *key, int index, struct kp_error *err);

#endif
