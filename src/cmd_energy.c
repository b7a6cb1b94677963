/* kernelpro energy: energy per launch measured with NVML next to the GPU work, for a task's candidate or a built-in kernel. */
#include "base/setup.h"

#include <math.h>

#include "cli.h"
#include "cmd_energy.h"
#include "kernelpro/energy.h"
#include "kernelpro/json.h"
#include "kernelpro/str.h"

static const struct kp_opt energy_opts[] = {
	{"builtin", 0, KP_OPT_CHOICE, "fma|copy|swish_ieee|swish_fast",
	 "measure a built-in kernel instead of a task (checks the GPU, NVML and the driver)", NULL},
	{"reference", 0, KP_OPT_FLAG, NULL, "also measure the task's reference, windows interleaved (an A/B)", NULL},
	{"gpu", 0, KP_OPT_INT, "N", "GPU index", "0"},
	{"windows", 0, KP_OPT_INT, "N", "windows measured; the figures are their median", "5"},
	{"window-s", 0, KP_OPT_NUM, "S", "shortest window (the counter ticks every 20-100 ms)", "1.0"},
	{"launches", 0, KP_OPT_INT, "N", "exactly N launches per window instead of --window-s", NULL},
	{"idle-s", 0, KP_OPT_NUM, "S", "idle power measured this long before the windows (0: none)", "1.0"},
	{"idle-w", 0, KP_OPT_NUM, "W", "idle power to subtract instead (with --idle-s 0)", NULL},
	{"warmup-s", 0, KP_OPT_NUM, "S", "launches before the first window", "0.3"},
	{"cooldown-s", 0, KP_OPT_NUM, "S", "pause between windows", "0"},
	{"no-align", 0, KP_OPT_FLAG, NULL, "do not wait for counter ticks at window ends (for comparison only)", NULL},
	KP_OPT_TABLE_END,
};

/* Reads the options shared by every measurement into a driver description. */
static int driver_from_args(struct kp_cli *cli, const struct kp_args *args, struct kp_energy_driver *d)
{
	struct kp_energy_opts *o = &d->opts;
	d->gpu = (int)kp_arg_int(args, "gpu", 0);
	o->windows = (int)kp_arg_int(args, "windows", 5);
	o->window_s = kp_arg_num(args, "window-s", 1.0);
	o->launches = kp_arg_int(args, "launches", 0);
	o->idle_s = kp_arg_num(args, "idle-s", 1.0);
	o->idle_power_w = kp_arg_num(args, "idle-w", NAN);
	o->warmup_s = kp_arg_num(args, "warmup-s", 0.3);
	o->cooldown_s = kp_arg_num(args, "cooldown-s", 0);
	o->align = !kp_arg_flag(args, "no-align");
	if (d->gpu < 0 || o->windows < 1 || o->windows > KP_ENERGY_MAX_WINDOWS || !(o->window_s > 0) ||
	    o->launches < 0 || o->idle_s < 0 || o->warmup_s < 0 || o->cooldown_s < 0) {
		kp_cli_error(cli, "energy: --gpu, --windows (1..%d), --window-s, --launches, --idle-s, --warmup-s and "
				  "--cooldown-s take non-negative values (windows at least 1)",
			     KP_ENERGY_MAX_WINDOWS);
		return KP_EXIT_USAGE;
	}
	if (o->idle_s > 0 && kp_arg_given(args, "idle-w")) {
		kp_cli_error(cli, "energy: --idle-w replaces the idle measurement: give it with --idle-s 0");
		return KP_EXIT_USAGE;
	}
	return 0;
}

static void print_row(struct kp_cli *cli, const struct kp_energy_measurement *m)
{
	char dyn[32] = "-";
	if (isfinite(m->dynamic_j))
		snprintf(dyn, sizeof(dyn), "%.4g mJ", m->dynamic_j * 1e3);
	fprintf(cli->out, "%-20s %10.4f ms %12.4g mJ %12s %8.1f W %7.1f%% %7.0f MHz %5.0f C\n", m->name, m->time_s * 1e3,
		m->energy_j * 1e3, dyn, m->power_w, 100 * m->energy_spread, m->sm_clock_mhz, m->temp_max_c);
}

