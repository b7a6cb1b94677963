/* kernelpro profile: run a program under ncu (and the CUPTI tracer), save everything, print Stage 1. */
#include "base/setup.h"

#include <math.h>
#include <time.h>

#include "cli.h"
#include "diagnose.h"
#include "tracer_run.h"
#include "kernelpro/analyze.h"
#include "kernelpro/child.h"
#include "kernelpro/device.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/str.h"

static const struct kp_opt profile_opts[] = {
	{"out", 'o', KP_OPT_STR, "DIR", "where to write the profile", "kp-profile"},
	{"kernel", 'k', KP_OPT_STR, "NAME", "only kernels with this function name (or regex:EXPR)", NULL},
	{"launch-skip", 's', KP_OPT_INT, "N:0..", "skip the first N matching launches", "0"},
	{"launch-count", 'c', KP_OPT_INT, "N:0..", "profile at most N launches (0: all)", "0"},
	{"metrics", 0, KP_OPT_LIST, "LIST", "extra ncu metrics, comma-separated (Stage 1's are always collected)", NULL},
	{"section", 0, KP_OPT_LIST, "ID", "also collect an ncu section (for metrics that exist only there)", NULL},
	{"set", 0, KP_OPT_STR, "NAME", "collect an ncu set too (e.g. full: slow, everything)", NULL},
	{"details", 0, KP_OPT_FLAG, NULL, "also export ncu's details page (its own rule results)", NULL},
	{"sass", 0, KP_OPT_FLAG, NULL, "also export the SASS of every profiled kernel with executed counts", NULL},
	{"trace", 0, KP_OPT_FLAG, NULL, "also run the program under the CUPTI tracer (launch timeline)", NULL},
	{"no-ncu", 0, KP_OPT_FLAG, NULL, "timing only: the tracer, no counters", NULL},
	{"timeout", 0, KP_OPT_INT, "SEC:1..", "time limit for each run of the program", "600"},
	KP_GPU_MODEL_OPT("GPU model for the roofline (default: the device profiled)"),
	{"keep-report", 0, KP_OPT_FLAG, NULL, "keep ncu's report.ncu-rep", NULL},
	{"tools", 0, KP_OPT_CHOICE, "none|all|memory|compute|latency",
	 "also collect what these micro-profiling tools read, and run them on the result", "none"},
	{"source-counters", 0, KP_OPT_FLAG, NULL, "with --tools: the SourceCounters section too (excess sectors; slower)", NULL},
	KP_OPT_TABLE_END,
};

/* --metrics: the user's extra names, comma-separated or repeated, each once. */
static void add_extra_metrics(struct kp_strvec *m, const struct kp_strvec *extra)
{
	for (size_t i = 0; extra && i < extra->n; i++) {
		struct kp_strvec parts = KP_STRVEC_INIT;
		kp_strvec_split(&parts, extra->v[i], ',');
		for (size_t j = 0; j < parts.n; j++)
			if (*parts.v[j] && kp_strvec_find(m, parts.v[j]) < 0)
				kp_strvec_push(m, parts.v[j]);
		kp_strvec_release(&parts);
	}
}

/*
 * The collection set (kp_pipeline_collection): Stage 1's metrics and, with --tools, what the
 * selected tools read, their source-level sections only with --source-counters; the toolset is
 * opened for the report. Returns 0 or an exit code.
 */
static int collection(struct kp_cli *cli, const struct kp_args *args, struct kp_strvec *metrics,
		      struct kp_strvec *sections, struct kp_toolset **ts)
{
	static const char *const classes[] = {"all", "compute", "memory", "latency"};
	static const enum kp_bound bounds[] = {KP_BOUND_MIXED, KP_BOUND_COMPUTE, KP_BOUND_MEMORY, KP_BOUND_LATENCY};
	struct kp_toolset_opts o = {0};
	struct kp_strvec ids = KP_STRVEC_INIT;
	struct kp_error err = KP_ERROR_INIT;
	const char *sel = kp_arg_str(args, "tools");
	int rc = 0;

	*ts = NULL;
	if (sel && strcmp(sel, "none")) {
		o.use_env = 1;
		if (kp_toolset_open(ts, &o, &err))
			return kp_cli_fail(cli, &err);
		for (size_t i = 0; i < KP_ARRAY_SIZE(classes); i++)
			if (!strcmp(sel, classes[i]))
				kp_toolset_select(*ts, bounds[i], 0, &ids);
	}
	if (kp_pipeline_collection(*ts, *ts ? &ids : NULL, 0, metrics,
				   kp_arg_flag(args, "source-counters") ? sections : NULL, &err))
		rc = kp_cli_fail(cli, &err);
	add_extra_metrics(metrics, kp_arg_list(args, "metrics"));
	kp_strvec_release(&ids);
	return rc;
}

