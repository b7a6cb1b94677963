/*
 * kernelpro bench: optimize every task of a suite (a KernelBench level, a folder, a glob, a list)
 * on every GPU of the host, resumably, then write KernelBench-style results and a report.
 */
#include "base/setup.h"

#include <math.h>

#include "cli.h"
#include "evalopts.h"
#include "kernelpro/bench.h"
#include "kernelpro/device.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/report.h"
#include "kernelpro/str.h"
#include "llm_opts.h"
#include "runopts.h"
#include "runs.h"
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

/* One GPU slot's parts: opened on the main thread before anything runs. */
struct slot_parts {
	struct kp_runopts_parts parts;
	struct kp_llm_config llm; /* the session's model, made per task */
};

struct bench_state {
	struct kp_cli *cli;
	const struct kp_args *args;
	struct kp_buf dir; /* the suite directory */
	struct kp_buf argv_text;
	struct slot_parts *slots;
	void **slot_user;
	int gpus[KP_BENCH_MAX_SLOTS];
	int ngpus;
	int shard, shards;
	struct kp_eval_opts eval;
	struct kp_buf block, note;
};

static int usage(struct kp_cli *cli, const char *msg)
{
	kp_cli_error(cli, "%s", msg);
	return KP_EXIT_USAGE;
}

/* ---- the slots' session hook (on each slot's thread) ------------------------------------------- */

static int session_hook(struct kp_bench_slot *slot, const struct kp_bench_task_info *t,
                        struct kp_run_session *s, void *ud, struct kp_error *err)
{
	struct bench_state *B = ud;
	struct slot_parts *P = slot->user;
	int rc;

	kp_llm_config_release(&P->llm);
	/* The command line's model (none: the run's own), with a list file's per-task model over it. */
	if ((rc = kp_cli_llm_config(B->args, NULL, &P->llm, err)))
		return rc;
	if (t->llm && (rc = kp_llm_config_parse_spec(&P->llm, t->llm, err)))
		return rc;
	kp_runopts_session(B->args, &P->parts, t->task, s);
	s->llm = &P->llm;
	return 0;
}

static void session_done(struct kp_bench_slot *slot, struct kp_run_session *s, void *ud)
{
	struct slot_parts *P = slot->user;
	kp_llm_config_release(&P->llm);
	kp_llm_config_init(&P->llm);
}

/* ---- what the user sees while it runs --------------------------------------------------------------- */

static void on_note(int run, const char *line, void *ud)
{
	struct bench_state *B = ud;
	if (B->cli->json || B->cli->verbosity < 0 || (run && B->cli->verbosity < 1))
		return;
	kp_buf_reset(&B->note);
	kp_buf_addf(&B->note, "kernelpro: %s", line);
	kp_progress_note(&B->cli->progress, B->note.buf);
}

static void fmt_count(long n, char *buf, size_t len)
{
	if (n >= 1000000)
		snprintf(buf, len, "%.1fM", n / 1e6);
	else if (n >= 1000)
		snprintf(buf, len, "%.1fk", n / 1e3);
	else
		snprintf(buf, len, "%ld", n);
}

/* One line per GPU and the totals. */
static void render(const struct kp_bench_view *v, struct kp_buf *b)
{
	char el[32], eta[32], tok[32];
	long ended = v->states[KP_SUITE_FINISHED] + v->states[KP_SUITE_FAILED];

	kp_buf_reset(b);
	for (int i = 0; i < v->nslots; i++) {
		const struct kp_bench_slot_view *s = &v->slot[i];
		kp_buf_addf(b, "gpu%-2d ", s->gpu);
		if (!s->busy) {
			kp_buf_addf(b, "%s\n", s->phase);
			continue;
		}
		kp_buf_addf(b, "%-24.24s %-16.16s", s->task, s->phase);
		if (s->budget_evals)
			kp_buf_addf(b, " %ld/%ld", s->evals, s->budget_evals);
		else
			kp_buf_addf(b, " %ld", s->evals);
		if (s->best_speedup > 1.0)
			kp_buf_addf(b, "  best %.2fx", s->best_speedup);
		kp_buf_addf(b, "  %s\n", kp_fmt_duration(s->task_elapsed_s, el, sizeof(el)));
	}
	fmt_count(v->tokens, tok, sizeof(tok));
	kp_buf_addf(b, "suite %ld/%ld done (%ld failed), %ld running", ended, v->tasks,
	            v->states[KP_SUITE_FAILED], v->states[KP_SUITE_RUNNING]);
	if (v->baselines_left)
		kp_buf_addf(b, ", %ld %s left", v->baselines_left,
		            kp_plural(v->baselines_left, "baseline", "baselines"));
	kp_buf_addf(b, "  fast_1 %ld/%ld  evals %ld  tokens %s  $%.2f  %s", v->fast1, ended, v->evaluations,
	            tok, v->cost_usd, kp_fmt_duration(v->elapsed_s, el, sizeof(el)));
	if (!isnan(v->eta_s))
		kp_buf_addf(b, "  ETA %s", kp_fmt_duration(v->eta_s, eta, sizeof(eta)));
}

