/* kernelpro baseline: the reference timed alone, eager and (KernelBench tasks) torch.compile. */
#include "base/setup.h"

#include <math.h>

#include "cli.h"
#include "evalopts.h"
#include "kernelpro/eval.h"
#include "kernelpro/json.h"
#include "kernelpro/str.h"
#include "kernelpro/task.h"

static const struct kp_opt baseline_opts[] = {
	{"no-compile", 0, KP_OPT_FLAG, NULL, "skip torch.compile (KernelBench tasks)", NULL},
	KP_EVAL_COMMON_OPTS,
	KP_OPT_TABLE_END,
};

static void print_timing(struct kp_cli *cli, const char *label, const struct kp_timing *t)
{
	char a[32], b[32], c[32], d[32];
	fprintf(cli->out, "%-14s median %s  mean %s  std %s  min %s  (%d %s)\n", label,
		kp_fmt_ms(t->median_ms, a, sizeof(a)), kp_fmt_ms(t->mean_ms, b, sizeof(b)),
		kp_fmt_ms(t->std_ms, c, sizeof(c)), kp_fmt_ms(t->min_ms, d, sizeof(d)), t->trials,
		kp_plural(t->trials, "trial", "trials"));
}

static int run_baseline(struct kp_cli *cli, const struct kp_args *args)
{
	struct kp_task task;
	struct kp_eval_opts o;
	struct kp_baseline b;
	struct kp_error err = KP_ERROR_INIT;
	int rc;

	if ((rc = kp_evalopts_from_args(cli, args, &o)))
		return rc;
	kp_task_init(&task);
	kp_baseline_init(&b);
	if ((rc = kp_task_load(&task, kp_arg_pos(args, 0), &err)) ||
	    (rc = kp_eval_baseline(&task, &o, !kp_arg_flag(args, "no-compile"), &b, &err))) {
		rc = kp_cli_fail(cli, &err);
		goto out;
	}
	if (cli->json) {
		json_t *j = kp_baseline_to_json(&b);
		kp_json_set(j, "task", json_string(task.name));
		kp_cli_print_json_new(cli, j);
	} else {
		fprintf(cli->out, "%s (%s) on GPU %d %s\n", task.name, kp_task_kind_name(task.kind), b.gpu, b.gpu_name);
		print_timing(cli, "eager", &b.eager);
		if (b.compiled.trials)
			print_timing(cli, "torch.compile", &b.compiled);
		else if (b.compile_error)
			fprintf(cli->out, "%-14s failed: %s\n", "torch.compile", b.compile_error);
		if (!isnan(b.io_bytes))
			fprintf(cli->out, "%-14s %.4g MB of inputs and outputs\n", "io", b.io_bytes / 1e6);
		if (!isnan(b.flops))
			fprintf(cli->out, "%-14s %.4g GFLOP of matrix products\n", "flops", b.flops / 1e9);
		fprintf(cli->out, "%-14s %s, TF32 %s\n", "precision", b.precision[0] ? b.precision : "?",
			b.tf32 == 0 ? "off" : b.tf32 == 1 ? "ON" : "unknown");
	}
	rc = KP_EXIT_OK;
out:
	kp_baseline_release(&b);
	kp_task_release(&task);
	return rc;
}

const struct kp_cmd kp_cmd_baseline = {
	.name = "baseline",
	.summary = "Time a task's reference (eager, and torch.compile for KernelBench tasks)",
	.usage = "[options] TASK",
	.description = "Times the reference with the same protocol as 'kernelpro eval' (CUDA events, warm-ups,\n"
		       "a discarded trial, 256 MB L2 flush before each trial), in a fresh child process.",
	.flags = KP_CMD_JSON | KP_CMD_NEEDS_GPU,
	.opts = baseline_opts,
	.min_args = 1,
	.max_args = 1,
	.run = run_baseline,
	.examples = "kernelpro baseline examples/kernelbench/swish_scale.py   # eager and torch.compile\n"
		    "kernelpro baseline examples/native/gelu --json",
};