static json_t *status_json(const char *status, const struct kp_error *err, double elapsed)
{
	json_t *o = json_object();
	kp_json_set(o, "status", json_string(status));
	kp_json_set(o, "error", err && err->code ? json_string(kp_error_msg(err)) : NULL);
	kp_json_set(o, "error_code", err && err->code ? json_string(kp_errname(err->code)) : NULL);
	kp_json_set(o, "elapsed_s", kp_json_real(elapsed));
	return o;
}

/* profile.json's header: the command line, when, and the GPU's name (so an offline 'analyze' models it). */
static json_t *profile_meta(const struct kp_args *args, struct kp_strvec *argv)
{
	json_t *m = json_object(), *a = json_array();
	struct kp_gpu_list gl;
	for (size_t i = 0; i < kp_arg_npos(args); i++) {
		kp_strvec_push(argv, kp_arg_pos(args, i));
		json_array_append_new(a, json_string(kp_arg_pos(args, i)));
	}
	kp_json_set(m, "schema", json_integer(1));
	kp_json_set(m, "argv", a);
	kp_json_set(m, "created", json_integer((json_int_t)time(NULL)));
	if (kp_device_query(&gl, NULL) == 0 && gl.count > 0)
		kp_json_set(m, "device", json_string(gl.gpus[0].name));
	return m;
}

/*
 * The ncu pass: the collection set, then the run; its status goes into m. *ncu_ok says whether
 * counters were collected (err says why not). Returns 0, or an exit code when the options fail.
 */
static int ncu_pass(struct kp_cli *cli, const struct kp_args *args, const char *dir, const struct kp_strvec *argv,
		    json_t *m, struct kp_toolset **ts, int *ncu_ok, struct kp_error *err)
{
	struct kp_ncu_run r;
	struct kp_strvec metrics = KP_STRVEC_INIT, sections = KP_STRVEC_INIT;
	int rc;

	*ncu_ok = 0;
	memset(&r, 0, sizeof(r));
	if (kp_arg_list(args, "section"))
		kp_strvec_pushv(&sections, (const char *const *)kp_arg_list(args, "section")->v);
	if ((rc = collection(cli, args, &metrics, &sections, ts)))
		goto out;
	r.argv = (const char *const *)argv->v;
	r.metrics = (const char *const *)metrics.v;
	r.sections = sections.n ? (const char *const *)sections.v : NULL;
	r.set = kp_arg_str(args, "set");
	r.kernel = kp_arg_str(args, "kernel");
	r.launch_skip = kp_arg_int(args, "launch-skip", 0);
	r.launch_count = kp_arg_int(args, "launch-count", 0);
	r.out_dir = dir;
	r.timeout_ms = kp_arg_int(args, "timeout", 600) * 1000;
	r.details = kp_arg_flag(args, "details");
	r.source_sass = kp_arg_flag(args, "sass");
	r.keep_report = kp_arg_flag(args, "keep-report");
	if (cli->verbosity >= 0)
		fprintf(cli->err, "profiling under ncu (%zu metrics)...\n", metrics.n);
	if (kp_ncu_run(&r, err) == 0) {
		*ncu_ok = 1;
		if (r.warning[0])
			kp_cli_warn(cli, "%s", r.warning);
		kp_json_set(m, "ncu", status_json("ok", NULL, r.elapsed_s));
	} else if (err->code == KP_ECANCELED) {
		/* Interrupted: stop here, no fallback run. */
		kp_json_set(m, "ncu", status_json("stopped", err, r.elapsed_s));
	} else {
		/* No counters (permissions, no ncu, a failing run): keep going with timing only. */
		kp_cli_warn(cli, "%s", kp_error_msg(err));
		kp_cli_warn(cli, "continuing with timing only (the CUPTI tracer)");
		kp_json_set(m, "ncu", status_json("failed", err, r.elapsed_s));
	}
out:
	kp_strvec_release(&metrics);
	kp_strvec_release(&sections);
	return rc;
}

/* The report of what was just saved (the pipeline on the directory; the trace alone gets no tools). */
static int report(struct kp_cli *cli, const struct kp_args *args, const char *dir, int ncu_ok, const char *trace,
		  struct kp_toolset *ts, const struct kp_error *err, const struct kp_error *terr)
{
	struct kp_diagnose_opts o;
	int rc;
	if (!ncu_ok && !trace)
		return err->code ? kp_exit_for(err->code) : kp_exit_for(terr->code);
	memset(&o, 0, sizeof(o));
	if (ncu_ok)
		o.dir = dir;
	else
		o.files.trace = trace;
	o.pipe.gpu_key = kp_arg_str(args, "gpu-model");
	o.pipe.task.min_bytes = o.pipe.task.flops_hint = NAN;
	o.pipe.toolset = ncu_ok ? ts : NULL;
	rc = kp_diagnose_report(cli, &o);
	if (!ncu_ok && rc == KP_EXIT_OK && err->code)
		rc = kp_exit_for(err->code) == KP_EXIT_MISSING ? KP_EXIT_MISSING : KP_EXIT_FAIL;
	return rc;
}