static void on_tick(const struct kp_bench_view *v, void *ud)
{
	struct bench_state *B = ud;
	if (B->cli->json || B->cli->verbosity < 0)
		return;
	render(v, &B->block);
	kp_progress_block(&B->cli->progress, B->block.buf, 0);
}

/* ---- options ------------------------------------------------------------------------------------ */

/* The per-task and whole-suite budgets: 0, or an exit code after saying what is wrong. */
static int suite_budget(struct kp_cli *cli, const struct kp_args *a, struct kp_search_budget *b,
                        unsigned *which)
{
	*which = 0;
	memset(b, 0, sizeof(*b));
	if (kp_arg_given(a, "suite-evals")) {
		if ((b->evals = kp_arg_int(a, "suite-evals", 0)) < 1)
			return usage(cli, "--suite-evals must be at least 1");
		*which |= KP_RUN_LIMIT_EVALS;
	}
	if (kp_arg_given(a, "suite-time")) {
		if (kp_parse_duration(kp_arg_str(a, "suite-time"), &b->wall_s))
			return usage(cli, "--suite-time expects a duration like 90s, 30m or 2h");
		*which |= KP_RUN_LIMIT_WALL;
	}
	if (kp_arg_given(a, "suite-tokens")) {
		if ((b->tokens = kp_arg_int(a, "suite-tokens", 0)) < 1)
			return usage(cli, "--suite-tokens must be at least 1");
		*which |= KP_RUN_LIMIT_TOKENS;
	}
	if (kp_arg_given(a, "suite-cost")) {
		if (!((b->cost = kp_arg_num(a, "suite-cost", 0)) > 0))
			return usage(cli, "--suite-cost must be positive");
		*which |= KP_RUN_LIMIT_COST;
	}
	return 0;
}

/* "all": every device this process sees (CUDA_VISIBLE_DEVICES's entries when it is set). */
static int parse_gpus(struct bench_state *B)
{
	const char *spec = kp_arg_str(B->args, "gpus");
	struct kp_error err = KP_ERROR_INIT;

	if (kp_arg_given(B->args, "gpu"))
		return usage(B->cli, "bench takes --gpus (one slot per GPU), not --gpu");
	if (strcmp(spec, "all")) {
		if (kp_bench_gpus_parse(spec, B->gpus, KP_BENCH_MAX_SLOTS, &B->ngpus, &err))
			return usage(B->cli, kp_error_msg(&err));
		return 0;
	}
	const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
	if (cvd && *cvd) {
		struct kp_strvec parts = KP_STRVEC_INIT;
		kp_strvec_split(&parts, cvd, ',');
		for (size_t i = 0; i < parts.n && B->ngpus < KP_BENCH_MAX_SLOTS; i++)
			B->gpus[B->ngpus++] = (int)i;
		kp_strvec_release(&parts);
	} else {
		struct kp_gpu_list gl;
		if (!kp_device_query(&gl, &err))
			for (int i = 0; i < gl.count && B->ngpus < KP_BENCH_MAX_SLOTS; i++)
				B->gpus[B->ngpus++] = i;
	}
	if (!B->ngpus) {
		kp_cli_error(B->cli,
		             "--gpus all found no GPU here%s%s; name the slots with --gpus 0,1,... (an exec "
		             "evaluator gets each slot's index as KP_GPU)",
		             err.code ? ": " : "", err.code ? kp_error_msg(&err) : "");
		return KP_EXIT_MISSING;
	}
	return 0;
}

