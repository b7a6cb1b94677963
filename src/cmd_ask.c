/* kernelpro ask: build the programmer's prompt for one mode, print it (--dry-run) or send it and print the code. */
#include "base/setup.h"

#include <math.h>

#include "ask_ctx.h"
#include "cli.h"
#include "kernelpro/fs.h"
#include "kernelpro/hw.h"
#include "kernelpro/json.h"
#include "kernelpro/programmer.h"
#include "kernelpro/str.h"
#include "kernelpro/task.h"
#include "kernelpro/task_kind.h"
#include "llm_opts.h"
#include "prereq.h"

static const struct kp_opt ask_opts[] = {
	{"mode", 'm', KP_OPT_CHOICE, "initial|debug|optimize", "which prompt to build", "initial"},
	{"task", 't', KP_OPT_STR, "DIR|FILE.py",
	 "a native task directory or KernelBench .py: its name, description, tensors, tolerance, reference and format",
	 NULL},
	KP_GPU_MODEL_OPT("the GPU model for the prompt (kernelpro hw show --list), e.g. h200-sxm"),
	{"format", 0, KP_OPT_CHOICE, "cuda|torch|triton", "candidate format (default: the task's, else torch when the code is .py)",
	 NULL},
	{"task-name", 0, KP_OPT_STR, "NAME", "the task's name (replaces --task's)", NULL},
	{"task-text", 0, KP_OPT_STR, "FILE", "what to compute: shapes, dtypes, tolerance (replaces --task's)", NULL},
	{"reference", 'r', KP_OPT_STR, "FILE", "the reference implementation (replaces --task's)", NULL},
	{"stage1", 0, KP_OPT_STR, "FILE", "the roofline analysis of the reference, as text", NULL},
	{"hardware", 0, KP_OPT_STR, "FILE", "the GPU description, as text (instead of --gpu)", NULL},
	{"parent", 'p', KP_OPT_STR, "FILE", "debug: the failing code; optimize: the code to improve", NULL},
	{"failure", 0, KP_OPT_CHOICE, "compile_error|runtime_error|timeout|wrong_output|cheat_suspected|rejected_reply",
	 "debug: how the parent failed", NULL},
	{"compile-log", 0, KP_OPT_STR, "FILE", "debug: the compiler's output", NULL},
	{"runtime-log", 0, KP_OPT_STR, "FILE", "debug: the run's error output", NULL},
	{"max-abs-err", 0, KP_OPT_NUM, "X:0..", "debug (wrong output): largest absolute error", NULL},
	{"max-rel-err", 0, KP_OPT_NUM, "X:0..", "debug (wrong output): largest relative error", NULL},
	{"atol", 0, KP_OPT_NUM, "X:0..", "debug (wrong output): absolute tolerance", NULL},
	{"rtol", 0, KP_OPT_NUM, "X:0..", "debug (wrong output): relative tolerance", NULL},
	{"mismatched", 0, KP_OPT_INT, "N:0..", "debug (wrong output): elements out of tolerance", NULL},
	{"total", 0, KP_OPT_INT, "N:0..", "debug (wrong output): elements compared", NULL},
	{"where", 0, KP_OPT_STR, "TEXT", "debug (wrong output): where the first mismatch is", NULL},
	{"reject-reason", 0, KP_OPT_STR, "TEXT", "debug: why the last reply was unusable", NULL},
	{"feedback", 0, KP_OPT_STR, "FILE", "optimize: the profiling diagnosis of the parent", NULL},
	{"memory", 0, KP_OPT_STR, "FILE", "what earlier attempts found", NULL},
	{"codesearch", 0, KP_OPT_STR, "FILE", "code-search results to include", NULL},
	{"instructions", 0, KP_OPT_STR, "TEXT", "extra instructions for the model", NULL},
	{"reference-ms", 0, KP_OPT_NUM, "MS:>0", "the reference's time per call", NULL},
	{"parent-ms", 0, KP_OPT_NUM, "MS:>0", "optimize: the parent's time per call", NULL},
	{"best-ms", 0, KP_OPT_NUM, "MS:>0", "optimize: the best time so far", NULL},
	{"entry", 0, KP_OPT_LIST, "NAME", "a name the code must define (default: the format's)", NULL},
	{"prompts-dir", 0, KP_OPT_STR, "DIR", "prompt templates that replace the bundled ones", NULL},
	{"max-prompt-chars", 0, KP_OPT_INT, "N:1..", "bound on the prompt's length", NULL},
	{"dry-run", 'n', KP_OPT_FLAG, NULL, "print the prompt instead of sending it", NULL},
	{"out", 'o', KP_OPT_STR, "FILE", "write the extracted code to FILE instead of stdout", NULL},
	{"show-reply", 0, KP_OPT_FLAG, NULL, "also print the model's whole reply on stderr", NULL},
	KP_LLM_CLI_OPTS,
	KP_OPT_TABLE_END,
};

