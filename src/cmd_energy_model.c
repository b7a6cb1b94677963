/* kernelpro energy proxy|calibrate|validate|coeffs|metrics: the counter-based energy model, offline. */
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
#define MEASURED_MAX ((size_t)64 << 20)
/* Pull towards the default coefficients in calibration (docs/energy.md): small, so data wins. */
#define DEFAULT_PRIOR "0.001"

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

static int parse_ncu(struct kp_cli *cli, const char *path, struct kp_ncu_report *r)
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
	if ((rc = load_coeffs(cli, args, &c)) || (rc = parse_ncu(cli, kp_arg_str(args, "ncu-csv"), &r)) ||
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
	if ((rc = parse_ncu(cli, kp_arg_str(args, "ncu-csv"), &r)))
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