/* ---- a new suite ---------------------------------------------------------------------------------- */

/* The first source's name, for the default suite name: "level1" for KernelBench/level1. */
static void label_of(const char *source, struct kp_buf *out)
{
	size_t n = strlen(source);
	const char *base;
	while (n > 1 && source[n - 1] == '/')
		n--;
	base = source + n;
	while (base > source && base[-1] != '/')
		base--;
	kp_buf_add(out, base, (size_t)(source + n - base));
	for (char *c = out->buf; c && *c; c++)
		if (*c == '*' || *c == '?' || *c == '[' || *c == ']' || *c == '.')
			*c = '_';
}

static int load_sources(struct bench_state *B, struct kp_bench_list *l)
{
	struct kp_error err = KP_ERROR_INIT;
	for (size_t i = 0; i < kp_arg_npos(B->args); i++)
		if (kp_bench_list_add_source(l, kp_arg_pos(B->args, i), &err))
			return kp_cli_fail(B->cli, &err);
	/* A list file's model for a task must be one kernelpro knows, before anything runs. */
	for (size_t i = 0; i < l->n; i++) {
		struct kp_llm_config c;
		int rc = 0;
		if (!l->v[i].set.llm)
			continue;
		kp_llm_config_init(&c);
		if (kp_llm_config_parse_spec(&c, l->v[i].set.llm, &err)) {
			kp_error_prefix(&err, "task '%s'", l->v[i].path);
			rc = kp_cli_fail(B->cli, &err);
		}
		kp_llm_config_release(&c);
		if (rc)
			return rc;
	}
	return 0;
}

static int list_tasks(struct bench_state *B)
{
	struct kp_bench_list l;
	int rc;
	kp_bench_list_init(&l);
	if (!(rc = load_sources(B, &l))) {
		for (size_t i = 0; i < l.n; i++) {
			const struct kp_bench_task_settings *s = &l.v[i].set;
			fprintf(B->cli->out, "%s", l.v[i].path);
			if (s->name)
				fprintf(B->cli->out, " name=%s", s->name);
			if (s->which & KP_RUN_LIMIT_EVALS)
				fprintf(B->cli->out, " evals=%ld", s->budget.evals);
			if (s->which & KP_RUN_LIMIT_WALL)
				fprintf(B->cli->out, " time=%gs", s->budget.wall_s);
			if (s->which & KP_RUN_LIMIT_TOKENS)
				fprintf(B->cli->out, " tokens=%ld", s->budget.tokens);
			if (s->which & KP_RUN_LIMIT_COST)
				fprintf(B->cli->out, " cost=%g", s->budget.cost);
			if (s->llm)
				fprintf(B->cli->out, " llm=%s", s->llm);
			fputc('\n', B->cli->out);
		}
	}
	kp_bench_list_release(&l);
	return rc ? rc : KP_EXIT_OK;
}

