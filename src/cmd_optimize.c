/* kernelpro optimize: the closed loop on one task (Stage 1, search, programmer, harness, tools), resumable. */
#include "base/setup.h"

#include "cli.h"
#include "evalopts.h"
#include "kernelpro/run.h"
#include "kernelpro/task_kind.h"
#include "llm_opts.h"
#include "prereq.h"
#include "runopts.h"
#include "runs.h"
#include "tools_cli.h"
#include "tuneopts.h"

static const struct kp_opt optimize_opts[] = {
	{"resume", 0, KP_OPT_STR, "RUN", "continue a run (a run directory, or its name under --runs-dir)", NULL},
	KP_RUNS_DIR_OPT,
	{"name", 0, KP_OPT_STR, "NAME", "name of a new run (default TASK-YYYYMMDD-HHMMSS)", NULL},
	{"evals", 0, KP_OPT_INT, "N:1..", "budget: candidate evaluations (default 20 when no budget is given)", NULL},
	{"time", 0, KP_OPT_STR, "DURATION", "budget: wall time over all sessions, e.g. 90s, 30m, 2h", NULL},
	{"tokens", 0, KP_OPT_INT, "N:1..", "budget: LLM tokens, input + output", NULL},
	{"cost", 0, KP_OPT_NUM, "USD:>0", "budget: LLM cost in US dollars", NULL},
	{"format", 0, KP_OPT_STR, "cuda|triton",
	 "the language versions are written in (default: the task's; Triton tasks: triton)", NULL},
	{"formats", 0, KP_OPT_LIST, "LIST", "several languages, the search switching between them: cuda,triton", NULL},
	{"search", 0, KP_OPT_CHOICE, "mcts|greedy|beam", "search algorithm", NULL},
	{"objective", 0, KP_OPT_CHOICE, "speed|speed+energy", "speed, or speed with energy breaking ties", NULL},
	{"parallel", 'j', KP_OPT_INT, "N:1..64", "programmer requests in flight at once (replay in order: 1)", NULL},
	{"param", 'P', KP_OPT_LIST, "NAME=VALUE", "set a search constant (--list-params lists them)", NULL},
	{"list-params", 0, KP_OPT_FLAG, NULL, "list the search constants with their defaults and exit", NULL},
	{"evaluator", 0, KP_OPT_STR, "harness|exec:PROGRAM ARGS",
	 "who judges candidates: the built-in harness, or a program printing a verdict", "harness"},
	{"no-profile", 0, KP_OPT_FLAG, NULL, "no ncu and no tools: the feedback is timing only", NULL},
	{"feedback", 0, KP_OPT_CHOICE, "tools|raw|none", "what the feedback contains (ablation)", "tools"},
	{"orchestration", 0, KP_OPT_CHOICE, "proactive|reactive",
	 "tools run before each request (proactive), or only when the model asks (reactive, ablation)", "proactive"},
	{"tool-rounds", 0, KP_OPT_INT, "N:1..10", "reactive: rounds of tool requests the model may make per version", "3"},
	{"codesearch", 0, KP_OPT_CHOICE, "auto|on|off",
	 "CUTLASS/CuTe snippets in optimize prompts (reactive: as 'search:' requests); auto: when CUTLASS is "
	 "found",
	 "auto"},
	{"hw", 0, KP_OPT_STR, "KEY", "GPU model for the roofline (default: the device profiled)", NULL},
	{"prompts-dir", 0, KP_OPT_STR, "DIR", "prompt templates that replace the bundled ones", NULL},
	{"shared-memory", 0, KP_OPT_STR, "FILE", "a search-memory database shared by runs of one task family", NULL},
	{"family", 0, KP_OPT_STR, "NAME", "task family for the shared memory (default: the task's name)", NULL},
	KP_LLM_CLI_OPTS,
	KP_TUNE_RUN_OPTS,
	KP_EVAL_COMMON_OPTS,
	KP_TOOLS_OPTS,
	KP_OPT_TABLE_END,
};