void kp_energy_print_measurements(struct kp_cli *cli, const struct kp_energy_measurement *m, size_t n)
{
	if (cli->json) {
		json_t *o = json_object(), *a = json_array();
		for (size_t i = 0; i < n; i++)
			json_array_append_new(a, kp_energy_measurement_to_json(&m[i]));
		kp_json_set(o, "measurements", a);
		kp_cli_print_json_new(cli, o);
		return;
	}
	fprintf(cli->out, "%s: idle %.1f W", m[0].device, m[0].idle_power_w);
	if (isfinite(m[0].power_limit_w))
		fprintf(cli->out, ", power limit %.0f W", m[0].power_limit_w);
	fprintf(cli->out, "; %d %s of %ld %s (median)\n", m[0].nwindows, kp_plural(m[0].nwindows, "window", "windows"),
		m[0].w[0].launches, kp_plural(m[0].w[0].launches, "launch", "launches"));
	fprintf(cli->out, "%-20s %13s %15s %12s %10s %8s %11s %7s\n", "", "time/launch", "energy/launch", "dynamic",
		"power", "spread", "SM clock", "temp");
	for (size_t i = 0; i < n; i++)
		print_row(cli, &m[i]);
	/* An A/B: every other workload against the first (the reference when there is one). */
	for (size_t i = 1; i < n; i++) {
		fprintf(cli->out, "%s vs %s: time %+.1f%%, energy %+.1f%%", m[i].name, m[0].name,
			100 * (m[i].time_s / m[0].time_s - 1), 100 * (m[i].energy_j / m[0].energy_j - 1));
		if (isfinite(m[i].dynamic_j) && m[0].dynamic_j > 0)
			fprintf(cli->out, ", dynamic %+.1f%%", 100 * (m[i].dynamic_j / m[0].dynamic_j - 1));
		fprintf(cli->out, " (%s)\n",
			kp_energy_cmp(m[i].energy_j, m[i].energy_spread, m[0].energy_j, m[0].energy_spread, 0.01) == 0
				? "within the noise"
				: "beyond the noise");
	}
	for (size_t i = 0; i < n; i++)
		if (m[i].notes[0])
			fprintf(cli->out, "note (%s): %s\n", m[i].name, m[i].notes);
}

static int run_energy(struct kp_cli *cli, const struct kp_args *args)
{
	struct kp_energy_driver d;
	struct kp_energy_measurement m[8];
	struct kp_error err = KP_ERROR_INIT;
	size_t n = 0;
	int rc;

	kp_energy_driver_init(&d);
	if ((rc = driver_from_args(cli, args, &d)))
		goto out;
	if (kp_arg_given(args, "builtin") && (kp_arg_npos(args) || kp_arg_flag(args, "reference"))) {
		kp_cli_error(cli, "energy: --builtin measures a built-in kernel: give no TASK, CANDIDATE or --reference");
		rc = KP_EXIT_USAGE;
		goto out;
	}
	if (!kp_arg_given(args, "builtin") && kp_arg_npos(args) != 2) {
		kp_cli_error(cli, "energy: give TASK CANDIDATE (a native task directory and a .cu), or --builtin NAME");
		rc = KP_EXIT_USAGE;
		goto out;
	}
	/* Say "energy unavailable" before spending seconds on builds (the driver checks again, per device). */
	{
		struct kp_energy_nvml *nvml = NULL;
		if (kp_energy_nvml_open(&nvml, NULL, -1, &err)) {
			rc = kp_cli_fail(cli, &err);
			goto out;
		}
		kp_energy_nvml_close(nvml);
	}
	if (kp_arg_given(args, "builtin"))
		d.builtin = kp_arg_str(args, "builtin");
	else if ((rc = kp_energy_cmd_add_task(cli, args, &d)) != 0)
		goto out;
	if (kp_energy_driver_run(&d, m, KP_ARRAY_SIZE(m), &n, &err)) {
		rc = kp_cli_fail(cli, &err);
		goto out;
	}
	kp_energy_print_measurements(cli, m, n);
	rc = KP_EXIT_OK;
out:
	kp_energy_cmd_task_release();
	kp_energy_driver_release(&d);
	return rc;
}

static const struct kp_cmd *const energy_subs[] = {
	&kp_cmd_energy_proxy, &kp_cmd_energy_calibrate, &kp_cmd_energy_validate,
	&kp_cmd_energy_coeffs, &kp_cmd_energy_metrics, NULL,
};

const struct kp_cmd kp_cmd_energy = {
	.name = "energy",
	.summary = "Measure energy per launch with NVML; estimate, calibrate and validate the energy proxy",
	.usage = "[options] TASK CANDIDATE | --builtin NAME | proxy|calibrate|validate|coeffs|metrics ...",
	.description =
		"Measures a native task's candidate (a .cu with the kp_native.h ABI) next to the GPU work:\n"
		"idle power first, then windows of back-to-back launches bracketed by ticks of NVML's\n"
		"total-energy counter. Prints time, energy per launch, dynamic energy (above idle), average\n"
		"power, the spread over windows, SM clock and temperature. With --reference the task's\n"
		"reference is measured too, windows interleaved. Energy is not correctness: run\n"
		"'kernelpro eval' for that. docs/energy.md explains the method.",
	.flags = KP_CMD_JSON | KP_CMD_NEEDS_GPU,
	.opts = energy_opts,
	.min_args = 0,
	.max_args = 2,
	.subs = energy_subs,
	.run = run_energy,
	.examples = "kernelpro energy examples/native/swish examples/native/swish/candidates/fast.cu --reference\n"
		    "kernelpro energy --builtin fma\n"
		    "kernelpro energy proxy --ncu-csv ncu_raw.csv   # offline, from counters",
};
