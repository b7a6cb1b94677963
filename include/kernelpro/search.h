/*
 * Search over candidate versions of a kernel: domain-adapted MCTS (progressive widening with
 * separate refine/repair limits, log-speedup reward with a failure floor, dead-end pruning),
 * greedy and beam baselines, the speed(+energy) comparison, search memory, and the optimize loop
 * that drives a programmer and an evaluator through the run database.
 *
 * Layers, bottom up:
 *   parameters   every constant, named, documented and settable (kp_search_param_*)
 *   tree         the in-memory search tree, nodes named by run-database id (kp_tree_*)
 *   policy       selection for mcts|greedy|beam, reward, backup, pruning (kp_search_*)
 *   interfaces   kp_programmer (makes a child) and kp_evaluator (judges it)
 *   loop         kp_search_loop: budget, parallel expansion, persistence, resume
 */
#ifndef KERNELPRO_SEARCH_H
#define KERNELPRO_SEARCH_H

#include <jansson.h>
#include <signal.h>
#include <stddef.h>

#include "kernelpro/buf.h"
#include "kernelpro/error.h"
#include "kernelpro/mode.h"
#include "kernelpro/store.h"
#include "kernelpro/task_kind.h"
#include "kernelpro/tune.h"

/* ---- Parameters ---------------------------------------------------------------------------------- */

enum kp_search_algo { KP_SEARCH_MCTS = 0, KP_SEARCH_GREEDY = 1, KP_SEARCH_BEAM = 2 };
enum kp_backup { KP_BACKUP_MEAN = 0, KP_BACKUP_MAX = 1 };
enum kp_objective { KP_OBJECTIVE_SPEED = 0, KP_OBJECTIVE_SPEED_ENERGY = 1 };
/* Which versions the tune action is offered on (docs/search.md, "The tune action"). */
enum kp_search_tune { KP_SEARCH_TUNE_OFF = 0, KP_SEARCH_TUNE_DECLARED = 1, KP_SEARCH_TUNE_ALL = 2 };

/* docs/search.md explains each field; kp_search_param_table() is the same list in code. */
struct kp_search_params {
	int algo;            /* enum kp_search_algo */
	int backup;          /* enum kp_backup */
	int objective;       /* enum kp_objective */
	double uct_c;        /* UCT exploration constant, in log-speedup units */
	double refine_k, refine_alpha; /* a correct node may hold floor(k * N^alpha) children ... */
	int refine_cap;                /* ... and at most this many (0: no cap) */
	double repair_k, repair_alpha; /* the same for a failed node */
	int repair_cap;
	int max_repairs;     /* consecutive failed versions on one line before it is closed */
	double repair_fpu;   /* a failed node not yet repaired is valued at its parent's Q minus this */
	int leader_widen;    /* a correct node better than everything below it may widen past its limit */
	int prune_m;         /* a node with this many evaluated children and no gain is closed (0: never) */
	double prune_delta;  /* "gain": a descendant beating the node's reward by more than this */
	double reward_min, reward_max; /* log-speedup clip */
	double reward_fail;  /* the fixed reward of a failed candidate (the correctness wall) */
	double noise_band;   /* log-speedups closer than this tie (energy breaks the tie) */
	int beam_width;
	int parallel;        /* programmer requests in flight at once */
	int max_gen_failures;/* consecutive unusable replies before the run stops */
	int memory_bytes;    /* bound on the search-memory text in one prompt */
	int tune;            /* enum kp_search_tune */
	int tune_budget;     /* evaluations one tune action may spend */
	double tune_share;   /* the share of the run's evaluation budget tuning may take (with a programmer) */
	int tune_strategy;   /* enum kp_tune_strategy */
	int tune_children;   /* the best variants that become children */
};

/* One settable constant. */
struct kp_search_param_desc {
	const char *name;    /* "uct_c" (also accepted with dashes: "uct-c") */
	int type;            /* 0 double, 1 int, 2 choice */
	size_t offset;
	double def, min, max;
	const char *choices; /* for choices: "mcts|greedy|beam" (value = index) */
	const char *help;
};

