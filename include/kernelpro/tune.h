/*
 * Tuning without an LLM: the knobs of a candidate (declared with KP_TUNE markers or a Python dict, or
 * derived from its launches and pragmas), constraints between them, the variant source for a choice
 * of values, and search strategies over an evaluation callback. docs/tune.md is the user's page,
 * docs/internals/tune.md the design.
 */
#ifndef KERNELPRO_TUNE_H
#define KERNELPRO_TUNE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "kernelpro/buf.h"
#include "kernelpro/error.h"
#include "kernelpro/hw.h"
#include "kernelpro/task.h"

#define KP_TUNE_MAX_KNOBS       24
#define KP_TUNE_MAX_VALUES      64
#define KP_TUNE_MAX_CONSTRAINTS 32
#define KP_TUNE_NAME_MAX        64
#define KP_TUNE_MAX_CONSTS      64
/* Sources larger than this are refused (KP_ETOOBIG): candidates are a few hundred lines. */
#define KP_TUNE_MAX_SOURCE (1u << 20)

/* ---- The space: knobs, their values, constraints ------------------------------------------------- */

enum kp_tune_lang {
	KP_TUNE_CUDA = 0,   /* .cu: KP_TUNE(...) markers, KP_TUNE_CONSTRAINT(...) */
	KP_TUNE_PYTHON = 1, /* .py: module-level KP_TUNE dict and KP_TUNE_CONSTRAINTS list */
};

/* Whether to derive knobs from launches and pragmas. AUTO: only when the source declares none. */
enum kp_tune_derive {
	KP_TUNE_DERIVE_AUTO = 0,
	KP_TUNE_DERIVE_ALWAYS = 1,
	KP_TUNE_DERIVE_NEVER = 2,
};

/* Where a knob comes from (docs/tune.md has an example of each). */
enum kp_tune_origin {
	KP_TUNE_DECLARED = 0, /* a KP_TUNE/KP_UNROLL marker, or a key of the Python KP_TUNE dict */
	KP_TUNE_BLOCK,        /* the block size of a launch: <<<grid, 256>>> or a named constant */
	KP_TUNE_BLOCK_DIM,    /* one component of a dim3 block: dim3 block(16, 16) */
	KP_TUNE_GRID_MULT,    /* the literal factor of a launch's `A * K` grid (grid-stride loops) */
	KP_TUNE_MAX_THREADS,  /* __launch_bounds__(N) when N is not the launch's block size */
	KP_TUNE_MIN_BLOCKS,   /* __launch_bounds__(N, M): M */
	KP_TUNE_UNROLL,       /* #pragma unroll N */
};
/* "declared", "block", "block_dim", "grid_mult", "max_threads", "min_blocks", "unroll". */
const char *kp_tune_origin_name(enum kp_tune_origin o);

struct kp_tune_knob {
	char name[KP_TUNE_NAME_MAX]; /* declared: as written (BLOCK); derived: kind_site (block_my_kernel) */
	enum kp_tune_origin origin;
	int line;                             /* the line of its first place in the source, 1-based */
	size_t nvalues;                       /* >= 1 */
	long long values[KP_TUNE_MAX_VALUES]; /* ascending, distinct */
	uint16_t def;                         /* index of the value the source has now: the untuned choice */
	size_t nsites;                        /* places in the source where its value is written */
};

/* One choice of value for every knob: v[k] indexes kp_tune_knob.values of knob k. A value type. */
struct kp_tune_point {
	uint16_t v[KP_TUNE_MAX_KNOBS];
};

struct kp_tune_space;

/*
 * Reads the knobs and constraints of `src` (`len` bytes, at most KP_TUNE_MAX_SOURCE); `what` names
 * the source in messages. On success *out is a new space the caller frees with kp_tune_space_free;
 * a source without any knob gives a space with zero knobs (not an error). Malformed markers or
 * constraints fail with KP_EPARSE and a message saying which line and what to write instead.
 * The space keeps a copy of the source.
 */
int kp_tune_parse(struct kp_tune_space **out, const char *what, const char *src, size_t len,
                  enum kp_tune_lang lang, enum kp_tune_derive derive, struct kp_error *err);
void kp_tune_space_free(struct kp_tune_space *s);

