/* Evaluation: build a candidate, check it against the reference, time both, refuse to be fooled. */
#ifndef KERNELPRO_EVAL_H
#define KERNELPRO_EVAL_H

#include <jansson.h>
#include <stddef.h>

#include "kernelpro/buf.h"
#include "kernelpro/child.h"
#include "kernelpro/error.h"
#include "kernelpro/strvec.h"
#include "kernelpro/task.h"

/*
 * One evaluation = one verdict. Every evaluation runs its GPU work in a fresh
 * child process with time limits, so a crash, an illegal address, a hang or
 * an out-of-memory costs one verdict and nothing else. docs/eval.md is the
 * user's page; docs/internals/eval.md the protocol between kernelpro and the
 * harness drivers; docs/verdict.schema.json the JSON form of a verdict.
 *
 * Typical use (the search):
 *
 *	struct kp_eval_opts o;
 *	struct kp_verdict v;
 *	kp_eval_opts_init(&o);
 *	o.gpu = 1;
 *	o.floor_time_s = stage1.floor_time_s;
 *	kp_verdict_init(&v);
 *	if (kp_eval_file(&task, "cand.py", &o, &v, &err) < 0)
 *		... the evaluation itself could not run (no GPU, no python3): err says why
 *	else if (v.status == KP_STATUS_CORRECT)
 *		... v.speedup, v.runtime.median_ms
 *	else
 *		... v.message and v.log go back to the LLM
 *	kp_verdict_release(&v);
 */

/* What happened to a candidate. Persisted by name (kp_status_name), never by number. */
enum kp_status {
	KP_STATUS_NONE = 0,            /* not evaluated */
	KP_STATUS_COMPILED = 1,        /* built; not run (opts.build_only) */
	KP_STATUS_CORRECT = 2,         /* matches the reference on every trial; timed unless disabled */
	KP_STATUS_COMPILE_ERROR = 3,   /* nvcc / load_inline / Python syntax or import failed */
	KP_STATUS_RUNTIME_ERROR = 4,   /* crash, CUDA error (illegal address ...), out of memory, exception */
	KP_STATUS_TIMEOUT = 5,         /* a phase passed its time limit */
	KP_STATUS_WRONG_OUTPUT = 6,    /* ran, but an output differs (values, NaN, shape or dtype) */
	KP_STATUS_CHEAT_SUSPECTED = 7, /* refused by an anti-cheat check (v.flags says which) */
};

const char *kp_status_name(enum kp_status s); /* "correct", "wrong_output", ... "none" */
int kp_status_parse(const char *s, enum kp_status *out);

/* ---------------------------------------------------------------------------------------------- */
/* Anti-cheat checks. Each has a stable id; `kernelpro eval --explain-checks` prints this table.  */

enum kp_check_severity {
	KP_SEV_WARN = 1,   /* recorded in v.flags; the verdict stands */
	KP_SEV_REFUSE = 2, /* the verdict becomes cheat_suspected */
	KP_SEV_FAIL = 3,   /* the output is wrong: the verdict becomes wrong_output (degenerate outputs) */
};
const char *kp_check_severity_name(enum kp_check_severity s); /* "warn", "refuse", "fail" */
int kp_check_severity_parse(const char *s, enum kp_check_severity *out);

enum kp_check_stage {
	KP_CHECK_STATIC = 1,  /* reads the candidate's source before anything is built */
	KP_CHECK_DYNAMIC = 2, /* measured while the candidate runs */
};

enum kp_check_applies {
	KP_APPLIES_KERNELBENCH = 1 << 0,
	KP_APPLIES_NATIVE = 1 << 1,
	KP_APPLIES_BOTH = 3,
};

struct kp_check_info {
	const char *id;          /* "torch_fallback", "host_time", ... */
	enum kp_check_stage stage;
	enum kp_check_severity severity;
	unsigned applies;        /* KP_APPLIES_* */
	const char *title;       /* one line */
	const char *explain;     /* what it catches, how, and what a false alarm would look like */
};

/* The check table, in the order `--explain-checks` lists it. */
const struct kp_check_info *kp_checks(size_t *n);
const struct kp_check_info *kp_check_find(const char *id);