void kp_search_params_default(struct kp_search_params *p);
const struct kp_search_param_desc *kp_search_param_table(size_t *n);
/* Sets one parameter from text ("uct_c", "1.4"); range-checked, errors name the parameter. */
int kp_search_param_set(struct kp_search_params *p, const char *name, const char *value, struct kp_error *err);
/* "name=value" form. */
int kp_search_param_assign(struct kp_search_params *p, const char *assignment, struct kp_error *err);
/* The value as text ("mcts", "1.4"). */
void kp_search_param_format(const struct kp_search_params *p, const struct kp_search_param_desc *d,
			    struct kp_buf *out);
/* Every parameter as a JSON object (new reference); and back (unknown keys are errors). */
json_t *kp_search_params_to_json(const struct kp_search_params *p);
int kp_search_params_from_json(struct kp_search_params *p, const json_t *obj, struct kp_error *err);
const char *kp_search_algo_name(int algo);
const char *kp_objective_name(int objective);

/* ---- Scores and comparison ---------------------------------------------------------------------- */

/* What the comparison looks at. */
struct kp_search_score {
	int correct;
	double speedup;   /* > 0 when correct */
	double energy_j;  /* NAN when not measured */
};

/*
 * Lexicographic comparison: > 0 when a is better than b, < 0 when worse, 0 when equal.
 * A correct candidate beats any failed one. With KP_OBJECTIVE_SPEED the higher speedup wins.
 * With KP_OBJECTIVE_SPEED_ENERGY speedups whose logs differ by at most `noise_band` tie, and
 * then the lower energy wins (a candidate without an energy measurement loses the tie-break).
 */
int kp_search_compare(const struct kp_search_score *a, const struct kp_search_score *b, int objective, double noise_band);

/*
 * The reward of one evaluated candidate: clip(log speedup, reward_min, reward_max) when correct,
 * reward_fail otherwise. With the energy objective, a bounded term noise_band * clip(log(E_ref/E), -1, 1)
 * is added, so energy can reorder only candidates whose speeds tie.
 */
double kp_search_reward(const struct kp_search_params *p, enum kp_outcome o, double speedup, double energy_j,
			double ref_energy_j);

/* ---- The tree ----------------------------------------------------------------------------------- */

struct kp_tnode {
	long id;              /* run-database id: how a node is named across iterations and sessions */
	int parent;           /* index, -1 for the root */
	int first_child, next_sibling, last_child; /* indices, -1: none */
	enum kp_node_kind kind;
	int depth;
	int evaluated;
	enum kp_outcome outcome;
	double speedup, energy_j, reward;
	double time_ms;       /* the candidate's median time, NAN when not timed */
	long visits;
	double sum_r, max_r;
	int fail_depth;
	int expansions;       /* children created */
	int pending;          /* requests for children of this node in flight */
	int inflight;         /* requests in flight anywhere below (virtual visits for UCT) */
	enum kp_dead_reason dead;
	char format[16];      /* the candidate format it is written in ("" for the root) */
	signed char knobs;    /* the tune action: -1 not looked at yet, 0 nothing to tune, 1 knobs to tune */
	unsigned tuned : 1;   /* a tune action began on it (a version is tuned once) */
	unsigned profiled : 1; /* its profile is saved (or its evaluation made one): see
	                          kp_search_evaluator.profile */
	unsigned dirty : 1;   /* changed since kp_tree_clear_dirty: must be written back */
	unsigned dead_noted : 1; /* its closing was recorded in search memory */
};

struct kp_tree {
	struct kp_tnode *n;   /* n[0] is the root once added */
	size_t count, alloc;
	int best;             /* index of the best correct node (the root until beaten), -1 before the root */
	double ref_energy_j;  /* the root's energy, for the energy reward term */
};

void kp_tree_init(struct kp_tree *t);
void kp_tree_release(struct kp_tree *t);
/*
 * Adds a node from its database row (statistics included, as on resume). The parent must already
 * be in the tree; ids must increase. Returns the new index.
 */
