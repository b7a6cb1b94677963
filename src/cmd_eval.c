/* kernelpro eval: one candidate against its task -> one verdict; --explain-checks lists the checks. */
#include "base/setup.h"

#include <math.h>

#include "cli.h"
#include "evalopts.h"
#include "reply.h"
#include "kernelpro/eval.h"
#include "kernelpro/json.h"
#include "kernelpro/task.h"
#include "kernelpro/task_kind.h"

static const struct kp_opt eval_opts[] = {
	{"explain-checks", 0, KP_OPT_FLAG, NULL, "list every anti-cheat check and what it catches", NULL},
	{"correct-trials", 0, KP_OPT_INT, "N", "correctness trials, fresh inputs each", "5"},
	{"tolerance", 0, KP_OPT_NUM, "X:0..", "atol = rtol for every output (default: by precision)", NULL},
	{"tolerance-mode", 0, KP_OPT_CHOICE, "current|kernelbench-v0.1",
	 "default tolerances: KernelBench HEAD (1e-4 fp32) or v0/v0.1 (1e-2)", "current"},
	{"no-timing", 0, KP_OPT_FLAG, NULL, "check correctness only", NULL},
	{"no-reference-timing", 0, KP_OPT_FLAG, NULL, "do not time the reference (no speedup)", NULL},
	{"vs-compile", 0, KP_OPT_FLAG, NULL,
	 "also time torch.compile(reference) for a second speedup (KernelBench; adds the compile time)", NULL},
	{"build-only", 0, KP_OPT_FLAG, NULL, "stop after building", NULL},
	{"floor", 0, KP_OPT_NUM, "SECONDS:>0",
	 "the floor to hold the candidate to (default: measured, the task's bytes at the GPU's bandwidth)", NULL},
	{"floor-slack", 0, KP_OPT_NUM, "X:>0", "refuse below floor * X", "0.9"},
	{"excessive-speedup", 0, KP_OPT_NUM, "X:>0", "warn above this speedup", "10"},
	{"allow", 0, KP_OPT_LIST, "CHECK", "switch a check off (ids from --explain-checks)", NULL},
	{"loop", 0, KP_OPT_NUM, "SECONDS:0..", "after timing, run candidate and reference back-to-back (energy)", "0"},
	{"no-sanitize", 0, KP_OPT_FLAG, NULL, "no compute-sanitizer rerun after an illegal address", NULL},
	{"profile-run", 0, KP_OPT_INT, "N",
	 "check once, then call the candidate N times in the NVTX range kp_candidate (for ncu); no timing", NULL},
	KP_EVAL_COMMON_OPTS,
	KP_OPT_TABLE_END,
};

static void print_indented(FILE *fp, const char *text, int max_lines)
{
	int n = 0;
	for (const char *p = text; p && *p && n < max_lines; n++) {
		const char *nl = strchr(p, '\n');
		int len = nl ? (int)(nl - p) : (int)strlen(p);
		fprintf(fp, "    %.*s\n", len, p);
		p = nl ? nl + 1 : NULL;
		if (n + 1 == max_lines && p && *p)
			fprintf(fp, "    ... (--json has the whole log)\n");
	}
}

static const char *flag_style(enum kp_check_severity s)
{
	return s == KP_SEV_WARN ? "warn" : "bad";
}

/* The floor and the scaled trial, one line each, when there is something to say. */
static void print_checks(struct kp_cli *cli, const struct kp_verdict *v)
{
	const struct kp_floor *f = &v->floor;
	char a[32], b[32];
	if (f->time_s > 0 && v->runtime.trials > 0)
		fprintf(cli->out, "  floor %s (%s%s%s), runtime %s = %.2g of the floor's pace\n",
			kp_fmt_ms(f->time_s * 1e3, a, sizeof(a)), f->source, f->gpu[0] ? " on " : "", f->gpu,
			kp_fmt_ms(v->runtime.median_ms, b, sizeof(b)), f->time_s * 1e3 / v->runtime.median_ms);
	if (v->scaled.status[0])
		fprintf(cli->out, "  scaled trial (inputs x%g): %s%s%s\n", v->scaled.scale, v->scaled.status,
			v->scaled.reason && strcmp(v->scaled.status, "failed") ? ": " : "",
			v->scaled.reason && strcmp(v->scaled.status, "failed") ? v->scaled.reason : "");
}

