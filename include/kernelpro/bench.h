/*
 * kp_bench: a suite of tasks optimized over every GPU of a host, resumably (`kernelpro bench`).
 *
 *   SUITE/suite.db            the task list, frozen when the suite was made, and its settings
 *   SUITE/shards/K-of-M.db    where each task of shard K of M stands (a plain run is shard 0 of 1)
 *   SUITE/shards/K-of-M.lock  held by the one process working on the shard (its owner inside)
 *   SUITE/runs/NAME/          one run directory per task (lib/run), with baseline.json
 *   SUITE/results.json, results.csv, kernels/, report.html   the suite's results (kp_bench_collect)
 *
 * One process drives a shard: one slot per GPU, each a thread that takes the next task, measures
 * its baseline, and runs `optimize` on it through lib/run; evaluations of a slot are pinned to its
 * GPU and never overlap, while the slots' LLM requests run at the same time. Nothing here prints:
 * the caller gets notes and a view of every slot on its own thread. docs/bench.md is the user's
 * page, docs/internals/suite.md this module's.
 */
#ifndef KERNELPRO_BENCH_H
#define KERNELPRO_BENCH_H

#include <jansson.h>
#include <signal.h>

#include "kernelpro/buf.h"
#include "kernelpro/error.h"
#include "kernelpro/eval.h"
#include "kernelpro/run.h"
#include "kernelpro/suite.h"

#define KP_BENCH_DB        "suite.db"
#define KP_BENCH_MAX_SLOTS 64
/* The exit status of a shard another live process holds (EX_TEMPFAIL: docs/slurm.md). */
#define KP_BENCH_EXIT_BUSY 75

/* ---- Task lists: what a suite is made of ------------------------------------------------------- */

/* Settings of one task from a list file; 0 / NULL: the suite's. */
struct kp_bench_task_settings {
	struct kp_search_budget budget;
	unsigned which; /* the KP_RUN_LIMIT_* given */
	char *llm;      /* the model for this task, as --llm names it (replay directories made absolute) */
	char *name;     /* the task's run directory name */
	/* A re-judged kernel (bench --kernels, docs/rejudge.md): the run's one version is this file's
	 * source, frozen in suite.db, and `recorded` the verdict its own run recorded (JSON), or NULL. */
	char *kernel;        /* the file, absolute */
	char *kernel_source; /* its text when the suite was made */
	char *recorded;      /* kp_recorded_to_json's text */
};

struct kp_bench_entry {
	char *path; /* a KernelBench .py file or a native task directory, absolute */
	struct kp_bench_task_settings set;
};

struct kp_bench_list {
	struct kp_bench_entry *v;
	size_t n, alloc;
};

void kp_bench_list_init(struct kp_bench_list *l);
void kp_bench_list_release(struct kp_bench_list *l);
/* Appends one task (path absolute) with a copy of its settings (NULL: the suite's). */
void kp_bench_list_push(struct kp_bench_list *l, const char *path, const struct kp_bench_task_settings *set);

/*
 * Adds the tasks SOURCE names, in order: a KernelBench .py file or a native task directory (one
 * task); a directory of tasks (its .py files and native task directories, by name with numbers in
 * numeric order, so a KernelBench level runs 1, 2, ..., 10); a glob ("tasks/N_*.py", matches in
 * the same order); or a list file (kp_bench_list_parse). KP_ENOENT when nothing matches.
 */
int kp_bench_list_add_source(struct kp_bench_list *l, const char *source, struct kp_error *err);

/*
 * Parses a list file's text (`what` names it in messages; relative paths are taken from base_dir):
 * one task per line as `PATH [KEY=VALUE]...`, `#` starting a comment, blank lines ignored. PATH
 * may itself be a directory or a glob (each of its tasks gets the line's settings). Keys: evals,
 * time (90s, 30m, 2h), tokens, cost (USD), llm (a --llm spec; replay:DIR relative to base_dir), name.
 * Errors name the line and what is wrong. docs/bench.md has the format.
 */
int kp_bench_list_parse(struct kp_bench_list *l, const char *text, size_t len, const char *base_dir,
                        const char *what, struct kp_error *err);

/*
 * The same parse without touching the file system: each line's PATH (made absolute, not checked or
 * expanded) and settings, appended in order. For tests and the fuzz target.
 */
int kp_bench_list_parse_lines(struct kp_bench_list *l, const char *text, size_t len, const char *base_dir,
                              const char *what, struct kp_error *err);

/* ---- Suites: creating, finding, opening ------------------------------------------------------- */

/* `given` when set, else $KERNELPRO_SUITES when set, else "kernelpro-suites". */
const char *kp_bench_root(const char *given);
/* Whether dir holds a suite (suite.db). */
int kp_bench_is_suite(const char *dir);
/* SUITE is a suite directory or a suite's name under root; its path is appended to dir. KP_ENOENT. */
int kp_bench_resolve(const char *root, const char *suite, struct kp_buf *dir, struct kp_error *err);

