/*
 * The diagnosis report shared by `kernelpro diagnose` (files given one by one), `kernelpro
 * analyze` (a profile directory) and `kernelpro profile` (the directory it just wrote): the
 * pipeline's results (lib/tools/pipeline.c) per launch, as text or JSON.
 */
#ifndef KP_SRC_DIAGNOSE_H
#define KP_SRC_DIAGNOSE_H

#include <jansson.h>

#include "cli.h"
#include "kernelpro/pipeline.h"

struct kp_diagnose_opts {
	struct kp_profile_files files;    /* the saved outputs (ncu_csv NULL with a trace: timing only) */
	const char *dir;                  /* else a profile directory (files.sass/ptxas override its own) */
	const char *dir_hint;             /* what to say when dir holds nothing ("run 'kernelpro profile' first") */
	struct kp_pipeline_opts pipe;     /* GPU model, task bytes, toolset, feedback mode, energy */
	const struct kp_strvec *launches; /* launch IDs to report; NULL or empty: all */
	int text;                         /* print the feedback text the LLM gets, not the findings list */
	int task;                         /* the whole-task view: the ranking and the selected kernels only */
};

/* The options diagnose and analyze share: the GPU model, the launches to report, the task's minimum bytes. */
#define KP_DIAGNOSE_OPTS                                                                                                  \
	KP_GPU_MODEL_OPT("GPU model (kernelpro hw show --list); default: the report's, else this machine's"),            \
	{"gpu-index", 0, KP_OPT_INT, "N:0..", "local GPU to model when neither --gpu-model nor the report names one",    \
	 "0"},                                                                                                            \
	{"launch", 0, KP_OPT_LIST, "ID", "only this launch (ncu ID)", NULL},                                              \
	{"min-bytes", 0, KP_OPT_NUM, "N:0..",                                                                             \
	 "minimum DRAM traffic of the task (inputs read once, outputs written once)", NULL},                              \
	{"task", 0, KP_OPT_FLAG, NULL,                                                                                    \
	 "whole task: kernels ranked by time that could be saved, tools on the top ones only", NULL}

/* Sets o from the KP_DIAGNOSE_OPTS of args. */
void kp_diagnose_opts_args(struct kp_diagnose_opts *o, const struct kp_args *args);

/* Loads, runs the pipeline per launch and prints the report; returns the exit code. */
int kp_diagnose_report(struct kp_cli *cli, const struct kp_diagnose_opts *o);

/* Sets o->pipe's toolset and feedback options from args (KP_TOOLS_OPTS, KP_FEEDBACK_OPTS); 0 or an exit code. */
int kp_diagnose_tools_open(struct kp_cli *cli, const struct kp_args *args, struct kp_diagnose_opts *o);
void kp_diagnose_tools_close(struct kp_diagnose_opts *o);
/*
 * The tools' part of one launch's report: adds "findings", "tool_runs", "folded", "omitted",
 * "feedback_text" to lj when given, else prints the findings (or the feedback text).
 */
void kp_diagnose_tools(struct kp_cli *cli, const struct kp_diagnose_opts *o, const struct kp_pipeline_result *r,
		       json_t *lj);

#endif
