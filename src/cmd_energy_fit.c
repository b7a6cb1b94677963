/* kernelpro energy calibrate|validate: fitting the counter-based energy model to measurements, and
 * scoring it against them, offline. */
#include "base/setup.h"

#include <math.h>

#include "cli.h"
#include "cmd_energy.h"
#include "kernelpro/energy.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/profile.h"
#include "kernelpro/str.h"

#define MEASURED_MAX ((size_t)64 << 20)
/* Pull towards the default coefficients in calibration (docs/energy.md): small, so data wins. */
#define DEFAULT_PRIOR "0.001"

/* ---- calibrate and validate --------------------------------------------------------------------- */

static void print_scores(struct kp_cli *cli, const char *label, const struct kp_energy_score *s)
{
	fprintf(cli->out, "  %-24s Spearman %6.3f   MAPE %6.1f%%   dynamic Spearman %6.3f   power Spearman %6.3f\n",
		label, s->spearman, 100 * s->mape, s->dynamic_spearman, s->power_spearman);
}

static json_t *score_json(const struct kp_energy_score *s)
{
	json_t *o = json_object();
	kp_json_set(o, "spearman", kp_json_real(s->spearman));
	kp_json_set(o, "mape", kp_json_real(s->mape));
	kp_json_set(o, "dynamic_spearman", kp_json_real(s->dynamic_spearman));
	kp_json_set(o, "power_spearman", kp_json_real(s->power_spearman));
	return o;
}

static void print_coeff_table(struct kp_cli *cli, const struct kp_energy_coeffs *base, const struct kp_energy_coeffs *c)
{
	fprintf(cli->out, "  %-15s %-14s %12s %12s\n", "term", "per", "default", "fitted");
	for (int t = 0; t < KP_ENERGY_NTERMS; t++)
		fprintf(cli->out, "  %-15s %-14s %12.4g %12.4g%s\n", kp_energy_term_name(t), kp_energy_term_unit(t),
			base->c[t], c->c[t], c->fitted[t] ? "" : "  (no data: default kept)");
}

static double prior_arg(struct kp_cli *cli, const struct kp_args *args)
{
	double p = kp_arg_num(args, "prior", 1e-3);
	if (!(p >= 0)) {
		kp_cli_error(cli, "energy: --prior must be >= 0");
		return NAN;
	}
	return p;
}

static const struct kp_opt calibrate_opts[] = {
	{"prior", 0, KP_OPT_NUM, "W", "pull towards the default coefficients (0: plain NNLS)", DEFAULT_PRIOR},
	{"out", 'o', KP_OPT_STR, "FILE", "write the coefficients here instead of the cache directory", NULL},
	{"dry-run", 'n', KP_OPT_FLAG, NULL, "fit and report, save nothing", NULL},
	KP_OPT_TABLE_END,
};

static int run_calibrate(struct kp_cli *cli, const struct kp_args *args)
{
	struct kp_energy_sample *s = NULL;
	struct kp_energy_coeffs base, fitted;
	struct kp_energy_fit fit;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf path = KP_BUF_INIT;
	size_t n = 0, alloc = 0;
	double prior = prior_arg(cli, args);
	int rc = KP_EXIT_OK;

	if (isnan(prior))
		return KP_EXIT_USAGE;
	for (size_t i = 0; i < kp_arg_npos(args); i++)
		if (kp_energy_corpus_load(kp_arg_pos(args, i), &s, &n, &alloc, &err)) {
			rc = kp_cli_fail(cli, &err);
			goto out;
		}
	kp_energy_coeffs_default(&base);
	if (kp_energy_calibrate(s, n, &base, prior, &fitted, &fit, &err)) {
		rc = kp_cli_fail(cli, &err);
		goto out;
	}
	if (!kp_arg_flag(args, "dry-run")) {
		if (kp_arg_str(args, "out"))
			kp_buf_adds(&path, kp_arg_str(args, "out"));
		else if (kp_energy_coeffs_path(fitted.device, &path, &err)) {
			rc = kp_cli_fail(cli, &err);
			goto out;
		}
		if (kp_energy_coeffs_save(&fitted, path.buf, &err)) {
			rc = kp_cli_fail(cli, &err);
			goto out;
		}
	}
	if (cli->json) {
		json_t *o = json_object();
		kp_json_set(o, "coefficients", kp_energy_coeffs_to_json(&fitted));
		kp_json_set(o, "samples", json_integer((json_int_t)fit.nsamples));
		kp_json_set(o, "fitted", score_json(&fit.fitted));
		kp_json_set(o, "leave_one_out", score_json(&fit.loo));
		kp_json_set(o, "defaults", score_json(&fit.base));
		kp_json_set(o, "saved", path.len ? json_string(path.buf) : json_null());
		kp_cli_print_json_new(cli, o);
	} else {
		fprintf(cli->out, "%s\n", fitted.source);
		print_coeff_table(cli, &base, &fitted);
		fprintf(cli->out, "idle power %.1f W\n", fitted.idle_power_w);
		print_scores(cli, "defaults", &fit.base);
		print_scores(cli, "fitted (same kernels)", &fit.fitted);
		print_scores(cli, "leave-one-out", &fit.loo);
		if (path.len)
			fprintf(cli->out, "saved %s\n", path.buf);
		else
			fprintf(cli->out, "dry run: nothing saved\n");
	}
out:
	free(s);
	kp_buf_release(&path);
	return rc;
}