/* Whether to measure baselines before optimizing (the eager reference alone; torch.compile too). */
struct kp_bench_baselines {
	int eager;   /* 1: measure each task's baseline once (cached by content and GPU) */
	int compile; /* 1: and torch.compile for KernelBench tasks (tens of seconds each) */
};

struct kp_bench_new {
	const char *root;                            /* where suites live (made when missing) */
	const char *name;                            /* NULL: LABEL-YYYYMMDD-HHMMSS (UTC) */
	const char *label;                           /* the default name's first part; NULL: "suite" */
	const struct kp_bench_list *tasks;           /* every task is loaded once to check it */
	const struct kp_run_settings *settings;      /* for each task's run; family NULL: the task's name */
	const struct kp_search_budget *budget;       /* per task; no limit at all: KP_RUN_DEFAULT_EVALS */
	const struct kp_search_budget *suite_budget; /* the whole suite; NULL or zeros: none */
	struct kp_bench_baselines baselines;
	const char *argv_text; /* recorded */
};

/*
 * Makes ROOT/NAME with suite.db holding the task list and settings: the directory appears whole
 * (built beside it, then renamed), so two processes making one suite cannot both succeed. Each
 * task gets a unique run name (its task name, with -2, -3 on a clash). KP_EEXISTS (saying how
 * to resume) when ROOT/NAME exists; the path is appended to dir.
 */
int kp_bench_create(const struct kp_bench_new *o, struct kp_buf *dir, struct kp_error *err);

/* "K/M" with 0 <= K < M <= 10000. */
int kp_bench_shard_parse(const char *text, int *k, int *m, struct kp_error *err);
/* "0,2,3" into v (at most max, no repeats, each 0..1023); *n gets the count. KP_EINVAL. */
int kp_bench_gpus_parse(const char *text, int *v, int max, int *n, struct kp_error *err);

/* A suite as the running and reporting code read it. */
struct kp_bench;

/* Opens the suite in dir (read-only: suite.db is never written after kp_bench_create). */
int kp_bench_open(struct kp_bench **out, const char *dir, struct kp_error *err);
void kp_bench_close(struct kp_bench *b);
const char *kp_bench_dir(const struct kp_bench *b);
const char *kp_bench_name(const struct kp_bench *b);
size_t kp_bench_ntasks(const struct kp_bench *b);
/* The recorded run settings new runs get, and the evaluator spec ("harness", "exec:..."). */
const struct kp_run_settings *kp_bench_settings(const struct kp_bench *b);

/* ---- Running a shard --------------------------------------------------------------------------- */

/* One GPU slot, as the session hook sees it. */
struct kp_bench_slot {
	int index;                /* 0 .. nslots - 1 */
	int gpu;                  /* the device index (as kp_eval_opts.gpu) */
	void *user;               /* kp_bench_opts.slot_user[index] */
	struct kp_eval_opts eval; /* the caller's evaluation options, pinned to this GPU */
	char gpu_name[128];       /* the device's name; "" before the first baseline or with exec */
};

/* The task a session is made for. */
struct kp_bench_task_info {
	long idx;                   /* in the suite's list */
	const char *name;           /* its run name */
	const struct kp_task *task; /* loaded */
	const char *llm;            /* the task's own model (list file), or NULL */
	int resumed;                /* its run existed: the session continues it */
	const char *kernel;         /* a re-judged kernel's file (bench --kernels: no model), or NULL */
};

struct kp_bench_hooks {
	/*
	 * Fills the session's parts for one task, on the slot's thread: the model (s->llm), toolsets,
	 * prompts, code search, shared memory, feedback, parallel (kp_runopts_session does this). The
	 * task, evaluation options, evaluator spec, stop flag and progress hooks are set by kp_bench
	 * afterwards. A failure here stops the whole bench (like a missing key).
	 */
	int (*session)(struct kp_bench_slot *slot, const struct kp_bench_task_info *t,
	               struct kp_run_session *s, void *ud, struct kp_error *err);
	/* After the session, on the same thread: releases what session() made. May be NULL. */
	void (*session_done)(struct kp_bench_slot *slot, struct kp_run_session *s, void *ud);
};

/* What one slot is doing, for the caller's progress display. */
struct kp_bench_slot_view {
	int gpu;
	int busy;              /* a task (or a baseline) is under way */
	char task[96];         /* its run name */
	char phase[64];        /* "baseline", "reference", "generating", "evaluating #12", ... */
	long evals;            /* the task's evaluations so far (all sessions) */
	long budget_evals;     /* its limit; 0: none */
	double best_speedup;   /* 1.0 until a candidate beats the reference */
	double task_elapsed_s; /* since the slot took the task */
};