/* Stopped by a signal (ncu or the tracer canceled): say so; profile.json records it, nothing else. */
static int stopped(struct kp_cli *cli, const char *dir, json_t *m, const struct kp_error *err)
{
	struct kp_buf meta = KP_BUF_INIT;
	kp_path_join(&meta, dir, "profile.json");
	kp_json_write_file(meta.buf, m, NULL);
	kp_buf_release(&meta);
	kp_cli_error(cli, "%s", kp_error_msg(err));
	kp_cli_error(cli, "profiling stopped: nothing was profiled (%s/profile.json says so)", dir);
	return kp_exit_for(KP_ECANCELED);
}

/* The program must exist: otherwise ncu and the tracer would each run and fail, and a profile be claimed. */
static int check_program(struct kp_cli *cli, const char *prog)
{
	struct kp_error err = KP_ERROR_INIT;
	char *path = kp_which(prog);
	if (path) {
		free(path);
		return 0;
	}
	kp_error_set(&err, KP_ENOENT, "program '%s' not found or not executable%s", prog,
		     strchr(prog, '/') ? "" : " (not on PATH; give its path, e.g. ./prog)");
	return kp_cli_fail(cli, &err);
}

static int run_profile(struct kp_cli *cli, const struct kp_args *args)
{
	const char *dir = kp_arg_str(args, "out");
	struct kp_strvec argv = KP_STRVEC_INIT;
	struct kp_error err = KP_ERROR_INIT, terr = KP_ERROR_INIT;
	struct kp_buf meta = KP_BUF_INIT;
	char *trace = NULL;
	struct kp_toolset *ts = NULL;
	json_t *m = NULL;
	int rc, ncu_ok = 0, want_trace = kp_arg_flag(args, "trace");

	if ((rc = check_program(cli, kp_arg_pos(args, 0))))
		goto out;
	if (kp_mkdir_p(dir, 0755, &err)) {
		rc = kp_cli_fail(cli, &err);
		goto out;
	}
	m = profile_meta(args, &argv);
	if (kp_arg_flag(args, "no-ncu"))
		kp_json_set(m, "ncu", status_json("skipped", NULL, 0));
	else if ((rc = ncu_pass(cli, args, dir, &argv, m, &ts, &ncu_ok, &err)))
		goto out;
	if (err.code == KP_ECANCELED) {
		rc = stopped(cli, dir, m, &err);
		goto out;
	}
	if (want_trace || !ncu_ok) {
		if (kp_cli_run_tracer(cli, args, dir, &trace, &terr) == 0) {
			kp_json_set(m, "trace", status_json("ok", NULL, 0));
		} else if (terr.code == KP_ECANCELED) {
			kp_json_set(m, "trace", status_json("stopped", &terr, 0));
			rc = stopped(cli, dir, m, &terr);
			goto out;
		} else {
			kp_cli_warn(cli, "%s", kp_error_msg(&terr));
			kp_json_set(m, "trace", status_json("failed", &terr, 0));
		}
	}
	kp_path_join(&meta, dir, "profile.json");
	kp_json_write_file(meta.buf, m, NULL);
	rc = report(cli, args, dir, ncu_ok, trace, ts, &err, &terr);
	if (cli->verbosity >= 0 && (ncu_ok || trace))
		fprintf(cli->err, "profile saved in %s/ ('kernelpro analyze %s' reads it again)\n", dir, dir);
	else if (cli->verbosity >= 0)
		fprintf(cli->err, "nothing was profiled (%s/profile.json says why)\n", dir);
out:
	kp_toolset_free(ts);
	free(trace);
	json_decref(m);
	kp_buf_release(&meta);
	kp_strvec_release(&argv);
	return rc;
}

const struct kp_cmd kp_cmd_profile = {
	.name = "profile",
	.summary = "Profile a CUDA program (ncu counters, SASS, launch trace) and classify each kernel",
	.usage = "[options] PROGRAM [ARGS...]",
	.description = "Runs PROGRAM under Nsight Compute with exactly the metrics Stage 1 (and --metrics)\n"
		       "needs, saves ncu_raw.csv, ncu.log, program.log and profile.json in --out DIR, and\n"
		       "prints each launch's roofline and class. Without counter access it falls back to\n"
		       "timing only through the CUPTI tracer. Needs a GPU.",
	.flags = KP_CMD_JSON | KP_CMD_NEEDS_GPU | KP_CMD_STOP_AT_ARG,
	.opts = profile_opts,
	.min_args = 1,
	.max_args = -1,
	.run = run_profile,
	.examples = "kernelpro profile ./my_app --size 4096\n"
		    "kernelpro profile --out prof -k my_kernel -c 3 ./my_app   # three launches of one kernel\n"
		    "kernelpro analyze prof                                    # then: again, offline",
};
