/*
 * Inside lib/eval: the warm worker's client, shared by its two files: worker.c (finding, starting,
 * connecting to and stopping the per-GPU worker: the handle, its socket, reading its JSON lines) and
 * worker_job.c (evaluations that run in it: kp_eval_stage, _submit, kp_eval_job_poll, _finish, with a
 * cold start whenever the worker cannot be had or misbehaves). docs/internals/eval.md.
 */
#ifndef KP_EVAL_WORKER_INT_H
#define KP_EVAL_WORKER_INT_H

#include <sys/types.h>

#include "kernelpro/eval.h"

/* A handle on one GPU's worker (kp_eval_worker_launch); the jobs sent to it are worker_job.c's. */
struct kp_eval_worker {
	int fd;        /* the connection; -1 before kp_eval_worker_connect and once the worker is gone */
	char *python;  /* the resolved interpreter the worker runs */
	char *adapter; /* harness/kp_torch.py: jobs running it run in-process in the fork */
	char *script;  /* harness/kp_worker.py */
	struct kp_strvec genv; /* the worker's environment (GPU, sandbox library), part of its key */
	struct kp_buf sock, log_path;
	int ready_fd; /* a worker we launched says here when it serves (its ready line); -1 */
	pid_t group;  /* that worker's process group (its session), while ready_fd is open */
	json_t *hello;
	struct kp_buf rbuf;
	struct kp_eval_job *jobs; /* submitted to the worker, not yet answered */
	long next_id;
};

/* Appends what `fd` has within `timeout_ms` to b. 1: data, 0: nothing yet, -1: end of file or error. */
int kp__worker_read_some(int fd, struct kp_buf *b, long timeout_ms);
/* Moves the first complete line of b (without its newline) into `line`; 0 when there is none. */
int kp__worker_take_line(struct kp_buf *b, struct kp_buf *line);
/* "NAME=value" entries: what a kp_child with `extra` as its env would see (the worker and each job). */
void kp__worker_merged_env(const struct kp_strvec *extra, struct kp_strvec *out);
/* Sends all of p on fd (no SIGPIPE); -1 when the connection is gone. */
int kp__worker_send_all(int fd, const char *p, size_t n);
/* Asks the worker to exit once its running job ends. */
void kp__worker_ask_shutdown(struct kp_eval_worker *w);
/* worker_job.c: the worker is gone or not to be trusted: its jobs run cold, and it gets no more. */
void kp__worker_broken(struct kp_eval_worker *w);

#endif