static int new_suite(struct bench_state *B)
{
	const struct kp_args *a = B->args;
	struct kp_bench_list l;
	struct kp_run_settings rs;
	struct kp_search_budget budget = {0}, sbudget;
	struct kp_llm_config llm;
	struct kp_task none;
	char noname[1] = "";
	struct kp_buf label = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	unsigned which, swhich;
	int rc;

	kp_bench_list_init(&l);
	kp_run_settings_init(&rs);
	kp_llm_config_init(&llm);
	kp_task_init(&none);
	none.name = noname; /* kp_runopts_settings names the family after it; bench leaves that to each run */
	if ((rc = kp_runopts_budget(B->cli, a, &budget, &which)) ||
	    (rc = suite_budget(B->cli, a, &sbudget, &swhich)) || (rc = load_sources(B, &l)))
		goto out;
	if (kp_cli_llm_config(a, NULL, &llm, &err)) {
		rc = kp_cli_fail(B->cli, &err);
		goto out;
	}
	if ((rc = kp_runopts_settings(B->cli, a, &none, &llm, &rs)))
		goto out;
	if (!kp_arg_str(a, "family")) { /* each run's own task name */
		free(rs.family);
		rs.family = NULL;
	}
	label_of(kp_arg_pos(a, 0), &label);
	{
		struct kp_bench_new n = {
		    .root = kp_bench_root(kp_arg_str(a, "suites-dir")),
		    .name = kp_arg_str(a, "name"),
		    .label = label.buf,
		    .tasks = &l,
		    .settings = &rs,
		    .budget = &budget,
		    .suite_budget = &sbudget,
		    .baselines = {!kp_arg_flag(a, "no-baselines"), !kp_arg_flag(a, "no-compile")},
		    .argv_text = B->argv_text.buf,
		};
		rc = kp_bench_create(&n, &B->dir, &err);
	}
	/* Elements of one array may race to make a named suite: the one that lost runs its shard in it. */
	if (rc == KP_EEXISTS && B->shards > 1 && kp_arg_str(a, "name")) {
		kp_error_clear(&err);
		kp_path_join(&B->dir, kp_bench_root(kp_arg_str(a, "suites-dir")), kp_arg_str(a, "name"));
		rc = kp_bench_is_suite(B->dir.buf)
		         ? 0
		         : kp_error_set(&err, KP_EEXISTS, "'%s' is not a suite", B->dir.buf);
	}
	if (rc)
		rc = kp_cli_fail(B->cli, &err);
	else if (!B->cli->json && B->cli->verbosity >= 0)
		fprintf(B->cli->err, "kernelpro: suite %s: %zu %s\n", B->dir.buf, l.n,
		        kp_plural((long long)l.n, "task", "tasks"));
out:
	none.name = NULL;
	kp_task_release(&none);
	kp_llm_config_release(&llm);
	kp_run_settings_release(&rs);
	kp_bench_list_release(&l);
	kp_buf_release(&label);
	return rc;
}

/* ---- results ------------------------------------------------------------------------------------- */

/* results.json, results.csv, kernels/ and report.html in the suite directory. */
static int write_results(struct bench_state *B, struct kp_suite *s, struct kp_bench_collected *c)
{
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf html = KP_BUF_INIT, path = KP_BUF_INIT;
	int rc = kp_bench_collect(B->dir.buf, s, c, &err);

	if (!rc)
		rc = kp_suite_write(s, B->dir.buf, &err);
	if (!rc)
		rc = kp_report_suite_html(s, &html, &err);
	if (!rc) {
		kp_path_join(&path, B->dir.buf, "report.html");
		rc = kp_write_file_atomic(path.buf, html.buf, html.len, &err);
	}
	kp_buf_release(&html);
	kp_buf_release(&path);
	return rc ? kp_cli_fail(B->cli, &err) : 0;
}

static void print_results(struct bench_state *B, const struct kp_suite *s, const struct kp_bench_collected *c)
{
	const struct kp_suite_summary *m = &s->sum;
	FILE *o = B->cli->out;

	if (B->cli->json) {
		json_t *doc = kp_suite_to_json(s), *out = json_object();
		kp_json_set(out, "suite", json_string(s->name));
		kp_json_set(out, "dir", json_string(B->dir.buf));
		kp_json_set(out, "summary", json_incref(json_object_get(doc, "summary")));
		kp_json_set(out, "incomplete", json_integer(c->incomplete));
		kp_cli_print_json_new(B->cli, out);
		json_decref(doc);
		return;
	}
	fprintf(o, "suite %s: %ld %s, %ld finished, %ld failed, %ld not done\n", s->name, m->tasks,
	        kp_plural(m->tasks, "task", "tasks"),
	        m->states[KP_SUITE_FINISHED], m->states[KP_SUITE_FAILED], c->incomplete);
	for (int b = 0; b < KP_SUITE_NBASE; b++) {
		const struct kp_suite_base_stats *st = &m->base[b];
		if (!st->n) {
			fprintf(o, "vs %-14s not measured\n", kp_suite_baseline_name(b));
			continue;
		}
		fprintf(
		    o,
		    "vs %-14s fast_0 %.2f  fast_1 %.2f  fast_1.5 %.2f  fast_2 %.2f  geomean %.3gx (correct) "
		    "%.3gx (all)  n=%ld\n",
		    kp_suite_baseline_name(b), st->fast_p[0], st->fast_p[1], st->fast_p[2], st->fast_p[3],
		    st->geomean_correct, st->geomean_all, st->n);
	}
	fprintf(o, "results: %s/results.json, results.csv, kernels/; report: %s/report.html\n", B->dir.buf,
	        B->dir.buf);
}

