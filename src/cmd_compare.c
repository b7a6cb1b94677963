/*
 * kernelpro compare A B: two suites (or a suite and a re-judged run) task by task: paired speedups,
 * the geometric mean of their ratio with a bootstrap interval, a Wilcoxon signed-rank p-value
 * (docs/rejudge.md).
 */
#include "base/setup.h"

#include <math.h>

#include "cli.h"
#include "kernelpro/bench.h"
#include "kernelpro/compare.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/report.h"
#include "kernelpro/report_sections.h"
#include "kernelpro/suite.h"

#define RESULTS_CAP (256u << 20)

static const struct kp_opt compare_opts[] = {
    {"resamples", 0, KP_OPT_INT, "N:100..1000000", "bootstrap resamples for the interval", "10000"},
    {"level", 0, KP_OPT_NUM, "P:0.5..0.999", "the interval's confidence level", "0.95"},
    {"seed", 0, KP_OPT_INT, "N:1..", "the bootstrap's seed (the same seed gives the same interval)", "1"},
    {"html", 0, KP_OPT_STR, "FILE", "also write the comparison as an HTML page", NULL},
    KP_OPT_TABLE_END,
};

/* A suite from a bench suite directory (its databases), a suite or runs directory, or a results.json. */
static int load(const char *path, struct kp_suite *s, struct kp_error *err)
{
	json_t *doc = NULL;
	int rc;
	if (kp_bench_is_suite(path))
		return kp_bench_collect(path, s, NULL, err);
	if (kp_path_is_dir(path))
		return kp_suite_load_dir(path, s, err);
	if (!kp_path_exists(path))
		return kp_error_set(err, KP_ENOENT,
		                    "'%s' not found: give a suite directory or a results.json", path);
	if (!(rc = kp_json_load_file(path, RESULTS_CAP, &doc, err)))
		rc = kp_suite_from_json(s, doc, err);
	json_decref(doc);
	if (rc)
		kp_error_prefix(err, "'%s'", path);
	return rc;
}

static void fmt_x(char *buf, size_t n, double v)
{
	if (isnan(v))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.3gx", v);
}

static void print_text(FILE *o, const struct kp_compare *c)
{
	long only_a = 0, only_b = 0;
	char a[32], b[32], r[32];

	fprintf(o, "%-32s %10s %10s %10s\n", "task", "A", "B", "A/B");
	for (size_t i = 0; i < c->n; i++) {
		const struct kp_compare_row *x = &c->v[i];
		only_a += !isnan(x->a) && isnan(x->b);
		only_b += isnan(x->a) && !isnan(x->b);
		fmt_x(a, sizeof(a), x->a);
		fmt_x(b, sizeof(b), x->b);
		fmt_x(r, sizeof(r), x->ratio);
		fprintf(o, "%-32.32s %9s%s %9s%s %10s\n", x->key, a, isnan(x->a) || x->a_correct ? " " : "*",
		        b, isnan(x->b) || x->b_correct ? " " : "*", r);
	}
	fprintf(o, "(* no correct version: counts 1.0x, the reference)\n");
	fprintf(o, "A = %s, B = %s: %ld tasks paired, %ld only in A, %ld only in B\n", c->a_name, c->b_name,
	        c->paired, only_a, only_b);
	fprintf(
	    o,
	    "geomean speedup ratio A/B %.4g, %.0f%% CI [%.4g, %.4g] (percentile bootstrap, %ld resamples)\n",
	    c->geomean_ratio, c->level * 100, c->ci_lo, c->ci_hi, c->resamples);
	fprintf(o, "A faster on %ld, B faster on %ld, %ld ties\n", c->a_faster, c->b_faster, c->ties);
	if (c->w.n)
		fprintf(o,
		        "Wilcoxon signed-rank on log(A/B): W = %g (W+ %g, W- %g), n = %ld, p = %.4g (%s, "
		        "two-sided)\n",
		        c->w.statistic, c->w.w_plus, c->w.w_minus, c->w.n, c->w.p,
		        c->w.exact ? "exact" : "normal approximation");
	else
		fprintf(o, "Wilcoxon signed-rank: every pair ties; no test\n");
}

static int run_compare(struct kp_cli *cli, const struct kp_args *args)
{
	struct kp_suite a, b;
	struct kp_compare c;
	struct kp_compare_opts o = {kp_arg_int(args, "resamples", 10000), kp_arg_num(args, "level", 0.95),
	                            (unsigned long long)kp_arg_int(args, "seed", 1)};
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf html = KP_BUF_INIT;
	json_t *doc = NULL;
	int rc = 0;

	kp_suite_init(&a, NULL);
	kp_suite_init(&b, NULL);
	memset(&c, 0, sizeof(c));
	if (load(kp_arg_pos(args, 0), &a, &err) || load(kp_arg_pos(args, 1), &b, &err) ||
	    kp_compare_suites(&a, &b, &o, &c, &err)) {
		rc = kp_cli_fail(cli, &err);
		goto out;
	}
	doc = kp_compare_to_json(&c);
	if (kp_arg_str(args, "html") &&
	    (kp_report_compare_html(doc, &html, &err) ||
	     kp_write_file_atomic(kp_arg_str(args, "html"), html.buf, html.len, &err))) {
		rc = kp_cli_fail(cli, &err);
		goto out;
	}
	if (cli->json)
		kp_cli_print_json_new(cli, json_incref(doc));
	else
		print_text(cli->out, &c);
out:
	json_decref(doc);
	kp_buf_release(&html);
	kp_compare_release(&c);
	kp_suite_release(&a);
	kp_suite_release(&b);
	return rc ? rc : KP_EXIT_OK;
}

const struct kp_cmd kp_cmd_compare = {
    .name = "compare",
    .summary = "Compare two suites task by task: paired speedups, geomean ratio with a CI, Wilcoxon p",
    .usage = "[options] A B",
    .description =
        "A and B: bench suite directories, suite directories or results.json files (a re-judged run's\n"
        "too). Tasks pair by KernelBench level and problem (others by name; several samples of one\n"
        "problem count their best); a task's speedup is over eager, 1.0 when it has no correct version.\n"
        "Prints each task's speedups and A/B, the geometric mean of A/B with a percentile-bootstrap\n"
        "interval, and the Wilcoxon signed-rank test of log(A/B). docs/rejudge.md.",
    .flags = KP_CMD_JSON,
    .opts = compare_opts,
    .min_args = 2,
    .max_args = 2,
    .run = run_compare,
    .examples = "kernelpro compare kernelpro-suites/tools-on kernelpro-suites/tools-off   # an ablation\n"
                "kernelpro compare kernelpro-suites/qwen-l1 mine/results.json --json\n"
                "kernelpro compare A B --html compare.html --resamples 100000",
};
