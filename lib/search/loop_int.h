/*
 * Inside lib/search: the optimize loop's state, shared by loop.c (selection, requests, evaluation,
 * sessions) and tune.c (the tune action). Everything here runs on the loop's thread unless a comment
 * says otherwise.
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

/* ---- loop.c, for tune.c ---- */

/* One line for the user (the run's note hook) and the log. */
void kp__loop_note(struct loop *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The progress hook, with the phase ("tuning #5"). */
void kp__loop_report(struct loop *L, const char *phase);
/* Ends the open transaction: dirty nodes written back, the session's time, commit (rollback on error). */
int kp__loop_commit(struct loop *L, struct kp_error *err);
/* The run's time over all sessions: what the wall-time budget limits. */
double kp__loop_elapsed(const struct loop *L);
/* A version saved: queued for evaluation, the evaluator told (prepare), the candidate hook called. */
void kp__loop_queue(struct loop *L, long id, const char *source);
/* An evaluation (or a tuning's result) was committed: the evaluated hook. */
void kp__loop_evaluated(struct loop *L);

/* ---- tune.c ---- */

/* After the tree is loaded: versions tuned before are marked, and a tuning left running is pending again. */
int kp__tune_load(struct loop *L, struct kp_error *err);
/* A version to tune now, begun (recorded, marked, pending): 1; 0 when there is none; or an error code. */
int kp__tune_dispatch(struct loop *L, struct kp_error *err);
/* Runs the pending action: its best variants become children (queued), its record is finished. */
int kp__tune_step(struct loop *L, struct kp_error *err);

#endif