int kp_tree_add(struct kp_tree *t, const struct kp_node_row *row);
/* Index of the node with that database id, -1 when absent. */
int kp_tree_find(const struct kp_tree *t, long id);
/* Copies the node's mutable state into a row for kp_store_node_update (other fields untouched). */
void kp_tree_to_row(const struct kp_tree *t, int idx, struct kp_node_row *row);
void kp_tree_clear_dirty(struct kp_tree *t);
/* Recomputes `best` from scratch (after loading). */
void kp_tree_update_best(struct kp_tree *t, const struct kp_search_params *p);
struct kp_search_score kp_tree_score(const struct kp_tree *t, int idx);

/*
 * Records an evaluation: sets the node's outcome and reward, backs the reward up to the root
 * (visits, sum, max), applies dead-end pruning on the node and its parent, and updates `best`
 * (a failed candidate never becomes best). Marks every changed node dirty.
 */
void kp_tree_record(struct kp_tree *t, const struct kp_search_params *p, int idx, enum kp_outcome o,
		    double speedup, double energy_j);

/* ---- Policy --------------------------------------------------------------------------------------- */

/* The child kind and programmer mode for expanding a node. */
enum kp_node_kind kp_search_child_kind(const struct kp_tree *t, int parent);
enum kp_prog_mode kp_search_child_mode(enum kp_node_kind child_kind);
/*
 * The format the next child of `parent` is asked in, from `formats` (NULL-terminated; NULL when
 * there is none): one format is always itself; a repair keeps its parent's; the reference's
 * children start the format with the fewest versions in the tree (the first on a tie); a
 * refinement keeps its parent's format until that one has two versions more than the least-used
 * format, and then ports the parent to it (lib/search/formats.c).
 */
const char *kp_search_child_format(const struct kp_tree *t, int parent, enum kp_prog_mode mode,
				   const char *const *formats);
struct kp_search_task;
/*
 * The format a new version is recorded in: the one asked for (NULL: the kind's), except that a
 * Python candidate asked for in CUDA whose kernels are Triton is recorded as "triton".
 */
const char *kp_search_version_format(const struct kp_search_task *task, const char *asked, const char *source);

/* How many children a node may hold now (progressive widening, asymmetric by node kind). */
int kp_search_width_limit(const struct kp_tree *t, const struct kp_search_params *p, int idx);
/* The UCT score of child `idx` under its parent (mean or max backup, virtual visits for requests in flight). */
double kp_search_uct(const struct kp_tree *t, const struct kp_search_params *p, int idx);

/*
 * Picks the node to expand next under p->algo. Returns its index, or -1 when nothing can be
 * expanded now (everything closed, or waiting on requests in flight). Selection may close
 * exhausted nodes (marked dirty).
 */
int kp_search_select(struct kp_tree *t, const struct kp_search_params *p);
/* A request for a child of idx is going out / came back (with or without a child). */
void kp_tree_begin_expand(struct kp_tree *t, int idx);
void kp_tree_end_expand(struct kp_tree *t, int idx);

/* ---- The programmer interface -------------------------------------------------------------------- */

/* Everything a programmer may use to make one child. Strings may be NULL when not applicable. */
struct kp_search_request {
	enum kp_prog_mode mode;
	long parent_id;             /* run-database id of the node the child is made from */
	const char *task_name;
	const struct kp_task_kind_info *kind; /* the task's kind: candidate language, format, ... */
	const char *format;         /* the candidate format asked for ("triton"); NULL: the programmer's own */
	const char *parent_format;  /* the parent's format, NULL for the reference */
	const char *reference_source;
	const char *stage1;         /* Stage-1 result of the reference, as text */
	const char *hardware;       /* the GPU model in one paragraph */
	const char *parent_source;  /* NULL for initial */
	enum kp_outcome parent_outcome;
	const char *parent_log;     /* debug: compile log, runtime error or wrong-output evidence */
	const char *feedback;       /* optimize: the tools' feedback on the parent */
	const char *parent_profile; /* optimize: the profile summary the parent's evaluation saved (JSON), or NULL */
	const char *parent_findings; /* optimize: the tools' findings on the parent (JSON array), or NULL */
	double parent_speedup;      /* NAN when unknown or failed */
	double best_speedup;
	double ref_time_ms, parent_time_ms, best_time_ms; /* NAN when unknown */
	const char *memory;         /* the relevant part of search memory, already bounded */
};

