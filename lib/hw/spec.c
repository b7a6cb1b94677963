/*
 * The GPU table: datasheet figures, dense (no sparsity), at the boost clock.
 * Sources: NVIDIA product datasheets and architecture whitepapers (H100/H200
 * datasheets, A100 datasheet, L40S datasheet, Ada whitepaper for the RTX 4090,
 * HGX B200 datasheet divided by 8 GPUs and by 2 for sparsity).
 * docs/hw.md lists each figure's source; `kernelpro hw calibrate` replaces the
 * ceilings that matter for the roofline with measured ones.
 */
#include "base/setup.h"

#include "kernelpro/hw.h"
#include "kernelpro/str.h"

#define T 1e12
#define GB 1e9
#define MiB (1024.0 * 1024.0)
#define KiB 1024.0

static const struct kp_hw_spec specs[] = {
	{
		.key = "h100-sxm", .name = "NVIDIA H100 SXM5 80GB", .match = "H100 80GB HBM3|H100 SXM",
		.cc_major = 9, .cc_minor = 0, .sm_count = 132, .boost_clock_hz = 1.98e9,
		.dram_bw = 3.35 * T, .dram_bytes = 80 * GB, .l2_bytes = 50 * MiB, .smem_per_sm = 228 * KiB,
		.regs_per_sm = 65536, .max_threads_per_sm = 2048, .max_blocks_per_sm = 32,
		.fp32 = 66.9 * T, .fp64 = 33.5 * T, .fp64_tc = 66.9 * T, .tf32_tc = 494.7 * T,
		.bf16_tc = 989.4 * T, .fp16_tc = 989.4 * T, .fp8_tc = 1978.9 * T, .int8_tc = 1978.9 * T,
		.tdp_w = 700, .fp16 = 133.8 * T,
	},
	{
		.key = "h100-pcie", .name = "NVIDIA H100 PCIe 80GB", .match = "H100 PCIe",
		.cc_major = 9, .cc_minor = 0, .sm_count = 114, .boost_clock_hz = 1.755e9,
		.dram_bw = 2.0 * T, .dram_bytes = 80 * GB, .l2_bytes = 50 * MiB, .smem_per_sm = 228 * KiB,
		.regs_per_sm = 65536, .max_threads_per_sm = 2048, .max_blocks_per_sm = 32,
		.fp32 = 51.2 * T, .fp64 = 25.6 * T, .fp64_tc = 51.2 * T, .tf32_tc = 378 * T,
		.bf16_tc = 756 * T, .fp16_tc = 756 * T, .fp8_tc = 1513 * T, .int8_tc = 1513 * T,
		.tdp_w = 350, .fp16 = 102.4 * T,
	},
	{
		.key = "h100-nvl", .name = "NVIDIA H100 NVL 94GB", .match = "H100 NVL",
		.cc_major = 9, .cc_minor = 0, .sm_count = 132, .boost_clock_hz = 1.785e9,
		.dram_bw = 3.9 * T, .dram_bytes = 94 * GB, .l2_bytes = 50 * MiB, .smem_per_sm = 228 * KiB,
		.regs_per_sm = 65536, .max_threads_per_sm = 2048, .max_blocks_per_sm = 32,
		.fp32 = 60 * T, .fp64 = 30 * T, .fp64_tc = 60 * T, .tf32_tc = 417.5 * T,
		.bf16_tc = 835.5 * T, .fp16_tc = 835.5 * T, .fp8_tc = 1670.5 * T, .int8_tc = 1670.5 * T,
		.tdp_w = 400, .fp16 = 120 * T,
	},
	{
		.key = "h200-sxm", .name = "NVIDIA H200 SXM 141GB", .match = "H200",
		.cc_major = 9, .cc_minor = 0, .sm_count = 132, .boost_clock_hz = 1.98e9,
		.dram_bw = 4.8 * T, .dram_bytes = 141 * GB, .l2_bytes = 50 * MiB, .smem_per_sm = 228 * KiB,
		.regs_per_sm = 65536, .max_threads_per_sm = 2048, .max_blocks_per_sm = 32,
		.fp32 = 66.9 * T, .fp64 = 33.5 * T, .fp64_tc = 66.9 * T, .tf32_tc = 494.7 * T,
		.bf16_tc = 989.4 * T, .fp16_tc = 989.4 * T, .fp8_tc = 1978.9 * T, .int8_tc = 1978.9 * T,
		.tdp_w = 700, .fp16 = 133.8 * T,
	},
	{
		.key = "h200-nvl", .name = "NVIDIA H200 NVL 141GB", .match = "H200 NVL",
		.cc_major = 9, .cc_minor = 0, .sm_count = 132, .boost_clock_hz = 1.785e9,
		.dram_bw = 4.8 * T, .dram_bytes = 141 * GB, .l2_bytes = 50 * MiB, .smem_per_sm = 228 * KiB,
		.regs_per_sm = 65536, .max_threads_per_sm = 2048, .max_blocks_per_sm = 32,
		.fp32 = 60.3 * T, .fp64 = 30.2 * T, .fp64_tc = 60.3 * T, .tf32_tc = 417.5 * T,
		.bf16_tc = 835.5 * T, .fp16_tc = 835.5 * T, .fp8_tc = 1670.5 * T, .int8_tc = 1670.5 * T,
		.tdp_w = 600, .fp16 = 120.6 * T,
	},
	{
		.key = "a100-40", .name = "NVIDIA A100 SXM4 40GB", .match = "A100-SXM4-40GB|A100-PCIE-40GB|A100 40GB",
		.cc_major = 8, .cc_minor = 0, .sm_count = 108, .boost_clock_hz = 1.41e9,
		.dram_bw = 1.555 * T, .dram_bytes = 40 * GB, .l2_bytes = 40 * MiB, .smem_per_sm = 164 * KiB,
		.regs_per_sm = 65536, .max_threads_per_sm = 2048, .max_blocks_per_sm = 32,
		.fp32 = 19.5 * T, .fp64 = 9.7 * T, .fp64_tc = 19.5 * T, .tf32_tc = 156 * T,
		.bf16_tc = 312 * T, .fp16_tc = 312 * T, .fp8_tc = 0, .int8_tc = 624 * T,
		.tdp_w = 400, .fp16 = 78 * T,
	},
	{
		.key = "a100-80", .name = "NVIDIA A100 SXM4 80GB", .match = "A100-SXM4-80GB|A100 80GB",
		.cc_major = 8, .cc_minor = 0, .sm_count = 108, .boost_clock_hz = 1.41e9,
		.dram_bw = 2.039 * T, .dram_bytes = 80 * GB, .l2_bytes = 40 * MiB, .smem_per_sm = 164 * KiB,
		.regs_per_sm = 65536, .max_threads_per_sm = 2048, .max_blocks_per_sm = 32,
		.fp32 = 19.5 * T, .fp64 = 9.7 * T, .fp64_tc = 19.5 * T, .tf32_tc = 156 * T,
		.bf16_tc = 312 * T, .fp16_tc = 312 * T, .fp8_tc = 0, .int8_tc = 624 * T,
		.tdp_w = 400, .fp16 = 78 * T,
	},
	{
		.key = "a100-80-pcie", .name = "NVIDIA A100 PCIe 80GB", .match = "A100 80GB PCIe|A100-PCIE-80GB",
		.cc_major = 8, .cc_minor = 0, .sm_count = 108, .boost_clock_hz = 1.41e9,
		.dram_bw = 1.935 * T, .dram_bytes = 80 * GB, .l2_bytes = 40 * MiB, .smem_per_sm = 164 * KiB,
		.regs_per_sm = 65536, .max_threads_per_sm = 2048, .max_blocks_per_sm = 32,
		.fp32 = 19.5 * T, .fp64 = 9.7 * T, .fp64_tc = 19.5 * T, .tf32_tc = 156 * T,
		.bf16_tc = 312 * T, .fp16_tc = 312 * T, .fp8_tc = 0, .int8_tc = 624 * T,
		.tdp_w = 300, .fp16 = 78 * T,
	},
	{
		.key = "l40s", .name = "NVIDIA L40S", .match = "L40S",
		.cc_major = 8, .cc_minor = 9, .sm_count = 142, .boost_clock_hz = 2.52e9,
		.dram_bw = 864 * GB, .dram_bytes = 48 * GB, .l2_bytes = 96 * MiB, .smem_per_sm = 100 * KiB,
		.regs_per_sm = 65536, .max_threads_per_sm = 1536, .max_blocks_per_sm = 24,
		.fp32 = 91.6 * T, .fp64 = 1.43 * T, .fp64_tc = 0, .tf32_tc = 183 * T,
		.bf16_tc = 362.05 * T, .fp16_tc = 362.05 * T, .fp8_tc = 733 * T, .int8_tc = 733 * T,
		.tdp_w = 350, .fp16 = 91.6 * T,
	},
	{
		.key = "rtx-4090", .name = "NVIDIA GeForce RTX 4090", .match = "RTX 4090",
		.cc_major = 8, .cc_minor = 9, .sm_count = 128, .boost_clock_hz = 2.52e9,
		.dram_bw = 1008 * GB, .dram_bytes = 24 * GB, .l2_bytes = 72 * MiB, .smem_per_sm = 100 * KiB,
		.regs_per_sm = 65536, .max_threads_per_sm = 1536, .max_blocks_per_sm = 24,
		/* GeForce tensor rates with FP32 accumulation (the PyTorch default) */
		.fp32 = 82.6 * T, .fp64 = 1.29 * T, .fp64_tc = 0, .tf32_tc = 82.6 * T,
		.bf16_tc = 165.2 * T, .fp16_tc = 165.2 * T, .fp8_tc = 330.3 * T, .int8_tc = 660.6 * T,
		.tdp_w = 450, .fp16 = 82.6 * T,
	},
	{
		.key = "b200", .name = "NVIDIA B200", .match = "B200",
		.cc_major = 10, .cc_minor = 0, .sm_count = 148, .boost_clock_hz = 1.965e9,
		.dram_bw = 8.0 * T, .dram_bytes = 180 * GB, .l2_bytes = 126 * MiB, .smem_per_sm = 228 * KiB,
		.regs_per_sm = 65536, .max_threads_per_sm = 2048, .max_blocks_per_sm = 32,
		.fp32 = 75 * T, .fp64 = 37 * T, .fp64_tc = 37 * T, .tf32_tc = 1100 * T,
		.bf16_tc = 2250 * T, .fp16_tc = 2250 * T, .fp8_tc = 4500 * T, .int8_tc = 4500 * T,
		.tdp_w = 1000, .fp16 = 0,
	},
};

