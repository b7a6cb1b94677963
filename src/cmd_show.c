/* kernelpro show RUN: the best result and the path to it; --tree the search tree; --node N one version in
 * full. */
#include "base/setup.h"

#include <math.h>

#include "cli.h"
#include "kernelpro/json.h"
#include "kernelpro/str.h"
#include "runs.h"

static const struct kp_opt show_opts[] = {
	KP_RUNS_DIR_OPT,
	{"tree", 't', KP_OPT_FLAG, NULL, "print the whole search tree", NULL},
	{"node", 'n', KP_OPT_INT, "ID:1..", "print one version: its source, verdict, feedback, and the prompt that made it", NULL},
	KP_OPT_TABLE_END,
};

/* ---- the tree -------------------------------------------------------------------------------- */

static void print_node_line(struct kp_cli *cli, const json_t *n, long best, const char *prefix,
			    const char *branch)
{
	const char *outcome = kp_json_str(n, "outcome", "pending"), *closed = kp_json_str(n, "closed", NULL);
	long id = (long)kp_json_int(n, "node", 0);
	char how[64];

	const char *check = kp_json_str(json_object_get(n, "reason"), "check", NULL);
	if (!strcmp(outcome, "correct"))
		snprintf(how, sizeof(how), "%.2fx", kp_json_num(n, "speedup", NAN));
	else if (check) /* which check refused or failed it; --node N says why */
		snprintf(how, sizeof(how), "%s (%.24s)", outcome, check);
	else
		snprintf(how, sizeof(how), "%s", outcome);
	const char *lang = kp_json_str(n, "language", NULL);

	fprintf(cli->out, "%s%s%s#%ld%s %s%s%s%s %s%s%s%s%s  %s\n", prefix, branch,
		id == best ? kp_cli_color(cli, "ok") : "", id, id == best ? "*" : "",
		kp_json_str(n, "kind", "?"), lang ? " [" : "", lang ? lang : "", lang ? "]" : "", how, kp_cli_reset(cli),
		closed ? " [closed: " : "", closed ? closed : "", closed ? "]" : "", kp_json_str(n, "summary", ""));
}

/* The children of tree[idx] (they come after it: ids grow), each with the branches drawn above it. */
static void print_subtree(struct kp_cli *cli, const json_t *tree, size_t idx, long best,
			  struct kp_buf *prefix)
{
	long id = (long)kp_json_int(json_array_get(tree, idx), "node", 0);
	size_t n = json_array_size(tree), nchild = 0, seen = 0, len = prefix->len;

	for (size_t i = idx + 1; i < n; i++)
		nchild += kp_json_int(json_array_get(tree, i), "parent", 0) == id;
	for (size_t i = idx + 1; i < n; i++) {
		const json_t *c = json_array_get(tree, i);
		int last;
		if (kp_json_int(c, "parent", 0) != id)
			continue;
		last = ++seen == nchild;
		print_node_line(cli, c, best, prefix->buf, last ? "`-- " : "|-- ");
		kp_buf_adds(prefix, last ? "    " : "|   ");
		print_subtree(cli, tree, i, best, prefix);
		kp_buf_setlen(prefix, len);
	}
}

static int show_tree(struct kp_cli *cli, struct kp_run *r, json_t *sum)
{
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf prefix = KP_BUF_INIT;
	json_t *tree = NULL;
	long best = (long)kp_json_int(json_object_get(sum, "best"), "node", 0);
	int langs = 0;

	if (kp_run_tree(r, &tree, &err))
		return kp_cli_fail(cli, &err);
	if (cli->json) {
		kp_json_set(sum, "tree", tree);
		kp_cli_print_json(cli, sum);
		return KP_EXIT_OK;
	}
	kp_cli_json_printable(tree, KP_TEXT_LINE);
	kp_cli_print_run_summary(cli, sum);
	/* Each version's language is shown once some version is not in CUDA (a Triton or mixed run). */
	for (size_t i = 0; i < json_array_size(tree) && !langs; i++)
		langs = strcmp(kp_json_str(json_array_get(tree, i), "language", "cuda"), "cuda") != 0;
	for (size_t i = 0; i < json_array_size(tree) && !langs; i++)
		json_object_del(json_array_get(tree, i), "language");
	fprintf(cli->out, "tree (* best):\n");
	if (json_array_size(tree)) {
		print_node_line(cli, json_array_get(tree, 0), best, "", "");
		print_subtree(cli, tree, 0, best, &prefix);
	}
	kp_buf_release(&prefix);
	json_decref(tree);
	return KP_EXIT_OK;
}

