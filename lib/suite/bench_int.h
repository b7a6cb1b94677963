/* Inside lib/suite's runner: the open suite and the helpers its files share. */
#ifndef KP_BENCH_INT_H
#define KP_BENCH_INT_H

#include "kernelpro/bench.h"
#include "kernelpro/suitedb.h"

struct kp_bench {
	char *dir;
	char *name;
	struct kp_suitedb_task *tasks; /* the frozen list, in index order (tasks[i].idx == i) */
	size_t ntasks;
	struct kp_run_settings settings;      /* what each task's new run gets */
	struct kp_search_budget budget;       /* per task */
	struct kp_search_budget suite_budget; /* the whole suite; zeros: none */
	struct kp_bench_baselines baselines;
	json_t
	    *context; /* what suite.db records of its making: created, kernelpro, argv, settings, budgets */
};

/* Replaces the limits of `cur` named in `which` (KP_RUN_LIMIT_*) with those of `b`. */
void kp__bench_budget_merge(struct kp_search_budget *cur, const struct kp_search_budget *b, unsigned which);

/* SUITE/shards/K-of-M.db (and .lock with ext "lock"), appended to out. */
void kp__bench_shard_path(struct kp_buf *out, const char *dir, int k, int m, const char *ext);
/* shardlock.c: the flock on SUITE/shards/K-of-M.lock, its holder's identity written inside. */
struct kp__shardlock_req {
	const char *dir; /* the suite */
	int k, m;
	const char *argv_text; /* recorded with the owner */
	double wait_s;         /* how long to wait out a holder that has ended; 0: 300, < 0: not */
	const volatile sig_atomic_t *stop; /* set: stop waiting (KP_ECANCELED) */
};

/*
 * Takes the shard's lock into *fd (the caller closes it, which releases it). A lock held by a live
 * process (another element, a local bench, a holder kernelpro cannot see) is refused at once with
 * KP_EEXISTS naming it; one whose holder has ended (an earlier run of this Slurm element, a Slurm
 * job squeue/sacct shows ended, a dead pid on this host) is retried for up to wait_s, then refused
 * with KP_EEXISTS too. kp_bench_busy() is true for both.
 */
int kp__shardlock_take(const struct kp__shardlock_req *r, int *fd, struct kp_error *err);

/* SUITE/runs/NAME, appended to out. */
void kp__bench_run_dir(struct kp_buf *out, const char *dir, const char *name);

/* The per-task settings a list file gave (suite.db tasks.settings) into set (released by the caller). */
void kp__bench_task_settings(const struct kp_suitedb_task *t, struct kp_bench_task_settings *set);
void kp__bench_task_settings_release(struct kp_bench_task_settings *set);

/* rejudge.c: a re-judged kernel's settings (kernel, kernel_source, recorded) into and out of the JSON. */
void kp__bench_kernel_settings_to_json(const struct kp_bench_task_settings *set, json_t *o);
void kp__bench_kernel_settings_from_json(struct kp_bench_task_settings *set, const json_t *o);

/* What a baseline is measured with (lib/suite/baseline.c). */
struct kp__bench_baseline_req {
	const struct kp_task *task;
	const char *sha256;              /* the task's content hash (suite.db) */
	const struct kp_eval_opts *eval; /* its gpu is the slot's */
	int compile;                     /* torch.compile too (KernelBench tasks) */
	const char *exec;                /* "PROGRAM ARGS" of an exec evaluator, or NULL: the harness */
	const char *gpu_name;            /* the device's name: part of the cache key (harness) */
	const char *cache_dir;           /* NULL: $KERNELPRO_CACHE/baselines, else the user cache's */
};

/*
 * The task's baseline as a kernelpro.baseline/1 document (new reference in *doc): from the cache
 * when this content was measured on a GPU of this name with this protocol, else measured now (the
 * harness: kp_eval_baseline; an exec evaluator: its program with KP_EVAL_ROLE=baseline) and cached.
 */
int kp__bench_baseline(const struct kp__bench_baseline_req *r, json_t **doc, struct kp_error *err);
/* The eager time a baseline document gives (ms), NAN when it has none. */
double kp__bench_baseline_ms(const json_t *doc, const char *which);

#endif
