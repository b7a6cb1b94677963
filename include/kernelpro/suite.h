/*
 * A suite's results and its KernelBench-compatible metrics: one record per task (correct or not,
 * best time, baselines, what the search spent), the per-suite figures computed from them
 * (correctness rate, fast_p against eager and torch.compile, geometric-mean speedups, coverage),
 * and the files a suite leaves behind: results.json (docs/bench-results.schema.json), results.csv
 * and kernels/ in the layout KernelBench's own scripts read. docs/report.md defines every figure.
 *
 * Plain data: nothing here reads a run database. A task record comes from whoever ran the task
 * (kp_suite_task_from_view reads the run view that lib/run builds), or from results.json.
 */
#ifndef KERNELPRO_SUITE_H
#define KERNELPRO_SUITE_H

#include <jansson.h>
#include <stddef.h>

#include "kernelpro/buf.h"
#include "kernelpro/error.h"
#include "kernelpro/store.h" /* enum kp_outcome, KP_OUTCOME_COUNT */

#define KP_SUITE_SCHEMA "kernelpro.bench-results/1"

/* What speedups are measured against. The names are the JSON keys. */
#define KP_SUITE_BASELINES(X) \
	X(EAGER, "eager")     \
	X(COMPILE, "torch_compile")
#define KP__SB_ENUM(n, s) KP_SUITE_##n,
enum kp_suite_baseline { KP_SUITE_BASELINES(KP__SB_ENUM) KP_SUITE_NBASE };
#undef KP__SB_ENUM
const char *kp_suite_baseline_name(enum kp_suite_baseline b);

/*
 * The thresholds fast_p is reported at (KernelBench's analysis prints the same six), and their JSON
 * keys ("0.0", "0.5", "0.8", "1.0", "1.5", "2.0"). KP_SUITE_P_FAST1 is the index of p = 1.
 */
#define KP_SUITE_NP      6
#define KP_SUITE_P_FAST1 3
/* KernelBench levels a suite summarises one by one (its tasks' level field, 1..). */
#define KP_SUITE_MAX_LEVELS 8
extern const double kp_suite_p[KP_SUITE_NP];
const char *kp_suite_p_key(int i);

/* Where a task stands. The names are the JSON values; a run's own status maps onto them. */
#define KP_SUITE_STATES(X)                                                          \
	X(PENDING, "pending")   /* not started */                                   \
	X(RUNNING, "running")   /* started and not ended (or killed) */             \
	X(STOPPED, "stopped")   /* stopped by the user before its budget ran out */ \
	X(FINISHED, "finished") /* ended: budget spent or search exhausted */       \
	X(FAILED, "failed")     /* ended on an error */
#define KP__SS_ENUM(n, s) KP_SUITE_##n,
enum kp_suite_state { KP_SUITE_STATES(KP__SS_ENUM) KP_SUITE_NSTATE };
#undef KP__SS_ENUM
const char *kp_suite_state_name(enum kp_suite_state s);
/* -1 when `name` is none of the names above. */
int kp_suite_state_parse(const char *name);

/*
 * One task. Times are milliseconds, NAN when not measured; every count and sum is finite and
 * >= 0. Strings are owned by the record (kp_suite_task_release frees them).
 */