/* One prompt/reply pair of a generation (several when the model asked for tools or code search). */
struct kp_search_exchange {
	char *prompt, *reply, *error;
	long tokens_in, tokens_out;
	double cost, latency_s;
};

/* A code search the model made while generating: the query and what it found. */
struct kp_search_query {
	char *query, *result;
};

struct kp_search_child {
	char *source;       /* the extracted candidate (in the task kind's language); NULL when the reply held none */
	char *summary;      /* one line on what the change does; may be NULL */
	char *error;        /* why there is no source (empty, truncated, non-code reply) */
	struct kp_search_exchange *exchanges;
	size_t nexchanges;
	struct kp_search_query *queries;
	size_t nqueries;
	int tool_calls;     /* tool and code-search requests answered while generating (reactive orchestration) */
};

void kp_search_child_release(struct kp_search_child *r);
/* Appends an exchange, copying every string. */
void kp_search_child_add_exchange(struct kp_search_child *r, const struct kp_search_exchange *x);
void kp_search_child_add_query(struct kp_search_child *r, const char *query, const char *result);

/*
 * A programmer makes one child from a context. generate() returns 0 with a result (which may hold
 * no source and an `error` saying why the reply was unusable: the search records it and moves
 * on), or a negative code when the backend cannot go on (missing key, authentication, network
 * after retries, its own token cap): the run stops and can be resumed.
 * generate() is called from worker threads, at most max_parallel at a time; cancel() (optional)
 * asks requests in flight to give up soon, from another thread.
 */
struct kp_search_programmer {
	const char *name;
	int max_parallel;
	int (*generate)(struct kp_search_programmer *p, const struct kp_search_request *ctx, struct kp_search_child *out,
			struct kp_error *err);
	void (*cancel)(struct kp_search_programmer *p);
	void (*free)(struct kp_search_programmer *p);
	void *priv;
};

/* ---- The evaluator interface ---------------------------------------------------------------------- */

/* An evaluator's judgement of one candidate (or of the reference). Strings are allocated or NULL. */
struct kp_search_eval {
	enum kp_outcome outcome;
	double time_ms, time_std_ms;  /* median and spread of the timed trials; NAN when not timed */
	double ref_time_ms;           /* the reference timed in the same evaluation */
	double speedup;               /* ref_time / time; NAN unless correct */
	double energy_j;              /* per launch; NAN when not measured */
	double wall_s;
	double gpu_s;                 /* of wall_s, the time the GPU slot was busy (harness runs, profiling); NAN: unknown */
	char *log;           /* what the programmer needs to fix a failure (bounded) */
	char *verdict_json;  /* the harness verdict as it reported it */
	char *profile_json;  /* Stage 2 profile summary, when profiled */
	char *findings_json; /* the tools' findings: array of {tool, severity, title, recommendations[]} */
	char *feedback;      /* the semantic feedback text for the next prompt */
	char *stage1;        /* reference only: the Stage-1 result as text */
	char *hardware;      /* reference only: the GPU model as text */
};

void kp_search_eval_init(struct kp_search_eval *r);
void kp_search_eval_release(struct kp_search_eval *r);
/*
 * A "correct" result whose numbers no measurement gives (`why`: kp_eval_numbers_check's message)
 * becomes that candidate's failure: cheat_suspected, the check 'implausible_result' named first in
 * its log, its times and speedup cleared. One bad verdict fails its candidate, not the run.
 */
void kp_search_eval_implausible(struct kp_search_eval *r, const struct kp_error *why);

/* ---- The tune action: a version's knobs searched without an LLM (docs/internals/search.md) ---------- */

