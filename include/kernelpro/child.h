/* kp_child: run a program from an argv vector with captured, capped output and a time limit. */
#ifndef KERNELPRO_CHILD_H
#define KERNELPRO_CHILD_H

#include <signal.h>
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
 * group is killed as well, so nothing outlives an evaluation. On Linux a
 * keeper process leads the group (c->pid is the keeper's; it exits as the
 * program did): a subreaper that dies with the thread that started it,
 * kill -9 of kernelpro included, killing the group and whatever left it
 * first (lib/base/child_keep.c).
 *
 * Environment: a child never inherits the whole environment. It starts from
 * an allow-list of the parent's (kp_child_env_allowed(): PATH, HOME, locale,
 * temporary directory, CUDA_*, NVIDIA_*, NV_*, LD_LIBRARY_PATH, PYTHON*,
 * TORCH*, TRITON_*, KERNELPRO_*, KP_*, SLURM_*, ...: what compilers, Python,
 * PyTorch, ncu, the harness and a step inside a Slurm job read), minus any
 * name that looks like a secret (KEY, TOKEN, SECRET, PASSWORD, JWT, ...), so
 * LLM-written code run by the harness or
 * an evaluator never sees an API key. Then `env_keep`, `env_unset` and `env`
 * apply, and names listed in $KERNELPRO_PASS_ENV (comma-separated) pass too.
 * `inherit_env` gives the whole environment, secrets included: only for the
 * user's own commands acting for the user (the exec LLM backend, the Slurm
 * clients).
 *
 * Cancellation: when cancel(cancel_ud) returns nonzero (polled every ~50 ms)
 * or the process-wide flag given to kp_child_set_cancel() is set, the group
 * gets SIGTERM and, after at most KP_CHILD_CANCEL_GRACE_MS, SIGKILL;
 * kp_child_run then returns KP_ECANCELED. A child is not started at all once
 * either says so. `stop_proof` children ignore the process-wide flag: what
 * stopping itself has to run (a Slurm element requeueing itself at SIGUSR1).
 */
struct kp_child {
	/* Inputs. */
	struct kp_strvec args;
	struct kp_strvec env;       /* "NAME=value" entries set for the child (always passed) */
	struct kp_strvec env_keep;  /* names passed from the parent's environment beyond the allow-list */
	struct kp_strvec env_unset; /* names removed from the inherited environment */
	unsigned env_clear : 1;     /* inherit nothing: only `env` */
	unsigned inherit_env : 1;   /* inherit everything, secrets included (the user's own command only) */
	unsigned merge_stderr : 1;  /* stderr goes into the stdout capture */
	unsigned inherit_stdout : 1;/* don't capture: share the parent's stdout */
	unsigned inherit_stderr : 1;
	unsigned stop_proof : 1;    /* not canceled by kp_child_set_cancel's flag (only by `cancel`) */
	unsigned kill_at_cap : 1;   /* past out_cap (stdout), the group is killed at once (output_capped) */
	const char *cwd;            /* NULL: the parent's */
	const void *stdin_data;     /* written to the child's stdin, then closed; NULL: /dev/null */
	size_t stdin_len;
	/*
	 * With stdin_from_fd, the child's stdin is stdin_fd instead (the read end of a pipe whose write
	 * end the caller keeps, close-on-exec, to feed later with kp_child_feed, from another thread than
	 * the one in kp_child_run): input that is not known yet when the child starts. kp_child_run
	 * closes stdin_fd in the parent once the child has it, or when it could not start.
	 */
	unsigned stdin_from_fd : 1;
	int stdin_fd;
	long timeout_ms;            /* <= 0: no limit */
	long kill_grace_ms;         /* between SIGTERM and SIGKILL; default 2000 when 0 */
	size_t out_cap;             /* bytes of stdout kept; 0: KP_CHILD_DEFAULT_CAP */
	size_t err_cap;
	int (*cancel)(void *ud);    /* NULL, or nonzero: stop the child (called in kp_child_run's thread) */
	void *cancel_ud;