/* What one invocation holds; released in one place. */
struct opt_state {
	struct kp_cli *cli;
	const struct kp_args *args;
	int resume;
	struct kp_run *run;
	struct kp_task task;
	struct kp_run_settings settings; /* a new run's */
	struct kp_runopts_parts parts;
	struct kp_buf argv_text;
	int no_llm;           /* --llm none: the tune action alone */
	struct kp_buf from;   /* --from FILE's source */
};

/* What the command line must hold before anything is opened. */
static int check_args(struct opt_state *S)
{
	const struct kp_args *a = S->args;
	const struct kp_strvec *sets = kp_arg_list(a, "param");
	long j = kp_arg_int(a, "parallel", 1);

	if (!S->resume && kp_arg_npos(a) != 1) {
		kp_cli_error(S->cli, "give a TASK (a KernelBench .py or a native task directory), or --resume "
				     "RUN");
		kp_cmd_print_usage(a->cmd, "kernelpro optimize", S->cli->err);
		return KP_EXIT_USAGE;
	}
	if (S->resume &&
	    (kp_arg_given(a, "search") || kp_arg_given(a, "objective") || (sets && sets->n) ||
	     kp_arg_given(a, "name") || kp_arg_given(a, "orchestration") || kp_arg_given(a, "tool-rounds") ||
	     kp_arg_given(a, "format") || (kp_arg_list(a, "formats") && kp_arg_list(a, "formats")->n))) {
		kp_cli_error(S->cli, "a resumed run keeps its search settings and name; start a new run to "
				     "change them");
		return KP_EXIT_USAGE;
	}
	if (j < 1 || j > 64) { /* how, not what: may change on resume */
		kp_cli_error(S->cli, "--parallel must be 1..64");
		return KP_EXIT_USAGE;
	}
	return 0;
}

/*
 * What a session needs, checked together before anything is created or sent: the task, a model
 * (unless --llm none), and a GPU here for the built-in harness (a resumed run keeps its evaluator,
 * and its model unless --llm names another).
 */
static int prerequisites(struct opt_state *S)
{
	const struct kp_args *a = S->args;
	const struct kp_run_settings *rs = S->run ? kp_run_settings(S->run) : NULL;
	const char *ev = rs ? rs->evaluator : kp_arg_str(a, "evaluator"); /* a resumed run keeps its own */
	struct kp_prereq p;

	kp_prereq_init(&p, S->cli);
	if (!S->resume)
		kp_prereq_path(&p, kp_arg_pos(a, 0), "task");
	if (!S->no_llm)
		kp_prereq_llm(&p, a, rs ? rs->llm : NULL);
	if (!ev || !kp_starts_with(ev, "exec:"))
		kp_prereq_gpu(&p, (int)kp_arg_int(a, "gpu", 0),
			      "the built-in harness evaluates every candidate on one (--evaluator exec:PROGRAM "
			      "evaluates elsewhere; 'kernelpro doctor' says why)");
	return kp_prereq_done(&p);
}

/* A resumed run: opened (locked), the new limits given recorded, its task loaded. */
static int resume_run(struct opt_state *S, const struct kp_search_budget *b, unsigned which, struct kp_error *err)
{
	const struct kp_args *a = S->args;
	struct kp_buf dir = KP_BUF_INIT;
	int rc = kp_run_resolve(kp_cli_runs_root(a), kp_arg_str(a, "resume"), &dir, err);

	if (!rc)
		rc = kp_run_open(&S->run, dir.buf, 0, err);
	if (!rc) /* new limits replace the recorded ones (a larger --evals extends a finished run) */
		rc = kp_run_set_budget(S->run, b, which, err);
	if (!rc)
		rc = kp_run_load_task(S->run, kp_arg_npos(a) ? kp_arg_pos(a, 0) : NULL, &S->task, err);
	kp_buf_release(&dir);
	return rc ? kp_cli_fail(S->cli, err) : 0;
}

