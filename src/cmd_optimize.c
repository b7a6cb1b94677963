/* kernelpro optimize: the closed loop on one task (Stage 1, search, programmer, harness, tools), resumable. */
#include "base/setup.h"

#include <limits.h>
#include <math.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "evalopts.h"
#include "kernelpro/device.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/search_backends.h"
#include "kernelpro/str.h"
#include "llm_opts.h"
#include "runs.h"
#include "tools_cli.h"

static const struct kp_opt optimize_opts[] = {
	{"resume", 0, KP_OPT_STR, "RUN", "continue a run (a run directory, or its name under --runs-dir)", NULL},
	KP_RUNS_DIR_OPT,
	{"name", 0, KP_OPT_STR, "NAME", "name of a new run (default TASK-YYYYMMDD-HHMMSS)", NULL},
	{"evals", 0, KP_OPT_INT, "N", "budget: candidate evaluations (default 20 when no budget is given)", NULL},
	{"time", 0, KP_OPT_STR, "DURATION", "budget: wall time over all sessions, e.g. 90s, 30m, 2h", NULL},
	{"tokens", 0, KP_OPT_INT, "N", "budget: LLM tokens, input + output", NULL},
	{"cost", 0, KP_OPT_NUM, "USD", "budget: LLM cost in US dollars", NULL},
	{"search", 0, KP_OPT_CHOICE, "mcts|greedy|beam", "search algorithm", NULL},
	{"objective", 0, KP_OPT_CHOICE, "speed|speed+energy", "speed, or speed with energy breaking ties", NULL},
	{"parallel", 'j', KP_OPT_INT, "N", "programmer requests in flight at once (replay in order: 1)", NULL},
	{"param", 'P', KP_OPT_LIST, "NAME=VALUE", "set a search constant (--list-params lists them)", NULL},
	{"list-params", 0, KP_OPT_FLAG, NULL, "list the search constants with their defaults and exit", NULL},
	{"evaluator", 0, KP_OPT_STR, "harness|exec:PROGRAM ARGS",
	 "who judges candidates: the built-in harness, or a program printing a verdict", "harness"},
	{"no-profile", 0, KP_OPT_FLAG, NULL, "no ncu and no tools: the feedback is timing only", NULL},
	{"feedback", 0, KP_OPT_CHOICE, "tools|raw|none", "what the feedback contains (ablation)", "tools"},
	{"orchestration", 0, KP_OPT_CHOICE, "proactive|reactive",
	 "tools run before each request (proactive), or only when the model asks (reactive, ablation)", "proactive"},
	{"tool-rounds", 0, KP_OPT_INT, "N", "reactive: rounds of tool requests the model may make per version", "3"},
	{"hw", 0, KP_OPT_STR, "KEY", "GPU model for the roofline (default: the device profiled)", NULL},
	{"prompts-dir", 0, KP_OPT_STR, "DIR", "prompt templates that replace the bundled ones", NULL},
	{"shared-memory", 0, KP_OPT_STR, "FILE", "a search-memory database shared by runs of one task family", NULL},
	{"family", 0, KP_OPT_STR, "NAME", "task family for the shared memory (default: the task's name)", NULL},
	KP_LLM_CLI_OPTS,
	KP_EVAL_COMMON_OPTS,
	KP_TOOLS_OPTS,
	KP_OPT_TABLE_END,
};

struct opt_state {
	struct kp_cli *cli;
	const struct kp_args *args;
	struct kp_buf dir;
	struct kp_store *store;
	struct kp_store *shared;
	int lock_fd;
	struct kp_task task;
	struct kp_search_task stask;
	struct kp_buf task_text;
	struct kp_llm_config llm_cfg;
	struct kp_llm *llm;
	struct kp_toolset *toolset;
	struct kp_toolset *reactive_tools; /* the answerer's own: requests come from the programmer's threads */
	struct kp_reactive *reactive;      /* reactive orchestration; NULL: proactive */
	enum kp_orchestration orch;
	long tool_rounds;
	struct kp_search_programmer *prog;
	struct kp_search_evaluator *eval;
	struct kp_buf argv_text;
	char run_name[256];
	char family[256];
	int created;      /* this invocation made the run directory (removed again if setup fails) */
	int energy;       /* the objective includes energy */
};

