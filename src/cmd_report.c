/* kernelpro report RUN|SUITE: one self-contained HTML page for a run or a suite; --export writes a suite's
 * results files. */
#include "base/setup.h"

#include "cli.h"
#include "kernelpro/bench.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/report.h"
#include "kernelpro/run.h"
#include "kernelpro/suite.h"
#include "runs.h"

#define RESULTS_CAP (256u << 20)

static const struct kp_opt report_opts[] = {
    KP_RUNS_DIR_OPT,
    {"output", 'o', KP_OPT_STR, "FILE",
     "where to write the page (default: report.html in the run or suite directory)", NULL},
    {"export", 0, KP_OPT_STR, "DIR",
     "also write results.json, results.csv, kernels/ (KernelBench's layout, self-contained) and kernelbench/ "
     "(its eval_results.json and baseline files) into DIR",
     NULL},
    KP_OPT_TABLE_END,
};

/* What the argument names: a bench suite, a suite directory, a results.json, or a run (by directory or by name). */
enum target { T_RUN, T_SUITE_DIR, T_RESULTS_FILE, T_BENCH };

static int resolve(const struct kp_args *args, struct kp_buf *path, enum target *kind, struct kp_error *err)
{
	const char *arg = kp_arg_pos(args, 0);
	if (kp_bench_is_suite(arg)) {
		*kind = T_BENCH;
		return kp_buf_adds(path, arg);
	}
	if (kp_run_exists(arg)) {
		*kind = T_RUN;
		return kp_buf_adds(path, arg);
	}
	if (kp_suite_is_dir(arg)) {
		*kind = T_SUITE_DIR;
		return kp_buf_adds(path, arg);
	}
	if (kp_path_exists(arg) && !kp_path_is_dir(arg)) {
		*kind = T_RESULTS_FILE;
		return kp_buf_adds(path, arg);
	}
	*kind = T_RUN;
	return kp_run_resolve(kp_cli_runs_root(args), arg, path, err);
}

/* The default page path: report.html in the run or suite directory, or beside the results file. */
static void default_output(const char *path, enum target kind, struct kp_buf *out)
{
	const char *slash = strrchr(path, '/');
	char *dir = kind != T_RESULTS_FILE ? kp_xstrdup(path)
	            : slash                ? kp_xstrndup(path, (size_t)(slash - path))
	                                   : kp_xstrdup(".");
	kp_path_join(out, dir, "report.html");
	free(dir);
}

static int load_suite(const char *path, enum target kind, struct kp_suite *s, struct kp_error *err)
{
	json_t *doc = NULL;
	int rc;
	if (kind == T_BENCH) /* its databases and runs; its results files are rewritten from them */
		return (rc = kp_bench_collect(path, s, NULL, err)) ? rc : kp_suite_write(s, path, err);
	if (kind == T_SUITE_DIR)
		return kp_suite_load_dir(path, s, err);
	if (!(rc = kp_json_load_file(path, RESULTS_CAP, &doc, err)))
		rc = kp_suite_from_json(s, doc, err);
	json_decref(doc);
	return rc;
}

/* A run as a suite of one task, for --export. */
static int run_as_suite(const char *dir, const json_t *view, struct kp_suite *s, struct kp_error *err)
{
	struct kp_suite_task t;
	struct kp_buf src = KP_BUF_INIT;
	char lang[16] = "";
	int rc;

	kp_suite_task_init(&t);
	if (!(rc = kp_suite_task_from_view(&t, view, err)) && t.correct && t.best_node &&
	    !(rc = kp_run_read_source(dir, t.best_node, &src, lang, err))) {
		t.source = kp_buf_detach(&src, NULL);
		t.lang = kp_xstrdup(lang);
	}
	if (!rc)
		kp_suite_add(s, &t);
	kp_suite_task_release(&t);
	kp_buf_release(&src);
	return rc ? rc : kp_suite_compute(s, err);
}

