/*
 * kernelpro bench: optimize every task of a suite (a KernelBench level, a folder, a glob, a list)
 * on every GPU of the host, resumably, then write KernelBench-style results and a report.
 */
#include "base/setup.h"

#include "bench_cli.h"
#include "kernelpro/str.h"
#include "llm_opts.h"
#include "slurm_cli.h"
#include "tools_cli.h"

static const struct kp_opt bench_opts[] = {
    {"resume", 0, KP_OPT_FLAG, NULL,
     "continue the suite SUITE (a suite directory, or its name under --suites-dir)", NULL},
    {"suites-dir", 0, KP_OPT_STR, "DIR",
     "where suites live (default $KERNELPRO_SUITES, else ./kernelpro-suites)", NULL},
    {"name", 0, KP_OPT_STR, "NAME", "name of a new suite (default: the first source's name and the time)",
     NULL},
    {"gpus", 0, KP_OPT_STR, "all|0,2,3", "GPU slots: every GPU (of CUDA_VISIBLE_DEVICES when set), or a list",
     "all"},
    {"per-gpu", 0, KP_OPT_INT, "N:1..16",
     "with --kernels: N evaluations per GPU at once, their builds side by side and their GPU work one at a "
     "time (a lock per GPU); no warm workers",
     "1"},
    {"shard", 0, KP_OPT_STR, "K/M", "run only shard K of M (the tasks whose index is K modulo M)", NULL},
    {"evals", 0, KP_OPT_INT, "N:1..",
     "budget per task: candidate evaluations (default 20 when no budget is given)", NULL},
    {"time", 0, KP_OPT_STR, "DURATION", "budget per task: wall time, e.g. 90s, 30m, 2h", NULL},
    {"tokens", 0, KP_OPT_INT, "N:1..", "budget per task: LLM tokens", NULL},
    {"cost", 0, KP_OPT_NUM, "USD:>0", "budget per task: LLM cost in US dollars", NULL},
    {"suite-evals", 0, KP_OPT_INT, "N:1..", "budget for the whole suite: evaluations", NULL},
    {"suite-time", 0, KP_OPT_STR, "DURATION", "budget for the whole suite: wall time over all sessions",
     NULL},
    {"suite-tokens", 0, KP_OPT_INT, "N:1..", "budget for the whole suite: LLM tokens", NULL},
    {"suite-cost", 0, KP_OPT_NUM, "USD:>0", "budget for the whole suite: LLM cost in US dollars", NULL},
    {"retry-failed", 0, KP_OPT_FLAG, NULL, "run the tasks that failed again", NULL},
    {"no-baselines", 0, KP_OPT_FLAG, NULL, "a new suite measures no baselines (eager = the run's reference)",
     NULL},
    {"no-compile", 0, KP_OPT_FLAG, NULL, "a new suite's baselines skip torch.compile (KernelBench tasks)",
     NULL},
    {"no-worker", 0, KP_OPT_FLAG, NULL, "evaluate without the GPUs' warm evaluation workers", NULL},
    {"status", 0, KP_OPT_FLAG, NULL, "print where every task of SUITE stands and exit", NULL},
    {"merge", 0, KP_OPT_FLAG, NULL,
     "write SUITE's results and report from its shards and exit (2: incomplete)", NULL},
    {"report", 0, KP_OPT_FLAG, NULL, "write SUITE's results and report and exit", NULL},
    {"list-tasks", 0, KP_OPT_FLAG, NULL, "print the tasks the sources name and exit (makes no suite)", NULL},
    KP_BENCH_KERNELS_OPTS,
    {"search", 0, KP_OPT_CHOICE, "mcts|greedy|beam", "search algorithm", NULL},
    {"objective", 0, KP_OPT_CHOICE, "speed|speed+energy", "speed, or speed with energy breaking ties", NULL},
    {"parallel", 'j', KP_OPT_INT, "N:1..64", "programmer requests in flight per task (replay in order: 1)",
     NULL},
    {"param", 'P', KP_OPT_LIST, "NAME=VALUE", "set a search constant (optimize --list-params lists them)",
     NULL},
    {"evaluator", 0, KP_OPT_STR, "harness|exec:PROGRAM ARGS",
     "who judges candidates: the built-in harness, or a program printing a verdict (it gets KP_GPU)",
     "harness"},
    {"no-profile", 0, KP_OPT_FLAG, NULL, "no ncu and no tools: the feedback is timing only", NULL},
    {"feedback", 0, KP_OPT_CHOICE, "tools|raw|none", "what the feedback contains (ablation)", "tools"},
    {"orchestration", 0, KP_OPT_CHOICE, "proactive|reactive",
     "when the tools run (ablation: optimize --help)", "proactive"},
    {"tool-rounds", 0, KP_OPT_INT, "N:1..10", "reactive: rounds of tool requests per version", "3"},
    {"codesearch", 0, KP_OPT_CHOICE, "auto|on|off", "CUTLASS/CuTe snippets in optimize prompts", "auto"},
    {"hw", 0, KP_OPT_STR, "KEY", "GPU model for the roofline (default: the device profiled)", NULL},
    {"prompts-dir", 0, KP_OPT_STR, "DIR", "prompt templates that replace the bundled ones", NULL},
    {"shared-memory", 0, KP_OPT_STR, "FILE", "a search-memory database shared by the suite's runs", NULL},
    {"family", 0, KP_OPT_STR, "NAME", "one task family for every task's memory (default: each task's name)",
     NULL},
    {"format", 0, KP_OPT_STR, "cuda|triton",
     "not in bench yet (optimize --format): each task is written in its kind's language", NULL},
    {"formats", 0, KP_OPT_LIST, "LIST", "not in bench yet (optimize --formats)", NULL},
    KP_SLURM_CLI_OPTS,
    KP_LLM_CLI_OPTS,
    KP_EVAL_COMMON_OPTS,
    KP_TOOLS_OPTS,
    KP_OPT_TABLE_END,
};