/* --report / --merge (and the end of a run): 0, or KP_EXIT_FAIL... */
static int results(struct bench_state *B, int merge)
{
	struct kp_suite s;
	struct kp_bench_collected c = {0};
	int rc;

	kp_suite_init(&s, NULL);
	if (!(rc = write_results(B, &s, &c))) {
		print_results(B, &s, &c);
		if (merge && c.incomplete) {
			kp_cli_warn(B->cli,
			            "%ld %s not done; run the shards again (--resume) and merge", c.incomplete,
			            c.incomplete == 1 ? "task is" : "tasks are");
			kp_slurm_cli_merge_incomplete(B->cli, B->dir.buf);
			rc = KP_EXIT_USAGE; /* 2: incomplete (docs/slurm.md) */
		}
	}
	kp_bench_collected_release(&c);
	kp_suite_release(&s);
	return rc;
}

static int status(struct bench_state *B)
{
	struct kp_error err = KP_ERROR_INIT;
	json_t *doc = NULL, *tasks;
	long counts[KP_SUITE_NSTATE] = {0};

	if (kp_bench_status(B->dir.buf, &doc, &err))
		return kp_cli_fail(B->cli, &err);
	if (B->cli->json) {
		kp_slurm_cli_status(B->cli, B->dir.buf, doc);
		kp_cli_print_json_new(B->cli, doc);
		return KP_EXIT_OK;
	}
	tasks = json_object_get(doc, "tasks");
	for (size_t i = 0; i < json_array_size(tasks); i++) {
		const json_t *t = json_array_get(tasks, i);
		int st = kp_suite_state_parse(kp_json_str(t, "state", "pending"));
		counts[st < 0 ? 0 : st]++;
		fprintf(B->cli->out, "%-32s %-9s", kp_json_str(t, "name", "?"), kp_json_str(t, "state", "?"));
		if (!json_is_null(json_object_get(t, "gpu")))
			fprintf(B->cli->out, " gpu%lld", kp_json_int(t, "gpu", 0));
		if (kp_json_str(t, "reason", NULL))
			fprintf(B->cli->out, "  %s", kp_json_str(t, "reason", ""));
		fputc('\n', B->cli->out);
	}
	fprintf(B->cli->out, "%zu %s:", json_array_size(tasks),
	        kp_plural((long long)json_array_size(tasks), "task", "tasks"));
	for (int i = 0; i < KP_SUITE_NSTATE; i++)
		fprintf(B->cli->out, " %ld %s", counts[i], kp_suite_state_name(i));
	fputc('\n', B->cli->out);
	kp_slurm_cli_status(B->cli, B->dir.buf, doc);
	json_decref(doc);
	return KP_EXIT_OK;
}

/* ---- running --------------------------------------------------------------------------------------- */

static int open_slots(struct bench_state *B, enum kp_orchestration orch)
{
	int rc;
	B->slots = kp_xcalloc((size_t)B->ngpus, sizeof(*B->slots));
	B->slot_user = kp_xcalloc((size_t)B->ngpus, sizeof(*B->slot_user));
	for (int i = 0; i < B->ngpus; i++) {
		int verbosity = B->cli->verbosity;
		kp_runopts_parts_init(&B->slots[i].parts);
		kp_llm_config_init(&B->slots[i].llm);
		B->slot_user[i] = &B->slots[i];
		/* Every slot opens the same things: the first says what is wrong, the others would repeat it.
		 */
		if (i)
			B->cli->verbosity = -1;
		rc = kp_runopts_parts(B->cli, B->args, orch, &B->slots[i].parts);
		B->cli->verbosity = verbosity;
		if (rc)
			return rc;
	}
	return 0;
}

static void close_slots(struct bench_state *B)
{
	for (int i = 0; B->slots && i < B->ngpus; i++) {
		kp_runopts_parts_release(&B->slots[i].parts);
		kp_llm_config_release(&B->slots[i].llm);
	}
	free(B->slots);
	free(B->slot_user);
}