const struct kp_cmd kp_cmd_energy_calibrate = {
	.name = "calibrate",
	.summary = "Fit the proxy's coefficients to measured kernels (non-negative least squares) and save them",
	.usage = "[--prior W] [--out FILE] [--dry-run] [--json] CORPUS.jsonl...",
	.description = "CORPUS files are what 'kernelpro energy validate --out' writes (bench/energy/run.sh\n"
		       "leaves one under $OUT). The fit minimizes relative error; terms no kernel exercises keep\n"
		       "their default. Saved to <cache>/energy/coeffs-<gpu>.json, where 'energy proxy --device'\n"
		       "and the search find them.",
	.flags = KP_CMD_JSON,
	.opts = calibrate_opts,
	.min_args = 1,
	.max_args = -1,
	.run = run_calibrate,
	.examples = "kernelpro energy calibrate corpus.jsonl --dry-run\n"
		    "kernelpro energy calibrate corpus.jsonl more.jsonl --prior 0.001 --out coeffs.json",
};

static const struct kp_opt validate_opts[] = {
	{"measured", 0, KP_OPT_STR, "FILE", "JSON Lines of 'kp-energy-corpus measure'", NULL},
	{"ncu-csv", 0, KP_OPT_STR, "FILE", "ncu raw page of 'kp-energy-corpus profile'", NULL},
	{"out", 'o', KP_OPT_STR, "FILE", "write the joined corpus (for 'energy calibrate') here", NULL},
	{"coeffs", 0, KP_OPT_STR, "FILE", "score this coefficient file instead of the defaults", NULL},
	{"prior", 0, KP_OPT_NUM, "W", "prior weight of the calibration it also runs", DEFAULT_PRIOR},
	KP_OPT_TABLE_END,
};

/* The samples as a corpus file (JSON Lines), for 'energy calibrate'. */
static int write_corpus(const char *path, const struct kp_energy_sample *s, size_t n, struct kp_error *err)
{
	struct kp_buf out = KP_BUF_INIT;
	int rc;
	for (size_t i = 0; i < n; i++) {
		json_t *v = kp_energy_sample_to_json(&s[i]);
		kp_json_dump_buf(v, &out, 1);
		kp_buf_addch(&out, '\n');
		json_decref(v);
	}
	rc = kp_write_file_atomic(path, out.buf, out.len, err);
	kp_buf_release(&out);
	return rc;
}

static void validate_json(struct kp_cli *cli, const struct kp_energy_sample *s, size_t n,
			  const struct kp_energy_coeffs *base, const struct kp_energy_coeffs *fitted,
			  const struct kp_energy_fit *fit)
{
	json_t *o = json_object(), *rows = json_array();
	for (size_t i = 0; i < n; i++) {
		struct kp_energy_breakdown bd, bf;
		json_t *row = json_object();
		kp_energy_proxy(&s[i].counts, base, &bd);
		kp_energy_proxy(&s[i].counts, fitted, &bf);
		kp_json_set(row, "name", json_string(s[i].name));
		kp_json_set(row, "measured_j", kp_json_real(s[i].energy_j));
		kp_json_set(row, "measured_spread", kp_json_real(s[i].energy_spread));
		kp_json_set(row, "time_s", kp_json_real(s[i].time_s));
		kp_json_set(row, "power_w", kp_json_real(s[i].power_w));
		kp_json_set(row, "proxy_default_j", kp_json_real(bd.total_j));
		kp_json_set(row, "proxy_fitted_j", kp_json_real(bf.total_j));
		json_array_append_new(rows, row);
	}
	kp_json_set(o, "kernels", rows);
	kp_json_set(o, "defaults", score_json(&fit->base));
	kp_json_set(o, "fitted", score_json(&fit->fitted));
	kp_json_set(o, "leave_one_out", score_json(&fit->loo));
	kp_json_set(o, "coefficients", kp_energy_coeffs_to_json(fitted));
	kp_cli_print_json_new(cli, o);
}