size_t kp_tune_nknobs(const struct kp_tune_space *s);
/* Knobs in source order; NULL when i is out of range. */
const struct kp_tune_knob *kp_tune_knob_at(const struct kp_tune_space *s, size_t i);
/* Constraints as written (declared ones) or generated (derived knobs'); NULL out of range. */
size_t kp_tune_nconstraints(const struct kp_tune_space *s);
const char *kp_tune_constraint_text(const struct kp_tune_space *s, size_t i);
/* The product of the knobs' value counts, saturating at UINT64_MAX; 1 for a space without knobs. */
uint64_t kp_tune_space_size(const struct kp_tune_space *s);
/* Hex SHA-256 of the source with every knob's places blanked, plus the knobs and their values: equal
 * for a source and each of its variants, so results cached under it are shared between them. */
const char *kp_tune_space_hash(const struct kp_tune_space *s);

/*
 * Replaces the values knob `name` takes (a user's override: `kernelpro tune --knob NAME=v1,v2`): n values
 * (1 to KP_TUNE_MAX_VALUES), sorted and deduplicated here. The value the source has now is always kept,
 * so the untuned point stays in the space. Derived knobs take positive values only. The space must be
 * bound (again) afterwards; its hash changes with its values. KP_ENOENT for an unknown name (the message
 * lists the knobs), KP_EINVAL for a bad value.
 */
int kp_tune_set_values(struct kp_tune_space *s, const char *name, const long long *values, size_t n,
                       struct kp_error *err);
/* The same from text: "NAME=v1,v2,..." (the command line's form). KP_EPARSE for malformed text. */
int kp_tune_set_values_text(struct kp_tune_space *s, const char *text, struct kp_error *err);

/* ---- Constants the constraints may name, and binding ---------------------------------------------- */

struct kp_tune_const {
	char name[KP_TUNE_NAME_MAX];
	long long value;
};

struct kp_tune_env {
	size_t n;
	struct kp_tune_const v[KP_TUNE_MAX_CONSTS];
};

void kp_tune_env_init(struct kp_tune_env *e);
/* Sets (or replaces) a constant. KP_EINVAL for a name that is not an identifier, KP_ETOOBIG when full. */
int kp_tune_env_set(struct kp_tune_env *e, const char *name, long long value, struct kp_error *err);
/*
 * The GPU's limits: WARP_SIZE, MAX_THREADS_PER_BLOCK, MAX_THREADS_PER_SM, MAX_BLOCKS_PER_SM, SM_COUNT,
 * SMEM_PER_BLOCK (the opt-in maximum of dynamic shared memory: per-SM minus the 1 KiB the driver
 * reserves), SMEM_STATIC_PER_BLOCK (48 KiB), REGS_PER_SM, REGS_PER_BLOCK, REGS_PER_THREAD.
 */
void kp_tune_env_add_hw(struct kp_tune_env *e, const struct kp_hw_spec *spec);
/* The same for this machine's first GPU, else the H200's (the names are the same on every GPU). */
void kp_tune_env_add_local_hw(struct kp_tune_env *e);
/* A native task's shapes: <tensor>_<dim> for every dimension (A_0 = 2048, A_1 = 1024). */
int kp_tune_env_add_task(struct kp_tune_env *e, const struct kp_task *t, struct kp_error *err);

/*
 * Resolves every name in the constraints against the knobs and `e` (copied). Required before
 * kp_tune_feasible and kp_tune_run; may be called again with another environment. A name that is
 * neither fails with KP_EPARSE naming it and the constants that exist.
 */
int kp_tune_bind(struct kp_tune_space *s, const struct kp_tune_env *e, struct kp_error *err);
/* 1 when every constraint holds at p (a division by zero or an overflow makes it fail), else 0. */
int kp_tune_feasible(const struct kp_tune_space *s, const struct kp_tune_point *p);
/* The feasible points, counted one by one: KP_ETOOBIG past KP_TUNE_ENUM_MAX points, KP_EINVAL unbound. */
#define KP_TUNE_ENUM_MAX (1u << 20)
int kp_tune_count_feasible(const struct kp_tune_space *s, uint64_t *count, struct kp_error *err);

/* ---- Points and variants ------------------------------------------------------------------------ */

/* The untuned choice: every knob at the value the source has now. */
void kp_tune_default_point(const struct kp_tune_space *s, struct kp_tune_point *p);
/* "BLOCK=256 ITEMS=4" in knob order; appends to out. Also the cache's key for a point. */
void kp_tune_point_format(const struct kp_tune_space *s, const struct kp_tune_point *p, struct kp_buf *out);
/* Reads "NAME=VALUE" pairs separated by spaces or commas; knobs left out keep their default. */
int kp_tune_point_parse(const struct kp_tune_space *s, const char *text, struct kp_tune_point *p,
                        struct kp_error *err);

