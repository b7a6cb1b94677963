/* kernelpro tools: list the micro-profiling tools, show one, and name the metrics a selection needs. */
#include "base/setup.h"

#include "kernelpro/json.h"
#include "tools_cli.h"

static const struct kp_opt tools_opts[] = {
	KP_TOOLS_OPTS,
	KP_OPT_TABLE_END,
};

static void classes_str(unsigned classes, struct kp_buf *b)
{
	if ((classes & KP_CLASS_ALL) == KP_CLASS_ALL) {
		kp_buf_adds(b, "all");
		return;
	}
	/* mixed and unknown select every tool; list the classes that make a difference. */
	for (size_t i = 1; i < 4; i++)
		if (classes & KP_CLASS_BIT(i))
			kp_buf_addf(b, "%s%s", b->len ? "," : "", kp_cli_tool_class_names[i]);
	if (!b->len)
		kp_buf_adds(b, "mixed");
}

static json_t *classes_json(unsigned classes)
{
	json_t *a = json_array();
	for (size_t i = 0; i < KP_CLI_TOOL_NCLASSES; i++)
		if (classes & KP_CLASS_BIT(i))
			json_array_append_new(a, json_string(kp_cli_tool_class_names[i]));
	return a;
}

/* ---- tools list -------------------------------------------------------------------------------- */

static int run_list(struct kp_cli *cli, const struct kp_args *args)
{
	struct kp_toolset *ts;
	int rc = kp_cli_toolset_open(cli, args, &ts);
	if (rc)
		return rc;
	if (cli->json) {
		json_t *a = json_array();
		for (size_t i = 0; i < kp_toolset_count(ts); i++) {
			const struct kp_tool_info *t = kp_toolset_at(ts, i);
			json_t *o = json_object();
			kp_json_set(o, "name", json_string(t->name));
			kp_json_set(o, "description", json_string(t->description));
			kp_json_set(o, "sources", kp_cli_tool_sources_json(t->sources));
			kp_json_set(o, "classes", classes_json(t->classes));
			kp_json_set(o, "origin", t->origin ? json_string(t->origin) : NULL);
			kp_json_set(o, "replaces_builtin", json_boolean(t->replaces_builtin));
			json_array_append_new(a, o);
		}
		kp_cli_print_json_new(cli, a);
	} else {
		fprintf(cli->out, "%-16s %-16s %-22s %s\n", "ID", "SOURCE", "SELECTED FOR", "DESCRIPTION");
		for (size_t i = 0; i < kp_toolset_count(ts); i++) {
			const struct kp_tool_info *t = kp_toolset_at(ts, i);
			struct kp_buf cls = KP_BUF_INIT;
			char src[64];
			classes_str(t->classes, &cls);
			fprintf(cli->out, "%-16s %-16s %-22s %s", t->name, kp_tool_sources_str(t->sources, src, sizeof(src)),
				cls.buf, t->description);
			if (t->origin)
				fprintf(cli->out, " [%s: %s]", t->replaces_builtin ? "user, replaces built-in" : "user",
					t->origin);
			fputc('\n', cli->out);
			kp_buf_release(&cls);
		}
	}
	kp_toolset_free(ts);
	return KP_EXIT_OK;
}

static const struct kp_cmd cmd_list = {
	.name = "list",
	.summary = "List the micro-profiling tools (built-in and user tools)",
	.usage = "[--json] [--tools-dir DIR]...",
	.flags = KP_CMD_JSON,
	.opts = tools_opts,
	.max_args = 0,
	.run = run_list,
	.examples = "kernelpro tools list\n"
		    "kernelpro tools list --tools-dir my-tools --json",
};

/* ---- tools show -------------------------------------------------------------------------------- */

/* Prints `text` wrapped at 90 columns, each line indented by two spaces. */
static void print_wrapped(FILE *fp, const char *text)
{
	const char *p = text;
	while (*p) {
		size_t n = strlen(p), cut = n;
		if (n > 88) {
			cut = 88;
			while (cut > 0 && p[cut] != ' ')
				cut--;
			if (!cut)
				cut = 88;
		}
		fprintf(fp, "  %.*s\n", (int)cut, p);
		p += cut;
		while (*p == ' ')
			p++;
	}
}

