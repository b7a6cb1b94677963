/* kernelpro doctor: what is installed, what works, and how to fix what does not. */
#include "base/setup.h"

#include "cli.h"
#include "kernelpro/doctor.h"
#include "kernelpro/json.h"

static const struct kp_opt doctor_opts[] = {
	{"no-counters", 0, KP_OPT_FLAG, NULL, "skip profiling the probe kernel under ncu", NULL},
	{"no-python", 0, KP_OPT_FLAG, NULL, "skip the python3/torch/CUTLASS probe", NULL},
	KP_OPT_TABLE_END,
};

static int run_doctor(struct kp_cli *cli, const struct kp_args *args)
{
	struct kp_doctor d;
	unsigned flags = 0;
	int broken = 0, missing_required = 0;

	if (kp_arg_flag(args, "no-counters"))
		flags |= KP_DOCTOR_SKIP_COUNTERS;
	if (kp_arg_flag(args, "no-python"))
		flags |= KP_DOCTOR_SKIP_PYTHON;
	kp_doctor_run(&d, flags);
	for (int i = 0; i < d.count; i++) {
		if (d.checks[i].status == KP_CHECK_BROKEN)
			broken++;
		if (d.checks[i].status == KP_CHECK_MISSING && !strcmp(d.checks[i].name, "nvcc"))
			missing_required++;
	}

	if (cli->json) {
		kp_cli_print_json_new(cli, kp_doctor_to_json(&d));
	} else {
		for (int i = 0; i < d.count; i++) {
			const struct kp_check *c = &d.checks[i];
			const char *style = c->status == KP_CHECK_OK ? "ok"
					    : c->status == KP_CHECK_INFO ? "dim"
					    : c->status == KP_CHECK_MISSING ? "warn"
									  : "bad";
			fprintf(cli->out, "%s%-8s%s %-14s %s\n", kp_cli_color(cli, style),
				kp_check_status_name(c->status), kp_cli_reset(cli), c->name, c->detail);
			if (c->fix[0] && c->status != KP_CHECK_OK)
				fprintf(cli->out, "%-23s fix: %s\n", "", c->fix);
		}
		fprintf(cli->out, "%d checks in %.2f s: %d broken\n", d.count, d.elapsed_s, broken);
	}
	if (missing_required)
		return KP_EXIT_MISSING;
	return broken ? KP_EXIT_FAIL : KP_EXIT_OK;
}

const struct kp_cmd kp_cmd_doctor = {
	.name = "doctor",
	.summary = "Check the CUDA toolkit, GPU, profilers, NVML, PyTorch, CUTLASS and LLM settings",
	.usage = "[--json] [--no-counters] [--no-python]",
	.description = "Each item is ok, missing, broken or info, with the fix for what is not ok.\n"
		       "Exit status: 0 when nothing is broken, 1 when something is broken,\n"
		       "3 when the CUDA toolkit (nvcc) is missing. No GPU is normal on a CPU machine.",
	.flags = KP_CMD_JSON,
	.opts = doctor_opts,
	.max_args = 0,
	.run = run_doctor,
	.examples = "kernelpro doctor\n"
		    "kernelpro doctor --no-counters --json",
};