static void print_dry(struct kp_cli *cli, const struct kp_buf *sys, const struct kp_buf *user)
{
	if (cli->json) {
		json_t *o = json_object();
		kp_json_set(o, "system", json_string(sys->buf));
		kp_json_set(o, "prompt", json_string(user->buf));
		kp_json_set(o, "chars", json_integer((json_int_t)(sys->len + user->len)));
		kp_cli_print_json_new(cli, o);
		return;
	}
	fprintf(cli->out, "%s===== system (%zu chars) =====%s\n%s\n%s===== user (%zu chars) =====%s\n%s\n",
		kp_cli_color(cli, "dim"), sys->len, kp_cli_reset(cli), sys->buf, kp_cli_color(cli, "dim"), user->len,
		kp_cli_reset(cli), user->buf);
}

static void print_result(struct kp_cli *cli, const struct kp_llm_config *cfg, const struct kp_prog_result *r)
{
	json_t *o, *u;
	o = json_object();
	u = json_object();
	kp_json_set(o, "code", r->code ? json_string(r->code) : json_null());
	kp_json_set(o, "rejected", json_boolean(r->rejected));
	kp_json_set(o, "reason", r->rejected ? json_string(r->reason) : json_null());
	kp_json_set(o, "rounds", json_integer(r->rounds));
	kp_json_set(o, "prompt_hash", json_string(r->prompt_hash));
	kp_json_set(o, "provider", json_string(kp_llm_provider_name(cfg->provider)));
	kp_json_set(u, "input_tokens", json_integer(r->usage.input_tokens));
	kp_json_set(u, "output_tokens", json_integer(r->usage.output_tokens));
	kp_json_set(u, "estimated", json_boolean(r->usage.estimated));
	kp_json_set(u, "cost_usd", r->usage.cost_known ? kp_json_real(r->usage.cost_usd) : json_null());
	kp_json_set(u, "attempts", json_integer(r->usage.attempts));
	kp_json_set(u, "elapsed_s", kp_json_real(r->usage.elapsed_s));
	kp_json_set(o, "usage", u);
	kp_cli_print_json_new(cli, o);
}

/* Everything one ask holds; released in one place. */
struct ask {
	struct kp_buf files[KP_ASK_NFILES];
	struct kp_ask_sources src;
	struct kp_prog_ctx ctx;
	const char *entries[16];
	struct kp_llm_config cfg;
	struct kp_llm *llm;
	struct kp_programmer *pg;
};

static void ask_init(struct ask *A)
{
	memset(A, 0, sizeof(*A));
	kp_task_init(&A->src.task);
	for (int i = 0; i < KP_ASK_NFILES; i++)
		kp_buf_init(&A->files[i], 0);
	kp_llm_config_init(&A->cfg);
}

static void ask_release(struct ask *A)
{
	kp_programmer_free(A->pg);
	kp_llm_free(A->llm);
	kp_llm_config_release(&A->cfg);
	for (int i = 0; i < KP_ASK_NFILES; i++)
		kp_buf_release(&A->files[i]);
	kp_task_release(&A->src.task);
	kp_buf_release(&A->src.task_text);
	kp_buf_release(&A->src.hardware);
}

