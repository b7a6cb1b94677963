/*
 * Options every command that runs tools shares (tools, diagnose, later
 * optimize): where user tools live, threshold overrides, feedback mode.
 * Embed KP_TOOLS_OPTS in a command's option table, then open the toolset
 * with kp_cli_toolset_open().
 */
#ifndef KP_TOOLS_CLI_H
#define KP_TOOLS_CLI_H

#include "cli.h"
#include "kernelpro/feedback.h"
#include "kernelpro/tools.h"

#define KP_TOOLS_OPTS                                                                                    \
	{"tools-dir", 0, KP_OPT_LIST, "DIR", "load Lua user tools from DIR (before $KERNELPRO_TOOLS_PATH)", NULL}, \
	{"threshold", 0, KP_OPT_LIST, "TOOL.NAME=X", "override one tool threshold", NULL},        \
	{"thresholds", 0, KP_OPT_STR, "FILE", "threshold overrides, one 'tool.name = value' per line", NULL}

#define KP_FEEDBACK_OPTS                                                                                 \
	{"feedback", 0, KP_OPT_CHOICE, "tools|raw|none", "what the feedback contains (ablation)", "tools"},    \
	{"energy", 0, KP_OPT_FLAG, NULL,                                                                   \
	 "energy is an objective: instruction_mix runs, the feedback gets the energy paragraph", NULL},        \
	{"all-tools", 0, KP_OPT_FLAG, NULL, "run every tool instead of those the Stage-1 class selects", NULL}, \
	{"feedback-text", 0, KP_OPT_FLAG, NULL, "print the feedback text the LLM gets instead of the findings list", NULL}

/*
 * Opens the toolset from the KP_TOOLS_OPTS of `args` and $KERNELPRO_TOOLS_PATH
 * (user tools that fail to load are warned about and left out). Returns 0,
 * or KP_EXIT_USAGE after printing the error.
 */
int kp_cli_toolset_open(struct kp_cli *cli, const struct kp_args *args, struct kp_toolset **out);

/* The Stage-1 classes by enum kp_bound, for `tools list|show|metrics`. */
#define KP_CLI_TOOL_NCLASSES 5
extern const char *const kp_cli_tool_class_names[KP_CLI_TOOL_NCLASSES];

/* The profiler outputs a tool reads (KP_SRC_* bits) as a JSON array of names (new reference). */
json_t *kp_cli_tool_sources_json(unsigned sources);

/* `tools metrics` (src/cmd_tools_metrics.c), a sub-command of `tools`. */
extern const struct kp_cmd kp_cmd_tools_metrics;

#endif