/* ---- the command ------------------------------------------------------------------------------------ */

/* An existing suite: --resume, --status, --merge, --report, or a suite directory as the argument. */
static int existing_suite(struct bench_state *B, int *yes)
{
	const struct kp_args *a = B->args;
	const char *root = kp_bench_root(kp_arg_str(a, "suites-dir"));
	int want = kp_arg_flag(a, "resume") || kp_arg_flag(a, "status") || kp_arg_flag(a, "merge") ||
	           kp_arg_flag(a, "report");
	struct kp_error err = KP_ERROR_INIT;

	*yes = want || (kp_arg_npos(a) == 1 && kp_bench_is_suite(kp_arg_pos(a, 0)));
	if (!*yes)
		return 0;
	if (kp_arg_npos(a) != 1)
		return kp_bench_cli_usage(
		    B->cli,
		    "give one SUITE (a suite directory or its name) with --resume, --status, --merge or "
		    "--report");
	if (kp_arg_given(a, "name") || kp_arg_flag(a, "no-baselines") || kp_arg_flag(a, "no-compile") ||
	    kp_arg_given(a, "search") || kp_arg_given(a, "objective") ||
	    (kp_arg_list(a, "param") && kp_arg_list(a, "param")->n) || kp_arg_given(a, "orchestration") ||
	    kp_arg_given(a, "tool-rounds") || kp_arg_given(a, "family"))
		return kp_bench_cli_usage(
		    B->cli,
		    "a suite keeps its name, baselines and search settings; make a new suite to change "
		    "them");
	if (kp_bench_resolve(root, kp_arg_pos(a, 0), &B->dir, &err))
		return kp_cli_fail(B->cli, &err);
	return 0;
}

