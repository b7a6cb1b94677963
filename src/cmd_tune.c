/* kernelpro tune: search one candidate's knobs on the GPU, no LLM; a table of the variants and the best. */
#include "base/setup.h"

#include <math.h>

#include "cli.h"
#include "evalopts.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/str.h"
#include "kernelpro/task.h"
#include "kernelpro/task_kind.h"
#include "kernelpro/tuner.h"

#define CAND_CAP     (1u << 20)
#define FAILED_SHOWN 10

static const struct kp_opt tune_opts[] = {
    {"strategy", 0, KP_OPT_CHOICE, "auto|exhaustive|random|bayes",
     "how to choose variants (auto: exhaustive when every feasible point fits the budget, else bayes)",
     "auto"},
    {"budget", 0, KP_OPT_INT, "N:1..100000", "variants evaluated at most, cached results included", "64"},
    {"seed", 0, KP_OPT_INT, "N:0..", "the strategy's random seed (inputs keep eval's seed, 42)", "1"},
    {"knob", 0, KP_OPT_LIST, "NAME=V1,V2", "the values to try for a knob (the source's own value is kept)",
     NULL},
    {"derive", 0, KP_OPT_CHOICE, "auto|always|never",
     "knobs from launches and pragmas (auto: when the source declares none)", "auto"},
    {"hw", 0, KP_OPT_STR, "KEY", "the GPU for the constraints' limits (default: the one evaluating)", NULL},
    {"jobs", 0, KP_OPT_INT, "N:1..16", "variants built at once (default: the CPUs, 2 to 16)", NULL},
    {"out", 'o', KP_OPT_STR, "FILE", "write the best variant's source here", NULL},
    {"list", 0, KP_OPT_FLAG, NULL, "print the knobs, values and constraints; evaluate nothing", NULL},
    {"tune-cache", 0, KP_OPT_STR, "DIR", "where results are kept (default ~/.cache/kernelpro/tune)", NULL},
    {"no-tune-cache", 0, KP_OPT_FLAG, NULL, "neither read nor keep results", NULL},
    {"cold", 0, KP_OPT_FLAG, NULL, "no warm worker for KernelBench tasks: a fresh harness per variant", NULL},
    {"correct-trials", 0, KP_OPT_INT, "N:1..1000", "correctness trials per variant, fresh inputs each", "5"},
    KP_EVAL_COMMON_OPTS_NO_SEED,
    KP_OPT_TABLE_END,
};

struct progress {
	struct kp_cli *cli;
	size_t budget;
};

static void on_trial(void *ctx, const char *point, enum kp_tune_status st, double seconds, size_t done)
{
	struct progress *p = ctx;
	char t[32];
	if (st == KP_TUNE_OK)
		kp_progress_update(&p->cli->progress, "tune: %zu evaluated (budget %zu): %s  %s", done, p->budget,
		                   point, kp_fmt_ms(seconds * 1e3, t, sizeof(t)));
	else
		kp_progress_update(&p->cli->progress, "tune: %zu evaluated (budget %zu): %s  %s", done,
		                   p->budget, point, kp_tune_status_name(st));
}

/* Reads the options into o (and eo, which o points to). Nonzero: a usage error, already reported. */
static int options(struct kp_cli *cli, const struct kp_args *a, struct kp_eval_opts *eo,
                   struct kp_tuner_opts *o)
{
	const char *derive = kp_arg_str(a, "derive");
	/* The option table bounds all four (out of range never gets here); no --jobs: 0, the CPUs. */
	long budget = kp_arg_int(a, "budget", 64), seed = kp_arg_int(a, "seed", 1),
	     ct = kp_arg_int(a, "correct-trials", 5);
	long jobs = kp_arg_int(a, "jobs", 0);
	int rc;

	if ((rc = kp_evalopts_from_args(cli, a, eo)))
		return rc;
	eo->seed = 42; /* --seed is the strategy's here; the inputs are eval's */
	kp_tuner_opts_init(o);
	eo->correct_trials = (int)ct;
	kp_tune_strategy_parse(kp_arg_str(a, "strategy"), &o->tune.strategy);
	o->tune.budget = (size_t)budget;
	o->tune.seed = (uint64_t)seed;
	o->derive = !strcmp(derive, "always")  ? KP_TUNE_DERIVE_ALWAYS
	            : !strcmp(derive, "never") ? KP_TUNE_DERIVE_NEVER
	                                       : KP_TUNE_DERIVE_AUTO;
	o->eval = eo;
	o->knobs = (const char *const *)kp_arg_list(a, "knob")->v;
	o->hw = kp_arg_str(a, "hw");
	o->jobs = (size_t)jobs;
	o->cache_dir = kp_arg_str(a, "tune-cache");
	o->no_cache = kp_arg_flag(a, "no-tune-cache");
	o->start_worker = !kp_arg_flag(a, "cold");
	return 0;
}