/* One raised check. */
struct kp_flag {
	char check[32];          /* a kp_check_info id */
	enum kp_check_severity severity;
	char *message;           /* what was seen, with the evidence (line number, times, values) */
};

/* ---------------------------------------------------------------------------------------------- */
/* Options.                                                                                       */

/* Which tolerance applies when neither the task nor opts set one. */
enum kp_tol_mode {
	KP_TOL_CURRENT = 0, /* KernelBench HEAD: 1e-4 for fp32, 1e-2 for fp16/bf16 */
	KP_TOL_KB_V01 = 1,  /* KernelBench v0/v0.1: 1e-2 for every precision (for comparing with papers) */
};

struct kp_eval_opts {
	int gpu;                 /* device index (of CUDA_VISIBLE_DEVICES when that is set); default 0 */
	long seed;               /* 42: weights, then the per-trial seeds are drawn from it */
	int correct_trials;      /* 5 correctness trials, fresh inputs each */
	int warmup;              /* 3 warm-up runs before timing */
	int timing_trials;       /* 100 timed trials ... */
	int discard_first;       /* ... after 1 discarded one */
	int time_candidate;      /* 1: time a correct candidate; 0: correctness only */
	int time_reference;      /* 1: time the reference in the same child, for v.speedup */
	int l2_flush;            /* 1: write 256 MB before each timed trial (cold L2, as KernelBench) */
	int build_only;          /* 1: stop after building; status compiled */
	int gpu_lock;            /* 1: the harness holds the GPU's lock (<build cache>/gpu-locks/) while it
				  * uses the GPU, not while it builds: evaluations that share a GPU
				  * (bench --per-gpu) build side by side and run one at a time */
	double atol, rtol;       /* NAN: the task's, else the default for its precision */
	enum kp_tol_mode tol_mode;

	/* Time limits, seconds (each phase separately; docs/eval.md lists the defaults). */
	double build_timeout_s;  /* 300: nvcc, or the Python import with load_inline */
	double check_timeout_s;  /* 180: load the models and run the correctness trials */
	double timing_timeout_s; /* 300: warm-up and timing of candidate and reference */

	/* Anti-cheat inputs. */
	double floor_time_s;     /* a floor given by the caller (Stage 1's floor_time_s, --floor); NAN: the
				  * floor kernelpro measures itself (kp_eval_floor) */
	double floor_slack;      /* refuse when runtime < floor_time_s * floor_slack; default 0.9 */
	double excessive_speedup;/* warn when speedup is above this (KernelBench's flag); default 10 */
	const char *const *allow_checks; /* NULL-terminated check ids to switch off; NULL: none */

	/* Energy (issue 8): after timing, run the candidate back-to-back for loop_s seconds (and then
	 * the reference, when time_reference) and report the windows in v.loop / v.ref_loop. Sample
	 * NVML from another thread during kp_eval_*; the windows are in kp_now()'s clock. 0: off. */
	double loop_s;

	/* 1: also time torch.compile(reference) in the same child (KernelBench tasks), for
	 * v.speedup_compile; it costs the compile time (tens of seconds). Default 0. */
	int time_compiled;

	/* Tools and places. NULL: the defaults in parentheses. */
	const char *cache_dir;   /* build cache ($KERNELPRO_CACHE or kp_cache_dir()/builds) */
	const char *work_dir;    /* scratch for this evaluation (a fresh temp dir, removed after) */
	const char *python;      /* python3 with torch ($KERNELPRO_PYTHON, else python3 on PATH) */
	const char *nvcc;        /* ($CUDA_HOME/bin/nvcc, /usr/local/cuda/bin/nvcc, else PATH) */
	const char *arch;        /* "sm_90" (from the GPU when one is visible, else sm_90) */
	const char *const *nvcc_flags; /* NULL-terminated extra nvcc flags (part of the cache key) */
	int keep_work;           /* 1: leave work_dir behind (its path is in v.work_dir) */
	int sanitize;            /* 1: after an illegal or misaligned address, run the candidate once under
				  * compute-sanitizer memcheck and add its report to v.log (default 1) */

