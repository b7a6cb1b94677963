/* kernelpro tools metrics: the ncu metrics a selection of tools reads (what the profiler must collect). */
#include "base/setup.h"

#include "kernelpro/json.h"
#include "tools_cli.h"

/* ---- tools metrics ----------------------------------------------------------------------------- */

static const struct kp_opt metrics_opts[] = {
	{"class", 0, KP_OPT_CHOICE, "compute|memory|latency|mixed|unknown", "the tools this Stage-1 class selects", NULL},
	{"energy", 0, KP_OPT_FLAG, NULL, "energy is an objective (adds instruction_mix)", NULL},
	KP_TOOLS_OPTS,
	KP_OPT_TABLE_END,
};

static int run_metrics(struct kp_cli *cli, const struct kp_args *args)
{
	struct kp_toolset *ts;
	struct kp_strvec ids = KP_STRVEC_INIT, metrics = KP_STRVEC_INIT, collect = KP_STRVEC_INIT,
			 sections = KP_STRVEC_INIT;
	struct kp_error err = KP_ERROR_INIT;
	const char *cls = kp_arg_str(args, "class");
	unsigned sources = 0;
	int rc = kp_cli_toolset_open(cli, args, &ts);

	if (rc)
		return rc;
	if (kp_arg_npos(args)) {
		for (size_t i = 0; i < kp_arg_npos(args); i++)
			kp_strvec_push(&ids, kp_arg_pos(args, i));
	} else {
		enum kp_bound b = KP_BOUND_MIXED;
		for (size_t i = 0; cls && i < KP_CLI_TOOL_NCLASSES; i++)
			if (!strcmp(cls, kp_cli_tool_class_names[i]))
				b = (enum kp_bound)i;
		kp_toolset_select(ts, b, kp_arg_flag(args, "energy"), &ids);
	}
	if (kp_toolset_metrics(ts, &ids, &metrics, &sources, &err) ||
	    kp_toolset_collection(ts, &ids, &collect, &sections, &err)) {
		kp_cli_error(cli, "%s", kp_error_msg(&err));
		rc = KP_EXIT_USAGE;
		goto out;
	}
	if (cli->json) {
		json_t *o = json_object(), *t = json_array(), *m = json_array(), *sec = json_array();
		for (size_t i = 0; i < ids.n; i++)
			json_array_append_new(t, json_string(ids.v[i]));
		for (size_t i = 0; i < metrics.n; i++)
			json_array_append_new(m, json_string(metrics.v[i]));
		for (size_t i = 0; i < sections.n; i++)
			json_array_append_new(sec, json_string(sections.v[i]));
		kp_json_set(o, "tools", t);
		kp_json_set(o, "sources", kp_cli_tool_sources_json(sources));
		kp_json_set(o, "metrics", m);
		kp_json_set(o, "sections", sec); /* for the metrics only an ncu section collects */
		kp_cli_print_json_new(cli, o);
	} else {
		for (size_t i = 0; i < metrics.n; i++)
			fprintf(cli->out, "%s%s\n", metrics.v[i],
				kp_strvec_find(&collect, metrics.v[i]) < 0 ? "  (source-level: --section SourceCounters)" : "");
	}
out:
	kp_strvec_release(&ids);
	kp_strvec_release(&metrics);
	kp_strvec_release(&collect);
	kp_strvec_release(&sections);
	kp_toolset_free(ts);
	return rc;
}

const struct kp_cmd kp_cmd_tools_metrics = {
	.name = "metrics",
	.summary = "Print the ncu metrics the selected tools read (what the profiler must collect)",
	.usage = "[--json] [--class CLASS] [--energy] [ID...]",
	.description = "With tool ids, the union of what those tools read; otherwise what the tools a Stage-1\n"
		       "class selects read (without --class: every tool). One metric per line.",
	.flags = KP_CMD_JSON,
	.opts = metrics_opts,
	.max_args = -1,
	.run = run_metrics,
	.examples = "kernelpro tools metrics --class memory\n"
		    "ncu --metrics $(kernelpro tools metrics coalescing vector_width) ./my_app",
};

