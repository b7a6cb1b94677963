/*
 * Inside lib/search: the optimize loop's state, shared by its files: loop.c (kp_search_loop, sessions,
 * steps, dispatch, budget), loop_store.c (the run database), loop_jobs.c (programmer requests, worker
 * threads), loop_gpu.c (the GPU slot: evaluations and profiles) and tune.c (the tune action).
 * Everything here runs on the loop's thread unless a comment says otherwise.
 */
#ifndef KP_SEARCH_LOOP_INT_H
#define KP_SEARCH_LOOP_INT_H

#include <pthread.h>

#include "kernelpro/search.h"

struct job;

/* What a GPU job does: judge a candidate, or profile a correct version (evaluator->profile). */
enum slot_job { SLOT_EVALUATE = 0, SLOT_PROFILE = 1 };
/* Why a version is profiled; each has its counter ("profiles_on_demand", ...). */
enum profile_why { PROFILE_ON_DEMAND = 0, PROFILE_SPECULATIVE = 1, PROFILE_FINAL = 2 };

/* One GPU job (an evaluation or a profile): what it needs from the database, and what the evaluator said. */
struct eval_slot {
	enum slot_job job;
	enum profile_why why; /* SLOT_PROFILE */
	long id;
	int idx;
	char lang[16];
	struct kp_buf src, psrc, plog, pfind;
	struct kp_node_row row;
	struct kp_search_eval res;
	int rc;
	struct kp_error err;
};

/* Why the run database's result cache stopped a tuning (tune.c). */
enum { TUNE_GO = 0, TUNE_STOP_ASKED, TUNE_STOP_BUDGET };

/* The tune action (tune.c): at most one at a time, run on the loop's thread while no evaluation runs. */
struct loop_tune {
	int pending; /* an action begun and not yet run (this session) */
	long id;     /* the version tuned */
	long budget; /* trials at most, as recorded when it began */
	long long seed;
	int strategy; /* enum kp_tune_strategy */
	enum kp_tune_derive derive;
	int resumed; /* begun in an earlier session */
	/* While it runs: fresh evaluations announced by cache misses and made, the most this session may make
	 * (-1: no limit), and why the cache stopped it. */
	long planned, fresh, allowance;
	int stopped;
};

struct loop {
	struct kp_search_run *run;
	struct kp_store *st;
	struct kp_tree tree;
	struct kp_memory mem;
	long session;
	double t0, prev_elapsed;
	int parallel;
	char *stage1, *hardware, *reference;
	long *evalq; /* node ids created, not yet evaluated, oldest first */
	size_t nevalq, evalq_alloc;
	/* Nodes selected for expansion whose request waits for their profile (tree indices, oldest first):
	 * each holds a place in the lookahead and a virtual visit (kp_tree_begin_expand). */
	int *held;
	size_t nheld, held_alloc;
	int gen_fail_streak;
	char last_gen_error[256];
	long session_evals;
	/* Worker pool (parallel > 1). */
	pthread_t *threads;
	int nthreads;
	pthread_mutex_t mu;
	pthread_cond_t cv_work, cv_done;
	struct job *queue, *done;
	int inflight, shutdown;
	/* The GPU thread (parallel > 1 and evaluator->concurrent): one evaluation at a time. */
	int async_eval;
	pthread_t gpu_thread;
	int gpu_running; /* a GPU job started and not yet recorded */
	int gpu_done;    /* its thread has finished (under mu) */
	struct eval_slot gpu;
	struct loop_tune tune;
	struct kp_search_status status;
};

/* ---- loop.c ---- */