	/* Throughput (issue 12). */
	int worker;              /* 1: kp_eval_file/source run the harness in the warm worker for opts.gpu
				  * (started when none runs; a cold start when it cannot be had). Default 0 */
	int worker_off;          /* 1: never the warm worker, even where the task kind uses it by default
				  * (optimize on KernelBench tasks): bench --no-worker, and bench --per-gpu,
				  * whose slots would otherwise queue on the GPU's one worker. Default 0 */
	int cpu_inputs;          /* 1: KernelBench get_inputs() on the CPU, KernelBench's exact values (slow
				  * for large inputs); 0: on the GPU, same distributions (default) */
};

/* Fills in the defaults above. */
void kp_eval_opts_init(struct kp_eval_opts *o);

/* ---------------------------------------------------------------------------------------------- */
/* Verdicts.                                                                                      */

/* Runtime statistics over the timed trials, milliseconds. NAN and trials == 0 when not measured. */
struct kp_timing {
	double median_ms, mean_ms, std_ms, min_ms, max_ms;
	int trials;
	double host_median_ms;   /* host wall time around each call with a full device sync */
};

/* A back-to-back run window for energy measurement (opts.loop_s). iterations == 0: none. */
struct kp_loop {
	long iterations;
	double t0, t1;           /* kp_now() seconds (CLOCK_MONOTONIC, shared by every process) */
};

/*
 * The floor: the time no correct kernel can beat on this GPU. Bytes: the inputs read once and the
 * outputs written once, at the GPU's datasheet DRAM bandwidth (outputs up to the L2 size may still be
 * in L2 when the timer stops, and without the L2 flush inputs up to its size may be there already:
 * those are not counted). FLOPs: the task's (task.json "flops") at the fastest rate the precision
 * allows; KernelBench references' matmul FLOPs, counted by PyTorch, only warn (flop_floor): a
 * reference may do work an honest kernel skips (diagonal, triangular, masked products).
 */
struct kp_floor {
	double time_s;           /* the refusing floor (below_floor); NAN when unknown */
	double bytes;            /* counted bytes (inputs + outputs, or task.json min_bytes); NAN */
	double in_bytes, out_bytes; /* the inputs' and outputs' share, as the harness measured them; NAN */
	double dram_bytes;       /* of those, the ones that must cross DRAM inside the timed window */
	double flops;            /* task.json flops, or the reference's counted matmul FLOPs; NAN */
	int flops_counted;       /* 1: flops were counted on the reference (warn only) */
	double flop_time_s;      /* flops at compute_peak; NAN */
	double dram_bw, compute_peak; /* the GPU's datasheet figures used, bytes/s and FLOP/s */
	char source[16];         /* "given" (opts.floor_time_s), "measured", or "" (none) */
	char gpu[32];            /* the spec key ("h200-sxm"), or "" when the GPU is not in the table */
};

/* The extra correctness trial with inputs scaled (docs/eval.md, "Inputs that expose tiny outputs"). */
struct kp_scaled_trial {
	char status[16];         /* "passed", "failed", "skipped" (reason says why), "off", or "" (not run) */
	double scale;            /* the factor floating-point inputs were multiplied by; NAN */
	char *reason;            /* why it was skipped or failed; may be NULL */
};

/* One part of the harness's correctness phase (docs/eval.md, "Where the time goes"). */
#define KP_TIME_PARTS_MAX 16
struct kp_time_part {
	char name[24];  /* "inputs", "reference", "candidate", "compare", ..., "other" */
	double seconds; /* in this part, without the parts run inside it */
	int calls;      /* how many times it ran; 0 for "other" (the time in no part) */
	double longest; /* its longest single run, seconds */
};

struct kp_verdict {
	enum kp_status status;
	unsigned compiled : 1;    /* the candidate built (Python sources: imported) */
	unsigned correct : 1;     /* status == KP_STATUS_CORRECT */
	unsigned build_cached : 1;/* the .so came from the build cache */
	char *message;            /* one line: what happened ("3 of 5 trials differ: max |diff| 0.51 ...") */
	char *log;                /* the excerpt an LLM needs to fix it: compiler errors, exception with
				   * traceback, mismatch detail, check evidence. May be NULL. */
	char *phase;              /* where it ended: "static", "build", "load", "correctness", "timing",
				   * "loop", "done" */
	char source_sha256[65];   /* of the candidate source */
	char *artifact;           /* the built shared library, when there is one (in the cache) */
	char *work_dir;           /* set when opts.keep_work */
	char *timeline;           /* where the harness child spent its time, seconds per phase:
				   * "start 1.84, build 0.92, load 0.01, correctness 1.10, timing 0.41"; or NULL */
	char *build_note;         /* how the candidate's load_inline builds were made (the shared
				   * precompiled header, the light cuda.cu header, or why not); or NULL */

