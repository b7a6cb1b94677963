/*
 * kernelpro bench --kernels: a suite whose every run evaluates one existing kernel (no model, no
 * search), paired with its KernelBench task by the file's name, run on the GPU slots like any
 * suite (resume, cached baselines, the report), with the kernels' recorded verdicts beside
 * kernelpro's (docs/rejudge.md).
 */
#include "base/setup.h"

#include <math.h>

#include "bench_cli.h"
#include "kernelpro/json.h"
#include "kernelpro/rejudge.h"
#include "kernelpro/str.h"

/* What a re-judge does not take: it has no model, no search and one evaluation per kernel. */
static const char *const refused[] = {
    "llm",        "search",      "objective",     "orchestration", "tool-rounds", "feedback",
    "codesearch", "prompts-dir", "shared-memory", "family",        "evals",       "tokens",
    "cost",       "parallel",    "resume",        "status",        "merge",       "report",
    "slurm",      "shard",       "format",        "suite-tokens",  "suite-cost",  NULL};

static int check_options(struct bench_state *B)
{
	const struct kp_args *a = B->args;
	struct kp_buf msg = KP_BUF_INIT;
	int rc = 0;

	if (kp_arg_npos(a))
		return kp_bench_cli_usage(B->cli,
		                          "--kernels takes no TASKS: the tasks are found under --tasks "
		                          "by each kernel's name");
	if (!kp_arg_str(a, "tasks"))
		return kp_bench_cli_usage(
		    B->cli, "--kernels needs --tasks DIR: a KernelBench checkout (or its level folder) whose "
		            "tasks the kernels were written for");
	for (int i = 0; refused[i]; i++) {
		if (!kp_arg_given(a, refused[i]))
			continue;
		kp_buf_addf(&msg,
		            "--kernels re-judges each kernel with one evaluation and no model: --%s does not "
		            "apply (a re-judged suite resumes as any suite: kernelpro bench SUITE --resume)",
		            refused[i]);
		rc = kp_bench_cli_usage(B->cli, msg.buf);
		break;
	}
	if (!rc && kp_arg_list(a, "param") && kp_arg_list(a, "param")->n)
		rc = kp_bench_cli_usage(B->cli, "--kernels runs no search: --param does not apply");
	kp_buf_release(&msg);
	return rc;
}

static int load_kernels(struct bench_state *B, struct kp_bench_list *l)
{
	const struct kp_strvec *src = kp_arg_list(B->args, "kernels");
	const char *refs_path = kp_arg_str(B->args, "recorded-baseline");
	struct kp_recorded_refs refs;
	struct kp_rejudge_opts o = {
	    .tasks = kp_arg_str(B->args, "tasks"),
	    .results = kp_arg_str(B->args, "recorded"),
	    .samples = strcmp(kp_arg_str(B->args, "samples"), "best") ? KP_REJUDGE_ALL : KP_REJUDGE_BEST,
	    .refs = refs_path ? &refs : NULL,
	};
	struct kp_error err = KP_ERROR_INIT;
	int rc = 0;

	kp_recorded_refs_init(&refs);
	if (refs_path)
		rc = kp_rejudge_load_refs(refs_path, &refs, &err);
	for (size_t i = 0; !rc && i < src->n; i++)
		rc = kp_rejudge_add_source(l, src->v[i], &o, &err);
	kp_recorded_refs_release(&refs);
	return rc ? kp_cli_fail(B->cli, &err) : 0;
}

/* --list-tasks: each kernel, its task and whether a verdict was recorded for it. */
static int list_kernels(struct bench_state *B, const struct kp_bench_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		fprintf(B->cli->out, "%s %s %s%s\n", l->v[i].set.name, l->v[i].set.kernel, l->v[i].path,
		        l->v[i].set.recorded ? " recorded" : "");
	return KP_EXIT_OK;
}

static int new_kernels_suite(struct bench_state *B, const struct kp_bench_list *l)
{
	const struct kp_args *a = B->args;
	struct kp_run_settings rs;
	struct kp_search_budget budget = {.evals = 1}, sbudget;
	struct kp_error err = KP_ERROR_INIT;
	unsigned swhich;
	int rc;

	kp_run_settings_init(&rs);
	rs.llm = kp_xstrdup(KP_RUN_LLM_NONE);
	rs.evaluator = kp_xstrdup(kp_arg_str(a, "evaluator"));
	if (kp_arg_given(a, "time") && kp_parse_duration(kp_arg_str(a, "time"), &budget.wall_s)) {
		rc = kp_bench_cli_usage(B->cli, "--time expects a duration like 90s, 30m or 2h");
		goto out;
	}
	if ((rc = kp_bench_cli_suite_budget(B->cli, a, &sbudget, &swhich)))
		goto out;
	{
		struct kp_bench_new n = {
		    .root = kp_bench_root(kp_arg_str(a, "suites-dir")),
		    .name = kp_arg_str(a, "name"),
		    .label = "rejudge",
		    .tasks = l,
		    .settings = &rs,
		    .budget = &budget,
		    .suite_budget = &sbudget,
		    .baselines = {!kp_arg_flag(a, "no-baselines"), !kp_arg_flag(a, "no-compile")},
		    .argv_text = B->argv_text.buf,
		};
		if (kp_bench_create(&n, &B->dir, &err))
			rc = kp_cli_fail(B->cli, &err);
	}
	if (!rc && !B->cli->json && B->cli->verbosity >= 0)
		fprintf(B->cli->err, "kernelpro: suite %s: %zu %s to re-judge\n", B->dir.buf, l->n,
		        l->n == 1 ? "kernel" : "kernels");
out:
	kp_run_settings_release(&rs);
	return rc;
}