size_t kp_hw_spec_count(void)
{
	return KP_ARRAY_SIZE(specs);
}

const struct kp_hw_spec *kp_hw_spec_at(size_t i)
{
	return i < KP_ARRAY_SIZE(specs) ? &specs[i] : NULL;
}

/* Length of the longest '|'-separated pattern of `match` found in `name` (case-insensitive), 0 if none. */
static size_t match_len(const char *match, const char *name)
{
	size_t best = 0;
	while (*match) {
		const char *bar = strchr(match, '|');
		size_t n = bar ? (size_t)(bar - match) : strlen(match);
		for (const char *s = name; *s; s++)
			if (!strncasecmp(s, match, n)) {
				if (n > best)
					best = n;
				break;
			}
		match += n + (bar ? 1 : 0);
	}
	return best;
}

const struct kp_hw_spec *kp_hw_spec_find(const char *key_or_name)
{
	const struct kp_hw_spec *best = NULL;
	size_t best_len = 0;
	if (!key_or_name || !*key_or_name)
		return NULL;
	for (size_t i = 0; i < KP_ARRAY_SIZE(specs); i++)
		if (kp_str_ieq(specs[i].key, key_or_name))
			return &specs[i];
	/* the most specific pattern wins: "H200 NVL" over "H200" */
	for (size_t i = 0; i < KP_ARRAY_SIZE(specs); i++) {
		size_t n = match_len(specs[i].match, key_or_name);
		if (n > best_len) {
			best_len = n;
			best = &specs[i];
		}
	}
	return best;
}