/* What the loop asks of one tune action. */
struct kp_search_tune_req {
	long node_id;                      /* the version tuned (correct when it was evaluated) */
	const char *source;                /* its source */
	const char *lang;                  /* its language as the run database records it: "cuda", "python" */
	const struct kp_task *task;        /* the task, for constraints naming its shapes; may be NULL */
	enum kp_tune_derive derive;        /* NEVER: declared knobs only; AUTO: derived when none is declared */
	struct kp_tune_opts tune;          /* strategy, budget (trials, results measured earlier included), seed;
	                                    * batch 0: the evaluator's choice; gpu: the evaluator's */
	const struct kp_tune_cache *cache; /* the run database: every fresh result is put there, and a resumed
	                                    * tuning finds there what it measured; a get or put may answer
	                                    * KP_ECANCELED to stop the tuning (a stop, the budget) */
	int children;                      /* the most variants to return */
	void (*evaluated)(void *ud);       /* called after each fresh evaluation (an untuned re-check included) */
	void *ud;
};

/* A variant a tune action returns. */
struct kp_search_variant {
	char *source;
	char *point;    /* "BLOCK=512 ITEMS=1" */
	double time_ms; /* as the tuning measured it */
};

/* What one tune action found. Strings are allocated or NULL. */
struct kp_search_tuning {
	struct kp_search_variant *best; /* fastest first: correct variants measured faster than the untuned one */
	size_t nbest;
	char *strategy;      /* the strategy used ("exhaustive", "bayes" ...) */
	char *space_json;    /* the knobs, values, constraints (kp_tune_space_to_json) */
	char *trials_json;   /* kp_tune_result_to_json: {"strategy", "feasible", "exhausted", "trials": [{"point",
	                      * "status", "seconds", "cached"}] ...}, trials in the order tried */
	char *untuned_point; /* the version's own values */
	double untuned_ms;   /* NAN unless measured correct */
	char *best_point;    /* the fastest correct trial (it may be the untuned point); NULL: none */
	double best_ms;
	size_t trials, evaluated, cache_hits;
	double wall_s, gpu_s; /* gpu_s: NAN when unknown */
	char gpu[64];         /* the GPU the results are for */
	char *note;           /* why no variant is returned: nothing to try, none correct, none faster */
};

void kp_search_tuning_init(struct kp_search_tuning *t);
void kp_search_tuning_release(struct kp_search_tuning *t);

/*
 * An evaluator judges candidates on one GPU, one at a time. reference() runs once per run
 * (timing, Stage 1 and tools on the reference). evaluate() returns 0 with a verdict for anything
 * the candidate did (compile error, crash, wrong output ... are outcomes, not errors), or a
 * negative code when evaluation itself is impossible (no GPU, harness missing): the run stops.
 * An evaluator without profile() profiles each correct candidate inside evaluate(); one with it
 * leaves that to profile(), which the loop calls on demand (below).
 */
