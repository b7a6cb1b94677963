/* kernelpro energy proxy|coeffs|metrics: the counter-based energy model, offline (calibrate and validate:
 * cmd_energy_fit.c). */
#include "base/setup.h"

#include <math.h>

#include "cli.h"
#include "cmd_energy.h"
#include "kernelpro/energy.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/profile.h"
#include "kernelpro/str.h"

#define NCU_CSV_MAX ((size_t)512 << 20)
#define SASS_MAX ((size_t)256 << 20)

/* --coeffs FILE, else the calibrated set for --device, else the defaults. */
static int load_coeffs(struct kp_cli *cli, const struct kp_args *args, struct kp_energy_coeffs *c)
{
	struct kp_error err = KP_ERROR_INIT;
	const char *file = kp_arg_str(args, "coeffs");
	int calibrated = 0;
	if (file ? kp_energy_coeffs_load(file, c, &err)
		 : kp_energy_coeffs_for(kp_arg_str(args, "device"), c, &calibrated, &err))
		return kp_cli_fail(cli, &err);
	return 0;
}

int kp_energy_cmd_parse_ncu(struct kp_cli *cli, const char *path, struct kp_ncu_report *r)
{
	struct kp_buf text = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	int rc = kp_read_file(path, NCU_CSV_MAX, &text, &err);
	if (!rc)
		rc = kp_ncu_parse_raw(r, path, text.buf, text.len, &err);
	kp_buf_release(&text);
	if (rc)
		return kp_cli_fail(cli, &err);
	if (r->warnings.len && cli->verbosity > 0)
		fprintf(cli->err, "%s", r->warnings.buf);
	return 0;
}

/* ---- proxy ------------------------------------------------------------------------------------ */

static const struct kp_opt proxy_opts[] = {
	{"ncu-csv", 0, KP_OPT_STR, "FILE", "ncu raw page (--csv --page raw --print-units base)", NULL},
	{"sass", 0, KP_OPT_STR, "FILE", "cuobjdump -sass or nvdisasm output, for the feedback's SASS evidence", NULL},
	{"kernel", 0, KP_OPT_STR, "NAME", "only launches whose function name contains NAME", NULL},
	{"device", 0, KP_OPT_STR, "NAME", "use the coefficients calibrated for this GPU (\"NVIDIA H200\")", NULL},
	{"coeffs", 0, KP_OPT_STR, "FILE", "use this coefficient file", NULL},
	{"feedback", 0, KP_OPT_FLAG, NULL, "print the energy paragraph of the feedback for each launch", NULL},
	KP_OPT_TABLE_END,
};

static double share(const struct kp_energy_breakdown *b, double j)
{
	return b->total_j > 0 ? 100 * j / b->total_j : 0;
}

/* --sass FILE, for the feedback's SASS evidence; 0 or an exit code. */
static int load_sass(struct kp_cli *cli, const char *path, struct kp_sass *sass)
{
	struct kp_buf text = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	int rc = kp_read_file(path, SASS_MAX, &text, &err);
	if (!rc)
		rc = kp_sass_parse(sass, path, text.buf, text.len, &err);
	kp_buf_release(&text);
	return rc ? kp_cli_fail(cli, &err) : 0;
}

