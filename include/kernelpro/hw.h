/* Hardware model: a table of GPU specs, matched to the device present, with measured ceilings when calibrated. */
#ifndef KERNELPRO_HW_H
#define KERNELPRO_HW_H

#include "kernelpro/buf.h"
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
	double fp16;            /* packed FP16 on CUDA cores (HFMA2), FLOP/s; 0 when not published */
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
	/* Ceilings for the other precisions (datasheet, scaled to the device's SMs and clock). */
	double fp16, fp16_tc, fp8_tc, int8_tc, fp64_tc;
	char device[128];       /* the driver's device name when from_device, else "" */
	char calibration[512];  /* path of the measured-ceilings file used, else "" */
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

/*
 * The GPU model for a profile, by one rule (docs/hw.md), first that applies:
 *   1. `key` ("h200-sxm", from --gpu or --hw) when given;
 *   2. the GPU the profile was taken on (`profiled`: the device name ncu or profile.json
 *      recorded) when the table knows it: modelled from the device present at `index` when that
 *      is the same GPU (its SM count, clock and calibration), else from the table;
 *   3. the device present at `index`;
 *   4. none: KP_ENODEV, saying to pass --gpu KEY (and naming `profiled` when the table lacks it).
 * The profiled GPU outranks the device present because the counters were measured there: a
 * profile from another machine keeps its own roofline.
 */
int kp_hw_for_profile(struct kp_hw *hw, const char *key, const char *profiled, int index, struct kp_error *err);

/* The GPU in one line for the programmer's prompts: name, source of the ceilings, SMs, peaks, L2, shared memory. */
void kp_hw_describe(const struct kp_hw *hw, struct kp_buf *out);

/* ---- Measured ceilings (kernelpro hw calibrate) ------------------------------------------------ */

/*
 * What the calibration program measured on one GPU. Rates in FLOP/s, bandwidth in
 * bytes/s (read + write bytes of a device-to-device copy per second); 0 when not measured.
 */
struct kp_hw_calibration {
	char key[32];           /* spec key of the device */
	char device[128];       /* driver device name */
	char measured_at[32];   /* ISO 8601 UTC */
	double dram_bw, fp32, fp64, bf16_tc, tf32_tc, fp16_tc;
	double sm_clock_hz;     /* SM clock while measuring (NVML), 0 when unknown */
};

/* $XDG_CACHE_HOME/kernelpro/hw/<key>.json (or ~/.cache/...): where kp_hw_load looks. */
int kp_hw_calibration_path(const char *key, struct kp_buf *out, struct kp_error *err);
/* Reads a calibration file; KP_ENOENT when absent, KP_EPARSE naming the file when malformed. */
int kp_hw_calibration_load(struct kp_hw_calibration *c, const char *path, struct kp_error *err);
/* Writes it atomically (creating the directory). */
int kp_hw_calibration_save(const struct kp_hw_calibration *c, const char *path, struct kp_error *err);
/* Parses the JSON the calibration program prints (harness/calibrate). */
int kp_hw_calibration_from_json(struct kp_hw_calibration *c, const char *what, const char *text, size_t len,
				struct kp_error *err);
/* Uses the measured ceilings in hw (those > 0), marks it calibrated and names the source. */
void kp_hw_apply_calibration(struct kp_hw *hw, const struct kp_hw_calibration *c, const char *path);

#endif