/*
 * The source with p's values written in (appended to out): each derived knob's literals replaced, each
 * marker's and Python list's values reordered so the chosen one comes first (the variant keeps its
 * knobs and is itself tunable). At the default point the source comes back unchanged. Deterministic:
 * the build cache (lib/eval/build.c) keys the variant by this text, with the usual flags.
 */
int kp_tune_variant(const struct kp_tune_space *s, const struct kp_tune_point *p, struct kp_buf *out,
                    struct kp_error *err);

/* The knobs, values, defaults and constraints in words, one per line (for `--list` and golden tests). */
void kp_tune_space_describe(const struct kp_tune_space *s, struct kp_buf *out);
/*
 * {"hash", "size", "feasible", "knobs": [{"name", "origin", "line", "values", "default"}], "constraints":
 * [{"text", "python"}]}: "python" (present once bound) is the constraint in Python syntax with the
 * constants written as numbers, as Kernel Tuner's restrictions take it; "feasible" is present once
 * bound, when countable. New reference.
 */
json_t *kp_tune_space_to_json(const struct kp_tune_space *s);

/* ---- Strategies ------------------------------------------------------------------------------------ */

enum kp_tune_strategy {
	KP_TUNE_AUTO = 0,       /* exhaustive when every feasible point fits the budget, else bayes */
	KP_TUNE_EXHAUSTIVE = 1, /* every feasible point, in order; KP_EBUDGET when they exceed the budget */
	KP_TUNE_RANDOM = 2,     /* uniform over feasible points, without repeats */
	KP_TUNE_BAYES = 3,      /* Gaussian process (Matern 5/2) on log time, expected improvement */
};
const char *kp_tune_strategy_name(enum kp_tune_strategy s); /* "auto", "exhaustive", "random", "bayes" */
int kp_tune_strategy_parse(const char *name, enum kp_tune_strategy *out);

enum kp_tune_status {
	KP_TUNE_OK = 0,
	KP_TUNE_BUILD_FAILED = 1, /* did not compile */
	KP_TUNE_RUN_FAILED = 2,   /* crashed, launch error, time limit */
	KP_TUNE_WRONG = 3,        /* ran, output differs from the reference */
	KP_TUNE_REFUSED = 4,      /* refused by an anti-cheat check (the evaluation's cheat_suspected) */
};
/* "ok", "build_failed", "run_failed", "wrong", "refused"; kp_tune_status_parse reads them back (KP_EINVAL).
 */
const char *kp_tune_status_name(enum kp_tune_status s);
int kp_tune_status_parse(const char *name, enum kp_tune_status *out);

/* What evaluating one variant gave. seconds: the time per call (status OK only; > 0). */
struct kp_tune_measure {
	enum kp_tune_status status;
	double seconds;
};

/*
 * The caller's evaluation: n variants (n <= opts.batch), to build (in parallel, if it likes) and time;
 * fill out[0..n). Returns 0 (a failed variant is a status, not an error) or a negative code that
 * stops the tuning (no GPU, canceled): kp_tune_run then returns it, with the trials made so far.
 */
struct kp_tune_evaluator {
	int (*evaluate)(void *ctx, const struct kp_tune_space *s, const struct kp_tune_point *points,
	                size_t n, struct kp_tune_measure *out, struct kp_error *err);
	void *ctx;
};

/* A cached result's key: the space hash, the point as kp_tune_point_format writes it, the GPU's name. */
struct kp_tune_key {
	const char *source;
	const char *point;
	const char *gpu;
};

/*
 * Results kept across runs (the run database, later). get returns 1 and fills m on a hit, 0 on a
 * miss, or a negative code (the tuning stops). put stores one fresh result; negative stops too.
 */
struct kp_tune_cache {
	int (*get)(void *ctx, const struct kp_tune_key *k, struct kp_tune_measure *m, struct kp_error *err);
	int (*put)(void *ctx, const struct kp_tune_key *k, const struct kp_tune_measure *m,
	           struct kp_error *err);
	void *ctx;
};

struct kp_tune_opts {
	enum kp_tune_strategy strategy;
	size_t budget;   /* points evaluated at most, cached ones included (so a result never depends on
	                    the cache); default 64 */
	uint64_t seed;   /* default 1 */
	size_t batch;    /* points per evaluate call; default 1 */
	size_t init;     /* bayes: points sampled before the model is used; 0: max(4, knobs + 1) */
	const char *gpu; /* the cache key's GPU name; default "unknown" */
};
void kp_tune_opts_init(struct kp_tune_opts *o);