/* Runs the suite in B->dir; `created`: made by this command, whose limits it already records. */
static int run(struct bench_state *B, int created)
{
	const struct kp_args *a = B->args;
	struct kp_bench_opts o;
	struct kp_bench_outcome out;
	struct kp_bench_hooks hooks = {session_hook, session_done};
	struct kp_bench *b = NULL;
	struct kp_error err = KP_ERROR_INIT;
	enum kp_log_level level;
	int rc;

	memset(&o, 0, sizeof(o));
	if ((rc = kp_runopts_budget(B->cli, a, &o.budget, &o.budget_which)) ||
	    (rc = suite_budget(B->cli, a, &o.suite_budget, &o.suite_which)))
		return rc;
	if (created) /* the suite's own limits, under a list file's per-task ones; on resume they replace both
	              */
		o.budget_which = o.suite_which = 0;
	if (kp_bench_open(&b, B->dir.buf, &err))
		return kp_cli_fail(B->cli, &err);
	rc = open_slots(B, kp_bench_settings(b)->orchestration);
	kp_bench_close(b);
	if (rc)
		return rc;
	B->eval.worker = !kp_arg_flag(a, "no-worker");
	o.dir = B->dir.buf;
	o.shard = B->shard;
	o.shards = B->shards;
	o.gpus = B->gpus;
	o.ngpus = B->ngpus;
	o.slot_user = B->slot_user;
	o.eval = &B->eval;
	o.evaluator = kp_arg_given(a, "evaluator") ? kp_arg_str(a, "evaluator") : NULL;
	o.retry_failed = kp_arg_flag(a, "retry-failed");
	o.hooks = &hooks;
	o.ud = B;
	o.argv_text = B->argv_text.buf;
	o.stop = B->cli->stop; /* Ctrl-C, SIGTERM, SIGHUP, SIGUSR1 (src/main.c): no new task */
	o.note = on_note;
	o.tick = on_tick;
	/* -v: each task's search lines, named by GPU and task (on_note), instead of the library's
	 * unattributed ones from several GPUs at once; -vv: both. */
	level = kp_log_get_level();
	if (B->cli->verbosity == 1)
		kp_log_set_level(KP_LOG_WARN);
	rc = kp_bench_run(&o, &out, &err);
	kp_log_set_level(level);
	if (!B->cli->json && B->cli->verbosity >= 0 && out.view.nslots) {
		render(&out.view, &B->block);
		kp_progress_block(&B->cli->progress, B->block.buf, 1);
	}
	if (rc) {
		kp_cli_error(B->cli, "%s", kp_error_msg(&err));
		if (kp_bench_busy(&err))
			return KP_BENCH_EXIT_BUSY;
		kp_cli_error(
		    B->cli,
		    "the suite is saved; after fixing that, continue it with: kernelpro bench %s --resume",
		    B->dir.buf);
		return kp_exit_for(rc);
	}
	if (B->shards > 1) {
		if (!B->cli->json)
			fprintf(B->cli->out,
			        "shard %d/%d: %ld %s finished, %ld failed; when every shard is done: "
			        "kernelpro bench %s --merge\n",
			        B->shard, B->shards, out.finished, kp_plural(out.finished, "task", "tasks"), out.failed,
			        B->dir.buf);
	} else if ((rc = results(B, 0))) {
		return rc;
	}
	if (out.end == KP_BENCH_STOPPED && B->cli->stop && *B->cli->stop == SIGUSR1 &&
	    kp_arg_flag(a, "slurm-requeue"))
		return kp_slurm_cli_requeue(B->cli, B->dir.buf, B->shard, B->shards, &out);
	if (out.end == KP_BENCH_STOPPED) {
		if (!B->cli->json)
			fprintf(B->cli->out, "stopped; continue with: kernelpro bench %s --resume\n",
			        B->dir.buf);
		return KP_EXIT_FAIL;
	}
	if (out.end == KP_BENCH_BUDGET && !B->cli->json)
		fprintf(B->cli->out,
		        "the suite's budget is spent; a larger one continues it: kernelpro bench %s "
		        "--resume --suite-...\n",
		        B->dir.buf);
	return KP_EXIT_OK;
}