/* ---- one node -------------------------------------------------------------------------------- */

/* A tuned version's action: what it tried, in order, and what it found. */
static void print_tuning(struct kp_cli *cli, const json_t *t)
{
	const json_t *tried = json_object_get(json_object_get(t, "tried"), "trials");
	const char *untuned = kp_json_str(t, "untuned_point", "");
	const json_t *children = json_object_get(t, "children");

	fprintf(cli->out, "\n== tuning (%s, %s: %lld %s, %lld measured, %lld from earlier)\n",
	        kp_json_str(t, "status", "?"), kp_json_str(t, "strategy", "?"), kp_json_int(t, "trials", 0),
	        kp_plural(kp_json_int(t, "trials", 0), "trial", "trials"),
	        kp_json_int(t, "evaluated", 0), kp_json_int(t, "cache_hits", 0));
	for (size_t i = 0; i < json_array_size(tried); i++) {
		const json_t *x = json_array_get(tried, i);
		const char *point = kp_json_str(x, "point", "");
		double s = kp_json_num(x, "seconds", NAN);
		fprintf(cli->out, "  %-40s %-12s", point, kp_json_str(x, "status", "?"));
		if (isfinite(s))
			fprintf(cli->out, " %.4g ms", s * 1e3);
		fprintf(cli->out, "%s\n", !strcmp(point, untuned) ? "  (untuned)" : "");
	}
	for (size_t i = 0; i < json_array_size(children); i++)
		fprintf(cli->out, "child #%lld: %s\n", kp_json_int(json_array_get(children, i), "node", 0),
		        kp_json_str(json_array_get(children, i), "point", ""));
	if (kp_json_str(t, "note", NULL))
		fprintf(cli->out, "%s\n", kp_json_str(t, "note", ""));
}

/* ": refused by reads_reference: ..." after the outcome, from the stored verdict. */
static void print_reason(struct kp_cli *cli, const json_t *reason)
{
	const char *check = kp_json_str(reason, "check", NULL), *msg = kp_json_str(reason, "message", NULL);
	if (!json_is_object(reason) || (!check && !msg))
		return;
	if (check)
		fprintf(cli->out, " (%s %s%s%s)",
			!strcmp(kp_json_str(reason, "severity", ""), "refuse") ? "refused by" : "failed", check,
			msg ? ": " : "", msg ? msg : "");
	else
		fprintf(cli->out, " (%s)", msg);
}

/* Every check the verdict flagged, whether it refused, failed or only warned. */
static void print_checks(struct kp_cli *cli, const json_t *verdict)
{
	const json_t *flags = json_object_get(verdict, "flags");
	if (!json_array_size(flags))
		return;
	fprintf(cli->out, "\n== checks (kernelpro eval --explain-checks says what each one does)\n");
	for (size_t i = 0; i < json_array_size(flags); i++) {
		const json_t *f = json_array_get(flags, i);
		fprintf(cli->out, "%-7s %s: %s\n", kp_json_str(f, "severity", "?"), kp_json_str(f, "check", "?"),
			kp_json_str(f, "message", ""));
	}
}

