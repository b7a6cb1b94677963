/* kernelpro hw: the GPU model kernelpro uses (show), and measuring its real ceilings (calibrate). */
#include "base/setup.h"

#include <time.h>

#include "cli.h"
#include "kernelpro/analyze.h"
#include "kernelpro/child.h"
#include "kernelpro/device.h"
#include "kernelpro/fs.h"
#include "kernelpro/hw.h"
#include "kernelpro/json.h"
#include "kernelpro/str.h"

static void print_hw(struct kp_cli *cli, const struct kp_hw *hw)
{
	const struct kp_hw_spec *s = &hw->spec;
	fprintf(cli->out, "%s (%s)%s%s\n", s->name, s->key, hw->device[0] ? ", device: " : "", hw->device);
	fprintf(cli->out, "  sm_%d%d, %d SMs at %.0f MHz, %.0f GB, L2 %.0f MiB, %.0f KiB smem/SM, %d regs/SM, TDP %.0f W\n",
		s->cc_major, s->cc_minor, s->sm_count, s->boost_clock_hz / 1e6, s->dram_bytes / 1e9, s->l2_bytes / 1048576.0,
		s->smem_per_sm / 1024, s->regs_per_sm, s->tdp_w);
	fprintf(cli->out, "  ceilings (%s):\n", hw->source);
	fprintf(cli->out, "    DRAM      %8.3f TB/s%s\n", hw->dram_bw / 1e12, hw->dram_bw != s->dram_bw ? "  (datasheet differs)" : "");
	fprintf(cli->out, "    FP32      %8.1f TFLOP/s\n", hw->fp32 / 1e12);
	fprintf(cli->out, "    FP64      %8.1f TFLOP/s\n", hw->fp64 / 1e12);
	fprintf(cli->out, "    FP16      %8.1f TFLOP/s (CUDA cores)\n", hw->fp16 / 1e12);
	fprintf(cli->out, "    TF32 TC   %8.1f TFLOP/s\n", hw->tf32_tc / 1e12);
	fprintf(cli->out, "    BF16 TC   %8.1f TFLOP/s\n", hw->bf16_tc / 1e12);
	fprintf(cli->out, "    FP16 TC   %8.1f TFLOP/s\n", hw->fp16_tc / 1e12);
	fprintf(cli->out, "    FP8 TC    %8.1f TFLOP/s\n", hw->fp8_tc / 1e12);
	fprintf(cli->out, "    INT8 TC   %8.1f TOP/s\n", hw->int8_tc / 1e12);
	fprintf(cli->out, "    FP64 TC   %8.1f TFLOP/s\n", hw->fp64_tc / 1e12);
	fprintf(cli->out, "  ridge point (FP32 / DRAM): %.1f FLOP/byte\n", hw->fp32 / hw->dram_bw);
}

static const struct kp_opt show_opts[] = {
	KP_GPU_MODEL_OPT("a model from the table instead of this machine's GPU (works offline)"),
	{"gpu-index", 0, KP_OPT_INT, "N:0..", "which local GPU", "0"},
	{"list", 0, KP_OPT_FLAG, NULL, "list the GPU table", NULL},
	KP_OPT_TABLE_END,
};

static int run_show(struct kp_cli *cli, const struct kp_args *args)
{
	struct kp_error err = KP_ERROR_INIT;
	struct kp_hw hw;
	if (kp_arg_flag(args, "list")) {
		json_t *a = cli->json ? json_array() : NULL;
		for (size_t i = 0; i < kp_hw_spec_count(); i++) {
			const struct kp_hw_spec *s = kp_hw_spec_at(i);
			if (a) {
				struct kp_hw h;
				kp_hw_load(&h, s->key, 0, NULL);
				json_array_append_new(a, kp_hw_to_json(&h));
			} else {
				fprintf(cli->out, "%-14s %-26s sm_%d%d %3d SMs  %5.2f TB/s  FP32 %5.1f  BF16 TC %6.1f TFLOP/s\n",
					s->key, s->name, s->cc_major, s->cc_minor, s->sm_count, s->dram_bw / 1e12,
					s->fp32 / 1e12, s->bf16_tc / 1e12);
			}
		}
		if (a) {
			kp_cli_print_json(cli, a);
			json_decref(a);
		}
		return KP_EXIT_OK;
	}
	if (kp_hw_load(&hw, kp_arg_str(args, "gpu-model"), (int)kp_arg_int(args, "gpu-index", 0), &err))
		return kp_cli_fail(cli, &err);
	if (cli->json) {
		json_t *o = kp_hw_to_json(&hw);
		kp_cli_print_json(cli, o);
		json_decref(o);
	} else {
		print_hw(cli, &hw);
	}
	return KP_EXIT_OK;
}