/* A new run's task and settings (created once everything else is ready). */
static int new_run(struct opt_state *S, const struct kp_search_budget *b, unsigned which, struct kp_error *err)
{
	S->settings.budget = *b;
	if (!which)
		S->settings.budget.evals = KP_RUN_DEFAULT_EVALS;
	if (kp_task_load(&S->task, kp_arg_pos(S->args, 0), err))
		return kp_cli_fail(S->cli, err);
	int rc = kp_runopts_settings(S->cli, S->args, &S->task, &S->parts.llm, &S->settings);
	return rc ? rc : kp_tuneopts_new_run(S->cli, S->args, &S->task, S->no_llm, &S->settings, &S->from);
}

static void on_started(struct kp_run *r, const struct kp_search_params *p, void *ud)
{
	struct opt_state *S = ud;
	struct kp_buf name = KP_BUF_INIT, dir = KP_BUF_INIT;
	if (S->cli->json || S->cli->verbosity < 0)
		return;
	kp_cli_text(&name, kp_run_name(r), KP_TEXT_LINE);
	kp_cli_text(&dir, kp_run_dir(r), KP_TEXT_LINE);
	fprintf(S->cli->err, "kernelpro: %s run %s in %s (%s, %s%s)\n", S->resume ? "resuming" : "starting",
		name.buf, dir.buf, kp_search_algo_name(p->algo), kp_objective_name(p->objective),
		kp_run_settings(r)->orchestration == KP_ORCH_REACTIVE ? ", reactive tools" : "");
	kp_buf_release(&name);
	kp_buf_release(&dir);
}

static void on_progress(const struct kp_search_status *st, void *ud)
{
	kp_cli_run_progress(((struct opt_state *)ud)->cli, st);
}

static void on_note(const char *line, void *ud)
{
	kp_cli_run_note(((struct opt_state *)ud)->cli, line);
}

/* The session, with Ctrl-C (SIGINT, SIGTERM, SIGHUP: src/main.c) asking for a stop after the current step. */
static int optimize(struct opt_state *S, struct kp_search_outcome *out, struct kp_error *err)
{
	struct kp_run_session s;
	int rc;

	memset(&s, 0, sizeof(s));
	kp_runopts_session(S->args, &S->parts, &S->task, &s);
	s.from_source = S->from.len ? S->from.buf : NULL;
	s.from_name = kp_arg_str(S->args, "from");
	kp_buf_addf(&S->argv_text, "optimize %s%s", S->resume ? "--resume " : "",
		    S->resume ? kp_arg_str(S->args, "resume") : kp_arg_pos(S->args, 0));
	s.argv_text = S->argv_text.buf;
	s.stop = S->cli->stop; /* also drops LLM requests in flight (lib/run) */
	s.started = on_started;
	s.progress = on_progress;
	s.note = on_note;
	s.ud = S;
	rc = kp_run_optimize(S->run, &s, out, err);
	kp_progress_clear(&S->cli->progress);
	return rc;
}

/* After a failed session: a run that never began is removed, any other says how to continue. */
static int failed(struct opt_state *S, int rc, const struct kp_error *err)
{
	kp_cli_error(S->cli, "%s", kp_error_msg(err));
	if (!S->resume && !kp_store_session_count(kp_run_store(S->run))) {
		kp_run_abandon(S->run);
		S->run = NULL;
	} else {
		kp_cli_error(S->cli, "the run is saved; after fixing that, continue it with: kernelpro optimize "
				     "--resume %s",
			     kp_run_dir(S->run));
	}
	return kp_exit_for(rc);
}