static int run_report(struct kp_cli *cli, const struct kp_args *args)
{
	struct kp_buf path = KP_BUF_INIT, out = KP_BUF_INIT, html = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_suite suite;
	enum target kind;
	json_t *view = NULL, *doc = NULL;
	const char *export = kp_arg_str(args, "export");
	int rc;

	kp_suite_init(&suite, NULL);
	if ((rc = resolve(args, &path, &kind, &err)))
		goto fail;
	if (kind == T_RUN) {
		if ((rc = kp_run_view(path.buf, &view, &err)) ||
		    (rc = kp_report_run_html(view, &html, &err)))
			goto fail;
		if (export) {
			free(suite.name);
			suite.name = kp_xstrdup(kp_json_str(json_object_get(view, "summary"), "run", "run"));
			if ((rc = run_as_suite(path.buf, view, &suite, &err)))
				goto fail;
		}
	} else {
		const char *base = strrchr(path.buf, '/');
		free(suite.name);
		suite.name = kp_xstrdup(kind != T_RESULTS_FILE && base && base[1] ? base + 1 : path.buf);
		if ((rc = load_suite(path.buf, kind, &suite, &err)))
			goto fail;
	}
	if (export && (rc = kp_suite_write(&suite, export, &err)))
		goto fail;
	if (kp_arg_str(args, "output"))
		kp_buf_adds(&out, kp_arg_str(args, "output"));
	else
		default_output(path.buf, kind, &out);
	/* A suite's page is written with its runs' pages beside them, which it links to. */
	if (kind == T_RUN ? (rc = kp_write_file_atomic(out.buf, html.buf, html.len, &err))
	                  : (rc = kp_report_suite_write(&suite, out.buf, &err)))
		goto fail;
	if (cli->json) {
		doc = json_object();
		kp_json_set(doc, "report", json_string(out.buf));
		kp_json_set(doc, "kind", json_string(kind == T_RUN ? "run" : "suite"));
		kp_json_set(doc, "export", export ? json_string(export) : NULL);
		if (kind != T_RUN) {
			json_t *res = kp_suite_to_json(&suite);
			kp_json_set(doc, "summary", json_incref(json_object_get(res, "summary")));
			json_decref(res);
		}
		kp_cli_print_json(cli, doc);
	} else {
		fprintf(cli->out, "wrote %s\n", out.buf);
		if (export)
			fprintf(cli->out, "wrote %s/results.json, results.csv, kernels/ and kernelbench/\n", export);
	}
	rc = KP_EXIT_OK;
	goto out;
fail:
	rc = kp_cli_fail(cli, &err);
out:
	json_decref(view);
	json_decref(doc);
	kp_suite_release(&suite);
	kp_buf_release(&path);
	kp_buf_release(&out);
	kp_buf_release(&html);
	return rc;
}

const struct kp_cmd kp_cmd_report = {
    .name = "report",
    .summary = "Write one self-contained HTML report of a run or a suite (roofline, search tree, fast_p)",
    .usage = "RUN|SUITE [-o FILE] [--export DIR] [--json]",
    .description =
        "RUN is a run directory or a run's name under --runs-dir. SUITE is a `kernelpro bench` suite "
        "(its results.json, results.csv and kernels/ are rewritten too), a directory holding a "
        "results.json or run directories (every run under it is one task), or a results.json file. "
        "The page needs nothing else to be viewed. docs/report.md describes it and the metrics.",
    .flags = KP_CMD_JSON,
    .opts = report_opts,
    .min_args = 1,
    .max_args = 1,
    .run = run_report,
	.examples = "kernelpro report gelu-20261201-101500            # writes the run's report.html\n"
		    "kernelpro report kernelpro-suites/level1-20261201-101500 -o level1.html\n"
		    "kernelpro report level1-20261201-101500 --export kb-results   # KernelBench's layout",
};