static const struct kp_opt calibrate_opts[] = {
	{"gpu-index", 0, KP_OPT_INT, "N:0..", "which local GPU", "0"},
	{"timeout", 0, KP_OPT_INT, "SEC:1..", "time limit for the measurement", "300"},
	{"dry-run", 0, KP_OPT_FLAG, NULL, "measure and print, but do not store", NULL},
	KP_OPT_TABLE_END,
};

/* Over 80 lines: the checks before measuring (the program, a GPU here, its model), the run, and storing
 * the result, each failure with its own message and exit code, through one cleanup path. */
static int run_calibrate(struct kp_cli *cli, const struct kp_args *args)
{
	struct kp_error err = KP_ERROR_INIT;
	struct kp_child c = KP_CHILD_INIT;
	struct kp_hw_calibration cal;
	struct kp_buf path = KP_BUF_INIT;
	struct kp_hw hw;
	char *prog = kp_find_libexec("kp-calibrate"), how[128];
	int rc = KP_EXIT_FAIL, index = (int)kp_arg_int(args, "gpu-index", 0);

	if (!prog) {
		kp_cli_error(cli, "kp-calibrate was not built (it needs nvcc and cuBLAS at build time: run 'make' where nvcc is)");
		rc = KP_EXIT_MISSING;
		goto out;
	}
	{
		/* Measures this machine's GPU: kp_hw_load's advice (--gpu-model KEY, to work offline) is no use here. */
		struct kp_gpu_list gl;
		if (kp_device_query(&gl, &err) || gl.count == 0) {
			kp_cli_error(cli, "hw calibrate measures a GPU on this machine, and there is none: %s",
				     err.code ? kp_error_msg(&err) : "no CUDA device");
			rc = KP_EXIT_MISSING;
			goto out;
		}
	}
	if (kp_hw_load(&hw, NULL, index, &err)) {
		rc = kp_cli_fail(cli, &err);
		goto out;
	}
	kp_strvec_pushf(&c.args, "%s", prog);
	kp_strvec_pushf(&c.args, "%d", index);
	c.timeout_ms = kp_arg_int(args, "timeout", 300) * 1000;
	c.out_cap = 1 << 20;
	c.err_cap = 1 << 20;
	if (cli->verbosity >= 0)
		fprintf(cli->err, "measuring %s: copy bandwidth, FP32/FP64 FMA, TF32/BF16/FP16 tensor GEMMs...\n",
			hw.device);
	if (kp_child_run(&c, &err)) {
		rc = kp_cli_fail(cli, &err);
		goto out;
	}
	if (!kp_child_ok(&c)) {
		kp_cli_error(cli, "kp-calibrate %s: %s", kp_child_describe(&c, how, sizeof(how)), c.err.buf);
		goto out;
	}
	if (kp_hw_calibration_from_json(&cal, "kp-calibrate output", c.out.buf, c.out.len, &err)) {
		rc = kp_cli_fail(cli, &err);
		goto out;
	}
	kp_strlcpy(cal.key, hw.spec.key, sizeof(cal.key));
	if (kp_hw_calibration_path(hw.spec.key, &path, &err) ||
	    (!kp_arg_flag(args, "dry-run") && kp_hw_calibration_save(&cal, path.buf, &err))) {
		rc = kp_cli_fail(cli, &err);
		goto out;
	}
	if (cli->json) {
		json_t *o = json_object();
		kp_json_set(o, "device", json_string(cal.device));
		kp_json_set(o, "key", json_string(cal.key));
		kp_json_set(o, "stored", kp_arg_flag(args, "dry-run") ? NULL : json_string(path.buf));
		kp_json_set(o, "measured_at", json_string(cal.measured_at));
		kp_json_set(o, "dram_bw", kp_json_real(cal.dram_bw));
		kp_json_set(o, "fp32", kp_json_real(cal.fp32));
		kp_json_set(o, "fp64", kp_json_real(cal.fp64));
		kp_json_set(o, "tf32_tc", kp_json_real(cal.tf32_tc));
		kp_json_set(o, "bf16_tc", kp_json_real(cal.bf16_tc));
		kp_json_set(o, "fp16_tc", kp_json_real(cal.fp16_tc));
		kp_json_set(o, "datasheet", kp_hw_to_json(&hw));
		kp_cli_print_json(cli, o);
		json_decref(o);
	} else {
		const struct kp_hw_spec *s = &hw.spec;
		fprintf(cli->out, "%s (%s), measured vs datasheet:\n", cal.device, cal.key);
		fprintf(cli->out, "  copy bandwidth %8.3f TB/s  (%3.0f%% of %.2f)\n", cal.dram_bw / 1e12, 100 * cal.dram_bw / s->dram_bw, s->dram_bw / 1e12);
		fprintf(cli->out, "  FP32 FFMA      %8.1f TFLOP/s (%3.0f%% of %.1f)\n", cal.fp32 / 1e12, 100 * cal.fp32 / s->fp32, s->fp32 / 1e12);
		fprintf(cli->out, "  FP64 DFMA      %8.1f TFLOP/s (%3.0f%% of %.1f)\n", cal.fp64 / 1e12, 100 * cal.fp64 / s->fp64, s->fp64 / 1e12);
		fprintf(cli->out, "  TF32 GEMM      %8.1f TFLOP/s (%3.0f%% of %.1f)\n", cal.tf32_tc / 1e12, 100 * cal.tf32_tc / s->tf32_tc, s->tf32_tc / 1e12);
		fprintf(cli->out, "  BF16 GEMM      %8.1f TFLOP/s (%3.0f%% of %.1f)\n", cal.bf16_tc / 1e12, 100 * cal.bf16_tc / s->bf16_tc, s->bf16_tc / 1e12);
		fprintf(cli->out, "  FP16 GEMM      %8.1f TFLOP/s (%3.0f%% of %.1f)\n", cal.fp16_tc / 1e12, 100 * cal.fp16_tc / s->fp16_tc, s->fp16_tc / 1e12);
		if (kp_arg_flag(args, "dry-run"))
			fprintf(cli->out, "not stored (--dry-run)\n");
		else
			fprintf(cli->out, "stored in %s: rooflines use these ceilings from now on\n", path.buf);
	}
	rc = KP_EXIT_OK;
out:
	kp_buf_release(&path);
	kp_child_release(&c);
	free(prog);
	return rc;
}

