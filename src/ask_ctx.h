/* kernelpro ask's inputs made into the programmer's context (src/ask_ctx.c), for cmd_ask.c. */
#ifndef KP_SRC_ASK_CTX_H
#define KP_SRC_ASK_CTX_H

#include "cli.h"
#include "kernelpro/programmer.h"
#include "kernelpro/task.h"

/* The file options the context reads (--task-text, --reference, ... --codesearch): one buffer each. */
#define KP_ASK_NFILES 10

/*
 * What --task and --gpu give: the task loaded (task->path set when given), its text, the GPU line.
 * A file option given too replaces that part.
 */
struct kp_ask_sources {
	struct kp_task task;
	struct kp_buf task_text;
	struct kp_buf hardware;
};

/* Loads --task and --gpu into `s` (its task kp_task_init'ed by the caller); errors name the option. */
int kp_ask_sources_load(const struct kp_args *a, struct kp_ask_sources *s, struct kp_error *err);

/*
 * Fills the programmer's context `c` from the options and `src`: the files the options name are read
 * into files[KP_ASK_NFILES] (which `c` then borrows); `entries`, a zeroed array of 16 the caller
 * owns, gets the names --entry gives (at most 15, so it stays NULL-terminated). Errors name the option.
 */
int kp_ask_ctx_build(const struct kp_args *a, const struct kp_ask_sources *src, struct kp_prog_ctx *c,
                     struct kp_buf *files, const char **entries, struct kp_error *err);

#endif