/* One launch: its counts, the proxy's breakdown and (--feedback) the paragraph, as a row or into arr. */
static void proxy_launch(struct kp_cli *cli, const struct kp_args *args, const struct kp_launch *l,
			 const struct kp_sass_func *sf, const struct kp_energy_coeffs *c, json_t *arr)
{
	struct kp_energy_counts k;
	struct kp_energy_breakdown b;
	struct kp_buf fb = KP_BUF_INIT;
	double instr = 0;

	kp_energy_counts_from_launch(l, &k);
	kp_energy_proxy(&k, c, &b);
	for (int t = KP_ENERGY_FP32; t < KP_ENERGY_NTERMS; t++)
		if (t != KP_ENERGY_TENSOR)
			instr += b.term_j[t];
	if (kp_arg_flag(args, "feedback"))
		kp_energy_feedback(&fb, &b, c, NULL, sf, 0);
	if (cli->json) {
		json_t *o = json_object(), *counts = json_object();
		kp_json_set(o, "id", json_integer(l->id));
		kp_json_set(o, "kernel", json_string(l->function ? l->function : ""));
		for (int t = 0; t < KP_ENERGY_NTERMS; t++)
			kp_json_set(counts, kp_energy_term_name(t), kp_json_real(k.v[t]));
		kp_json_set(o, "counts", counts);
		kp_json_set(o, "breakdown", kp_energy_breakdown_to_json(&b, c));
		if (fb.len)
			kp_json_set(o, "feedback", json_string(fb.buf));
		json_array_append_new(arr, o);
	} else {
		fprintf(cli->out, "%4d %-28.28s %8.4f ms %9.4g mJ %6.0f%% %5.0f%% %4.0f%% %6.0f%% %5.0f%% %5.0f%% %6.0f%%%s\n",
			l->id, l->function ? l->function : "?", b.time_s * 1e3, b.total_j * 1e3, share(&b, b.static_j),
			share(&b, b.term_j[KP_ENERGY_DRAM]), share(&b, b.term_j[KP_ENERGY_L2]),
			share(&b, b.term_j[KP_ENERGY_EXCESS]), share(&b, b.term_j[KP_ENERGY_LOCAL]), share(&b, instr),
			share(&b, b.term_j[KP_ENERGY_TENSOR]), b.incomplete ? "  (incomplete)" : "");
		if (fb.len)
			fprintf(cli->out, "\n%s\n", fb.buf);
	}
	kp_buf_release(&fb);
}

/* The counts no launch of the capture had, and how to collect them. */
static void print_missing_counts(struct kp_cli *cli, const struct kp_ncu_report *r)
{
	int missing[KP_ENERGY_NTERMS] = {0}, any = 0;
	for (size_t i = 0; i < r->nlaunches; i++) {
		struct kp_energy_counts k;
		kp_energy_counts_from_launch(&r->launches[i], &k);
		for (int t = 0; t < KP_ENERGY_NTERMS; t++)
			if (!isfinite(k.v[t]))
				missing[t] = any = 1;
	}
	if (!any)
		return;
	fprintf(cli->out, "counts missing from this capture (they contribute nothing):");
	for (int t = 0; t < KP_ENERGY_NTERMS; t++)
		if (missing[t])
			fprintf(cli->out, " %s", kp_energy_term_name(t));
	fprintf(cli->out, "\nprofile with: ncu --metrics $(kernelpro energy metrics) ...\n");
}

static int run_proxy(struct kp_cli *cli, const struct kp_args *args)
{
	struct kp_ncu_report r = KP_NCU_REPORT_INIT;
	struct kp_sass sass = KP_SASS_INIT;
	struct kp_energy_coeffs c;
	const char *filter = kp_arg_str(args, "kernel");
	json_t *arr = json_array();
	int rc, shown = 0;

	if (!kp_arg_str(args, "ncu-csv")) {
		kp_cli_error(cli, "energy proxy: --ncu-csv FILE is required");
		rc = KP_EXIT_USAGE;
		goto out;
	}
	if ((rc = load_coeffs(cli, args, &c)) || (rc = kp_energy_cmd_parse_ncu(cli, kp_arg_str(args, "ncu-csv"), &r)) ||
	    (kp_arg_str(args, "sass") && (rc = load_sass(cli, kp_arg_str(args, "sass"), &sass))))
		goto out;
	if (!cli->json) {
		fprintf(cli->out, "coefficients: %s\n", c.source);
		fprintf(cli->out, "%4s %-28s %11s %12s %7s %6s %5s %7s %6s %6s %7s\n", "id", "kernel", "time", "energy",
			"static", "dram", "l2", "uncoal", "local", "instr", "tensor");
	}
	for (size_t i = 0; i < r.nlaunches; i++) {
		const struct kp_launch *l = &r.launches[i];
		if (filter && (!l->function || !strstr(l->function, filter)))
			continue;
		proxy_launch(cli, args, l, sass.nfuncs && l->function ? kp_sass_find(&sass, l->function) : NULL, &c, arr);
		shown++;
	}
	if (cli->json) {
		json_t *o = json_object();
		kp_json_set(o, "coefficients", kp_energy_coeffs_to_json(&c));
		kp_json_set(o, "launches", arr);
		arr = NULL;
		kp_cli_print_json_new(cli, o);
	} else {
		print_missing_counts(cli, &r);
	}
	if (!shown && filter)
		kp_cli_warn(cli, "energy proxy: no launch matches '%s'", filter);
	rc = KP_EXIT_OK;
out:
	json_decref(arr);
	kp_sass_release(&sass);
	kp_ncu_report_release(&r);
	return rc;
}