static const struct kp_cmd hw_show = {
	.name = "show",
	.summary = "Show the GPU model: datasheet figures and the ceilings rooflines use",
	.usage = "[--gpu-model KEY | --gpu-index N] [--list] [--json]",
	.flags = KP_CMD_JSON,
	.opts = show_opts,
	.max_args = 0,
	.run = run_show,
	.examples = "kernelpro hw show                        # the GPU here\n"
		    "kernelpro hw show --gpu-model h200-sxm   # offline, from the table\n"
		    "kernelpro hw show --list",
};

static const struct kp_cmd hw_calibrate = {
	.name = "calibrate",
	.summary = "Measure copy bandwidth, FMA and tensor-core rates on this GPU and store them",
	.usage = "[--gpu-index N] [--json]",
	.description = "Runs kp-calibrate (CUDA + cuBLAS) on the GPU, about 30 s, and stores the result in\n"
		       "the cache directory ($XDG_CACHE_HOME/kernelpro/hw/KEY.json); Stage 1 then uses\n"
		       "the measured ceilings instead of the datasheet's.",
	.flags = KP_CMD_JSON | KP_CMD_NEEDS_GPU,
	.opts = calibrate_opts,
	.max_args = 0,
	.run = run_calibrate,
	.examples = "kernelpro hw calibrate\n"
		    "kernelpro hw calibrate --gpu-index 1 --json",
};

static const struct kp_cmd *const hw_subs[] = {&hw_show, &hw_calibrate, NULL};

const struct kp_cmd kp_cmd_hw = {
	.name = "hw",
	.summary = "The GPU model: show the table and the ceilings in use, calibrate them",
	.usage = "show|calibrate ...",
	.subs = hw_subs,
	.examples = "kernelpro hw show --gpu-model h200-sxm\n"
		    "kernelpro hw calibrate",
};
