/* kp_child: run a program from an argv vector with captured, capped output and a time limit. */
#ifndef KERNELPRO_CHILD_H
#define KERNELPRO_CHILD_H

#include <stddef.h>
#include <sys/types.h>

#include "kernelpro/buf.h"
#include "kernelpro/error.h"
#include "kernelpro/strvec.h"

/*
 * Set up a child with KP_CHILD_INIT, fill in `args` (args.v[0] is the
 * program: a path, or a name looked up on PATH) and the options, call
 * kp_child_run(), read the results, then kp_child_release().
 *
 * No shell is ever involved. The child gets its own process group; on the
 * time limit the whole group (grandchildren too) gets SIGTERM and, after
 * `kill_grace_ms`, SIGKILL. When the child exits, anything left in its
 * group is killed as well, so nothing outlives an evaluation.
 */
struct kp_child {
	/* Inputs. */
	struct kp_strvec args;
	struct kp_strvec env;       /* "NAME=value" entries added over the inherited environment */
	struct kp_strvec env_unset; /* names removed from the inherited environment */
	unsigned env_clear : 1;     /* start from an empty environment instead */
	unsigned merge_stderr : 1;  /* stderr goes into the stdout capture */
	unsigned inherit_stdout : 1;/* don't capture: share the parent's stdout */
	unsigned inherit_stderr : 1;
	const char *cwd;            /* NULL: the parent's */
	const void *stdin_data;     /* written to the child's stdin, then closed; NULL: /dev/null */
	size_t stdin_len;
	long timeout_ms;            /* <= 0: no limit */
	long kill_grace_ms;         /* between SIGTERM and SIGKILL; default 2000 when 0 */
	size_t out_cap;             /* bytes of stdout kept; 0: KP_CHILD_DEFAULT_CAP */
	size_t err_cap;

	/* Results. */
	struct kp_buf out;
	struct kp_buf err;
	size_t out_total, err_total; /* bytes produced, kept or not */
	unsigned out_truncated : 1;
	unsigned err_truncated : 1;
	unsigned timed_out : 1;
	int exit_code;              /* valid when term_signal == 0 */
	int term_signal;            /* signal that ended the child, 0 if it exited */
	double elapsed_s;
	pid_t pid;
};

#define KP_CHILD_DEFAULT_CAP (16u << 20)
#define KP_CHILD_INIT                                                          \
	{.args = KP_STRVEC_INIT, .env = KP_STRVEC_INIT,                        \
	 .env_unset = KP_STRVEC_INIT, .out = KP_BUF_INIT, .err = KP_BUF_INIT}

void kp_child_init(struct kp_child *c);
/* Frees args, env and the captured output. Safe twice. */
void kp_child_release(struct kp_child *c);

/*
 * Runs the child to completion. Returns 0 when it ran (whatever its exit
 * status: check exit_code, term_signal and timed_out), KP_ENOTOOL when the
 * program could not be found or executed, KP_EIO on a system failure.
 */
int kp_child_run(struct kp_child *c, struct kp_error *err);

/* True when the child exited with status 0 within its limit. */
int kp_child_ok(const struct kp_child *c);

/*
 * One line describing how the child ended: "exited with status 2",
 * "killed by signal 11 (Segmentation fault)", "timed out after 5.0 s".
 */
const char *kp_child_describe(const struct kp_child *c, char *buf, size_t n);

/*
 * Finds `name` on PATH (or checks it when it contains a '/'). Returns an
 * allocated path the caller frees, or NULL.
 */
char *kp_which(const char *name);

#endif