/* The task, the GPU and the files: the prompt's context, with what the user got wrong said. An exit code. */
static int read_inputs(struct kp_cli *cli, const struct kp_args *args, struct ask *A)
{
	struct kp_error err = KP_ERROR_INIT;
	struct kp_prog_ctx *c = &A->ctx;

	if (kp_arg_str(args, "gpu-model") && kp_arg_str(args, "hardware")) {
		kp_cli_error(cli, "give the GPU once: --gpu-model KEY or --hardware FILE");
		return KP_EXIT_USAGE;
	}
	if (kp_ask_sources_load(args, &A->src, &err) ||
	    kp_ask_ctx_build(args, &A->src, c, A->files, A->entries, &err))
		return kp_cli_fail(cli, &err);
	if (c->mode != KP_PROG_INITIAL && !c->parent_code) {
		kp_cli_error(cli, "--mode %s needs --parent FILE (the code to %s)", kp_prog_mode_name(c->mode),
			     c->mode == KP_PROG_DEBUG ? "repair" : "improve");
		return KP_EXIT_USAGE;
	}
	if (!c->task_text && !c->reference_code) {
		kp_cli_error(cli, "give the task: --task DIR|FILE.py, or --task-text FILE and/or --reference FILE");
		return KP_EXIT_USAGE;
	}
	if (kp_arg_int(args, "max-prompt-chars", 0) < 0) {
		kp_cli_error(cli, "--max-prompt-chars must be > 0");
		return KP_EXIT_USAGE;
	}
	return KP_EXIT_OK;
}

/* The LLM (none for a dry run) and the programmer over it. An exit code. */
static int open_programmer(struct kp_cli *cli, const struct kp_args *args, struct ask *A)
{
	struct kp_error err = KP_ERROR_INIT;
	struct kp_programmer_opts po;
	int dry = kp_arg_flag(args, "dry-run");

	memset(&po, 0, sizeof(po));
	po.prompts_dir = kp_arg_str(args, "prompts-dir");
	po.max_prompt_chars = (size_t)kp_arg_int(args, "max-prompt-chars", 0);
	po.max_tool_rounds = 0; /* ask has no code search or tools to answer with */
	kp_llm_config_release(&A->cfg);
	if (!dry) { /* a model chosen, its spec one kernelpro reads (--dry-run prints the prompt without) */
		struct kp_prereq pr;
		int rc;
		kp_prereq_init(&pr, cli);
		kp_prereq_llm(&pr, args, NULL);
		if ((rc = kp_prereq_done(&pr)))
			return rc;
	}
	if (kp_cli_llm_config(args, NULL, &A->cfg, &err))
		return kp_cli_fail(cli, &err);
	if ((!dry && kp_llm_open(&A->llm, &A->cfg, &err)) || kp_programmer_new(&A->pg, A->llm, &po, &err))
		return kp_cli_fail(cli, &err);
	if (A->llm)
		kp_llm_set_cancel_flag(A->llm, cli->stop); /* Ctrl-C drops the request and its retries */
	return KP_EXIT_OK;
}

static int dry_run(struct kp_cli *cli, struct ask *A)
{
	struct kp_buf sys = KP_BUF_INIT, user = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	int ret = KP_EXIT_OK;

	if (kp_programmer_prompt(A->pg, &A->ctx, &sys, &user, &err))
		ret = kp_cli_fail(cli, &err);
	else
		print_dry(cli, &sys, &user);
	kp_buf_release(&sys);
	kp_buf_release(&user);
	return ret;
}

static void print_usage_line(struct kp_cli *cli, const struct kp_llm_config *cfg, const struct kp_llm_usage *u)
{
	if (cli->verbosity < 0)
		return;
	fprintf(cli->err, "kernelpro: %s%s%s: %ld tokens in, %ld out%s, $%.4f%s, %d attempt%s, %.1f s\n",
		kp_llm_provider_name(cfg->provider), cfg->model ? " " : "", cfg->model ? cfg->model : "",
		u->input_tokens, u->output_tokens, u->estimated ? " (estimated)" : "", u->cost_usd,
		u->cost_known ? "" : " (price unknown)", u->attempts, u->attempts == 1 ? "" : "s", u->elapsed_s);
}