int kp_bench_cli_kernels(struct bench_state *B)
{
	struct kp_bench_list l;
	const struct kp_strvec *src = kp_arg_list(B->args, "kernels");
	int rc;

	kp_bench_list_init(&l);
	kp_buf_adds(&B->argv_text, "bench");
	for (size_t i = 0; i < src->n; i++)
		kp_buf_addf(&B->argv_text, " --kernels %s", src->v[i]);
	kp_buf_addf(&B->argv_text, " --tasks %s",
	            kp_arg_str(B->args, "tasks") ? kp_arg_str(B->args, "tasks") : "");
	if ((rc = check_options(B)) || (rc = load_kernels(B, &l)))
		goto out;
	if (kp_arg_flag(B->args, "list-tasks")) {
		rc = list_kernels(B, &l);
		goto out;
	}
	if ((rc = kp_evalopts_from_args(B->cli, B->args, &B->eval)) || (rc = kp_bench_cli_parse_gpus(B)) ||
	    (rc = new_kernels_suite(B, &l)))
		goto out;
	B->eval.tol_mode = kp_evalopts_tol_mode(B->args);
	rc = kp_bench_cli_run(B, 1);
out:
	kp_bench_list_release(&l);
	return rc;
}

int kp_bench_cli_kernel_session(const struct kp_args *a, struct kp_runopts_parts *p,
                                const struct kp_bench_task_info *t, struct kp_run_session *s)
{
	kp_runopts_session(a, p, t->task, s);
	/* The kernel is judged as `kernelpro eval` judges it: no model, no profile, no tools. */
	s->llm = NULL;
	s->prompts_dir = NULL;
	s->codesearch = NULL;
	s->toolset = NULL;
	s->reactive_tools = NULL;
	s->feedback = KP_FEEDBACK_NONE;
	s->shared_memory = NULL;
	s->parallel = 1;
	return 0;
}

static void side_line(FILE *o, const char *label, const json_t *side)
{
	const json_t *fp = json_object_get(side, "fast_p");
	fprintf(o, "%-9s correct %lld/%lld", label, kp_json_int(side, "correct", 0),
	        kp_json_int(side, "kernels", 0));
	for (int i = 0; i < KP_SUITE_NP; i++) {
		double v = kp_json_num(fp, kp_suite_p_key(i), NAN);
		if (isnan(v))
			fprintf(o, "  fast_%g -", kp_suite_p[i]);
		else
			fprintf(o, "  fast_%g %.2f", kp_suite_p[i], v);
	}
	if (isnan(kp_json_num(side, "geomean_correct", NAN)))
		fprintf(o, "  geomean -  (%s)\n", kp_json_str(side, "against", ""));
	else
		fprintf(o, "  geomean %.3gx  (%s)\n", kp_json_num(side, "geomean_correct", NAN),
		        kp_json_str(side, "against", ""));
}

/* One line per kernel (what its run recorded, what kernelpro says, why they differ), then the figures. */
void kp_bench_cli_print_rejudge(FILE *o, const json_t *rj)
{
	const json_t *rows = json_object_get(rj, "kernels"), *sum = json_object_get(rj, "summary");
	fprintf(o, "%-34s %-14s %-15s %-5s %s\n", "kernel", "recorded", "kernelpro", "agree",
	        "why (kernelpro)");
	for (size_t i = 0; i < json_array_size(rows); i++) {
		const json_t *x = json_array_get(rows, i), *r = json_object_get(x, "recorded"),
		             *k = json_object_get(x, "kernelpro"), *agree = json_object_get(x, "agree");
		const char *check = kp_json_str(k, "check", NULL), *msg = kp_json_str(k, "message", NULL);
		fprintf(o, "%-34.34s %-14s %-15s %-5s", kp_json_str(x, "name", "?"),
		        kp_json_str(r, "outcome", "-"),
		        kp_json_str(k, "outcome", kp_json_str(x, "state", "-")),
		        json_is_true(agree)    ? "yes"
		        : json_is_false(agree) ? "NO"
		                               : "-");
		/* Why, for every verdict that is not `correct` (a disagreement or not): which check, what it said. */
		if (json_is_false(agree) || (!k && kp_json_str(x, "reason", NULL)) ||
		    (k && strcmp(kp_json_str(k, "outcome", "correct"), "correct")))
			fprintf(o, " %s%s%.160s", check ? check : "", check && msg ? ": " : "",
			        msg ? msg : kp_json_str(x, "reason", ""));
		fputc('\n', o);
	}
	fprintf(o,
	        "agree on correctness: %lld of %lld compared (%lld recorded correct and refused here, %lld "
	        "the other way)\n",
	        kp_json_int(sum, "agree", 0), kp_json_int(sum, "compared", 0),
	        kp_json_int(sum, "recorded_correct_kernelpro_not", 0),
	        kp_json_int(sum, "kernelpro_correct_recorded_not", 0));
	side_line(o, "recorded", json_object_get(sum, "recorded"));
	side_line(o, "kernelpro", json_object_get(sum, "kernelpro"));
}