	/* Results. */
	struct kp_buf out;
	struct kp_buf err;
	size_t out_total, err_total; /* bytes produced, kept or not */
	unsigned out_truncated : 1;
	unsigned err_truncated : 1;
	unsigned timed_out : 1;
	unsigned canceled : 1;      /* stopped by cancel (kp_child_run returned KP_ECANCELED) */
	unsigned output_capped : 1; /* killed for passing a cap (kill_at_cap) */
	int exit_code;              /* valid when term_signal == 0 */
	int term_signal;            /* signal that ended the child, 0 if it exited */
	double elapsed_s;
	pid_t pid;
};

#define KP_CHILD_DEFAULT_CAP (16u << 20)
#define KP_CHILD_CANCEL_GRACE_MS 1000 /* SIGTERM to SIGKILL when canceled (kill_grace_ms when shorter) */
#define KP_CHILD_INIT                                                          \
	{.args = KP_STRVEC_INIT, .env = KP_STRVEC_INIT,                        \
	 .env_keep = KP_STRVEC_INIT, .env_unset = KP_STRVEC_INIT,              \
	 .out = KP_BUF_INIT, .err = KP_BUF_INIT}

void kp_child_init(struct kp_child *c);
/* Frees args, env and the captured output. Safe twice. */
void kp_child_release(struct kp_child *c);

/*
 * Runs the child to completion. Returns 0 when it ran (whatever its exit
 * status: check exit_code, term_signal and timed_out), KP_ENOTOOL when the
 * program could not be found or executed, KP_ECANCELED when cancel
 * stopped it (or was set before it started; the results say how it ended),
 * KP_EIO on a system failure.
 */
int kp_child_run(struct kp_child *c, struct kp_error *err);

/*
 * Writes all of data to fd, the write end of a pipe that is a running child's stdin (stdin_from_fd),
 * blocking, without SIGPIPE. KP_EIO when the child has closed its end (it exited, or stopped
 * reading): its kp_child_run says how it ended. The caller closes fd when it has no more to give.
 */
int kp_child_feed(int fd, const void *data, size_t len, struct kp_error *err);

/* True when the child exited with status 0 within its limit. */
int kp_child_ok(const struct kp_child *c);

/*
 * One line describing how the child ended: "exited with status 2",
 * "killed by signal 11 (Segmentation fault)", "timed out after 5.0 s".
 */
const char *kp_child_describe(const struct kp_child *c, char *buf, size_t n);

/* True when a child inherits variable `name` by default (the allow-list above, secrets excluded). */
int kp_child_env_allowed(const char *name);

/*
 * Appends the environment c would run with ("NAME=value": the inherited part as above, then
 * c->env) to out. For a process started some other way that must see what a kp_child would (the
 * warm worker's jobs, lib/eval/worker_job.c).
 */
void kp_child_environment(const struct kp_child *c, struct kp_strvec *out);

/*
 * Process-wide, for the program's signal handling (src/main.c): every child
 * also watches *flag (NULL: none) as its cancel flag. Call once, before any
 * child starts.
 */
void kp_child_set_cancel(const volatile sig_atomic_t *flag);

/* True when that flag is set: for a wait on a process kp_child does not run (the warm worker's jobs). */
int kp_child_canceled(void);

/*
 * SIGKILL to the process group of every child running now, for a process
 * about to exit at once (a second Ctrl-C). Async-signal-safe: a signal
 * handler may call it. The children's kp_child_run calls then return as for
 * a child killed by a signal.
 */
void kp_child_kill_all(void);

/*
 * Every child's environment carries KERNELPRO_OWNER=kp_child_owner(), a mark of this process
 * (its pid and start time) that its descendants inherit. kp_child_sweep(token) SIGKILLs every
 * process of ours whose environment holds an earlier process's mark: what a killed session left,
 * swept when its run is taken up again (the token is in run.lock). Returns how many it killed.
 */
#define KP_CHILD_OWNER_VAR "KERNELPRO_OWNER"
const char *kp_child_owner(void);
int kp_child_sweep(const char *token);

/*
 * Finds `name` on PATH (or checks it when it contains a '/'). Returns an
 * allocated path the caller frees, or NULL.
 */
char *kp_which(const char *name);

#endif