struct kp_suite_task {
	char *name; /* the task's name (required) */
	char *run;  /* its run directory, NULL when none */
	char *kind; /* "kernelbench", "native", or NULL */
	int level;  /* KernelBench level and problem id (from .../levelN/ID_Name.py); 0: none */
	int problem_id;
	enum kp_suite_state state;
	int correct;    /* some version other than the reference passed its checks */
	long best_node; /* the fastest correct version (run-database id); 0 when none */
	/*
	 * The task's best version in the one sense the pages use: the run's best when it beat the
	 * reference, else 0 (the best is the reference itself). best_node is what the metrics score
	 * (as KernelBench scores a submitted kernel), so it can be slower than the reference.
	 */
	long improved_node;
	double best_ms;                 /* its time; required when correct */
	double ref_ms;                  /* the reference, timed by the run beside its candidates */
	double base_ms[KP_SUITE_NBASE]; /* the baselines the speedups divide */
	char
	    *eager_from; /* where base_ms[EAGER] came from: "baseline" (measured alone) or "run" (= ref_ms) */
	long outcomes[KP_OUTCOME_COUNT]; /* verdicts of every evaluated version but the reference */
	long evaluations, tokens_in, tokens_out;
	double cost_usd, elapsed_s;
	double energy_j, ref_energy_j; /* J per call of the fastest version and of the reference; NAN */
	char *lang; /* the fastest version's language ("cuda", "python") and source; NULL */
	char *source;
	/* Set by kp_suite_compute: base_ms / best_ms when correct and both are measured, else NAN. */
	double speedup[KP_SUITE_NBASE];
	/* Set by kp_suite_write: the exported kernel's path relative to the output directory, or NULL. */
	char *kernel;
	char *reason; /* why the task failed or stopped (kernelpro bench), or NULL */
	/*
	 * A task with no correct version: its latest evaluated version (run-database id; 0: none), that
	 * version's outcome, the check that refused or failed it (NULL when none did, as for a compile
	 * error) and the message (the check's, else the verdict's). All NULL/0 for a correct task.
	 */
	long failure_node;
	char *failure_outcome, *failure_check, *failure_message;
	/* Mean times over the same trials (KernelBench reports the mean), NAN when not recorded. */
	double best_mean_ms, ref_mean_ms;
	/* Where the task ran: the GPU its run recorded and the model (as --llm names it); NULL unknown. */
	char *gpu, *model;
	/*
	 * The task's place on the roofline, from the Stage-1 profile of the fastest correct version, else
	 * of the reference (roofline_node says which; 0: no profile): its bottleneck class ("memory",
	 * "compute", ...), arithmetic intensity (FLOP per DRAM byte) and roof_share: achieved FLOP/s over
	 * the roof at that intensity (min(compute peak, memory peak x intensity)), 1 on the roof.
	 */
	long roofline_node;
	char *bottleneck;
	double ai, roof_share;
	int cost_known; /* the model's price was known (or the model costs nothing): cost_usd is not a guess
	                 */
	char *problem_file; /* a KernelBench task's file name ("19_ReLU.py"); NULL otherwise */
	double base_mean_ms[KP_SUITE_NBASE]; /* the baselines' means, NAN when not recorded */
};

void kp_suite_task_init(struct kp_suite_task *t);
void kp_suite_task_release(struct kp_suite_task *t);

/* The figures for one baseline. Denominators follow KernelBench (docs/report.md, "fast_p"). */
struct kp_suite_base_stats {
	long n;                     /* tasks with this baseline measured: the denominator */
	long correct;               /* of which correct */
	long missing;               /* tasks without this baseline, left out of n (as KernelBench does) */
	double fast_p[KP_SUITE_NP]; /* (correct and speedup > p) / n; NAN when n == 0 */
	double geomean_correct;     /* over the correct tasks; NAN when none */
	double geomean_all; /* over all n, a task with no correct version counting 1.0; NAN when n == 0 */
};

/* One KernelBench level's figures (docs/report.md, "Per level"). */
struct kp_suite_level {
	int level;
	long tasks, correct;
	struct kp_suite_base_stats base[KP_SUITE_NBASE];
};

struct kp_suite_summary {
	long tasks;
	long states[KP_SUITE_NSTATE];
	long correct;
	double correctness_rate; /* correct / tasks; NAN when no tasks */
	double coverage;         /* (finished + failed) / tasks: tasks whose result is final; NAN */
	struct kp_suite_base_stats base[KP_SUITE_NBASE];
	long outcomes[KP_OUTCOME_COUNT];
	long evaluations, tokens_in, tokens_out;
	double cost_usd, elapsed_s;
	long energy_tasks;           /* correct tasks with both energies measured */
	double energy_ratio_geomean; /* geomean of energy_j / ref_energy_j over those; NAN when none */
	struct kp_suite_level levels[KP_SUITE_MAX_LEVELS]; /* the levels present, in increasing order */
	size_t nlevels;
	long cost_unknown; /* tasks whose model had no known price: cost_usd is a lower bound */
};

/*
 * Where and how a suite ran, as results.json's "context" carries it: the GPUs and models its tasks
 * recorded (distinct, in task order), kernelpro's version, when the document was written, and the
 * suite's wall time and settings when the caller knows them (kernelpro bench). Owned by the suite.
 */
struct kp_suite_context {
	double wall_s;    /* the suite's wall time (seconds; NAN unknown): not the sum of task times */
	char *created;    /* when the suite was made (its recorded UTC stamp); NULL unknown */
	json_t *settings; /* the suite's settings (search, budget, evaluator, model); NULL unknown */
};

struct kp_suite {
	char *name;
	struct kp_suite_task *v;
	size_t n, alloc;
	struct kp_suite_summary sum; /* valid after kp_suite_compute */
	json_t *rejudge; /* a re-judged suite's side-by-side document (kp_rejudge_table), or NULL; owned */
	struct kp_suite_context ctx;
};

/* ---- Lifecycle ----------------------------------------------------------------------------------- */

void kp_suite_init(struct kp_suite *s, const char *name);
void kp_suite_release(struct kp_suite *s);
/* Appends a task, taking over its strings (*t is left initialised, empty). */
void kp_suite_add(struct kp_suite *s, struct kp_suite_task *t);

/* ---- Metrics ------------------------------------------------------------------------------------- */

