/* Shared evaluation options for the eval and baseline commands. */
#include "base/setup.h"

#include <math.h>
#include <string.h>

#include "evalopts.h"

int kp_evalopts_from_args(struct kp_cli *cli, const struct kp_args *a, struct kp_eval_opts *o)
{
	long gpu = kp_arg_int(a, "gpu", 0), trials = kp_arg_int(a, "trials", 100);
	long warmup = kp_arg_int(a, "warmup", 3);

	kp_eval_opts_init(o);
	if (gpu < 0 || gpu > 1023 || trials < 1 || trials > 100000 || warmup < 0 || warmup > 10000) {
		kp_cli_error(cli, "--gpu must be 0 or more, --trials 1..100000, --warmup 0..10000");
		return KP_EXIT_USAGE;
	}
	o->gpu = (int)gpu;
	o->timing_trials = (int)trials;
	o->warmup = (int)warmup;
	o->seed = kp_arg_int(a, "seed", 42);
	o->l2_flush = !kp_arg_flag(a, "no-l2-flush");
	o->build_timeout_s = kp_arg_num(a, "build-timeout", 300);
	o->check_timeout_s = kp_arg_num(a, "check-timeout", 180);
	o->timing_timeout_s = kp_arg_num(a, "timing-timeout", 300);
	if (!(o->build_timeout_s > 0 && o->check_timeout_s > 0 && o->timing_timeout_s > 0)) {
		kp_cli_error(cli, "time limits must be positive");
		return KP_EXIT_USAGE;
	}
	o->cache_dir = kp_arg_str(a, "cache");
	o->work_dir = kp_arg_str(a, "work-dir");
	o->keep_work = kp_arg_flag(a, "keep-work");
	o->python = kp_arg_str(a, "python");
	o->nvcc = kp_arg_str(a, "nvcc");
	o->arch = kp_arg_str(a, "arch");
	o->nvcc_flags = (const char *const *)kp_arg_list(a, "nvcc-flag")->v;
	o->worker = kp_arg_flag(a, "worker");
	o->cpu_inputs = kp_arg_flag(a, "cpu-inputs");
	return 0;
}

enum kp_tol_mode kp_evalopts_tol_mode(const struct kp_args *a)
{
	const char *mode = kp_arg_str(a, "tolerance-mode");
	return mode && !strcmp(mode, "kernelbench-v0.1") ? KP_TOL_KB_V01 : KP_TOL_CURRENT;
}

const char *kp_fmt_ms(double ms, char *buf, size_t n)
{
	if (isnan(ms))
		snprintf(buf, n, "-");
	else if (ms < 1.0)
		snprintf(buf, n, "%.3g us", ms * 1e3);
	else if (ms < 1000.0)
		snprintf(buf, n, "%.3g ms", ms);
	else
		snprintf(buf, n, "%.3g s", ms / 1e3);
	return buf;
}
