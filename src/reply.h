/*
 * A model's whole reply given where a candidate source belongs (`kernelpro eval TASK reply.md`):
 * recognised as a reply and its code taken as the programmer's extractor takes it, or the reason
 * it holds none said, instead of compiling the prose.
 */
#ifndef KP_REPLY_H
#define KP_REPLY_H

#include "cli.h"
#include "kernelpro/buf.h"
#include "kernelpro/task.h"

/*
 * Reads `path`; when it is a reply (a .md or .txt file, or one whose text opens with prose and
 * holds a ``` fence), puts the code of the block the extractor picks for the task's candidate
 * format in `code`, says so on stderr and sets *is_reply. A source file leaves *is_reply 0 and
 * `code` empty (the caller evaluates the path as before, which also reports a file it cannot read).
 * 0, or the exit code after saying why a reply holds no usable code.
 */
int kp_cli_reply_code(struct kp_cli *cli, const struct kp_task *task, const char *path, struct kp_buf *code,
		      int *is_reply);

#endif