static void validate_text(struct kp_cli *cli, const struct kp_args *args, const struct kp_energy_sample *s,
			  size_t n, const struct kp_energy_coeffs *base, const struct kp_energy_coeffs *fitted,
			  const struct kp_energy_fit *fit)
{
	fprintf(cli->out, "%-20s %10s %11s %8s %6s %11s %7s %11s %7s\n", "kernel", "time", "measured", "power",
		"spread", "proxy", "error", "fitted", "error");
	for (size_t i = 0; i < n; i++) {
		struct kp_energy_breakdown bd, bf;
		kp_energy_proxy(&s[i].counts, base, &bd);
		kp_energy_proxy(&s[i].counts, fitted, &bf);
		fprintf(cli->out, "%-20.20s %7.4f ms %8.4g mJ %6.0f W %5.1f%% %8.4g mJ %+6.0f%% %8.4g mJ %+6.0f%%\n",
			s[i].name, s[i].time_s * 1e3, s[i].energy_j * 1e3, s[i].power_w, 100 * s[i].energy_spread,
			bd.total_j * 1e3, 100 * (bd.total_j / s[i].energy_j - 1), bf.total_j * 1e3,
			100 * (bf.total_j / s[i].energy_j - 1));
	}
	fprintf(cli->out, "%zu kernels%s%s, idle %.1f W\n", n, s[0].device[0] ? " on " : "", s[0].device,
		s[0].idle_power_w);
	print_scores(cli, kp_arg_str(args, "coeffs") ? "given coefficients" : "default coefficients", &fit->base);
	print_scores(cli, "calibrated (same kernels)", &fit->fitted);
	print_scores(cli, "calibrated, leave-one-out", &fit->loo);
	fprintf(cli->out, "target: Spearman >= 0.9 on energy per launch: defaults %s, leave-one-out %s\n",
		fit->base.spearman >= 0.9 ? "met" : "MISSED", fit->loo.spearman >= 0.9 ? "met" : "MISSED");
	if (kp_arg_str(args, "out"))
		fprintf(cli->out, "corpus written to %s (kernelpro energy calibrate %s)\n", kp_arg_str(args, "out"),
			kp_arg_str(args, "out"));
}

static int run_validate(struct kp_cli *cli, const struct kp_args *args)
{
	struct kp_ncu_report r = KP_NCU_REPORT_INIT;
	struct kp_buf measured = KP_BUF_INIT, warnings = KP_BUF_INIT;
	struct kp_energy_sample *s = NULL;
	struct kp_energy_coeffs base, fitted;
	struct kp_energy_fit fit;
	struct kp_error err = KP_ERROR_INIT;
	size_t n = 0, alloc = 0;
	double prior = prior_arg(cli, args);
	int rc;

	if (isnan(prior))
		return KP_EXIT_USAGE;
	if (!kp_arg_str(args, "measured") || !kp_arg_str(args, "ncu-csv")) {
		kp_cli_error(cli, "energy validate: --measured FILE and --ncu-csv FILE are required");
		return KP_EXIT_USAGE;
	}
	if ((rc = kp_energy_cmd_parse_ncu(cli, kp_arg_str(args, "ncu-csv"), &r)))
		goto out;
	if (kp_arg_str(args, "coeffs")) {
		if (kp_energy_coeffs_load(kp_arg_str(args, "coeffs"), &base, &err))
			goto fail;
	} else {
		kp_energy_coeffs_default(&base);
	}
	if (kp_read_file(kp_arg_str(args, "measured"), MEASURED_MAX, &measured, &err) ||
	    kp_energy_corpus_join(measured.buf, measured.len, kp_arg_str(args, "measured"), &r, &s, &n, &alloc, &warnings,
				  &err) ||
	    kp_energy_calibrate(s, n, &base, prior, &fitted, &fit, &err))
		goto fail;
	if (warnings.len)
		fprintf(cli->err, "%s", warnings.buf);
	if (kp_arg_str(args, "out") && write_corpus(kp_arg_str(args, "out"), s, n, &err))
		goto fail;
	if (cli->json)
		validate_json(cli, s, n, &base, &fitted, &fit);
	else
		validate_text(cli, args, s, n, &base, &fitted, &fit);
	rc = KP_EXIT_OK;
	goto out;
fail:
	if (warnings.len)
		fprintf(cli->err, "%s", warnings.buf);
	rc = kp_cli_fail(cli, &err);
out:
	free(s);
	kp_buf_release(&measured);
	kp_buf_release(&warnings);
	kp_ncu_report_release(&r);
	return rc;
}

const struct kp_cmd kp_cmd_energy_validate = {
	.name = "validate",
	.summary = "Compare NVML energy with the proxy on the benchmark corpus: Spearman and error",
	.usage = "--measured FILE --ncu-csv FILE [--out CORPUS.jsonl] [--coeffs FILE] [--json]",
	.description = "The last step of bench/energy/run.sh. Scores the default (or given) coefficients, a\n"
		       "calibration on the same kernels, and the honest figure: leave-one-out calibration.",
	.flags = KP_CMD_JSON,
	.opts = validate_opts,
	.max_args = 0,
	.run = run_validate,
	.examples = "kernelpro energy validate --measured measured.json --ncu-csv ncu_raw.csv\n"
		    "kernelpro energy validate --measured measured.json --ncu-csv ncu_raw.csv --out corpus.jsonl",
};