static int run_bench(struct kp_cli *cli, const struct kp_args *args)
{
	struct bench_state B = {.cli = cli, .args = args};
	struct kp_error err = KP_ERROR_INIT;
	int existing = 0, rc;

	B.shards = 0;
	kp_eval_opts_init(&B.eval);
	if (kp_arg_list(args, "kernels") && kp_arg_list(args, "kernels")->n) {
		rc = kp_bench_cli_kernels(&B); /* src/bench_kernels.c */
		goto out;
	}
	if (kp_arg_flag(args, "list-tasks")) {
		rc = kp_arg_npos(args) ? kp_bench_cli_list_tasks(&B)
		                       : kp_bench_cli_usage(cli, "--list-tasks needs TASKS");
		goto out;
	}
	if (!kp_arg_npos(args)) {
		kp_cli_error(
		    cli,
		    "give TASKS (a KernelBench level, a folder of tasks, a glob or a list file), or a SUITE "
		    "with --resume");
		kp_cmd_print_usage(args->cmd, "kernelpro bench", cli->err);
		rc = KP_EXIT_USAGE;
		goto out;
	}
	if ((rc = kp_slurm_cli_check(cli, args)))
		goto out;
	if (kp_arg_str(args, "shard") &&
	    kp_bench_shard_parse(kp_arg_str(args, "shard"), &B.shard, &B.shards, &err)) {
		rc = kp_bench_cli_usage(cli, kp_error_msg(&err));
		goto out;
	}
	kp_buf_adds(&B.argv_text, "bench");
	for (size_t i = 0; i < kp_arg_npos(args); i++)
		kp_buf_addf(&B.argv_text, " %s", kp_arg_pos(args, i));
	if (B.shards)
		kp_buf_addf(&B.argv_text, " --shard %d/%d", B.shard, B.shards);
	if ((rc = existing_suite(&B, &existing)))
		goto out;
	if (existing && kp_arg_flag(args, "status")) {
		rc = kp_bench_cli_status(&B);
		goto out;
	}
	if (existing && (kp_arg_flag(args, "merge") || kp_arg_flag(args, "report"))) {
		rc = kp_bench_cli_results(&B, kp_arg_flag(args, "merge"));
		rc = rc ? rc : KP_EXIT_OK;
		goto out;
	}
	if (kp_arg_given(args, "format") ||
	    (kp_arg_list(args, "formats") && kp_arg_list(args, "formats")->n)) {
		rc = kp_bench_cli_usage(
		    cli, "bench does not take --format or --formats yet: each task's versions are written in "
		         "its kind's language (optimize TASK --format triton does one task)");
		goto out;
	}
	if (kp_arg_flag(args, "slurm")) {
		rc = kp_bench_cli_slurm(&B, existing);
		goto out;
	}
	if ((rc = kp_evalopts_from_args(cli, args, &B.eval)) || (rc = kp_bench_cli_parse_gpus(&B)))
		goto out;
	B.eval.tol_mode = kp_evalopts_tol_mode(args); /* after kp_evalopts_from_args, which resets it */
	if (!existing && B.per_gpu > 1) { /* a resumed suite's search tasks are refused one by one */
		rc = kp_bench_cli_usage(cli, "--per-gpu is for bench --kernels: a search profiles and measures energy "
		                             "outside the evaluation's lock (give --per-gpu 1)");
		goto out;
	}
	if (!existing && (rc = kp_bench_cli_new_suite(&B)))
		goto out;
	rc = kp_bench_cli_run(&B, !existing);
out:
	kp_bench_cli_close_slots(&B);
	kp_buf_release(&B.dir);
	kp_buf_release(&B.argv_text);
	kp_buf_release(&B.block);
	kp_buf_release(&B.note);
	return rc;
}

/* What --help shows; --help-all adds the rest. */
static const char *const bench_brief[] = {
	"resume", "suites-dir", "name", "gpus", "per-gpu", "evals", "time", "tokens", "cost", "suite-time",
	"suite-cost", "retry-failed", "status", "report", "list-tasks", "slurm", "nodes", "dry-run",
	"kernels", "tasks", "llm", NULL
};

const struct kp_cmd kp_cmd_bench = {
    .name = "bench",
    .summary =
        "Optimize a whole suite (a KernelBench level, a folder, a list) on every GPU, with fast_p results",
    .usage = "[options] TASKS... | SUITE --resume|--status|--merge|--report | TASKS...|SUITE --slurm | "
             "--kernels DIR|GLOB|LIST --tasks DIR",
    .description =
        "TASKS: a KernelBench level directory, a folder of tasks, a glob, a task, or a list file (PATH\n"
        "[evals=N time=D tokens=N cost=USD llm=SPEC name=NAME] per line). The suite lives in\n"
        "--suites-dir/NAME (runs/, results.json, results.csv, kernels/, report.html); each GPU of --gpus\n"
        "runs one task at a time; SUITE --resume continues one stopped by Ctrl-C, an error or kill -9.\n"
        "--kernels re-judges existing kernels (no model, no search) beside their recorded verdicts.",
    .flags = KP_CMD_JSON | KP_CMD_NEEDS_GPU | KP_CMD_NEEDS_NET,
    .opts = bench_opts,
    .min_args = 0,
    .max_args = -1,
    .run = run_bench,
    .examples = "kernelpro bench KernelBench/level1 --evals 10 --llm openai:gpt-4.1   # a level, every GPU\n"
                "kernelpro bench my-tasks/ --gpus 0,2 --time 20m                      # a folder, two GPUs\n"
                "kernelpro bench examples/suite/suite.txt                             # a list file (recorded replies)\n"
                "kernelpro bench level1-20261201-101500 --resume                      # continue after Ctrl-C or kill -9\n"
                "kernelpro bench level1-20261201-101500 --status\n"
                "kernelpro bench --kernels runs/my_run --tasks KernelBench              # re-judge existing kernels\n"
                "kernelpro bench KernelBench/level1 --slurm --nodes 4 --dry-run       # Slurm job scripts, not submitted",
    .brief = bench_brief,
    .more = "docs/bench.md, docs/rejudge.md (--kernels), docs/slurm.md (--slurm), optimize --help-all (search, evaluation and tools)",
};