struct kp_search_evaluator {
	const char *name;
	int (*reference)(struct kp_search_evaluator *e, struct kp_search_eval *out, struct kp_error *err);
	int (*evaluate)(struct kp_search_evaluator *e, long node_id, const char *source, const char *lang,
			struct kp_search_eval *out, struct kp_error *err);
	void (*free)(struct kp_search_evaluator *e);
	/*
	 * Optional, for a pipelined loop (docs/internals/search.md). prepare() (NULL: none) hears of each
	 * candidate as soon as it is saved, on the loop's thread, and may start what needs no GPU (static
	 * checks, builds) in the background without blocking. `concurrent`: evaluate() may run on a thread
	 * of its own while the loop commits and dispatches (it shares nothing with the loop but its
	 * arguments); still one evaluation at a time. Used with parallel > 1 only.
	 */
	void (*prepare)(struct kp_search_evaluator *e, long node_id, const char *source, const char *lang);
	int concurrent;
	/*
	 * Optional (NULL: the tune action is never offered): tunes one correct version, lib/tune's strategy
	 * over its variants, each judged as evaluate() judges a candidate but without profiling (through the
	 * warm worker where the evaluator has one). Returns 0 with what it found (no variant is not an
	 * error: out->note says why), KP_ECANCELED when req->cache stopped it (out holds what was measured),
	 * or another negative code when evaluation is impossible. Called on the loop's thread while no
	 * evaluation runs.
	 */
	int (*tune)(struct kp_search_evaluator *e, const struct kp_search_tune_req *req, struct kp_search_tuning *out,
		    struct kp_error *err);
	/*
	 * Optional (NULL: evaluate() profiles every correct candidate itself). Profiles and diagnoses one
	 * version evaluate() found correct, in this session or an earlier one: fills out->profile_json
	 * (always; a note saying why when profiling failed), feedback, findings_json, wall_s and gpu_s,
	 * and nothing else. With it, evaluate() gives the verdict, times and energy only, and the loop
	 * profiles a version before its first child is asked for, speculatively while the GPU would
	 * otherwise wait on the programmer, and the best version before the run ends
	 * (docs/internals/search.md, "Profiling on demand"). Called as evaluate() is: one GPU job at a
	 * time, on the GPU thread when `concurrent`. A negative code stops the run, as evaluate()'s does.
	 */
	int (*profile)(struct kp_search_evaluator *e, long node_id, const char *source, const char *lang,
	               struct kp_search_eval *out, struct kp_error *err);
	void *priv;
};

/*
 * A tune method for an evaluator that judges variants one at a time with `each` (the exec evaluator,
 * the tests' fake harness): reads req->source's knobs (req->derive), binds the constraints to the
 * device's limits (else the H200's) and the task's shapes, and runs req->tune's strategy through
 * req->cache. `each` judges one variant's source as evaluate() would (its outcome and time_ms are read).
 */
int kp_search_tune_each(const struct kp_search_tune_req *req,
			int (*each)(void *ctx, const char *source, struct kp_search_eval *out, struct kp_error *err),
			void *ctx, struct kp_search_tuning *out, struct kp_error *err);
/*
 * What a tuning found, from its space and trials, into out (its strategy, space, trials, the untuned
 * and the best points, and up to `children` variants measured faster than the untuned one, fastest
 * first, with their sources); a note when there is none. The caller sets evaluated, wall_s, gpu_s, gpu.
 */
int kp_search_tuning_fill(const struct kp_tune_space *s, const struct kp_tune_result *r, int children,
                          struct kp_search_tuning *out, struct kp_error *err);

/* Whether a tuner's error is about the version (a note: nothing to tune) rather than the evaluation. */
int kp_search_tune_note_error(int code);

/* ---- Search memory ---------------------------------------------------------------------------------- */

/* Where memory is read from and written to: the run's database and optionally a shared one. */
struct kp_memory {
	struct kp_store *run;     /* required */
	struct kp_store *shared;  /* NULL: run-local only */
	const char *family;       /* task family for shared entries */
	const char *run_name;
};

/*
 * Learns from one evaluated child (its parent's findings, a fix of a compile error, new APIs that
 * worked). Called inside the transaction that records the evaluation.
 */
int kp_memory_learn(const struct kp_memory *m, const struct kp_tree *t, const struct kp_search_params *p,
		    int child, const char *child_source, const char *parent_source, const char *parent_log,
		    const char *parent_findings_json, const char *child_summary, struct kp_error *err);
/* Records a closed direction. */
int kp_memory_dead_end(const struct kp_memory *m, const struct kp_tree *t, int idx, const char *summary,
		       const char *log, struct kp_error *err);
/* Records the code searches a generation made. */
int kp_memory_code_paths(const struct kp_memory *m, const struct kp_search_child *r, long node, struct kp_error *err);
/*
 * Renders the part of memory relevant to a request of `mode` from `parent` (with the parent's
 * failure log for debug requests) into `out`, at most max_bytes. Deterministic.
 */
int kp_memory_render(const struct kp_memory *m, const struct kp_tree *t, int parent, enum kp_prog_mode mode,
		     const char *parent_log, size_t max_bytes, struct kp_buf *out, struct kp_error *err);