	int trials_run, trials_passed;
	double max_abs_diff;      /* worst over the trials; NAN when nothing was compared */
	double mean_abs_diff;
	double atol, rtol;        /* what was applied */

	struct kp_timing runtime;     /* the candidate */
	struct kp_timing ref_runtime; /* the reference, same protocol, same child */
	double speedup;           /* ref_runtime.median_ms / runtime.median_ms; NAN when either is missing */
	struct kp_timing compiled_ref_runtime; /* torch.compile(reference), when opts.time_compiled */
	double speedup_compile;   /* compiled_ref_runtime.median_ms / runtime.median_ms; NAN when not measured */
	double io_bytes;          /* bytes of one call's inputs and outputs (Stage 1's min_bytes); NAN */
	double flops;             /* the task's FLOPs (task.json, or counted on the reference); NAN */

	/* What both sides ran at, so a speedup can be read honestly. */
	char precision[8];        /* the task's floating-point precision both models ran at ("f32"), or "" */
	char ref_precision[8], cand_precision[8]; /* the dtypes the outputs came back in */
	int tf32_ref, tf32_cand;  /* 0: TF32 was off, 1: on, -1: unknown */
	char tol_source[32];      /* where atol/rtol came from: "default", "kernelbench-v0.1", "task", "option" */
	char reference[24];       /* what the speedup is over: "eager PyTorch", "reference.cu" */

	struct kp_floor floor;
	struct kp_scaled_trial scaled;

	struct kp_flag *flags;    /* raised checks, in the order raised */
	size_t nflags;

	struct kp_loop loop, ref_loop;

	int gpu;
	char gpu_name[64];
	double build_s, run_s, total_s; /* wall seconds: build, harness child, whole evaluation */
	struct kp_time_part parts[KP_TIME_PARTS_MAX]; /* where the correctness phase's seconds went, in */
	size_t nparts;                                /* the order read; they sum to the phase */

	json_t *sandbox;          /* what the evaluation child's sandbox enforced (docs/eval.md, "The
				   * sandbox"): the harness's "sandbox" object; NULL when it reported none */
	json_t *evidence;         /* what the candidate ran (docs/eval.md, "Runtime evidence"): the adapter's
				   * "runtime_evidence" object; NULL when it reported none */
};

void kp_verdict_init(struct kp_verdict *v);
/* Frees what the verdict holds and re-initialises it. Safe twice. */
void kp_verdict_release(struct kp_verdict *v);