static json_t *show_json(const struct kp_tool_info *t)
{
	json_t *o = json_object(), *ms = json_array(), *ths = json_array();
	kp_json_set(o, "name", json_string(t->name));
	kp_json_set(o, "description", json_string(t->description));
	kp_json_set(o, "details", json_string(t->details ? t->details : ""));
	kp_json_set(o, "sources", kp_cli_tool_sources_json(t->sources));
	kp_json_set(o, "needs", kp_cli_tool_sources_json(t->needs));
	kp_json_set(o, "classes", classes_json(t->classes));
	kp_json_set(o, "origin", t->origin ? json_string(t->origin) : NULL);
	kp_json_set(o, "replaces_builtin", json_boolean(t->replaces_builtin));
	for (size_t i = 0; i < t->nmetrics; i++) {
		json_t *m = json_object();
		kp_json_set(m, "name", json_string(t->metrics[i].name));
		kp_json_set(m, "required", json_boolean(!(t->metrics[i].flags & KP_TM_OPTIONAL)));
		json_array_append_new(ms, m);
	}
	kp_json_set(o, "metrics", ms);
	for (size_t i = 0; i < t->nthresholds; i++) {
		const struct kp_threshold *th = &t->thresholds[i];
		json_t *j = json_object();
		kp_json_set(j, "name", json_string(th->name));
		kp_json_set(j, "value", kp_json_real(t->values[i]));
		kp_json_set(j, "default", kp_json_real(th->def));
		kp_json_set(j, "unit", json_string(th->unit ? th->unit : ""));
		kp_json_set(j, "doc", json_string(th->doc ? th->doc : ""));
		json_array_append_new(ths, j);
	}
	kp_json_set(o, "thresholds", ths);
	return o;
}

static void show_text(struct kp_cli *cli, const struct kp_tool_info *t)
{
	FILE *fp = cli->out;
	struct kp_buf cls = KP_BUF_INIT;
	char src[64], needs[64];

	classes_str(t->classes, &cls);
	fprintf(fp, "%s: %s\n", t->name, t->description);
	fprintf(fp, "reads: %s", kp_tool_sources_str(t->sources, src, sizeof(src)));
	if (t->needs)
		fprintf(fp, " (cannot run without %s)", kp_tool_sources_str(t->needs, needs, sizeof(needs)));
	fprintf(fp, "\nselected for: %s%s\n", cls.buf, strcmp(cls.buf, "all") ? " (and mixed, unknown)" : "");
	if (t->origin)
		fprintf(fp, "user tool: %s%s\n", t->origin, t->replaces_builtin ? " (replaces the built-in)" : "");
	fprintf(fp, "\nWhat it looks for:\n");
	print_wrapped(fp, t->details ? t->details : t->description);
	fprintf(fp, "\nMetrics (ncu):%s\n", t->nmetrics ? "" : " none");
	for (size_t i = 0; i < t->nmetrics; i++)
		fprintf(fp, "  %s%s\n", t->metrics[i].name, t->metrics[i].flags & KP_TM_OPTIONAL ? "  (optional)" : "");
	fprintf(fp, "\nThresholds%s\n", t->nthresholds ? " (override with --threshold TOOL.NAME=X):" : ": none");
	for (size_t i = 0; i < t->nthresholds; i++) {
		const struct kp_threshold *th = &t->thresholds[i];
		fprintf(fp, "  %s = %g%s%s", th->name, t->values[i], th->unit && *th->unit ? " " : "",
			th->unit ? th->unit : "");
		if (t->values[i] != th->def)
			fprintf(fp, " (default %g)", th->def);
		fprintf(fp, "\n      %s\n", th->doc ? th->doc : "");
	}
	kp_buf_release(&cls);
}

static int run_show(struct kp_cli *cli, const struct kp_args *args)
{
	struct kp_toolset *ts;
	const struct kp_tool_info *t;
	int rc = kp_cli_toolset_open(cli, args, &ts);
	if (rc)
		return rc;
	t = kp_toolset_find(ts, kp_arg_pos(args, 0));
	if (!t) {
		kp_cli_error(cli, "no tool '%s'; 'kernelpro tools list' shows the ids", kp_arg_pos(args, 0));
		kp_toolset_free(ts);
		return KP_EXIT_USAGE;
	}
	if (cli->json)
		kp_cli_print_json_new(cli, show_json(t));
	else
		show_text(cli, t);
	kp_toolset_free(ts);
	return KP_EXIT_OK;
}

static const struct kp_cmd cmd_show = {
	.name = "show",
	.summary = "Show one tool: what it looks for, the metrics it reads, its thresholds",
	.usage = "[--json] [--threshold TOOL.NAME=X]... ID",
	.flags = KP_CMD_JSON,
	.opts = tools_opts,
	.min_args = 1,
	.max_args = 1,
	.run = run_show,
	.examples = "kernelpro tools show coalescing\n"
		    "kernelpro tools show coalescing --threshold coalescing.max_excess_pct=5",
};

static const struct kp_cmd *const tools_subs[] = {&cmd_list, &cmd_show, &kp_cmd_tools_metrics, NULL};

const struct kp_cmd kp_cmd_tools = {
	.name = "tools",
	.summary = "The micro-profiling tools: list, show, metrics",
	.usage = "list|show|metrics ...",
	.description = "Built-in tools are C; user tools are Lua files loaded from --tools-dir and\n"
		       "$KERNELPRO_TOOLS_PATH (docs/tools.md). A user tool with a built-in's name replaces it.",
	.subs = tools_subs,
	.run = NULL,
	.examples = "kernelpro tools list\n"
		    "kernelpro tools show occupancy",
};