/*
 * Checks every record and computes the speedups and the summary. Refused with KP_EINVAL, naming
 * the task and the field: a time that is negative, zero or infinite; a count or sum that is
 * negative, NaN or infinite; a correct task without best_ms; a task without a name.
 */
int kp_suite_compute(struct kp_suite *s, struct kp_error *err);

/* Checks one record as kp_suite_compute does and sets its speedups (NAN on a refusal). */
int kp_suite_task_check(struct kp_suite_task *t, struct kp_error *err);

/* fast_p at any p >= 0 against baseline b (the curve the report draws); NAN when n == 0. */
double kp_suite_fast_p(const struct kp_suite *s, enum kp_suite_baseline b, double p);

/* ---- Documents ------------------------------------------------------------------------------------- */

/* The whole results document (after kp_suite_compute). New reference. */
json_t *kp_suite_to_json(const struct kp_suite *s);

/*
 * Reads the tasks of a results document into `s` (its summary is recomputed, not trusted), then
 * runs kp_suite_compute. Errors name the task and the field; JSON numbers that are NaN or
 * infinite never parse, and -1 for "not measured" (KernelBench's runtime) is refused: use null.
 */
int kp_suite_from_json(struct kp_suite *s, const json_t *doc, struct kp_error *err);

/* One task's record as it appears in results.json's "tasks" (new reference), and back (the strings
 * are the record's; a field not measured is null). kp_suite_task_from_json does not check ranges:
 * kp_suite_task_check does. */
json_t *kp_suite_task_to_json(const struct kp_suite_task *t);
int kp_suite_task_from_json(struct kp_suite_task *t, const json_t *o, struct kp_error *err);

/* One header line and one line per task, RFC 4180 quoting, empty cells for values not measured. */
void kp_suite_csv(const struct kp_suite *s, struct kp_buf *out);

/*
 * Writes DIR/results.json, DIR/results.csv and DIR/kernels/ (creating DIR): the fastest correct
 * version of each task, a KernelBench task's as kernels/level_L_problem_P_sample_S_kernel.py
 * (S counts repeats of one problem from 0), any other as kernels/<name>.<cu|py>. Sets each task's
 * `kernel`. A KernelBench kernel that uses kernelpro's fast path is written self-contained (the fast
 * path inlined: lib/suite/kbexport.c). Then kp_suite_write_kernelbench. No eval_results.json goes
 * beside kernels/: KernelBench's eval_from_generations.py would take it as finished work.
 */
int kp_suite_write(struct kp_suite *s, const char *dir, struct kp_error *err);
/*
 * kp_suite_write's KernelBench files: DIR/kernelbench/level<L>/eval_results.json (kernelpro's verdict
 * on each KernelBench task of level L in KernelBench's format, its run_name being "level<L>") and
 * DIR/kernelbench/baseline_time_torch.json and baseline_time_torch_compile_inductor_default.json (its
 * results/timing format). KernelBench's scripts/benchmark_eval_analysis.py reads them with
 * eval_results_dir=DIR/kernelbench baseline_file=DIR/kernelbench/baseline_time_torch.json. Each task's
 * runtime and baseline use one statistic: the mean when both were recorded, else the median (said
 * in the entry). Nothing is written for a suite without KernelBench tasks.
 */
int kp_suite_write_kernelbench(const struct kp_suite *s, const char *dir, struct kp_error *err);

/* ---- From a run ------------------------------------------------------------------------------------ */

/*
 * Fills a task record from a run view (kernelpro.run-view/1, docs/report.md): the task's name,
 * kind and KernelBench ids, the run's status, the fastest correct version other than the
 * reference (ties: the lower id) with its source, the outcome counts and what the run spent.
 * The eager baseline is the view's "baseline" (kernelpro baseline --json) when it has one, else
 * the run's own reference time; torch.compile only from the baseline.
 */
int kp_suite_task_from_view(struct kp_suite_task *t, const json_t *view, struct kp_error *err);

/*
 * One suite task record from the run in run_dir (kp_suite_task_init'ed by the caller): its view
 * (kp_run_view) through kp_suite_task_from_view, and the fastest correct version's source and language.
 */
int kp_suite_task_from_run(const char *run_dir, struct kp_suite_task *t, struct kp_error *err);

/*
 * A suite from a directory: DIR/results.json when there is one (kernelpro.bench-results/1), else
 * every subdirectory of DIR that holds a run (sorted by name), one task each, with the fastest
 * correct version's source. `s` is initialised by the caller; kp_suite_compute has run on success.
 */
int kp_suite_load_dir(const char *dir, struct kp_suite *s, struct kp_error *err);

/* Whether `dir` looks like a suite: not a run itself, and results.json or runs under it. */
int kp_suite_is_dir(const char *dir);

#endif