static int run_optimize(struct kp_cli *cli, const struct kp_args *args)
{
	struct opt_state S = {.cli = cli, .args = args, .resume = kp_arg_given(args, "resume"), .from = KP_BUF_INIT};
	struct kp_search_budget budget = {0};
	struct kp_search_outcome out;
	struct kp_error err = KP_ERROR_INIT;
	const struct kp_run_settings *st;
	unsigned which = 0;
	int rc;

	if (kp_arg_flag(args, "list-params"))
		return kp_runopts_list_params(cli);
	kp_task_init(&S.task);
	kp_run_settings_init(&S.settings);
	kp_runopts_parts_init(&S.parts);
	if ((rc = check_args(&S)) || (rc = kp_runopts_budget(cli, args, &budget, &which)))
		goto done;
	if (S.resume && ((rc = kp_tuneopts_resume(cli, args)) || (rc = resume_run(&S, &budget, which, &err))))
		goto done;
	/* Without --llm a resumed run asks the model it was started with (the key comes from the environment). */
	S.no_llm = kp_tuneopts_no_llm(args, S.run);
	if ((rc = prerequisites(&S)))
		goto done;
	if (!S.no_llm && kp_cli_llm_config(args, S.run ? kp_run_settings(S.run)->llm : NULL, &S.parts.llm, &err)) {
		rc = kp_cli_fail(cli, &err);
		goto done;
	}
	if (!S.resume && (rc = new_run(&S, &budget, which, &err)))
		goto done;
	st = S.run ? kp_run_settings(S.run) : &S.settings;
	if ((rc = kp_runopts_parts(cli, args, st->orchestration, &S.parts)))
		goto done;
	if (st->params.objective == KP_OBJECTIVE_SPEED_ENERGY && !kp_task_kind_info(S.task.kind)->energy)
		kp_cli_warn(cli, "energy is measured for native tasks only; ties on '%s' fall back to speed",
			    S.task.name);
	if (!S.resume) {
		struct kp_run_new n = {kp_cli_runs_root(args), kp_arg_str(args, "name"), &S.task,
				       &S.settings};
		if (kp_run_create(&S.run, &n, &err)) {
			rc = kp_cli_fail(cli, &err);
			goto done;
		}
	}
	if ((rc = optimize(&S, &out, &err))) {
		rc = failed(&S, rc, &err);
		goto done;
	}
	kp_cli_run_result(cli, S.run, &out);
	rc = out.end == KP_END_STOPPED ? KP_EXIT_FAIL : KP_EXIT_OK;
done:
	kp_run_close(S.run);
	kp_task_release(&S.task);
	kp_run_settings_release(&S.settings);
	kp_runopts_parts_release(&S.parts);
	kp_buf_release(&S.argv_text);
	kp_buf_release(&S.from);
	return rc;
}

/* What --help shows; --help-all adds the rest. */
static const char *const optimize_brief[] = {
	"resume", "runs-dir", "name", "evals", "time", "tokens", "cost", "search", "from", "evaluator",
	"no-profile", "list-params", "llm", "llm-config", "gpu", NULL
};

const struct kp_cmd kp_cmd_optimize = {
	.name = "optimize",
	.summary = "Make a kernel faster: Stage 1, then search over LLM-written versions until the budget ends",
	.usage = "[options] TASK | --resume RUN [options]",
	.description =
		"TASK is a KernelBench .py or a native task directory. The run is saved as it goes in\n"
		"--runs-dir/NAME (run.db, candidates/, best.cu or best.py, summary.json); one stopped by Ctrl-C,\n"
		"an error or kill -9 continues with --resume. Budgets: --evals, --time, --tokens, --cost,\n"
		"whichever ends first (default --evals 20). --llm none: no model, the tune action alone\n"
		"searches the knobs of --from FILE or of the reference (docs/tune.md).",
	.flags = KP_CMD_JSON | KP_CMD_NEEDS_GPU | KP_CMD_NEEDS_NET,
	.opts = optimize_opts,
	.min_args = 0,
	.max_args = 1,
	.run = run_optimize,
	.examples = "kernelpro optimize examples/native/gelu --llm openai:gpt-4.1 --evals 10\n"
		    "kernelpro optimize KernelBench/level1/23_Softmax.py --llm claude-sonnet-4-5 --time 30m\n"
		    "kernelpro optimize examples/optimize/softmax --llm replay:examples/optimize/softmax/replies --evals 5\n"
		    "kernelpro optimize --resume softmax-20261201-101500 --evals 30   # continue, with a larger budget\n"
		    "kernelpro optimize examples/native/gelu --llm none --evals 8     # tune the knobs alone, no model\n"
		    "kernelpro show softmax-20261201-101500 --tree                    # then: the search tree",
	.brief = optimize_brief,
	.more = "docs/search.md (search, --param, tools), docs/eval.md (evaluation), docs/llm.md (models)",
};