/* The code (or the reason there is none) where it was asked for. An exit code. */
static int print_code(struct kp_cli *cli, const struct kp_args *args, const struct kp_prog_result *res)
{
	struct kp_error err = KP_ERROR_INIT;

	if (res->rejected) {
		kp_cli_error(cli, "the reply held no usable code: %s%s", res->reason,
			     kp_arg_flag(args, "show-reply") ? "" : " (--show-reply prints it)");
		return KP_EXIT_FAIL;
	}
	if (!kp_arg_str(args, "out")) {
		fputs(res->code, cli->out);
		return KP_EXIT_OK;
	}
	if (kp_write_file_atomic(kp_arg_str(args, "out"), res->code, strlen(res->code), &err))
		return kp_cli_fail(cli, &err);
	return KP_EXIT_OK;
}

static int send(struct kp_cli *cli, const struct kp_args *args, struct ask *A)
{
	struct kp_error err = KP_ERROR_INIT;
	struct kp_prog_result res;
	int ret;

	memset(&res, 0, sizeof(res));
	if (kp_programmer_generate(A->pg, &A->ctx, &res, &err)) {
		ret = kp_cli_fail(cli, &err);
		goto out;
	}
	if (kp_arg_flag(args, "show-reply") && res.reply)
		fprintf(cli->err, "----- reply -----\n%s\n----- end of reply -----\n", res.reply);
	print_usage_line(cli, &A->cfg, &res.usage);
	if (cli->json) {
		print_result(cli, &A->cfg, &res);
		ret = res.rejected ? KP_EXIT_FAIL : KP_EXIT_OK;
	} else {
		ret = print_code(cli, args, &res);
	}
out:
	kp_prog_result_release(&res);
	return ret;
}

static int run_ask(struct kp_cli *cli, const struct kp_args *args)
{
	struct ask A;
	int ret;

	ask_init(&A);
	ret = read_inputs(cli, args, &A);
	if (ret == KP_EXIT_OK)
		ret = open_programmer(cli, args, &A);
	if (ret == KP_EXIT_OK)
		ret = kp_arg_flag(args, "dry-run") ? dry_run(cli, &A) : send(cli, args, &A);
	ask_release(&A);
	return ret;
}

/* What --help shows; --help-all adds the rest. */
static const char *const ask_brief[] = {
	"mode", "task", "gpu-model", "format", "reference", "parent", "compile-log", "runtime-log",
	"feedback", "dry-run", "out", "show-reply", "prompts-dir", "llm", "llm-config", NULL
};

const struct kp_cmd kp_cmd_ask = {
	.name = "ask",
	.summary = "Build the programmer's prompt for one mode; print it, or send it and print the code",
	.usage = "--mode initial|debug|optimize [--task DIR|FILE.py] [--gpu-model KEY] [--reference FILE] [--parent FILE] ... "
		 "[--dry-run | --llm P:M]",
	.description = "The prompt is built from the templates in prompts/ (or --prompts-dir DIR) and the inputs given:\n"
		       "--task loads a task as optimize does (name, what it computes, tensors, tolerance, reference,\n"
		       "candidate format), --gpu-model KEY describes a GPU model offline; a file option given too\n"
		       "(--task-text, --reference, --hardware, ...) replaces that part.\n"
		       "--dry-run prints it; otherwise it goes to the LLM and the code extracted from the reply\n"
		       "is printed (exit 1 with the reason when the reply holds no usable code).\n"
		       "Keys come only from the environment (OPENAI_API_KEY, ANTHROPIC_API_KEY); see docs/llm.md.",
	.flags = KP_CMD_JSON | KP_CMD_NEEDS_NET,
	.opts = ask_opts,
	.max_args = 0,
	.run = run_ask,
	.examples = "kernelpro ask --dry-run --task examples/native/gelu --gpu-model h200-sxm   # print the prompt\n"
		    "kernelpro ask --task examples/native/gelu --llm gpt-4o --out gelu.cu\n"
		    "kernelpro ask --mode debug --task examples/native/gelu --parent cand.cu --compile-log build.log --llm openai:gpt-4.1",
	.brief = ask_brief,
	.more = "docs/prompts.md (every part of a prompt), docs/llm.md",
};
