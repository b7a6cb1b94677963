/*
 * Inside the bench's scheduler (sched.c) and its per-task work (task.c): the shard being run, its
 * tasks as the scheduler sees them, and the GPU slots. Everything under `mu` unless said otherwise.
 */
#ifndef KP_SCHED_INT_H
#define KP_SCHED_INT_H

#include <pthread.h>

#include "suite/bench_int.h"

/* One task of the shard. */
struct sched_task {
	const struct kp_suitedb_task *t; /* in the suite's list */
	struct kp_suitedb_progress p;    /* its row in the shard database (kept in step with it) */
	int taken;                       /* a slot works on it now */
	int need_baseline;               /* to measure before the longest-first order is known */
	struct sched_task *lead;         /* the shard's first task of the same content (itself when none comes
	                                  * before it): the one whose baseline the others take */
	int runnable;                    /* to (re)start in this session */
	struct kp_suite_task rec;        /* its results record (when p.record is set) */
	int have_rec;
	long live_evals, live_tokens; /* while a slot runs it: its whole run's use so far */
	double live_cost;
};

struct sched;

struct slot {
	struct sched *S;
	struct kp_bench_slot pub;
	pthread_t thread;
	int started;
	volatile sig_atomic_t stop; /* the session's stop flag (set by the caller's thread) */
	struct kp_bench_slot_view view;
	struct sched_task *task; /* what it works on; NULL when idle */
	double task_t0;
	struct kp_eval_worker *worker; /* the GPU's warm evaluation worker, held for the slot's life */
	int wedged; /* its last task failed on a crash or a hang (under mu) */
};

/* A line for the caller: a bench event, or (run != 0) a line from a task's own run. */
struct note {
	char *line;
	int run;
};

struct sched {
	const struct kp_bench_opts *o;
	struct kp_bench *b;
	struct kp_store *db; /* the shard database */
	int lock_fd;
	int k, m;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct sched_task *ts;
	size_t n;
	struct slot *slots;
	int nslots, running_slots;
	long runnable; /* tasks to (re)start when the session began */
	struct note *notes;
	size_t nnotes, notes_alloc;
	long order_next;
	int stopping; /* no new task; the slots' stop flags are set */
	enum kp_bench_end end;
	int fatal; /* a failure that would fail every task: fatal_err */
	struct kp_error fatal_err;
	long started, finished, failed;
	long session_evals;      /* candidate evaluations this session committed, every task */
	long session_baselines;  /* baselines this session measured */
	double t0, prev_elapsed; /* this session's start; earlier sessions' time */
	long session;
	double ended_wall, ended_count;   /* tasks ended in this session: their wall time, for the ETA */
	struct kp_search_budget override; /* per-task limits given on command lines, accumulated */
	unsigned override_which;
	struct kp_search_budget suite_budget;
	const char *evaluator; /* the spec in force */
	char *exec;            /* "PROGRAM ARGS" of an exec evaluator, or NULL */
	int baselines, compile;
};

/* Queues a line for the caller (under mu). */
void kp__sched_note(struct sched *S, int run, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Writes the task's row (under mu); a failure is fatal for the bench. */
void kp__sched_put(struct sched *S, struct sched_task *st);
/* Stops every slot after its current step (under mu). */
void kp__sched_stop(struct sched *S, enum kp_bench_end why);
/* Records a failure that would fail every task and stops (under mu; the first one wins). */
void kp__sched_fatal(struct sched *S, const struct kp_error *err);

/* task.c: the jobs a slot does, called without mu. */
void kp__task_baseline(struct slot *sl, struct sched_task *st);
void kp__task_run(struct slot *sl, struct sched_task *st);
/* The record's numbers into st->rec from p.record (under mu). */
void kp__task_load_record(struct sched_task *st);

#endif