struct kp_tune_trial {
	struct kp_tune_point point;
	struct kp_tune_measure m;
	int cached; /* the result came from the cache */
};

struct kp_tune_result {
	enum kp_tune_strategy strategy; /* the strategy used (AUTO resolved) */
	struct kp_tune_trial *trials;   /* in the order they were asked for */
	size_t ntrials, alloc;
	long best;         /* index of the fastest OK trial, -1 when none */
	long def;          /* index of the default point's trial, -1 when it was not tried */
	uint64_t feasible; /* feasible points, when feasible_known (the space was enumerated) */
	int feasible_known;
	size_t cache_hits;
	int exhausted; /* stopped because no untried feasible point was left */
};
void kp_tune_result_init(struct kp_tune_result *r);
void kp_tune_result_release(struct kp_tune_result *r);

/*
 * Searches the bound space s with the strategy of o, asking ev for measurements and looking in (and
 * storing to) cache when it is not NULL. Strategies evaluate the default point first (when feasible),
 * never evaluate a point twice, never evaluate an infeasible point, and treat failed variants as
 * points to avoid. Deterministic for a given seed and the same measurements. r is initialised here;
 * the caller releases it, also after an error.
 */
int kp_tune_run(const struct kp_tune_space *s, const struct kp_tune_opts *o,
                const struct kp_tune_evaluator *ev, const struct kp_tune_cache *cache,
                struct kp_tune_result *r, struct kp_error *err);

/* Trial indexes fastest first, failures last (in trial order among themselves): order[0..r->ntrials). */
void kp_tune_result_ranked(const struct kp_tune_result *r, size_t *order);
/*
 * The trials as a table, fastest first, failures last: rank, status, time, speedup over the default (the
 * untuned point), over the reference when ref_seconds is a time (> 0; else no such column), then one
 * column per knob.
 */
void kp_tune_result_table(const struct kp_tune_space *s, const struct kp_tune_result *r, double ref_seconds,
                          struct kp_buf *out);
/* {"strategy", "feasible", "cache_hits", "exhausted", "best", "default", "trials": [{"point", "status",
 * "seconds", "cached"}]}. New reference. */
json_t *kp_tune_result_to_json(const struct kp_tune_space *s, const struct kp_tune_result *r);

/* ---- A result cache in files ------------------------------------------------------------------- */

/*
 * Results kept across runs in `dir`/<space hash>.jsonl, one JSON line per result, appended:
 * {"v": 1, "ctx": CONTEXT, "gpu": GPU, "point": POINT, "status": "ok", "seconds": 1.2e-05}.
 * `context` names what else a result depends on (the caller's hash of the task, the evaluation protocol
 * and the toolchain): a lookup sees only lines with the same context and GPU. A line that does not read
 * (a torn write, an edit) is skipped; the last line for a key wins. Several processes may share a
 * directory: each result is one write of one line with O_APPEND. Nothing touches the file system until
 * the first get (reads the space's file) or put (creates `dir`).
 */
struct kp_tune_fcache;
#define KP_TUNE_FCACHE_FILE_MAX (64u << 20) /* a larger file is an error that says to delete it */

int kp_tune_fcache_open(struct kp_tune_fcache **out, const char *dir, const char *context,
                        struct kp_error *err);
void kp_tune_fcache_free(struct kp_tune_fcache *c);
/* The kp_tune_cache to hand kp_tune_run; valid while c lives. */
struct kp_tune_cache kp_tune_fcache_iface(struct kp_tune_fcache *c);

/* One result as a cache line holds it. */
struct kp_tune_fcache_line {
	const char *context, *gpu, *point;
	struct kp_tune_measure m;
};
/* Reads a cache file's text: calls each() for every line that reads as a result (strings borrowed for
 * the call), returns how many non-empty lines did not. For tests and the fuzz target. */
size_t kp_tune_fcache_parse(const char *text, size_t len,
                            void (*each)(void *ctx, const struct kp_tune_fcache_line *l), void *ctx);

/* ---- After the build ---------------------------------------------------------------------------- */

/*
 * Whether one block of `threads` threads using `regs` registers per thread (ptxas -v) and `smem` bytes
 * of shared memory can run on the GPU at all; registers are allocated per warp in units of 256. Returns
 * 1, or 0 with the reason in why (may be NULL), for marking a variant failed before its launch does.
 */
int kp_tune_launch_fits(const struct kp_hw_spec *hw, long threads, int regs, long smem, char *why, size_t n);

#endif