static int list_space(struct kp_cli *cli, const struct kp_task *task, const struct kp_buf *src,
                      const char *name, const struct kp_tuner_opts *o)
{
	struct kp_tune_space *s = NULL;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf text = KP_BUF_INIT;
	char hw[64];
	uint64_t feasible;

	if (kp_tuner_space(task, src->buf, src->len, name, o, &s, hw, sizeof(hw), &err))
		return kp_cli_fail(cli, &err);
	if (cli->json) {
		json_t *j = kp_tune_space_to_json(s);
		kp_json_set(j, "hw", json_string(hw));
		kp_cli_print_json_new(cli, j);
	} else {
		kp_tune_space_describe(s, &text);
		fputs(text.buf, cli->out);
		if (kp_tune_count_feasible(s, &feasible, NULL) == 0)
			fprintf(cli->out, "feasible: %llu (the constraints with the limits of %s)\n",
			        (unsigned long long)feasible, hw);
	}
	kp_buf_release(&text);
	kp_tune_space_free(s);
	return KP_EXIT_OK;
}

static void print_failures(struct kp_cli *cli, const struct kp_tuner_result *r)
{
	size_t shown = 0, failed = 0;
	for (size_t i = 0; i < r->tune.ntrials; i++) {
		const struct kp_tune_trial *t = &r->tune.trials[i];
		struct kp_buf p = KP_BUF_INIT;
		if (t->m.status == KP_TUNE_OK)
			continue;
		if (failed++ == 0)
			fprintf(cli->out, "\nfailed variants:\n");
		if (shown >= FAILED_SHOWN)
			continue;
		shown++;
		kp_tune_point_format(r->space, &t->point, &p);
		fprintf(cli->out, "  %s: %s%s%s\n", p.buf,
		        r->notes[i].verdict ? kp_status_name(r->notes[i].verdict)
		                            : kp_tune_status_name(t->m.status),
		        r->notes[i].message ? ": "
		        : t->cached         ? " (cached)"
		                            : "",
		        r->notes[i].message ? r->notes[i].message : "");
		kp_buf_release(&p);
	}
	if (failed > shown)
		fprintf(cli->out, "  ... and %zu more (--json has every one)\n", failed - shown);
}

static void print_result(struct kp_cli *cli, const struct kp_tuner_result *r, const char *out_path)
{
	const struct kp_tune_result *t = &r->tune;
	struct kp_buf table = KP_BUF_INIT, p = KP_BUF_INIT;
	double def =
	    t->def >= 0 && t->trials[t->def].m.status == KP_TUNE_OK ? t->trials[t->def].m.seconds : NAN;
	char a[32], b[32];

	kp_tuner_table(r, &table);
	fputs(table.buf, cli->out);
	print_failures(cli, r);
	if (t->best >= 0) {
		double best = t->trials[t->best].m.seconds;
		kp_tune_point_format(r->space, &t->trials[t->best].point, &p);
		fprintf(cli->out, "\n%sbest%s %s: %s", kp_cli_color(cli, "ok"), kp_cli_reset(cli), p.buf,
		        kp_fmt_ms(best * 1e3, a, sizeof(a)));
		if (isfinite(def))
			fprintf(cli->out, ", %.3gx the untuned (%s)", def / best,
			        kp_fmt_ms(def * 1e3, b, sizeof(b)));
		if (isfinite(r->ref_s))
			fprintf(cli->out, ", %.3gx the reference (%s)", r->ref_s / best,
			        kp_fmt_ms(r->ref_s * 1e3, b, sizeof(b)));
		fputc('\n', cli->out);
	}
	fprintf(cli->out, "%s%s: %zu %s, %zu evaluated and %zu from the cache in %.1f s",
	        kp_cli_color(cli, "dim"), kp_tune_strategy_name(t->strategy), t->ntrials,
	        kp_plural((long long)t->ntrials, "variant", "variants"), r->evaluated,
	        t->cache_hits, r->wall_s);
	if (r->wall_s > 0 && r->evaluated)
		fprintf(cli->out, " (%.1f evaluations per minute)", 60.0 * (double)r->evaluated / r->wall_s);
	if (t->feasible_known)
		fprintf(cli->out, "; %llu feasible%s", (unsigned long long)t->feasible,
		        t->exhausted ? ", all tried" : "");
	fprintf(cli->out, "; GPU %s%s\n", r->gpu, kp_cli_reset(cli));
	if (out_path && r->best_source)
		fprintf(cli->out, "wrote the best variant to %s\n", out_path);
	kp_buf_release(&table);
	kp_buf_release(&p);
}