/* Where the correctness phase's seconds went: "correctness: candidate 0.91 (9 calls, longest 0.85), ...". */
static void print_parts(struct kp_cli *cli, const struct kp_verdict *v)
{
	fprintf(cli->out, "\n  correctness:");
	for (size_t i = 0; i < v->nparts; i++) {
		const struct kp_time_part *p = &v->parts[i];
		fprintf(cli->out, "%s %s %.2f", i ? "," : "", p->name, p->seconds);
		if (p->calls > 1)
			fprintf(cli->out, " (%d calls, longest %.2f)", p->calls, p->longest);
	}
}

/* One line on what the evaluation child's sandbox enforced, with the reason for any part it could not. */
static void print_sandbox(struct kp_cli *cli, const struct kp_verdict *v)
{
	static const struct {
		const char *key, *flag, *on, *off;
	} parts[] = {{"network", "isolated", "network isolated", "network NOT isolated"},
		     {"processes", "blocked", "processes blocked", "processes NOT blocked"}};
	const json_t *sb = v->sandbox;
	int all = 1;
	if (!sb)
		return;
	fprintf(cli->out, "  sandbox:");
	for (size_t i = 0; i < KP_ARRAY_SIZE(parts); i++) {
		const json_t *p = json_object_get(sb, parts[i].key);
		int on = json_is_true(json_object_get(p, parts[i].flag));
		all &= on;
		fprintf(cli->out, " %s%s%s%s%s%s,", on ? "" : kp_cli_color(cli, "warn"), on ? parts[i].on : parts[i].off,
			on ? "" : " (", on ? "" : kp_json_str(p, "why", "?"), on ? "" : ")", on ? "" : kp_cli_reset(cli));
	}
	all &= json_is_object(json_object_get(sb, "limits"));
	fprintf(cli->out, " limits %s%s\n", json_is_object(json_object_get(sb, "limits")) ? "set" : "NOT set",
		all ? "" : " (docs/eval.md, \"The sandbox\")");
}

static void print_verdict(struct kp_cli *cli, const struct kp_verdict *v)
{
	char a[32], b[32];
	const char *style = v->status == KP_STATUS_CORRECT || v->status == KP_STATUS_COMPILED ? "ok"
			    : v->status == KP_STATUS_CHEAT_SUSPECTED ? "bad"
								      : "warn";
	fprintf(cli->out, "%s%s%s", kp_cli_color(cli, style), kp_status_name(v->status), kp_cli_reset(cli));
	if (v->status == KP_STATUS_CORRECT && !isnan(v->speedup))
		fprintf(cli->out, "  %.3gx  (%s vs %s reference, median of %d)", v->speedup,
			kp_fmt_ms(v->runtime.median_ms, a, sizeof(a)), kp_fmt_ms(v->ref_runtime.median_ms, b, sizeof(b)),
			v->runtime.trials);
	else if (v->message)
		fprintf(cli->out, "  %s", v->message);
	fputc('\n', cli->out);
	if (v->status == KP_STATUS_CORRECT) {
		struct kp_buf claim = KP_BUF_INIT;
		kp_verdict_speedup_text(v, &claim);
		if (claim.len)
			fprintf(cli->out, "  %s\n", claim.buf);
		kp_buf_release(&claim);
		fprintf(cli->out, "  trials %d/%d, max |diff| %.3g (atol %g, rtol %g)\n", v->trials_passed, v->trials_run,
			v->max_abs_diff, v->atol, v->rtol);
		if (v->runtime.trials)
			fprintf(cli->out, "  runtime median %s, mean %s, std %s, min %s, max %s\n",
				kp_fmt_ms(v->runtime.median_ms, a, sizeof(a)), kp_fmt_ms(v->runtime.mean_ms, b, sizeof(b)),
				kp_fmt_ms(v->runtime.std_ms, (char[32]){0}, 32), kp_fmt_ms(v->runtime.min_ms, (char[32]){0}, 32),
				kp_fmt_ms(v->runtime.max_ms, (char[32]){0}, 32));
	}
	print_checks(cli, v);
	print_sandbox(cli, v);
	for (size_t i = 0; i < v->nflags; i++)
		fprintf(cli->out, "  %s%s%s %s: %s\n", kp_cli_color(cli, flag_style(v->flags[i].severity)),
			kp_check_severity_name(v->flags[i].severity), kp_cli_reset(cli), v->flags[i].check, v->flags[i].message);
	if (v->log && v->status != KP_STATUS_CORRECT && v->status != KP_STATUS_COMPILED) {
		fprintf(cli->out, "  log:\n");
		print_indented(cli->out, v->log, cli->verbosity > 0 ? 100000 : 40);
	}
	fprintf(cli->out, "  %sbuild %s%s, run %s, total %s", kp_cli_color(cli, "dim"),
		isnan(v->build_s) ? "-" : kp_fmt_ms(v->build_s * 1e3, a, sizeof(a)), v->build_cached ? " (cached)" : "",
		isnan(v->run_s) ? "-" : kp_fmt_ms(v->run_s * 1e3, b, sizeof(b)),
		kp_fmt_ms(v->total_s * 1e3, (char[32]){0}, 32));
	if (v->gpu_name[0])
		fprintf(cli->out, "; GPU %d %s", v->gpu, v->gpu_name);
	if (v->timeline && cli->verbosity > 0)
		fprintf(cli->out, "\n  harness: %s", v->timeline);
	if (v->nparts && cli->verbosity > 0)
		print_parts(cli, v);
	fprintf(cli->out, "%s\n", kp_cli_reset(cli));
}