/* ---- The loop ---------------------------------------------------------------------------------------- */

struct kp_search_task {
	const char *name;
	const char *description;     /* what to compute (shapes, dtypes, tolerance); may be NULL */
	const char *family;          /* for shared memory; NULL: the name */
	const struct kp_task_kind_info *kind; /* candidates' language and format (task_kind.h) */
	const char *reference_source;
	/*
	 * The candidate formats versions may be written in, NULL-terminated ("torch", "triton"; the
	 * run's --formats); NULL: the programmer's one format. kp_search_child_format picks each child's.
	 */
	const char *const *formats;
	const struct kp_task *task;  /* the loaded task (the tune action's constraints may name its shapes); may be NULL */
};

/* Limits; 0 means none. Whichever is reached first ends the run. */
struct kp_search_budget {
	long evals;
	double wall_s;
	long tokens;
	double cost;
};

/* The budget as run and suite databases record it: {"evals", "wall_s", "tokens", "cost_usd"}, null
 * for no such limit (new reference); and back (missing or null: 0, no limit). */
json_t *kp_search_budget_to_json(const struct kp_search_budget *b);
void kp_search_budget_from_json(const json_t *obj, struct kp_search_budget *b);

/* What the progress hook sees. */
struct kp_search_status {
	long evals, nodes;
	long tokens;
	double cost;
	double elapsed_s;            /* this run, all sessions */
	double best_speedup;         /* 1.0 until a candidate beats the reference */
	long best_node;
	int inflight;                /* programmer requests in flight */
	const struct kp_search_budget *budget;
	const char *phase;           /* "reference", "generating", "evaluating #12", ... */
};

enum kp_search_end {
	KP_END_NONE = 0, KP_END_EVALS, KP_END_WALL, KP_END_TOKENS, KP_END_COST, KP_END_EXHAUSTED,
	KP_END_STOPPED, KP_END_ERROR,
	KP_END_TUNED /* no programmer: every version that has knobs is tuned */
};
const char *kp_search_end_name(enum kp_search_end e); /* "budget: evaluations", ... */

struct kp_search_run {
	struct kp_store *store;
	const char *run_name;
	const struct kp_search_task *task;
	struct kp_search_params params;
	struct kp_search_budget budget;
	struct kp_search_programmer *programmer; /* NULL: no LLM, the tune action alone (optimize --llm none) */
	struct kp_search_evaluator *evaluator;
	/*
	 * A version to start from (optimize --from): a new run records it as the root's first child (kind
	 * "given") and evaluates it first; NULL: none. `seed_name` names it in its summary.
	 */
	const char *seed_source, *seed_name;
	struct kp_store *shared_memory; /* optional */
	const char *argv_text;       /* recorded with the session */
	const volatile sig_atomic_t *stop; /* set (e.g. from a signal handler) to stop after the current step */
	void (*progress)(const struct kp_search_status *st, void *ud);
	void (*note)(const char *line, void *ud); /* one line per event worth telling a user */
	/*
	 * What lives beside the database (lib/run keeps the run's files with these); each may be NULL
	 * and cannot fail the search. candidate(): a new version was committed. evaluated(): an
	 * evaluation was committed, or the session ends.
	 */
	void (*candidate)(long id, const char *source, void *ud);
	void (*evaluated)(void *ud);
	void *ud;
	/* The clock of the wall-time budget and the sessions' times, in seconds; NULL: kp_now(). */
	double (*clock)(void *ud);
};

struct kp_search_outcome {
	enum kp_search_end end;
	long evals;                  /* this session */
	long best_node;
	double best_speedup;
};

/*
 * Runs (or resumes) the search recorded in run->store until the budget ends, the tree is
 * exhausted, *stop is set, or something fails. Every step commits as it goes. Returns 0 when the
 * run ended for one of the first reasons (see out->end), a negative code otherwise (the run can
 * be resumed once the cause is fixed).
 */
int kp_search_loop(struct kp_search_run *run, struct kp_search_outcome *out, struct kp_error *err);

#endif