static void print_node(struct kp_cli *cli, struct kp_run *r, const json_t *o)
{
	const char *outcome = kp_json_str(o, "outcome", "pending"), *summary = kp_json_str(o, "summary", "");
	const char *log = kp_json_str(o, "log", NULL), *fb = kp_json_str(o, "feedback", NULL);
	const json_t *ex = json_object_get(o, "exchanges");

	if (json_is_integer(json_object_get(o, "parent")))
		fprintf(cli->out, "#%lld: %s of #%lld, ", kp_json_int(o, "node", 0),
			kp_json_str(o, "kind", "?"), kp_json_int(o, "parent", 0));
	else
		fprintf(cli->out, "#%lld: the reference, ", kp_json_int(o, "node", 0));
	fprintf(cli->out, "%s", strcmp(outcome, "pending") ? outcome : "not evaluated yet");
	if (!strcmp(outcome, "correct"))
		fprintf(cli->out, ", %.4g ms, %.2fx", kp_json_num(o, "time_ms", NAN),
			kp_json_num(o, "speedup", NAN));
	print_reason(cli, json_object_get(o, "reason"));
	fprintf(cli->out, "%s%s\n", summary[0] ? "\n  " : "", summary);
	print_checks(cli, json_object_get(o, "verdict"));
	if (log)
		fprintf(cli->out, "\n== verdict\n%s\n", log);
	if (fb)
		fprintf(cli->out, "\n== feedback (%s)\n%s\n",
			kp_run_settings(r)->orchestration == KP_ORCH_REACTIVE
			    ? "kept, not sent: this run offers the tools on request"
			    : "what the next prompt from this version gets",
			fb);
	if (!fb && json_is_false(json_object_get(o, "profiled")))
		fprintf(cli->out, "\n== feedback\n%s\n", KP_RUN_NOT_PROFILED);
	for (size_t i = 0; i < json_array_size(ex); i++) {
		const json_t *x = json_array_get(ex, i);
		fprintf(cli->out, "\n== prompt (%s, round %lld)\n%s\n\n== reply\n%s\n",
			kp_json_str(x, "mode", ""), kp_json_int(x, "round", 0), kp_json_str(x, "prompt", ""),
			kp_json_str(x, "reply", ""));
	}
	if (json_is_object(json_object_get(o, "tuning")))
		print_tuning(cli, json_object_get(o, "tuning"));
	fprintf(cli->out, "\n== source (%s)\n%s\n", kp_json_str(o, "lang", ""), kp_json_str(o, "source", ""));
}

static int show_node(struct kp_cli *cli, struct kp_run *r, long id)
{
	struct kp_error err = KP_ERROR_INIT;
	json_t *o = NULL;

	if (kp_run_node(r, id, &o, &err))
		return kp_cli_fail(cli, &err);
	if (cli->json) {
		kp_cli_print_json(cli, o);
	} else {
		kp_cli_json_printable(o, KP_TEXT_LINES); /* prompts, replies, logs, source: lines stay */
		print_node(cli, r, o);
	}
	json_decref(o);
	return KP_EXIT_OK;
}

/* The summary, alone or with the tree. */
static int show_summary(struct kp_cli *cli, struct kp_run *r, const struct kp_args *args)
{
	struct kp_error err = KP_ERROR_INIT;
	json_t *sum = NULL;
	int rc = KP_EXIT_OK;

	if (kp_run_summary(r, &sum, &err))
		return kp_cli_fail(cli, &err);
	if (!cli->json)
		kp_cli_json_printable(sum, KP_TEXT_LINE);
	if (kp_arg_flag(args, "tree"))
		rc = show_tree(cli, r, sum);
	else if (cli->json)
		kp_cli_print_json(cli, sum);
	else
		kp_cli_print_run_summary(cli, sum);
	json_decref(sum);
	return rc;
}

static int run_show(struct kp_cli *cli, const struct kp_args *args)
{
	struct kp_buf dir = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_run *r = NULL;
	int rc;

	if (kp_run_resolve(kp_cli_runs_root(args), kp_arg_pos(args, 0), &dir, &err) ||
	    kp_run_open(&r, dir.buf, KP_RUN_READONLY, &err))
		rc = kp_cli_fail(cli, &err);
	else if (kp_arg_given(args, "node"))
		rc = show_node(cli, r, kp_arg_int(args, "node", 0));
	else
		rc = show_summary(cli, r, args);
	kp_run_close(r);
	kp_buf_release(&dir);
	return rc;
}

const struct kp_cmd kp_cmd_show = {
	.name = "show",
	.summary = "Show a run: the best version and how the search got there (--tree, --node N)",
	.usage = "RUN [--tree] [--node ID] [--json]",
	.description = "RUN is a run directory or a run's name under --runs-dir. Works while the run is going.",
	.flags = KP_CMD_JSON,
	.opts = show_opts,
	.min_args = 1,
	.max_args = 1,
	.run = run_show,
	.examples = "kernelpro show gelu-20261201-101500              # summary and the best version\n"
		    "kernelpro show gelu-20261201-101500 --tree\n"
		    "kernelpro show gelu-20261201-101500 --node 8     # verdict, feedback, prompt and reply of #8",
};