/*
 * An evaluation that could not finish (the reference does not build, the harness failed): the error on
 * stderr, and with --json still a verdict object on stdout, the error in it, for scripts that parse it.
 */
static int eval_fail(struct kp_cli *cli, const struct kp_verdict *v, const struct kp_error *err)
{
	int rc = kp_cli_fail(cli, err);
	if (cli->json) {
		json_t *j = kp_verdict_to_json(v), *e = json_object();
		kp_json_set(e, "code", json_string(kp_errname(err->code ? err->code : KP_EIO)));
		kp_json_set(e, "message", json_string(kp_error_msg(err)));
		kp_json_set(j, "error", e);
		kp_cli_print_json(cli, j);
		json_decref(j);
	}
	return rc;
}

static int run_eval(struct kp_cli *cli, const struct kp_args *args)
{
	struct kp_task task;
	struct kp_eval_opts o;
	struct kp_verdict v;
	struct kp_error err = KP_ERROR_INIT;
	long ct = kp_arg_int(args, "correct-trials", 5);
	struct kp_buf reply = KP_BUF_INIT; /* the code of a model's whole reply given as CANDIDATE */
	int rc, is_reply = 0;

	if (kp_arg_flag(args, "explain-checks"))
		return kp_cli_explain_checks(cli);
	if (kp_arg_npos(args) != 2) {
		kp_cli_error(cli, "give a TASK and a CANDIDATE (or --explain-checks)");
		kp_cmd_print_usage(args->cmd, "kernelpro eval", cli->err);
		return KP_EXIT_USAGE;
	}
	if ((rc = kp_evalopts_from_args(cli, args, &o)))
		return rc;
	for (const char *const *a = (const char *const *)kp_arg_list(args, "allow")->v; a && *a; a++)
		if (!kp_check_find(*a)) {
			kp_cli_error(cli, "--allow '%s': no such check (see 'kernelpro eval --explain-checks')", *a);
			return KP_EXIT_USAGE;
		}
	if (ct < 1 || ct > 1000) {
		kp_cli_error(cli, "--correct-trials must be 1..1000");
		return KP_EXIT_USAGE;
	}
	o.correct_trials = (int)ct;
	if (kp_arg_given(args, "tolerance"))
		o.atol = o.rtol = kp_arg_num(args, "tolerance", NAN);
	o.tol_mode = kp_evalopts_tol_mode(args);
	o.time_candidate = !kp_arg_flag(args, "no-timing");
	o.time_reference = o.time_candidate && !kp_arg_flag(args, "no-reference-timing");
	o.time_compiled = o.time_reference && kp_arg_flag(args, "vs-compile");
	o.build_only = kp_arg_flag(args, "build-only");
	o.floor_time_s = kp_arg_num(args, "floor", NAN);
	o.floor_slack = kp_arg_num(args, "floor-slack", 0.9);
	o.excessive_speedup = kp_arg_num(args, "excessive-speedup", 10);
	o.allow_checks = (const char *const *)kp_arg_list(args, "allow")->v;
	o.loop_s = kp_arg_num(args, "loop", 0);
	o.sanitize = !kp_arg_flag(args, "no-sanitize");

	kp_task_init(&task);
	kp_verdict_init(&v);
	if ((rc = kp_task_load(&task, kp_arg_pos(args, 0), &err))) {
		rc = eval_fail(cli, &v, &err);
		goto out;
	}
	if (kp_arg_given(args, "profile-run")) {
		struct kp_eval_cmd cmd;
		long iters = kp_arg_int(args, "profile-run", 1);
		if ((rc = kp_cli_reply_code(cli, &task, kp_arg_pos(args, 1), &reply, &is_reply)) || is_reply) {
			if (is_reply && !rc)
				kp_cli_error(cli, "--profile-run builds a source file; save the reply's code first "
						  "(kernelpro ask --out FILE writes what a model answers)");
			rc = rc ? rc : KP_EXIT_USAGE;
			goto out;
		}
		if (iters < 1 || iters > 1000000) {
			kp_cli_error(cli, "--profile-run must be 1..1000000");
			rc = KP_EXIT_USAGE;
			goto out;
		}
		rc = kp_eval_prepare(&task, kp_arg_pos(args, 1), &o, iters, &cmd, &v, &err);
		if (!rc && cmd.argv.n)
			rc = kp_eval_cmd_run(&cmd, &v, &err);
		kp_eval_cmd_release(&cmd);
	} else {
		char name[16];
		if ((rc = kp_cli_reply_code(cli, &task, kp_arg_pos(args, 1), &reply, &is_reply)))
			goto out; /* a reply without code: said */
		snprintf(name, sizeof(name), "cand.%s", kp_task_kind_info(task.kind)->ext);
		rc = is_reply ? kp_eval_source(&task, reply.buf, reply.len, name, &o, &v, &err)
			      : kp_eval_file(&task, kp_arg_pos(args, 1), &o, &v, &err);
	}
	if (rc) {
		rc = eval_fail(cli, &v, &err);
		goto out;
	}
	if (cli->json) {
		json_t *j = kp_verdict_to_json(&v);
		kp_cli_print_json(cli, j);
		json_decref(j);
	} else
		print_verdict(cli, &v);
	rc = v.status == KP_STATUS_CORRECT || v.status == KP_STATUS_COMPILED ? KP_EXIT_OK : KP_EXIT_FAIL;
out:
	kp_buf_release(&reply);
	kp_verdict_release(&v);
	kp_task_release(&task);
	return rc;
}

