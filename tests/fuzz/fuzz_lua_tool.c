/*
 * libFuzzer target: a user tool's source. Loading (sandbox, validation of the tool table) and,
 * when it loads, one run on a small kernel (trigger, analyze, the findings read back from Lua),
 * under a low instruction limit and memory cap. Seed with the files in examples/tools.
 */
#include "base/setup.h"

#include "kernelpro/tools.h"
#include "tools/luatool.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct kp_metric metrics[] = {
		{"dram__bytes_read.sum", "byte", 1e9, NULL, 0, NULL},
		{"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", "%", 70, NULL, 0, NULL},
		{"lts__t_sector_hit_rate.pct", "%", 20, NULL, 0, NULL},
	};
	static struct kp_launch launch = {0, "k(float *)", "k", NULL, {64, 1, 1}, {256, 1, 1}, 0, 7, "9.0",
					  KP_ARRAY_SIZE(metrics), metrics, 0, 0};
	struct kp_kernel_profile prof = {&launch, NULL, NULL, NULL};
	struct kp_tool_input in = {&prof, NULL, NULL, 0, NULL};
	struct kp_luatool *lt = NULL;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_findings out = KP_FINDINGS_INIT;
	struct kp_buf msg = KP_BUF_INIT;
	struct kp_luatool_limits lim = {100000, (size_t)8 << 20, 1000};
	double t[64];

	if (kp_luatool_load_mem(&lt, "fuzz.lua", (const char *)data, size, &lim, &err))
		return 0;
	for (size_t i = 0; i < KP_ARRAY_SIZE(t); i++)
		t[i] = 1.0;
	in.tool = kp_luatool_info(lt);
	kp_luatool_run(lt, &in, t, &out, &msg);
	kp_findings_release(&out);
	kp_buf_release(&msg);
	kp_luatool_free(lt);
	return 0;
}