/* The shard at one moment: kp_bench_opts.tick's argument. */
struct kp_bench_view {
	int nslots;
	struct kp_bench_slot_view slot[KP_BENCH_MAX_SLOTS];
	long tasks;                   /* in this shard */
	long states[KP_SUITE_NSTATE]; /* how many are in each state */
	long baselines_left;          /* baselines still to measure before the longest-first order holds */
	long correct;                 /* ended tasks with a correct version */
	long fast1;                   /* ended tasks faster than their eager baseline (speedup > 1) */
	long evaluations, tokens;     /* ended tasks and the ones under way, whole runs */
	double cost_usd;
	double elapsed_s; /* this shard, every session */
	double eta_s;     /* NAN until a task ended in this session */
};

struct kp_bench_opts {
	const char *dir;   /* the suite directory */
	int shard, shards; /* K of M; 0 of 1 (every task) when shards is 0 */
	const int *gpus;   /* device indices, one slot each */
	int ngpus;
	void *const *slot_user;          /* per slot, to the hooks; may be NULL */
	const struct kp_eval_opts *eval; /* copied per slot, gpu set to the slot's */
	const char *evaluator;           /* NULL: the suite's; "exec:..." or "harness" */
	/* New limits: replace the suite's for every task this session touches (kp_run_set_budget). */
	struct kp_search_budget budget;
	unsigned budget_which;
	struct kp_search_budget suite_budget; /* replaces the suite's limits named in suite_which */
	unsigned suite_which;
	int retry_failed; /* run the tasks that failed again */
	const struct kp_bench_hooks *hooks;
	void *ud;
	const char *argv_text;             /* recorded with the shard's session and each run's */
	const volatile sig_atomic_t *stop; /* set: no new task; every slot stops after its current step */
	double lock_wait_s; /* a lock whose holder has ended is waited out this long; 0: 300 s, < 0: not */
	/*
	 * Called on the caller's thread: each line worth telling (a task started, ended, failed ...;
	 * run 1: a line of a task's own search, "gpu1 gelu: #3: compile_error"), and the view about every
	 * tick_s seconds (0: 0.25) and once at the end. Either may be NULL.
	 */
	void (*note)(int run, const char *line, void *ud);
	void (*tick)(const struct kp_bench_view *v, void *ud);
	double tick_s;
};

/* How a shard session ended. */
enum kp_bench_end {
	KP_BENCH_DONE = 0, /* every task of the shard is finished or failed */
	KP_BENCH_STOPPED,  /* *stop was set: the tasks under way are stopped and resume */
	KP_BENCH_BUDGET,   /* the suite's budget ran out */
};

struct kp_bench_outcome {
	enum kp_bench_end end;
	long started; /* tasks this session started or resumed */
	long finished, failed;
	long evaluations;          /* candidate evaluations committed in this session */
	long baselines;            /* baselines measured in this session */
	struct kp_bench_view view; /* the last view */
};

/*
 * Runs (or resumes) shard K of M of the suite in o->dir until every task in it ended, *stop is
 * set, the suite's budget ran out, or something that would fail every task happened (no GPU, the
 * model refused the key, the disk is full: then a negative code, and the tasks under way are left
 * to resume). A task whose own run fails (its reference does not run, its evaluations crash or
 * hang the harness) is recorded as failed with the reason, and its slot goes on with the next.
 * Finished and failed tasks are never run again (failed ones: unless retry_failed). KP_EEXISTS
 * (kp_bench_busy) when another process holds the shard.
 */
int kp_bench_run(const struct kp_bench_opts *o, struct kp_bench_outcome *out, struct kp_error *err);

/* True when err is kp_bench_run's refusal of a shard another live process holds. */
int kp_bench_busy(const struct kp_error *err);

/* ---- Results ----------------------------------------------------------------------------------- */

/* One shard database found under SUITE/shards/ and what it holds. */
struct kp_bench_shard_info {
	int k, m;
	long tasks, final, running; /* rows; of which finished or failed; started and not ended */
};

struct kp_bench_collected {
	struct kp_bench_shard_info *shards;
	size_t nshards;
	long incomplete; /* tasks whose result is not final */
};

void kp_bench_collected_release(struct kp_bench_collected *c);

/*
 * The suite's results from its databases and run directories: one record per task of the list, in
 * list order, from every shard database under SUITE/shards/ (read-only; any M; a task's final row
 * wins over an unfinished one) and the task's run (its fastest correct version and its source, its
 * baseline.json). `s` is initialised by the caller; kp_suite_compute has run. c may be NULL.
 */
int kp_bench_collect(const char *dir, struct kp_suite *s, struct kp_bench_collected *c, struct kp_error *err);

/*
 * Where every task stands, from every shard database (for `--status`), as JSON (new reference):
 * {"suite", "dir", "shard_databases": [{"shard", "shards", "rows", "ended", "running"}],
 *  "tasks": [{"index", "name", "path", "state", "attempts", "gpu", "order", "started_unix_ms",
 *  "ended_unix_ms", "est_ms", "reason", "baseline_error"}]} ("order": when its shard's scheduler
 *  took it, from 1; the times are Unix milliseconds, null when not yet).
 */
int kp_bench_status(const char *dir, json_t **out, struct kp_error *err);

#endif
