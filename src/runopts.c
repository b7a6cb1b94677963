/* A run's options from the command line: budget, search settings, a session's parts (runopts.h). */
#include "base/setup.h"

#include "evalopts.h"
#include "kernelpro/codesearch.h"
#include "kernelpro/str.h"
#include "kernelpro/task_kind.h"
#include "llm_opts.h"
#include "runopts.h"
#include "runs.h"
#include "tools_cli.h"
#include "tuneopts.h"

static int usage(struct kp_cli *cli, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int usage(struct kp_cli *cli, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	kp_cli_error(cli, "%s", msg);
	return KP_EXIT_USAGE;
}

void kp_runopts_parts_init(struct kp_runopts_parts *p)
{
	memset(p, 0, sizeof(*p));
	kp_llm_config_init(&p->llm);
	kp_eval_opts_init(&p->eval);
}

void kp_runopts_parts_release(struct kp_runopts_parts *p)
{
	kp_llm_config_release(&p->llm);
	kp_toolset_free(p->toolset);
	kp_toolset_free(p->reactive_tools);
	kp_store_close(p->shared);
	kp_cs_index_close(p->codesearch);
	memset(p, 0, sizeof(*p));
}

int kp_runopts_list_params(struct kp_cli *cli)
{
	size_t n;
	const struct kp_search_param_desc *d = kp_search_param_table(&n);
	struct kp_search_params p;
	kp_search_params_default(&p);
	for (size_t i = 0; i < n; i++) {
		struct kp_buf v = KP_BUF_INIT;
		kp_search_param_format(&p, &d[i], &v);
		fprintf(cli->out, "%-18s %-8s %s%s%s%s\n", d[i].name, v.buf, d[i].help,
			d[i].choices ? " (" : "", d[i].choices ? d[i].choices : "", d[i].choices ? ")" : "");
		kp_buf_release(&v);
	}
	return KP_EXIT_OK;
}

int kp_runopts_budget(struct kp_cli *cli, const struct kp_args *a, struct kp_search_budget *b,
		      unsigned *which)
{
	*which = 0;
	if (kp_arg_given(a, "evals")) {
		b->evals = kp_arg_int(a, "evals", 0);
		if (b->evals < 1)
			return usage(cli, "--evals must be at least 1");
		*which |= KP_RUN_LIMIT_EVALS;
	}
	if (kp_arg_given(a, "time")) {
		if (kp_parse_duration(kp_arg_str(a, "time"), &b->wall_s))
			return usage(cli, "--time expects a duration like 90s, 30m or 2h, not '%s'",
				     kp_arg_str(a, "time"));
		*which |= KP_RUN_LIMIT_WALL;
	}
	if (kp_arg_given(a, "tokens")) {
		b->tokens = kp_arg_int(a, "tokens", 0);
		if (b->tokens < 1)
			return usage(cli, "--tokens must be at least 1");
		*which |= KP_RUN_LIMIT_TOKENS;
	}
	if (kp_arg_given(a, "cost")) {
		b->cost = kp_arg_num(a, "cost", 0);
		if (!(b->cost > 0))
			return usage(cli, "--cost must be positive");
		*which |= KP_RUN_LIMIT_COST;
	}
	return 0;
}

/* --format / --formats: the candidate formats the words name for this task, comma-joined into s. */
static int formats_setting(struct kp_cli *cli, const struct kp_args *a, const struct kp_task *task,
			   struct kp_run_settings *s)
{
	const struct kp_task_kind_info *k = kp_task_kind_info(task->kind);
	const struct kp_strvec *list = kp_arg_list(a, "formats") && kp_arg_list(a, "formats")->n ? kp_arg_list(a, "formats") : NULL;
	struct kp_strvec words = KP_STRVEC_INIT, formats = KP_STRVEC_INIT;
	struct kp_buf joined = KP_BUF_INIT;
	int rc = 0;

	if (kp_arg_given(a, "format") && list)
		return usage(cli, "give --format (one language) or --formats (several), not both");
	if (kp_arg_given(a, "format"))
		kp_strvec_push(&words, kp_arg_str(a, "format"));
	for (size_t i = 0; list && i < list->n; i++)
		kp_strvec_split(&words, list->v[i], ','); /* --formats cuda,triton or repeated */
	for (size_t i = 0; i < words.n && !rc; i++) {
		const char *f = kp_task_kind_format_for(k, words.v[i]);
		if (!f)
			rc = usage(cli, "--format%s: '%s' is not a language this task's candidates can be written in (%s "
					"tasks take %s%s)",
				   list ? "s" : "", words.v[i], k->name, k->python ? "cuda or triton" : "cuda",
				   k->python ? "" : "; Triton candidates need a KernelBench or Triton task");
		else if (kp_strvec_find(&formats, f) < 0)
			kp_strvec_push(&formats, f);
	}
	if (!rc && formats.n && !(formats.n == 1 && !strcmp(formats.v[0], k->format))) {
		for (size_t i = 0; i < formats.n; i++)
			kp_buf_addf(&joined, "%s%s", i ? "," : "", formats.v[i]);
		s->formats = kp_buf_detach(&joined, NULL);
	}
	kp_strvec_release(&words);
	kp_strvec_release(&formats);
	kp_buf_release(&joined);
	return rc;
}

int kp_runopts_settings(struct kp_cli *cli, const struct kp_args *a, const struct kp_task *task,
			const struct kp_llm_config *llm, struct kp_run_settings *s)
{
	const struct kp_strvec *sets = kp_arg_list(a, "param");
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf spec = KP_BUF_INIT;
	long rounds = kp_arg_int(a, "tool-rounds", 3);

	if ((kp_arg_given(a, "search") &&
	     kp_search_param_set(&s->params, "search", kp_arg_str(a, "search"), &err)) ||
	    (kp_arg_given(a, "objective") &&
	     kp_search_param_set(&s->params, "objective", kp_arg_str(a, "objective"), &err)))
		return usage(cli, "%s", kp_error_msg(&err));
	for (size_t i = 0; sets && i < sets->n; i++)
		if (kp_search_param_assign(&s->params, sets->v[i], &err))
			return usage(cli, "%s", kp_error_msg(&err));
	kp_orchestration_parse(kp_arg_str(a, "orchestration"), &s->orchestration);
	if (rounds < 1 || rounds > 10)
		return usage(cli, "--tool-rounds must be 1..10");
	if (kp_arg_given(a, "tool-rounds") && s->orchestration != KP_ORCH_REACTIVE)
		return usage(cli, "--tool-rounds applies to --orchestration reactive only");
	s->tool_rounds = (int)rounds;
	s->family = kp_xstrdup(kp_arg_str(a, "family") ? kp_arg_str(a, "family") : task->name);
	kp_llm_config_format_spec(llm, &spec);
	s->llm = spec.len ? kp_buf_detach(&spec, NULL) : NULL;
	kp_buf_release(&spec);
	s->evaluator = kp_xstrdup(kp_arg_str(a, "evaluator"));
	return formats_setting(cli, a, task, s);
}

/* What reactive orchestration needs from the other options. */
static int check_orchestration(struct kp_cli *cli, const struct kp_args *a, enum kp_orchestration orch)
{
	const char *fb = kp_arg_str(a, "feedback");
	if (orch != KP_ORCH_REACTIVE)
		return 0;
	if (kp_arg_flag(a, "no-profile"))
		return usage(cli, "--orchestration reactive runs each tool the model asks for on the version's "
				  "profile; --no-profile leaves none");
	if (strcmp(fb, "tools"))
		return usage(cli, "--feedback %s ablates the proactive feedback; with --orchestration reactive "
				  "each tool request is answered with that tool's findings (leave --feedback at tools)",
			     fb);
	return 0;
}

/* The CUTLASS/CuTe index (built on first use): required with --codesearch on, a warning without it in auto. */
static int open_codesearch(struct kp_cli *cli, const struct kp_args *a, struct kp_cs_index **out)
{
	const char *mode = kp_arg_str(a, "codesearch");
	struct kp_error err = KP_ERROR_INIT;

	if (!strcmp(mode, "off") || kp_tuneopts_no_llm(a, NULL)) /* --llm none: no prompt to put snippets in */
		return 0;
	if (!kp_cs_index_open_default(out, &err))
		return 0;
	if (!strcmp(mode, "on")) {
		kp_error_prefix(&err, "--codesearch on");
		return kp_cli_fail(cli, &err);
	}
	kp_cli_warn(cli, "code search off: %s", kp_error_msg(&err));
	return 0;
}

int kp_runopts_parts(struct kp_cli *cli, const struct kp_args *a, enum kp_orchestration orch,
		     struct kp_runopts_parts *p)
{
	struct kp_error err = KP_ERROR_INIT;
	int rc;

	if ((rc = check_orchestration(cli, a, orch)) || (rc = kp_evalopts_from_args(cli, a, &p->eval)))
		return rc;
	if (!kp_arg_flag(a, "no-profile") && !kp_starts_with(kp_arg_str(a, "evaluator"), "exec:") &&
	    (rc = kp_cli_toolset_open(cli, a, &p->toolset)))
		return rc;
	if (orch == KP_ORCH_REACTIVE && (rc = kp_cli_toolset_open(cli, a, &p->reactive_tools)))
		return rc;
	if (kp_arg_str(a, "shared-memory") &&
	    kp_store_open(&p->shared, kp_arg_str(a, "shared-memory"), KP_STORE_CREATE, &err))
		return kp_cli_fail(cli, &err);
	return open_codesearch(cli, a, &p->codesearch);
}

void kp_runopts_session(const struct kp_args *a, struct kp_runopts_parts *p, const struct kp_task *task,
			struct kp_run_session *s)
{
	s->task = task;
	s->llm = &p->llm;
	s->prompts_dir = kp_arg_str(a, "prompts-dir");
	s->codesearch = p->codesearch;
	/* Only when given: a resumed run is judged as it always was (the default is for new runs). */
	s->evaluator_spec = kp_arg_given(a, "evaluator") ? kp_arg_str(a, "evaluator") : NULL;
	s->eval = &p->eval;
	s->toolset = p->toolset;
	s->reactive_tools = p->reactive_tools;
	kp_feedback_mode_parse(kp_arg_str(a, "feedback"), &s->feedback);
	s->hw_key = kp_arg_str(a, "hw");
	s->parallel = (int)kp_arg_int(a, "parallel", 0);
	s->shared_memory = p->shared;
}