static int run_tune(struct kp_cli *cli, const struct kp_args *args)
{
	struct kp_task task;
	struct kp_eval_opts eo;
	struct kp_tuner_opts o;
	struct kp_tuner_result r;
	struct kp_buf src = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	struct progress prog = {.cli = cli};
	const char *cand = kp_arg_pos(args, 1), *out_path = kp_arg_str(args, "out"), *ext;
	int rc;

	if ((rc = options(cli, args, &eo, &o)))
		return rc;
	kp_task_init(&task);
	kp_tuner_result_init(&r);
	if (kp_task_load(&task, kp_arg_pos(args, 0), &err) || kp_read_file(cand, CAND_CAP, &src, &err)) {
		rc = kp_cli_fail(cli, &err);
		goto out;
	}
	ext = strrchr(cand, '.');
	if (!ext || strcmp(ext + 1, kp_task_kind_info(task.kind)->ext)) {
		kp_cli_error(cli, "'%s': %s tasks take .%s candidates", cand,
		             kp_task_kind_info(task.kind)->name, kp_task_kind_info(task.kind)->ext);
		rc = KP_EXIT_USAGE;
		goto out;
	}
	if (kp_arg_flag(args, "list")) {
		rc = list_space(cli, &task, &src, cand, &o);
		goto out;
	}
	prog.budget = o.tune.budget;
	o.progress = on_trial;
	o.progress_ctx = &prog;
	rc = kp_tuner_run(&task, src.buf, src.len, cand, &o, &r, &err);
	kp_progress_clear(&cli->progress);
	if (r.worker_note[0])
		kp_cli_warn(cli, "%s", r.worker_note);
	if (!rc && out_path && (rc = kp_write_file_atomic(out_path, r.best_source, r.best_len, &err)))
		out_path = NULL;
	if (rc) {
		if (!cli->json && r.tune.ntrials)
			print_result(cli, &r, NULL);
		rc = kp_cli_fail(cli, &err);
		goto out;
	}
	if (cli->json) {
		json_t *j = kp_tuner_to_json(&r);
		kp_json_set(j, "task", json_string(task.name));
		kp_json_set(j, "candidate", json_string(cand));
		kp_json_set(j, "out", out_path ? json_string(out_path) : json_null());
		kp_cli_print_json_new(cli, j);
	} else {
		print_result(cli, &r, out_path);
	}
	rc = KP_EXIT_OK;
out:
	kp_tuner_result_release(&r);
	kp_buf_release(&src);
	kp_task_release(&task);
	return rc;
}

/* What --help shows; --help-all adds the rest. */
static const char *const tune_brief[] = {
	"strategy", "budget", "seed", "knob", "list", "out", "jobs", "gpu", "tune-cache",
	"no-tune-cache", NULL
};

const struct kp_cmd kp_cmd_tune = {
    .name = "tune",
    .summary = "Search a candidate's knobs (block sizes, tiles, unrolls) on the GPU; no LLM",
    .usage = "[options] TASK CANDIDATE",
    .description =
        "Reads the candidate's knobs (KP_TUNE markers in CUDA, a KP_TUNE dict in Python, or values derived\n"
        "from its launches and pragmas: docs/tune.md), checks it is correct as given, then evaluates\n"
        "variants (the source with other values written in) with the protocol and checks of 'kernelpro\n"
        "eval', built in parallel and timed one at a time (in the warm worker for KernelBench tasks).\n"
        "Prints the variants tried, fastest first, and the best; --out writes its source. Results are\n"
        "kept per (source, values, GPU), so a second run answers from the cache.\n"
        "Exit status: 0 when a correct variant was found, 1 otherwise, 3 no GPU/tool.",
    .flags = KP_CMD_JSON | KP_CMD_NEEDS_GPU,
    .opts = tune_opts,
    .min_args = 2,
    .max_args = 2,
    .run = run_tune,
	.examples = "kernelpro tune examples/native/row_sum examples/native/row_sum/candidates/tunable.cu -o best.cu\n"
		    "kernelpro tune --list examples/native/sgemm_tune examples/native/sgemm_tune/candidates/tunable.cu\n"
		    "kernelpro tune --strategy bayes --budget 8 --knob BLOCK=128,256 TASK CANDIDATE",
	.brief = tune_brief,
	.more = "docs/tune.md",
};