const struct kp_cmd kp_cmd_energy_proxy = {
	.name = "proxy",
	.summary = "Estimate each launch's energy from a saved ncu CSV (no GPU needed)",
	.usage = "--ncu-csv FILE [--sass FILE] [--kernel NAME] [--feedback] [--json]",
	.description = "Time, energy per launch and where it goes (static, DRAM, L2, uncoalesced sectors, local\n"
		       "memory, instructions, tensor cores), from the counters of `kernelpro energy metrics`.\n"
		       "A --set full capture lacks the per-class instruction counts: those then count as 'other'.",
	.flags = KP_CMD_JSON,
	.opts = proxy_opts,
	.max_args = 0,
	.run = run_proxy,
	.examples = "kernelpro energy proxy --ncu-csv ncu_raw.csv --sass kernel.sass\n"
		    "ncu --metrics $(kernelpro energy metrics) --csv --page raw --print-units base ./my_app >ncu_raw.csv",
};

/* ---- coeffs and metrics ------------------------------------------------------------------------- */

static const struct kp_opt coeffs_opts[] = {
	{"device", 0, KP_OPT_STR, "NAME", "the GPU whose calibrated coefficients to show (\"NVIDIA H200\")", NULL},
	{"coeffs", 0, KP_OPT_STR, "FILE", "show this coefficient file", NULL},
	KP_OPT_TABLE_END,
};

static int run_coeffs(struct kp_cli *cli, const struct kp_args *args)
{
	struct kp_energy_coeffs c, def;
	int rc = load_coeffs(cli, args, &c);
	if (rc)
		return rc;
	if (cli->json) {
		kp_cli_print_json_new(cli, kp_energy_coeffs_to_json(&c));
		return KP_EXIT_OK;
	}
	kp_energy_coeffs_default(&def);
	fprintf(cli->out, "%s%s%s\nidle power %.1f W\n", c.source, c.device[0] ? " for " : "", c.device, c.idle_power_w);
	fprintf(cli->out, "  %-15s %12s %-14s %s\n", "term", "J per", "unit", "what it counts");
	for (int t = 0; t < KP_ENERGY_NTERMS; t++)
		fprintf(cli->out, "  %-15s %12.4g %-14s %s%s\n", kp_energy_term_name(t), c.c[t], kp_energy_term_unit(t),
			kp_energy_term_what(t), c.fitted[t] ? " (fitted)" : "");
	return KP_EXIT_OK;
}

const struct kp_cmd kp_cmd_energy_coeffs = {
	.name = "coeffs",
	.summary = "Show the proxy's coefficients (calibrated for a GPU, or the Hopper defaults)",
	.usage = "[--device NAME | --coeffs FILE] [--json]",
	.flags = KP_CMD_JSON,
	.opts = coeffs_opts,
	.max_args = 0,
	.run = run_coeffs,
	.examples = "kernelpro energy coeffs\n"
		    "kernelpro energy coeffs --coeffs coeffs.json --json",
};

static int run_metrics(struct kp_cli *cli, const struct kp_args *args)
{
	const char *const *m = kp_energy_proxy_metrics();
	if (cli->json) {
		json_t *a = json_array();
		for (; *m; m++)
			json_array_append_new(a, json_string(*m));
		kp_cli_print_json_new(cli, a);
		return KP_EXIT_OK;
	}
	for (int i = 0; m[i]; i++)
		fprintf(cli->out, "%s%s", i ? "," : "", m[i]);
	fputc('\n', cli->out);
	return KP_EXIT_OK;
}

const struct kp_cmd kp_cmd_energy_metrics = {
	.name = "metrics",
	.summary = "The ncu metrics the proxy reads, comma-separated for 'ncu --metrics'",
	.usage = "[--json]",
	.flags = KP_CMD_JSON,
	.max_args = 0,
	.run = run_metrics,
	.examples = "ncu --metrics $(kernelpro energy metrics) --csv --page raw --print-units base ./my_app",
};
