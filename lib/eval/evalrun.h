/* One evaluation in three steps, so the harness run in the middle can happen elsewhere (the warm
 * worker, lib/eval/worker_job.c) or later: kp_eval_begin (static checks, work directory, toolchain, the
 * harness command; native builds), the run, kp_eval_end (the verdict from how the run ended, the
 * sanitizer rerun, the checks on speed). kp_eval_source is begin + a cold run + end. */
#ifndef KP_EVAL_EVALRUN_H
#define KP_EVAL_EVALRUN_H

#include "eval/drivers.h"
#include "kernelpro/child.h"
#include "kernelpro/eval.h"

/* What is kept of a harness's stdout (its JSON lines) and stderr (tracebacks, compiler output). */
#define KP_EVAL_OUT_CAP (4u << 20)
#define KP_EVAL_ERR_CAP (8u << 20)

struct kp_eval_pending {
	struct kp_eval_opts defaults; /* when the caller gave no options */
	const struct kp_eval_opts *o;
	const struct kp_task *task;
	struct kp_eval_ctx x;
	struct kp_eval_cmd cmd;       /* cmd.argv empty: nothing to run (see `done`) */
	struct kp_buf cand_path;
	double t0;
	int done;                     /* the verdict is final without a run: refused, compile error, built */
};

/* Steps 1 and 3. kp_eval_begin fills `v` with what it found (static flags, a refusal, a compile error);
 * on a negative return there is nothing to end (call kp_eval_pending_release). kp_eval_end takes how
 * the harness ended (`ran`, NULL when p->done), finishes `v` and releases p. */
int kp_eval_begin(struct kp_eval_pending *p, const struct kp_task *task, const char *src, size_t len,
		  const char *name, const struct kp_eval_opts *o, struct kp_verdict *v, struct kp_error *err);
int kp_eval_end(struct kp_eval_pending *p, const struct kp_child *ran, struct kp_verdict *v, struct kp_error *err);
void kp_eval_pending_release(struct kp_eval_pending *p);

/* Runs a harness command as a fresh child (its limit, output caps, the whole group killed): the cold
 * start. Fills `c` (initialised by the caller); 0 when the child ran, whatever its end. */
int kp_eval_run_child(const struct kp_eval_cmd *cmd, struct kp_child *c, struct kp_error *err);

#endif
