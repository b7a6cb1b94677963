/*
 * optimize's options for the tune action: --llm none (tuning alone, no model) and --from FILE (a new
 * run's first version). What optimize checks before a run with no LLM is created: that something has
 * knobs to tune, with what to do when nothing has. docs/tune.md, "optimize --llm none".
 */
#ifndef KP_TUNEOPTS_H
#define KP_TUNEOPTS_H

#include "cli.h"
#include "kernelpro/run.h"

/* Put inside optimize's option table (written as a table entry, like the other option macros). */
// clang-format off
#define KP_TUNE_RUN_OPTS                                                                                    \
	{"from", 0, KP_OPT_STR, "FILE",                                                                     \
	 "a new run's first version, evaluated first (with --llm none: the version tuned)", NULL}
// clang-format on

/* Whether no model is asked: --llm none, or a resumed run recorded with none and no --llm now. */
int kp_tuneopts_no_llm(const struct kp_args *a, const struct kp_run *resumed);

/* A resumed run: --from is refused (0, or KP_EXIT_USAGE after saying so). */
int kp_tuneopts_resume(struct kp_cli *cli, const struct kp_args *a);

/*
 * A new run (its settings read): --from FILE read into *src (its name: the option's value) and checked
 * against the task's candidates (extension); with no LLM, the run records none (s->llm) and something
 * must have knobs to tune: the given version, else the reference (a native reference is a candidate,
 * a PyTorch one is not). 0, or an exit code after saying what is wrong and what to do.
 */
int kp_tuneopts_new_run(struct kp_cli *cli, const struct kp_args *a, const struct kp_task *task, int no_llm,
                        struct kp_run_settings *s, struct kp_buf *src);

#endif