/* --slurm: the options are checked here, on the login node, before the suite is made or submitted. */
static int slurm(struct bench_state *B, int existing)
{
	struct kp_error err = KP_ERROR_INIT;
	struct kp_slurm_settings s;
	struct kp_llm_config llm;
	int rc;

	kp_slurm_settings_init(&s);
	if ((rc = kp_evalopts_from_args(B->cli, B->args, &B->eval)) ||
	    (rc = kp_slurm_cli_settings(B->cli, B->args, existing ? B->dir.buf : NULL, &s)))
		goto out;
	if (existing) { /* a new suite checks its budget and model as it is made */
		struct kp_search_budget b, sb;
		unsigned which;
		if ((rc = kp_runopts_budget(B->cli, B->args, &b, &which)) ||
		    (rc = suite_budget(B->cli, B->args, &sb, &which)))
			goto out;
		kp_llm_config_init(&llm);
		rc = kp_cli_llm_config(B->args, NULL, &llm, &err) ? kp_cli_fail(B->cli, &err) : 0;
		kp_llm_config_release(&llm);
		if (rc)
			goto out;
	} else if ((rc = new_suite(B))) {
		goto out;
	}
	rc = kp_slurm_cli_submit(B->cli, B->args, B->dir.buf, !existing, &s);
out:
	kp_slurm_settings_release(&s);
	return rc;
}

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
		return usage(
		    B->cli,
		    "give one SUITE (a suite directory or its name) with --resume, --status, --merge or "
		    "--report");
	if (kp_arg_given(a, "name") || kp_arg_flag(a, "no-baselines") || kp_arg_flag(a, "no-compile") ||
	    kp_arg_given(a, "search") || kp_arg_given(a, "objective") ||
	    (kp_arg_list(a, "param") && kp_arg_list(a, "param")->n) || kp_arg_given(a, "orchestration") ||
	    kp_arg_given(a, "tool-rounds") || kp_arg_given(a, "family"))
		return usage(
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
	if (kp_arg_flag(args, "list-tasks")) {
		rc = kp_arg_npos(args) ? list_tasks(&B) : usage(cli, "--list-tasks needs TASKS");
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
		rc = usage(cli, kp_error_msg(&err));
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
		rc = status(&B);
		goto out;
	}
	if (existing && (kp_arg_flag(args, "merge") || kp_arg_flag(args, "report"))) {
		rc = results(&B, kp_arg_flag(args, "merge"));
		rc = rc ? rc : KP_EXIT_OK;
		goto out;
	}
	if (kp_arg_given(args, "format") ||
	    (kp_arg_list(args, "formats") && kp_arg_list(args, "formats")->n)) {
		rc = usage(
		    cli, "bench does not take --format or --formats yet: each task's versions are written in "
		         "its kind's language (optimize TASK --format triton does one task)");
		goto out;
	}
	if (kp_arg_flag(args, "slurm")) {
		rc = slurm(&B, existing);
		goto out;
	}
	if ((rc = kp_evalopts_from_args(cli, args, &B.eval)) || (rc = parse_gpus(&B)))
		goto out;
	if (!existing && (rc = new_suite(&B)))
		goto out;
	rc = run(&B, !existing);
out:
	close_slots(&B);
	kp_buf_release(&B.dir);
	kp_buf_release(&B.argv_text);
	kp_buf_release(&B.block);
	kp_buf_release(&B.note);
	return rc;
}

/* What --help shows; --help-all adds the rest. */
static const char *const bench_brief[] = {
	"resume", "suites-dir", "name", "gpus", "evals", "time", "tokens", "cost", "suite-time",
	"suite-cost", "retry-failed", "status", "report", "list-tasks", "slurm", "nodes", "dry-run",
	"llm", NULL
};

const struct kp_cmd kp_cmd_bench = {
    .name = "bench",
    .summary =
        "Optimize a whole suite (a KernelBench level, a folder, a list) on every GPU, with fast_p results",
    .usage = "[options] TASKS... | SUITE --resume|--status|--merge|--report | TASKS...|SUITE --slurm",
    .description =
        "TASKS: a KernelBench level directory, a folder of tasks, a glob, a task, or a list file (PATH\n"
        "[evals=N time=D tokens=N cost=USD llm=SPEC name=NAME] per line). The suite lives in\n"
        "--suites-dir/NAME (runs/, results.json, results.csv, kernels/, report.html); each GPU of --gpus\n"
        "runs one task at a time; SUITE --resume continues one stopped by Ctrl-C, an error or kill -9.",
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
                "kernelpro bench KernelBench/level1 --slurm --nodes 4 --dry-run       # Slurm job scripts, not submitted",
    .brief = bench_brief,
    .more = "docs/bench.md, docs/slurm.md (--slurm), optimize --help-all (search, evaluation and tools)",
};