static int list_params(struct kp_cli *cli)
{
	size_t n;
	const struct kp_search_param_desc *d = kp_search_param_table(&n);
	struct kp_search_params p;
	kp_search_params_default(&p);
	for (size_t i = 0; i < n; i++) {
		struct kp_buf v = KP_BUF_INIT;
		kp_search_param_format(&p, &d[i], &v);
		fprintf(cli->out, "%-18s %-8s %s%s%s%s\n", d[i].name, v.buf, d[i].help, d[i].choices ? " (" : "",
			d[i].choices ? d[i].choices : "", d[i].choices ? ")" : "");
		kp_buf_release(&v);
	}
	return KP_EXIT_OK;
}

static int fail(struct opt_state *S, struct kp_error *err)
{
	return kp_cli_fail(S->cli, err);
}

static int usage(struct opt_state *S, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int usage(struct opt_state *S, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	kp_cli_error(S->cli, "%s", msg);
	return KP_EXIT_USAGE;
}

/* Budget options given now; *given says whether any was. */
static int read_budget(struct opt_state *S, struct kp_search_budget *b, int *given)
{
	const struct kp_args *a = S->args;
	*given = 0;
	if (kp_arg_given(a, "evals")) {
		b->evals = kp_arg_int(a, "evals", 0);
		if (b->evals < 1)
			return usage(S, "--evals must be at least 1");
		*given = 1;
	}
	if (kp_arg_given(a, "time")) {
		if (kp_parse_duration(kp_arg_str(a, "time"), &b->wall_s))
			return usage(S, "--time expects a duration like 90s, 30m or 2h, not '%s'", kp_arg_str(a, "time"));
		*given = 1;
	}
	if (kp_arg_given(a, "tokens")) {
		b->tokens = kp_arg_int(a, "tokens", 0);
		if (b->tokens < 1)
			return usage(S, "--tokens must be at least 1");
		*given = 1;
	}
	if (kp_arg_given(a, "cost")) {
		b->cost = kp_arg_num(a, "cost", 0);
		if (!(b->cost > 0))
			return usage(S, "--cost must be positive");
		*given = 1;
	}
	return 0;
}

static json_t *budget_json(const struct kp_search_budget *b)
{
	json_t *o = json_object();
	kp_json_set(o, "evals", b->evals ? json_integer(b->evals) : NULL);
	kp_json_set(o, "wall_s", b->wall_s > 0 ? json_real(b->wall_s) : NULL);
	kp_json_set(o, "tokens", b->tokens ? json_integer(b->tokens) : NULL);
	kp_json_set(o, "cost_usd", b->cost > 0 ? json_real(b->cost) : NULL);
	return o;
}

static void budget_from_json(const json_t *o, struct kp_search_budget *b)
{
	b->evals = (long)kp_json_int(o, "evals", 0);
	b->wall_s = kp_json_num(o, "wall_s", 0);
	b->tokens = (long)kp_json_int(o, "tokens", 0);
	b->cost = kp_json_num(o, "cost_usd", 0);
}

static int meta_json(struct kp_store *s, const char *key, json_t **out, struct kp_error *err)
{
	struct kp_buf b = KP_BUF_INIT;
	int rc = kp_store_meta_get(s, key, &b, err);
	if (!rc)
		rc = kp_json_load_mem(key, b.buf, b.len, out, err);
	kp_buf_release(&b);
	return rc;
}

static int meta_set_json(struct kp_store *s, const char *key, json_t *v, struct kp_error *err)
{
	char *t = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
	int rc = kp_store_meta_set(s, key, t, err);
	free(t);
	json_decref(v);
	return rc;
}

/* How the tools reach the model; kept with the run, so a resumed run asks the same way. */
static json_t *orchestration_json(const struct opt_state *S)
{
	json_t *o = json_object();
	kp_json_set(o, "mode", json_string(kp_orchestration_name(S->orch)));
	kp_json_set(o, "tool_rounds", json_integer(S->tool_rounds));
	return o;
}

/* --orchestration and --tool-rounds of a new run. */
static int read_orchestration(struct opt_state *S)
{
	kp_orchestration_parse(kp_arg_str(S->args, "orchestration"), &S->orch);
	S->tool_rounds = kp_arg_int(S->args, "tool-rounds", 3);
	if (S->tool_rounds < 1 || S->tool_rounds > 10)
		return usage(S, "--tool-rounds must be 1..10");
	if (kp_arg_given(S->args, "tool-rounds") && S->orch != KP_ORCH_REACTIVE)
		return usage(S, "--tool-rounds applies to --orchestration reactive only");
	return 0;
}

/* A resumed run's orchestration (runs made before it was recorded were proactive). */
static int load_orchestration(struct opt_state *S, struct kp_error *err)
{
	struct kp_buf v = KP_BUF_INIT;
	json_t *o = NULL;
	int rc = 0;

	S->orch = KP_ORCH_PROACTIVE;
	S->tool_rounds = 3;
	if (kp_store_meta_get(S->store, "orchestration", &v, err)) {
		kp_error_clear(err);
		goto out;
	}
	if ((rc = kp_json_load_mem("the run's orchestration", v.buf, v.len, &o, err)))
		goto out;
	if (kp_orchestration_parse(kp_json_str(o, "mode", ""), &S->orch))
		rc = kp_error_set(err, KP_EPARSE, "the run records orchestration '%s', which this kernelpro does not know",
				  kp_json_str(o, "mode", ""));
	S->tool_rounds = (long)kp_json_int(o, "tool_rounds", 3);
out:
	json_decref(o);
	kp_buf_release(&v);
	return rc;
}

/* What reactive orchestration needs from the other options. */
static int check_orchestration(struct opt_state *S)
{
	const char *fb = kp_arg_str(S->args, "feedback");
	if (S->orch != KP_ORCH_REACTIVE)
		return 0;
	if (kp_arg_flag(S->args, "no-profile"))
		return usage(S, "--orchestration reactive runs each tool the model asks for on the version's profile; "
				"--no-profile leaves none");
	if (strcmp(fb, "tools"))
		return usage(S, "--feedback %s ablates the proactive feedback; with --orchestration reactive each tool "
				"request is answered with that tool's findings (leave --feedback at tools)",
			     fb);
	return 0;
}

/* Reactive orchestration: the answerer, with its own toolset (requests come from worker threads). */
static int make_reactive(struct opt_state *S, struct kp_error *err)
{
	struct kp_reactive_opts o;

	if (S->orch != KP_ORCH_REACTIVE)
		return 0;
	if (kp_cli_toolset_open(S->cli, S->args, &S->reactive_tools))
		return kp_error_set(err, KP_EINVAL, "bad tool options");
	memset(&o, 0, sizeof(o));
	o.toolset = S->reactive_tools;
	o.task = &S->task;
	o.hw_key = kp_arg_str(S->args, "hw");
	o.gpu = (int)kp_arg_int(S->args, "gpu", 0);
	o.energy = S->energy;
	return kp_reactive_new(&S->reactive, &o, err);
}

/* A new run: its directory, database and the settings it keeps for every session. */
static int create_run(struct opt_state *S, const char *task_path, const struct kp_search_params *p,
		      const struct kp_search_budget *b, struct kp_error *err)
{
	const char *name = kp_arg_str(S->args, "name");
	struct kp_buf db = KP_BUF_INIT, spec = KP_BUF_INIT;
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	json_t *tj;
	char *abs;
	int rc;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	if (name)
		snprintf(S->run_name, sizeof(S->run_name), "%s", name);
	else
		snprintf(S->run_name, sizeof(S->run_name), "%s-%s", S->task.name, stamp);
	if (strchr(S->run_name, '/') || S->run_name[0] == '.')
		return kp_error_set(err, KP_EINVAL, "run name '%s' must not contain '/' or start with '.'", S->run_name);
	kp_path_join(&S->dir, kp_runs_dir(S->args), S->run_name);
	if (kp_path_exists(S->dir.buf))
		return kp_error_set(err, KP_EEXISTS, "run directory '%s' exists; resume it with --resume %s or choose "
						     "another --name",
				    S->dir.buf, S->dir.buf);
	if ((rc = kp_mkdir_p(S->dir.buf, 0755, err)))
		goto out;
	S->created = 1;
	if ((rc = kp_run_lock(S->dir.buf, &S->lock_fd, err)))
		goto out;
	kp_path_join(&db, S->dir.buf, KP_RUN_DB);
	if ((rc = kp_store_open(&S->store, db.buf, KP_STORE_CREATE, err)))
		goto out;
	tj = kp_task_to_json(&S->task);
	abs = realpath(task_path, NULL);
	kp_json_set(tj, "path", json_string(abs ? abs : task_path));
	free(abs);
	kp_llm_config_format_spec(&S->llm_cfg, &spec);
	if ((rc = kp_store_meta_set(S->store, "run_name", S->run_name, err)) ||
	    (rc = kp_store_meta_set(S->store, "kernelpro", KP_VERSION " (" KP_GIT_REV ")", err)) ||
	    (rc = kp_store_meta_set(S->store, "created", stamp, err)) ||
	    (rc = kp_store_meta_set(S->store, "family", S->family, err)) ||
	    (rc = kp_store_meta_set(S->store, "llm", spec.buf, err)) ||
	    (rc = kp_store_meta_set(S->store, "evaluator", kp_arg_str(S->args, "evaluator"), err)) ||
	    (rc = meta_set_json(S->store, "orchestration", orchestration_json(S), err)) ||
	    (rc = meta_set_json(S->store, "task", tj, err)) ||
	    (rc = meta_set_json(S->store, "params", kp_search_params_to_json(p), err)) ||
	    (rc = meta_set_json(S->store, "budget", budget_json(b), err)))
		goto out;
out:
	kp_buf_release(&db);
	kp_buf_release(&spec);
	return rc;
}

/* An existing run: its database, its task (from where it was), its parameters and budget. */
static int open_run(struct opt_state *S, struct kp_search_params *p, struct kp_search_budget *b, struct kp_error *err)
{
	struct kp_buf db = KP_BUF_INIT, v = KP_BUF_INIT;
	json_t *tj = NULL, *pj = NULL, *bj = NULL;
	const char *path;
	int rc;

	if ((rc = kp_run_resolve(kp_runs_dir(S->args), kp_arg_str(S->args, "resume"), &S->dir, err)) ||
	    (rc = kp_run_lock(S->dir.buf, &S->lock_fd, err)))
		goto out;
	kp_path_join(&db, S->dir.buf, KP_RUN_DB);
	if ((rc = kp_store_open(&S->store, db.buf, 0, err)) || (rc = meta_json(S->store, "task", &tj, err)) ||
	    (rc = meta_json(S->store, "params", &pj, err)) || (rc = meta_json(S->store, "budget", &bj, err)))
		goto out;
	kp_search_params_default(p);
	if ((rc = kp_search_params_from_json(p, pj, err)))
		goto out;
	budget_from_json(bj, b);
	/* TASK given with --resume says where the task is now (it moved). */
	path = kp_arg_npos(S->args) ? kp_arg_pos(S->args, 0) : kp_json_str(tj, "path", NULL);
	if (!path) {
		rc = kp_error_set(err, KP_EPARSE, "run '%s' does not record its task; give TASK with --resume", S->dir.buf);
		goto out;
	}
	if ((rc = kp_task_load(&S->task, path, err))) {
		kp_error_prefix(err, "the run's task (give its new place as TASK with --resume)");
		goto out;
	}
	if (!kp_store_meta_get(S->store, "run_name", &v, err))
		snprintf(S->run_name, sizeof(S->run_name), "%s", v.buf);
	kp_buf_reset(&v);
	if (!kp_store_meta_get(S->store, "family", &v, err))
		snprintf(S->family, sizeof(S->family), "%s", v.buf);
	kp_error_clear(err);
out:
	json_decref(tj);
	json_decref(pj);
	json_decref(bj);
	kp_buf_release(&db);
	kp_buf_release(&v);
	return rc;
}

static int make_evaluator(struct opt_state *S, struct kp_error *err)
{
	const char *spec = kp_arg_str(S->args, "evaluator");
	struct kp_buf pdir = KP_BUF_INIT, wdir = KP_BUF_INIT;
	int rc;

	if (kp_starts_with(spec, "exec:")) {
		struct kp_strvec argv = KP_STRVEC_INIT;
		kp_strvec_split(&argv, spec + 5, ' ');
		while (argv.n && !*argv.v[argv.n - 1])
			kp_strvec_pop(&argv);
		kp_path_join(&wdir, S->dir.buf, "exec-eval");
		rc = kp_exec_evaluator_new(&S->eval, argv.n ? (const char *const *)argv.v : NULL, S->task.reference,
					   wdir.buf, S->task.kind == KP_TASK_KERNELBENCH ? "py" : "cu",
					   kp_arg_num(S->args, "timing-timeout", 300) + kp_arg_num(S->args, "build-timeout", 300) +
						   kp_arg_num(S->args, "check-timeout", 180),
					   err);
		kp_strvec_release(&argv);
	} else if (!strcmp(spec, "harness")) {
		struct kp_harness_opts o;
		struct kp_gpu_list gpus;
		memset(&o, 0, sizeof(o));
		/* Before any LLM call: every candidate must run on a GPU here. */
		if (kp_device_query(&gpus, err) || gpus.count <= kp_arg_int(S->args, "gpu", 0)) {
			kp_error_clear(err);
			return kp_error_set(err, KP_ENODEV, "no usable GPU %ld here: the built-in harness evaluates every "
							    "candidate on one ('kernelpro doctor' says why; --evaluator exec:PROGRAM "
							    "evaluates elsewhere)",
					    kp_arg_int(S->args, "gpu", 0));
		}
		if ((rc = kp_evalopts_from_args(S->cli, S->args, &o.eval)))
			return kp_error_set(err, KP_EINVAL, "bad evaluation options");
		if (!kp_arg_flag(S->args, "no-profile")) {
			if (kp_cli_toolset_open(S->cli, S->args, &S->toolset))
				return kp_error_set(err, KP_EINVAL, "bad tool options");
		}
		kp_feedback_mode_parse(kp_arg_str(S->args, "feedback"), &o.stage2.feedback.mode);
		o.stage2.orchestration = S->orch; /* reactive: ncu still collects every tool's metrics, no tool runs */
		o.task = &S->task;
		o.toolset = S->toolset;
		o.energy = S->energy;
		o.stage2.energy = S->energy; /* instruction_mix always runs when energy counts */
		o.hw_key = kp_arg_str(S->args, "hw");
		kp_path_join(&pdir, S->dir.buf, "profiles");
		o.profile_dir = pdir.buf;
		rc = kp_harness_evaluator_new(&S->eval, &o, err);
	} else {
		rc = kp_error_set(err, KP_EINVAL, "--evaluator must be 'harness' or 'exec:PROGRAM ARGS', not '%s'", spec);
	}
	kp_buf_release(&pdir);
	kp_buf_release(&wdir);
	return rc;
}

static int make_programmer(struct opt_state *S, const struct kp_search_params *p, struct kp_error *err)
{
	struct kp_programmer_opts po;
	struct kp_buf stored = KP_BUF_INIT;
	int parallel = p->parallel, rc;

	/* A resumed run asks the model it was started with (the key comes from the environment again). */
	if (S->store && kp_store_meta_get(S->store, "llm", &stored, err))
		kp_error_clear(err);
	rc = kp_cli_llm_config(S->args, stored.len ? stored.buf : NULL, &S->llm_cfg, err);
	kp_buf_release(&stored);
	if (rc)
		return rc;
	if (kp_llm_config_resume(&S->llm_cfg, S->store ? kp_store_exchange_count(S->store, 0) : 0))
		parallel = 1; /* replies answer requests by their order */
	if ((rc = kp_llm_open(&S->llm, &S->llm_cfg, err)))
		return rc;
	kp_llm_set_cancel_flag(S->llm, S->cli->stop); /* Ctrl-C drops requests in flight */
	memset(&po, 0, sizeof(po));
	po.prompts_dir = kp_arg_str(S->args, "prompts-dir");
	po.max_tool_rounds = (int)S->tool_rounds;
	return kp_llm_programmer_new(&S->prog, S->llm, &po,
				     S->task.kind == KP_TASK_KERNELBENCH ? KP_CAND_TORCH : KP_CAND_CUDA, S->task_text.buf,
				     S->reactive, parallel, err);
}

/* ---- progress ------------------------------------------------------------------------------------------ */

static void on_progress(const struct kp_search_status *st, void *ud)
{
	struct opt_state *S = ud;
	const struct kp_search_budget *b = st->budget;
	char el[32], left[64] = "", tok[32];

	if (S->cli->json || S->cli->verbosity < 0)
		return;
	kp_fmt_duration(st->elapsed_s, el, sizeof(el));
	if (b->wall_s > 0) {
		char d[32];
		snprintf(left, sizeof(left), ", %s left", kp_fmt_duration(b->wall_s - st->elapsed_s, d, sizeof(d)));
	}
	if (st->tokens >= 10000)
		snprintf(tok, sizeof(tok), "%.1fk", st->tokens / 1e3);
	else
		snprintf(tok, sizeof(tok), "%ld", st->tokens);
	if (b->evals)
		kp_progress_update(&S->cli->progress, "evals %ld/%ld  best %.2fx (#%ld)  tokens %s%s  %s%s  [%s]", st->evals,
				   b->evals, st->best_speedup, st->best_node, tok,
				   b->tokens ? "" : "", el, left, st->phase ? st->phase : "");
	else
		kp_progress_update(&S->cli->progress, "evals %ld  best %.2fx (#%ld)  tokens %s  %s%s  [%s]", st->evals,
				   st->best_speedup, st->best_node, tok, el, left, st->phase ? st->phase : "");
}

static void on_note(const char *line, void *ud)
{
	struct opt_state *S = ud;
	if (S->cli->json || S->cli->verbosity < 0)
		return;
	kp_progress_clear(&S->cli->progress);
	fprintf(S->cli->err, "  %s\n", line);
	fflush(S->cli->err);
}

static void print_result(struct opt_state *S, const struct kp_search_outcome *out)
{
	json_t *sum = NULL, *best, *path;
	struct kp_error err = KP_ERROR_INIT;

	if (kp_search_summary(S->store, &sum, &err)) {
		kp_cli_warn(S->cli, "%s", kp_error_msg(&err));
		return;
	}
	kp_json_set(sum, "dir", json_string(S->dir.buf));
	if (S->cli->json) {
		kp_cli_print_json(S->cli, sum);
		goto out;
	}
	best = json_object_get(sum, "best");
	fprintf(S->cli->out, "run %s: %s (%s)\n", S->run_name, kp_json_str(sum, "status", "?"),
		kp_search_end_name(out->end));
	if (json_is_true(json_object_get(best, "improved"))) {
		fprintf(S->cli->out, "best: #%lld, %.2fx faster than the reference (%.4g ms vs %.4g ms): %s/%s\n",
			kp_json_int(best, "node", 0), kp_json_num(best, "speedup", NAN), kp_json_num(best, "time_ms", NAN),
			kp_json_num(best, "ref_time_ms", NAN), S->dir.buf, kp_json_str(best, "file", "best.cu"));
		path = json_object_get(best, "path");
		for (size_t i = 0; i < json_array_size(path); i++) {
			json_t *n = json_array_get(path, i);
			kp_print_path_line(S->cli->out, n);
		}
	} else {
		fprintf(S->cli->out, "no candidate beat the reference yet\n");
	}
	fprintf(S->cli->out, "details: kernelpro show %s --tree\n", S->dir.buf);
out:
	json_decref(sum);
}

static void state_release(struct opt_state *S)
{
	if (S->prog)
		S->prog->free(S->prog);
	kp_reactive_free(S->reactive);
	kp_toolset_free(S->reactive_tools);
	if (S->eval)
		S->eval->free(S->eval);
	kp_llm_free(S->llm);
	kp_llm_config_release(&S->llm_cfg);
	kp_toolset_free(S->toolset);
	kp_store_close(S->store);
	kp_store_close(S->shared);
	kp_run_unlock(S->lock_fd);
	kp_task_release(&S->task);
	kp_buf_release(&S->dir);
	kp_buf_release(&S->task_text);
	kp_buf_release(&S->argv_text);
}

static int run_optimize(struct kp_cli *cli, const struct kp_args *args)
{
	struct opt_state S;
	struct kp_search_params params;
	struct kp_search_budget budget = {0}, now = {0};
	struct kp_search_run run;
	struct kp_search_outcome out;
	struct kp_error err = KP_ERROR_INIT;
	const struct kp_strvec *sets = kp_arg_list(args, "param");
	int resume = kp_arg_given(args, "resume"), budget_given, rc;

	if (kp_arg_flag(args, "list-params"))
		return list_params(cli);
	memset(&S, 0, sizeof(S));
	S.cli = cli;
	S.args = args;
	S.lock_fd = -1;
	kp_task_init(&S.task);
	kp_llm_config_init(&S.llm_cfg);
	if (!resume && kp_arg_npos(args) != 1) {
		kp_cli_error(cli, "give a TASK (a KernelBench .py or a native task directory), or --resume RUN");
		kp_cmd_print_usage(args->cmd, "kernelpro optimize", cli->err);
		rc = KP_EXIT_USAGE;
		goto done;
	}
	if ((rc = read_budget(&S, &now, &budget_given)))
		goto done;
	if (resume) {
		if (kp_arg_given(args, "search") || kp_arg_given(args, "objective") || (sets && sets->n) ||
		    kp_arg_given(args, "name") || kp_arg_given(args, "orchestration") || kp_arg_given(args, "tool-rounds")) {
			rc = usage(&S, "a resumed run keeps its search settings and name; start a new run to change them");
			goto done;
		}
		if ((rc = open_run(&S, &params, &budget, &err)) || (rc = load_orchestration(&S, &err)))
			goto fail;
		/* New limits given on resume replace the recorded ones (e.g. a larger --evals extends the run). */
		if (kp_arg_given(args, "evals"))
			budget.evals = now.evals;
		if (kp_arg_given(args, "time"))
			budget.wall_s = now.wall_s;
		if (kp_arg_given(args, "tokens"))
			budget.tokens = now.tokens;
		if (kp_arg_given(args, "cost"))
			budget.cost = now.cost;
		if (budget_given && (rc = meta_set_json(S.store, "budget", budget_json(&budget), &err)))
			goto fail;
	} else {
		kp_search_params_default(&params);
		if (kp_arg_given(args, "search") &&
		    (rc = kp_search_param_set(&params, "search", kp_arg_str(args, "search"), &err)))
			goto fail_usage;
		if (kp_arg_given(args, "objective") &&
		    (rc = kp_search_param_set(&params, "objective", kp_arg_str(args, "objective"), &err)))
			goto fail_usage;
		for (size_t i = 0; sets && i < sets->n; i++)
			if ((rc = kp_search_param_assign(&params, sets->v[i], &err)))
				goto fail_usage;
		if ((rc = read_orchestration(&S)))
			goto done;
		budget = now;
		if (!budget_given)
			budget.evals = 20;
		if ((rc = kp_task_load(&S.task, kp_arg_pos(args, 0), &err)))
			goto fail;
		snprintf(S.family, sizeof(S.family), "%s", kp_arg_str(args, "family") ? kp_arg_str(args, "family") : S.task.name);
	}
	if (kp_arg_given(args, "parallel")) {
		long j = kp_arg_int(args, "parallel", 1);
		if (j < 1 || j > 64) {
			rc = usage(&S, "--parallel must be 1..64");
			goto done;
		}
		params.parallel = (int)j; /* how, not what: may change on resume */
	}
	if ((rc = check_orchestration(&S)))
		goto done;
	kp_task_describe(&S.task, &S.task_text);
	S.stask = (struct kp_search_task){.name = S.task.name, .description = S.task_text.buf, .family = S.family,
					  .format = kp_task_kind_name(S.task.kind),
					  .lang = S.task.kind == KP_TASK_KERNELBENCH ? "python" : "cuda",
					  .reference_source = S.task.source};
	S.energy = params.objective == KP_OBJECTIVE_SPEED_ENERGY;
	if ((rc = make_reactive(&S, &err)) || (rc = make_programmer(&S, &params, &err)) ||
	    (budget.cost > 0 && (rc = kp_llm_check_priced(S.llm, &err))))
		goto fail;
	if (!resume && (rc = create_run(&S, kp_arg_pos(args, 0), &params, &budget, &err)))
		goto fail;
	if (S.energy && S.task.kind != KP_TASK_NATIVE)
		kp_cli_warn(cli, "energy is measured for native tasks only; ties on '%s' fall back to speed", S.task.name);
	if ((rc = make_evaluator(&S, &err)))
		goto fail;
	if (kp_arg_str(args, "shared-memory") &&
	    (rc = kp_store_open(&S.shared, kp_arg_str(args, "shared-memory"), KP_STORE_CREATE, &err)))
		goto fail;
	kp_buf_addf(&S.argv_text, "optimize %s%s", resume ? "--resume " : "", resume ? kp_arg_str(args, "resume")
											  : kp_arg_pos(args, 0));

	memset(&run, 0, sizeof(run));
	run.store = S.store;
	run.run_dir = S.dir.buf;
	run.run_name = S.run_name;
	run.task = &S.stask;
	run.params = params;
	run.budget = budget;
	run.programmer = S.prog;
	run.evaluator = S.eval;
	run.shared_memory = S.shared;
	run.argv_text = S.argv_text.buf;
	run.stop = cli->stop; /* Ctrl-C, SIGTERM (src/main.c) */
	run.progress = on_progress;
	run.note = on_note;
	run.ud = &S;
	if (!cli->json && cli->verbosity >= 0)
		fprintf(cli->err, "kernelpro: %s run %s in %s (%s, %s%s)\n", resume ? "resuming" : "starting", S.run_name,
			S.dir.buf, kp_search_algo_name(params.algo), kp_objective_name(params.objective),
			S.orch == KP_ORCH_REACTIVE ? ", reactive tools" : "");
	rc = kp_search_loop(&run, &out, &err);
	kp_progress_clear(&cli->progress);
	if (rc) {
		kp_cli_error(cli, "%s", kp_error_msg(&err));
		kp_cli_error(cli, "the run is saved; after fixing that, continue it with: kernelpro optimize --resume %s",
			     S.dir.buf);
		rc = kp_exit_for(rc);
		goto done;
	}
	print_result(&S, &out);
	if (out.end == KP_END_STOPPED && !cli->json)
		fprintf(cli->out, "stopped; continue with: kernelpro optimize --resume %s\n", S.dir.buf);
	rc = out.end == KP_END_STOPPED ? KP_EXIT_FAIL : KP_EXIT_OK;
	goto done;
fail_usage:
	kp_cli_error(cli, "%s", kp_error_msg(&err));
	rc = KP_EXIT_USAGE;
	goto done;
fail:
	rc = fail(&S, &err);
	if (S.created && S.store && !kp_store_session_count(S.store)) {
		/* Setup failed before the run began: leave no empty run behind. */
		struct kp_error ignore = KP_ERROR_INIT;
		kp_store_close(S.store);
		S.store = NULL;
		kp_rm_rf(S.dir.buf, &ignore);
	}
done:
	state_release(&S);
	return rc;
}

const struct kp_cmd kp_cmd_optimize = {
	.name = "optimize",
	.summary = "Make a kernel faster: Stage 1, then search over LLM-written versions until the budget ends",
	.usage = "[options] TASK | --resume RUN [options]",
	.description =
		"TASK is a KernelBench .py or a native task directory. The run is saved as it goes in\n"
		"--runs-dir/NAME (run.db, candidates/, best.cu or best.py, summary.json); a run stopped by\n"
		"Ctrl-C, an error or kill -9 continues with --resume, losing nothing it had saved.\n"
		"Budgets: --evals, --time, --tokens, --cost, whichever ends first (default --evals 20).\n"
		"Search constants: --list-params; docs/search.md explains each.\n"
		"--orchestration reactive (ablation): optimize prompts list the tools instead of the feedback,\n"
		"and a tool the model asks for ('tool: NAME') runs on the parent's saved profile, up to\n"
		"--tool-rounds rounds per version; needs --feedback tools and profiling. docs/search.md.",
	.flags = KP_CMD_JSON | KP_CMD_NEEDS_GPU | KP_CMD_NEEDS_NET,
	.opts = optimize_opts,
	.min_args = 0,
	.max_args = 1,
	.run = run_optimize,
};