/* Adds a flag (the message is copied); a refusing flag sets status to cheat_suspected. */
void kp_verdict_flag(struct kp_verdict *v, const char *check, enum kp_check_severity sev, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The first flag with this check id, or NULL. */
const struct kp_flag *kp_verdict_find_flag(const struct kp_verdict *v, const char *check);
/* After a refusing flag (the last one): the verdict's message becomes "refused by check 'ID': summary"
 * and its log the flag's evidence. */
void kp_verdict_refused(struct kp_verdict *v, const char *check, const char *summary);

/*
 * Refuses numbers no measurement gives, before anything ranks by them (check implausible_result):
 * times (ms) must be finite and in [KP_EVAL_MIN_MS, KP_EVAL_MAX_MS], a standard deviation finite and
 * >= 0, a speedup finite and in (0, KP_EVAL_MAX_SPEEDUP] and, when both times are given, within 25% of
 * ref_time_ms / time_ms; energy finite and >= 0. NAN means "not measured" and passes. `what` starts
 * the message. Returns 0, or KP_EPARSE with err set. The search calls it on every evaluator's result.
 */
#define KP_EVAL_MIN_MS 1e-6      /* 1 ns: below any CUDA event's resolution */
#define KP_EVAL_MAX_MS 1e7       /* 2.8 hours for one call */
#define KP_EVAL_MAX_SPEEDUP 1e6
int kp_eval_numbers_check(const char *what, double time_ms, double time_std_ms, double ref_time_ms,
			  double speedup, double energy_j, struct kp_error *err);

/*
 * The speedup as a claim that can be checked, one line, appended to out: "1.62x over eager PyTorch
 * (0.41 ms vs 0.66 ms, median of 100), 1.2x over torch.compile; both in f32 with TF32 off, outputs
 * within atol=rtol=1e-4 (default for f32) on 5 trials and the scaled trial". Nothing for verdicts
 * without a speedup.
 */
void kp_verdict_speedup_text(const struct kp_verdict *v, struct kp_buf *out);

/* The verdict as JSON (docs/verdict.schema.json); new reference. */
json_t *kp_verdict_to_json(const struct kp_verdict *v);
/* Reads it back (the run database stores verdicts as JSON). Unknown keys are ignored. */
int kp_verdict_from_json(struct kp_verdict *v, const json_t *j, struct kp_error *err);

/* ---------------------------------------------------------------------------------------------- */
/* Evaluating.                                                                                    */

/*
 * Evaluates the candidate in `path` (KernelBench tasks: a .py defining
 * ModelNew; native tasks: a .cu with the task ABI) against `task`.
 *
 * Returns 0 with a verdict in `v` whatever the candidate did, including
 * compile errors, crashes and refusals. Returns a negative KP_E... code when
 * the evaluation itself could not be done (KP_ENOTOOL: nvcc, python3, torch
 * or the harness missing; KP_ENODEV: no GPU; KP_EIO) with the reason in err;
 * v is then left with status none.
 */
int kp_eval_file(const struct kp_task *task, const char *path, const struct kp_eval_opts *o,
		 struct kp_verdict *v, struct kp_error *err);

/* The same for a source in memory; `name` becomes the file name in the work directory ("cand.py"). */
int kp_eval_source(const struct kp_task *task, const char *src, size_t len, const char *name,
		   const struct kp_eval_opts *o, struct kp_verdict *v, struct kp_error *err);

/*
 * The static checks alone (no GPU, no build): adds their flags to v and, when
 * one refuses, sets status cheat_suspected with message and log. Returns 0.
 * kp_eval_* run these first.
 */
int kp_eval_static(const struct kp_task *task, const char *src, size_t len, const struct kp_eval_opts *o,
		   struct kp_verdict *v, struct kp_error *err);

/*
 * Fills v->floor from what the evaluation measured (v->io_bytes, v->flops, v->gpu_name) and the task
 * (native task.json min_bytes and flops), or from opts.floor_time_s when given. kp_eval_* call it
 * before the floor checks; exposed for tests and for callers that re-judge stored verdicts.
 */
void kp_eval_floor(const struct kp_task *t, const struct kp_eval_opts *o, struct kp_verdict *v);

/*
 * After the harness: v->speedup and v->speedup_compile, kp_eval_floor, and the checks on speed
 * (below_floor refuses; flop_floor and excessive_speedup warn). kp_eval_* call it; exposed for tests.
 */
void kp_eval_speed_checks(const struct kp_task *t, const struct kp_eval_opts *o, struct kp_verdict *v);

/* ---------------------------------------------------------------------------------------------- */
/* Baselines: the reference timed alone (eager; and torch.compile for KernelBench tasks).         */

struct kp_baseline {
	struct kp_timing eager;    /* the reference as written */
	char precision[8];         /* what it ran at ("f32"); TF32 off */
	int tf32;                  /* 0 off (always, unless the harness could not say: -1) */
	double flops;              /* counted matmul FLOPs of the reference (KernelBench), task.json flops; NAN */
	struct kp_timing compiled; /* torch.compile(model) (inductor, default mode); trials 0 for native */
	char *compile_error;       /* why torch.compile could not be timed, or NULL */
	double io_bytes;
	int gpu;
	char gpu_name[64];
	char *log;                 /* the harness's log excerpt when something failed, or NULL */
};

void kp_baseline_init(struct kp_baseline *b);
void kp_baseline_release(struct kp_baseline *b);
json_t *kp_baseline_to_json(const struct kp_baseline *b);

/* Times the reference with the same protocol as kp_eval_*. `with_compile`: also torch.compile. */
int kp_eval_baseline(const struct kp_task *task, const struct kp_eval_opts *o, int with_compile,
		     struct kp_baseline *b, struct kp_error *err);

/* ---------------------------------------------------------------------------------------------- */
/* Prepared runs for profilers and energy meters (ncu, NVML): the candidate, built and runnable.  */

/*
 * kp_eval_prepare() builds the candidate and returns the harness command
 * that, run as given (argv, extra env, `input` on stdin), loads the task,
 * checks the candidate once against the reference and then calls it
 * `iters` times inside the NVTX range "kp_candidate" (ncu: --nvtx
 * --nvtx-include "kp_candidate/"), each call followed by a stream sync. The
 * command prints the same result document as an evaluation; read it with
 * kp_eval_cmd_parse(). Compile errors come back as a verdict in `v`
 * (status compile_error) and the function returns 0 with cmd->argv empty.
 */
struct kp_eval_cmd {
	struct kp_strvec argv;
	struct kp_strvec env;    /* "NAME=value" to add to the environment */
	struct kp_buf input;     /* to write on the command's stdin */
	char *work_dir;          /* owned; removed by kp_eval_cmd_release unless opts.keep_work */
	int remove_work_dir;
	double timeout_s;        /* a sensible limit for the whole command */
	/*
	 * Python tasks: the Triton cache the run compiles into (TRITON_CACHE_DIR: one per candidate
	 * source, so a candidate compiles once and its cubins and metadata are its own); owned.
	 */
	char *triton_cache;
};

int kp_eval_prepare(const struct kp_task *task, const char *path, const struct kp_eval_opts *o, long iters,
		    struct kp_eval_cmd *cmd, struct kp_verdict *v, struct kp_error *err);
/* Runs the prepared command with kp_child (its time limit, output caps) and fills in `v`. */
int kp_eval_cmd_run(const struct kp_eval_cmd *cmd, struct kp_verdict *v, struct kp_error *err);
/* Turns a finished run of the command (run by the caller, e.g. under ncu) into a verdict. */
int kp_eval_cmd_parse(const struct kp_eval_cmd *cmd, const struct kp_child *ran, struct kp_verdict *v,
		      struct kp_error *err);
void kp_eval_cmd_release(struct kp_eval_cmd *cmd);

/*
 * KERNELPRO_SANDBOX_LIB=<libexec>/libkp_sandbox.so for a PyTorch adapter's environment, so that its
 * sandbox prelude (harness/kernelpro/sandbox.py) finds the C half; nothing when it is not
 * installed (the prelude then reports the sandbox as not applied). kp_eval_* add it themselves; a
 * process that starts the adapter another way (a fork-server worker) adds it to its own environment.
 */
void kp_eval_sandbox_env(struct kp_strvec *env);

/* ---------------------------------------------------------------------------------------------- */
/* The warm worker: evaluations that skip Python's and PyTorch's start-up (docs/eval.md).         */

/*
 * A worker is a per-GPU process (harness/kp_worker.py) that has imported PyTorch once, without
 * touching CUDA, and forks a fresh child per evaluation: each child has its own process group, time
 * limit and CUDA context, so a crash, a hang or an out-of-memory ends only that evaluation. Workers
 * are shared by every kernelpro process of the user with the same Python, harness files and GPU (a
 * Unix socket in $XDG_RUNTIME_DIR/kernelpro or /tmp/kernelpro-UID), run one evaluation at a time in
 * submission order, and exit after 10 idle minutes ($KERNELPRO_WORKER_IDLE seconds).
 *
 * The asynchronous API, for a loop that builds and asks the LLM while the GPU evaluates:
 *
 *	struct kp_eval_worker *w = NULL;
 *	struct kp_eval_job *job;
 *	if (kp_eval_worker_start(gpu, &o, &w, &err))
 *		... no worker (err says why): jobs submitted with w == NULL run cold, as kp_eval_file
 *	kp_eval_submit(w, &task, src, len, "cand.py", &o, &job, &err);  static checks, work dir, config
 *	while (!kp_eval_job_poll(job, 0))
 *		... other work; or poll() on kp_eval_worker_fd(w) and call kp_eval_job_poll(job, 0) when readable
 *	kp_eval_job_finish(job, &v, &err);                              the verdict; frees job
 *	kp_eval_worker_stop(w, 0);
 *
 * When the worker dies or misbehaves, its jobs (and every later one) run cold inside
 * kp_eval_job_finish: the same verdict, at today's start-up cost. Not thread-safe: one thread drives
 * a worker and its jobs.
 */
struct kp_eval_worker;
struct kp_eval_job;

/*
 * Connects to the worker for GPU `gpu` (an index as opts.gpu), starting one when none runs and
 * waiting until it has imported PyTorch (up to $KERNELPRO_WORKER_START_S seconds, default 180).
 * Uses o->python and the harness kernelpro finds. Returns 0 with *w set, or KP_ENOTOOL/KP_EIO with
 * *w NULL and the reason in err. Free with kp_eval_worker_stop(). kp_eval_worker_launch, then
 * kp_eval_worker_connect.
 */
int kp_eval_worker_start(int gpu, const struct kp_eval_opts *o, struct kp_eval_worker **w, struct kp_error *err);

/*
 * The early start: starts the worker for GPU `gpu` when none serves or is starting, without waiting
 * (its import runs on the CPU while the caller does other work), and returns a handle not yet
 * connected (kp_eval_worker_fd -1). Fails only when no worker can be started at all (no python3, no
 * harness, the worker directory, the fork); a worker that fails while starting is reported by
 * kp_eval_worker_connect. Stopping the handle before its worker serves ends that worker.
 */
int kp_eval_worker_launch(int gpu, const struct kp_eval_opts *o, struct kp_eval_worker **w, struct kp_error *err);

/*
 * Connects the handle (0 at once when it is): waits for the worker it launched, or one another kernelpro
 * is starting, and starts one when there is neither; after the worker went away (kp_eval_worker_fd -1),
 * connects to a new one. Errors as kp_eval_worker_start's; the handle stays, unconnected.
 */
int kp_eval_worker_connect(struct kp_eval_worker *w, struct kp_error *err);

/* The connection's descriptor, readable when a job of this worker has news; -1 when it is gone. */
int kp_eval_worker_fd(const struct kp_eval_worker *w);

/* The worker's start-up report (JSON: pid, python, torch version, preload seconds, threads); borrowed. */
const json_t *kp_eval_worker_hello(const struct kp_eval_worker *w);

/* Closes the connection (the worker stays for others; `shutdown`: asks it to exit after its current
 * job). Jobs still pending run cold when finished. A worker this handle launched that does not serve
 * yet is ended (SIGTERM), never waited for. NULL is fine. */
void kp_eval_worker_stop(struct kp_eval_worker *w, int shutdown);

/*
 * Starts one evaluation as kp_eval_source() does: static checks, work directory, toolchain, the
 * harness command (native tasks: the builds too); the harness then runs in the worker (w NULL: cold,
 * when the job is finished). `task` and `o` must stay valid until the job is finished. Returns a
 * negative code as kp_eval_source() does (no job then).
 */
int kp_eval_submit(struct kp_eval_worker *w, const struct kp_task *task, const char *src, size_t len,
		   const char *name, const struct kp_eval_opts *o, struct kp_eval_job **job, struct kp_error *err);

/*
 * kp_eval_submit in two steps, so that the part without the GPU can run ahead on other threads (a
 * pipelined search): kp_eval_stage does the static checks, the work directory, the toolchain and
 * native builds (thread-safe; `o` must outlive the job), kp_eval_job_start hands the harness run to
 * worker w (NULL or gone: it runs cold in kp_eval_job_finish). A staged job that is never started
 * runs cold when finished; kp_eval_job_discard frees a job without a verdict (a started one is killed).
 */
int kp_eval_stage(const struct kp_task *task, const char *src, size_t len, const char *name,
		  const struct kp_eval_opts *o, struct kp_eval_job **job, struct kp_error *err);
void kp_eval_job_start(struct kp_eval_worker *w, struct kp_eval_job *job);
void kp_eval_job_discard(struct kp_eval_job *job);

/* Reads the worker's news for up to timeout_ms (0: none). 1 when kp_eval_job_finish() will not wait
 * on the GPU (done, or to run cold), 0 while queued or running. */
int kp_eval_job_poll(struct kp_eval_job *job, long timeout_ms);

/* Waits for the job (running it cold when its worker is gone), fills `v` as kp_eval_source() does,
 * and frees the job. */
int kp_eval_job_finish(struct kp_eval_job *job, struct kp_verdict *v, struct kp_error *err);

#endif