/* One line for the user (the run's note hook) and the log. */
void kp__loop_note(struct loop *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The progress hook, with the phase ("tuning #5"). */
void kp__loop_report(struct loop *L, const char *phase);
/* This session's time: what the session records (the run's total is the sum over its sessions). */
double kp__loop_session_elapsed(const struct loop *L);
/* The run's time over all sessions: what the wall-time budget limits. */
double kp__loop_elapsed(const struct loop *L);
/* Whether the run's wall-time budget is spent. */
int kp__loop_wall_spent(const struct loop *L);

/* ---- loop_store.c ---- */

/* Ends the open transaction: dirty nodes written back, the session's time, commit (rollback on error). */
int kp__loop_commit(struct loop *L, struct kp_error *err);
int kp__loop_end_tx(struct loop *L, int rc, struct kp_error *err);
/* An evaluation (or a tuning's result) was committed: the evaluated hook. */
void kp__loop_evaluated(struct loop *L);
/* What one evaluation wrote to the database: the evaluator's judgement of node `id`. */
struct kp_eval_row kp__loop_eval_row(long id, const struct kp_search_eval *res, double ref_time_ms,
                                     double speedup);
/* The root (and a given version) created when the run is new; the reference evaluated when it is not yet. */
int kp__loop_setup_root(struct loop *L, struct kp_error *err);
/* The tree, the evaluation queue, profiled marks, Stage 1 and the reference read from the database. */
int kp__loop_load(struct loop *L, struct kp_error *err);

/* ---- loop_jobs.c ---- */

/* Builds the request for a child of node idx: parent code and its verdict, feedback, memory. */
int kp__loop_make_job(struct loop *L, int idx, struct job **out, struct kp_error *err);
/* Sends a request: to the worker threads, or (none) runs it here at once. */
void kp__loop_submit(struct loop *L, struct job *j);
/* Blocks until some request has finished (it stays queued) or the GPU thread has. */
void kp__loop_wait_done(struct loop *L);
/* Collects finished requests: commits what they made, or takes the first hard error. */
int kp__loop_collect(struct loop *L, struct kp_error *err);
/* After a stop or an error: let requests in flight finish and keep what they made. */
int kp__loop_drain(struct loop *L, struct kp_error *err);
/* The worker pool (parallel > 1; none to be had: parallel becomes 1), and its end. */
void kp__loop_start_workers(struct loop *L);
void kp__loop_stop_workers(struct loop *L);

/* ---- loop_gpu.c ---- */

/* A version saved: queued for evaluation, the evaluator told (prepare), the candidate hook called. */
void kp__loop_queue(struct loop *L, long id, const char *source);
/* Candidates saved but not evaluated when the session starts: the evaluator may prepare them now. */
void kp__loop_prepare_queued(struct loop *L);
/* One GPU job on the loop's thread: read, run, recorded. */
int kp__loop_run_here(struct loop *L, enum slot_job job, enum profile_why why, int idx, struct kp_error *err);
/* Starts a GPU job on the GPU thread; kp__loop_gpu_finished says whether it has finished, kp__loop_gpu_end
 * waits for it and records it (`record`: else drops it). */
int kp__loop_gpu_start(struct loop *L, enum slot_job job, enum profile_why why, int idx,
                       struct kp_error *err);
int kp__loop_gpu_finished(struct loop *L);
int kp__loop_gpu_end(struct loop *L, int record, struct kp_error *err);
/* Whether node idx must be profiled before a request for its child is built. */
int kp__loop_needs_profile(const struct loop *L, int idx);
/* The best version worth a speculative profile (open, correct, unprofiled), -1 when none. */
int kp__loop_speculative_pick(const struct loop *L);
/* The run ends: its best version profiled when it is not yet and the wall-time budget has time left. */
int kp__loop_profile_best(struct loop *L, struct kp_error *err);

/* ---- tune.c ---- */

/* After the tree is loaded: versions tuned before are marked, and a tuning left running is pending again. */
int kp__tune_load(struct loop *L, struct kp_error *err);
/* A version to tune now, begun (recorded, marked, pending): 1; 0 when there is none; or an error code. */
int kp__tune_dispatch(struct loop *L, struct kp_error *err);
/* Runs the pending action: its best variants become children (queued), its record is finished. */
int kp__tune_step(struct loop *L, struct kp_error *err);

#endif