/* What --help shows; --help-all adds the rest. */
static const char *const eval_brief[] = {
	"explain-checks", "tolerance", "build-only", "vs-compile", "floor", "allow", "no-timing",
	"gpu", "trials", "cache", "worker", NULL
};

const struct kp_cmd kp_cmd_eval = {
	.name = "eval",
	.summary = "Check and time one candidate against its task; refuse cheats",
	.usage = "[options] TASK CANDIDATE | --explain-checks",
	.description =
		"TASK is a KernelBench .py file or a native task directory (task.json + reference.cu).\n"
		"CANDIDATE is a Python source defining ModelNew (KernelBench) or a .cu exporting kp_run (native).\n"
		"Each evaluation runs in a fresh child process with time limits, in a sandbox (limits, no\n"
		"network, no new processes where the machine allows; KERNELPRO_SANDBOX=off to switch it off;\n"
		"docs/eval.md, \"The sandbox\"). The verdict is one of\n"
		"correct, compiled, compile_error, runtime_error, timeout, wrong_output, cheat_suspected.\n"
		"Exit status: 0 correct (or compiled with --build-only), 1 any other verdict, 3 no GPU/tool.",
	.flags = KP_CMD_JSON | KP_CMD_NEEDS_GPU,
	.opts = eval_opts,
	.min_args = 0,
	.max_args = 2,
	.run = run_eval,
	.examples = "kernelpro eval examples/native/matmul examples/native/matmul/candidates/reg_tile.cu\n"
		    "kernelpro eval examples/kernelbench/swish_scale.py examples/kernelbench/swish_scale_fast.py --vs-compile\n"
		    "kernelpro eval examples/native/gelu reply.md      # a model's whole reply: its code block\n"
		    "kernelpro eval --explain-checks                   # every anti-cheat check",
	.brief = eval_brief,
	.more = "docs/eval.md",
};
