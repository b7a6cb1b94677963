/*
 * A run's options from the command line, for optimize (and the suite runner next): the budget, a
 * new run's search settings, and one session's parts (model, evaluation options, toolsets, shared
 * memory) turned into lib/run's structs. The option names are optimize's (src/cmd_optimize.c).
 */
#ifndef KP_RUNOPTS_H
#define KP_RUNOPTS_H

#include "cli.h"
#include "kernelpro/run.h"

/* What a session uses, opened from the options; released with kp_runopts_parts_release(). */
struct kp_runopts_parts {
	struct kp_llm_config llm;
	struct kp_eval_opts eval;
	struct kp_toolset *toolset;        /* NULL: --no-profile, or an exec evaluator */
	struct kp_toolset *reactive_tools; /* reactive orchestration only */
	struct kp_store *shared;           /* --shared-memory */
	struct kp_cs_index *codesearch;    /* --codesearch; NULL: no code search */
};

void kp_runopts_parts_init(struct kp_runopts_parts *p);
void kp_runopts_parts_release(struct kp_runopts_parts *p);

/* --list-params: the search constants, their defaults and what each does. KP_EXIT_OK. */
int kp_runopts_list_params(struct kp_cli *cli);

/*
 * --evals, --time, --tokens, --cost into *b; *which gets the KP_RUN_LIMIT_* given. 0, or
 * KP_EXIT_USAGE after saying what is wrong.
 */
int kp_runopts_budget(struct kp_cli *cli, const struct kp_args *a, struct kp_search_budget *b,
		      unsigned *which);

/*
 * A new run's settings (s initialised by the caller): --search, --objective, --param,
 * --orchestration, --tool-rounds, --family (default: the task's name), the model as --llm names
 * it, --evaluator. 0, or KP_EXIT_USAGE after saying what is wrong.
 */
int kp_runopts_settings(struct kp_cli *cli, const struct kp_args *a, const struct kp_task *task,
			const struct kp_llm_config *llm, struct kp_run_settings *s);

/*
 * The parts, for a run with orchestration `orch`: evaluation options, the toolsets, the shared
 * memory, the code-search index (--codesearch on: required; auto: a warning when CUTLASS is not
 * found; off: none) (p->llm is read before, with kp_cli_llm_config: a new run's settings name the model).
 * Everything is opened before a run is created, so a bad option leaves none behind. 0, or an
 * exit code after saying what is wrong.
 */
int kp_runopts_parts(struct kp_cli *cli, const struct kp_args *a, enum kp_orchestration orch,
		     struct kp_runopts_parts *p);

/* Fills the session's parts and options from p and the options (the hooks and stop flag are the caller's). */
void kp_runopts_session(const struct kp_args *a, struct kp_runopts_parts *p, const struct kp_task *task,
			struct kp_run_session *s);

#endif
