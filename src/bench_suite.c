/*
 * kernelpro bench: the options that make a suite (budgets, GPU slots) and a new suite from TASKS.
 */
#include "base/setup.h"

#include "bench_cli.h"
#include "kernelpro/device.h"
#include "kernelpro/fs.h"
#include "kernelpro/str.h"
#include "llm_opts.h"
#include "runopts.h"

int kp_bench_cli_usage(struct kp_cli *cli, const char *msg)
{
	kp_cli_error(cli, "%s", msg);
	return KP_EXIT_USAGE;
}

/* ---- options ------------------------------------------------------------------------------------ */

/* The per-task and whole-suite budgets: 0, or an exit code after saying what is wrong. */
int kp_bench_cli_suite_budget(struct kp_cli *cli, const struct kp_args *a, struct kp_search_budget *b,
                              unsigned *which)
{
	*which = 0;
	memset(b, 0, sizeof(*b));
	if (kp_arg_given(a, "suite-evals")) {
		if ((b->evals = kp_arg_int(a, "suite-evals", 0)) < 1)
			return kp_bench_cli_usage(cli, "--suite-evals must be at least 1");
		*which |= KP_RUN_LIMIT_EVALS;
	}
	if (kp_arg_given(a, "suite-time")) {
		if (kp_parse_duration(kp_arg_str(a, "suite-time"), &b->wall_s))
			return kp_bench_cli_usage(cli, "--suite-time expects a duration like 90s, 30m or 2h");
		*which |= KP_RUN_LIMIT_WALL;
	}
	if (kp_arg_given(a, "suite-tokens")) {
		if ((b->tokens = kp_arg_int(a, "suite-tokens", 0)) < 1)
			return kp_bench_cli_usage(cli, "--suite-tokens must be at least 1");
		*which |= KP_RUN_LIMIT_TOKENS;
	}
	if (kp_arg_given(a, "suite-cost")) {
		if (!((b->cost = kp_arg_num(a, "suite-cost", 0)) > 0))
			return kp_bench_cli_usage(cli, "--suite-cost must be positive");
		*which |= KP_RUN_LIMIT_COST;
	}
	return 0;
}

/* --per-gpu N: each GPU of the list named N times in a row, one slot each. */
static int per_gpu_slots(struct bench_state *B)
{
	int n = (int)kp_arg_int(B->args, "per-gpu", 1);
	int gpus[KP_BENCH_MAX_SLOTS], k = 0;

	B->per_gpu = n;
	if (n <= 1)
		return 0;
	if (B->ngpus * n > KP_BENCH_MAX_SLOTS) {
		kp_cli_error(B->cli, "--per-gpu %d with %d GPU(s) makes %d slots; at most %d: give a smaller --per-gpu", n,
		             B->ngpus, B->ngpus * n, KP_BENCH_MAX_SLOTS);
		return KP_EXIT_USAGE;
	}
	for (int i = 0; i < B->ngpus; i++)
		for (int j = 0; j < n; j++)
			gpus[k++] = B->gpus[i];
	memcpy(B->gpus, gpus, sizeof(int) * (size_t)k);
	B->ngpus = k;
	return 0;
}

/* "all": every device this process sees (CUDA_VISIBLE_DEVICES's entries when it is set). */
int kp_bench_cli_parse_gpus(struct bench_state *B)
{
	const char *spec = kp_arg_str(B->args, "gpus");
	struct kp_error err = KP_ERROR_INIT;

	if (kp_arg_given(B->args, "gpu"))
		return kp_bench_cli_usage(B->cli, "bench takes --gpus (one slot per GPU), not --gpu");
	if (strcmp(spec, "all")) {
		if (kp_bench_gpus_parse(spec, B->gpus, KP_BENCH_MAX_SLOTS, &B->ngpus, &err))
			return kp_bench_cli_usage(B->cli, kp_error_msg(&err));
		return per_gpu_slots(B);
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
	return per_gpu_slots(B);
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

int kp_bench_cli_list_tasks(struct bench_state *B)
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

int kp_bench_cli_new_suite(struct bench_state *B)
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
	    (rc = kp_bench_cli_suite_budget(B->cli, a, &sbudget, &swhich)) || (rc = load_sources(B, &l)))
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
		fprintf(B->cli->err, "kernelpro: suite %s: %zu %s\n", B->dir.buf, l.n, kp_plural((long long)l.n, "task", "tasks"));
out:
	none.name = NULL;
	kp_task_release(&none);
	kp_llm_config_release(&llm);
	kp_run_settings_release(&rs);
	kp_bench_list_release(&l);
	kp_buf_release(&label);
	return rc;
}
