/*
 * The run database: one SQLite file (WAL mode, versioned schema) holding everything a search
 * produced — nodes, candidates, verdicts, profiles, findings, prompts, replies, search memory and
 * budget counters — written as the run goes, so a run killed at any point resumes with nothing
 * committed lost.
 *
 * Only the process that owns a run writes to it; readers (`kernelpro show`, `kernelpro runs`) may
 * open it at the same time. Every enum below is persisted: entries are only ever appended.
 */
#ifndef KERNELPRO_STORE_H
#define KERNELPRO_STORE_H

#include <jansson.h>
#include <stddef.h>

#include "kernelpro/buf.h"
#include "kernelpro/error.h"

/* The schema version this build writes; older files are migrated forward on open (read-write). */
#define KP_STORE_SCHEMA_VERSION 4
/*
 * The oldest schema a read-only open accepts as it is, so that a reader of an older file sees what
 * that version wrote: migration 2 changed data, not tables (sessions' times); 3 added
 * candidates.format, which reads of an older file give as "" (no format), as for rows before it;
 * 4 added the tune action's tables, which read as empty in an older file.
 */
#define KP_STORE_SCHEMA_READABLE 1

/* ---- Persisted enums (append only) --------------------------------------------------------- */

/* What a candidate's evaluation concluded. Mirrors the harness verdicts (docs/internals/store.md). */
#define KP_OUTCOMES(X)                                                                             \
	X(CORRECT, "correct")                                                                      \
	X(COMPILE_ERROR, "compile_error")                                                          \
	X(RUNTIME_ERROR, "runtime_error")                                                          \
	X(TIMEOUT, "timeout")                                                                      \
	X(WRONG_OUTPUT, "wrong_output")                                                            \
	X(CHEAT_SUSPECTED, "cheat_suspected")
#define KP__OUTCOME_ENUM(n, s) KP_OUTCOME_##n,
enum kp_outcome { KP_OUTCOME_NONE = -1, KP_OUTCOMES(KP__OUTCOME_ENUM) KP_OUTCOME_COUNT };
#undef KP__OUTCOME_ENUM
const char *kp_outcome_name(enum kp_outcome o); /* "correct"; "none" for KP_OUTCOME_NONE */
/* KP_OUTCOME_NONE when `name` is not one of the names above. */
enum kp_outcome kp_outcome_parse(const char *name);

/* How a node came to be: the programmer mode that made it (the root is the reference). */
#define KP_NODE_KINDS(X)                                                                           \
	X(ROOT, "root")                                                                            \
	X(INITIAL, "initial")                                                                      \
	X(REFINE, "refine")                                                                        \
	X(REPAIR, "repair")                                                                        \
	X(TUNE, "tune")   /* a variant the tune action found: its parent's source, other knob values */ \
	X(GIVEN, "given") /* a version the user gave (optimize --from) */
#define KP__KIND_ENUM(n, s) KP_NODE_##n,
enum kp_node_kind { KP_NODE_KINDS(KP__KIND_ENUM) KP_NODE_KIND_COUNT };
#undef KP__KIND_ENUM
const char *kp_node_kind_name(enum kp_node_kind k);

/* Why a node takes no more children (0: it may). */
#define KP_DEAD_REASONS(X)                                                                         \
	X(ALIVE, "alive")                                                                          \
	X(REPAIRS_FAILED, "repairs kept failing")                                                  \
	X(NO_GAIN, "no gain after repeated expansions")                                            \
	X(EXHAUSTED, "every child closed and no room to widen")
#define KP__DEAD_ENUM(n, s) KP_DEAD_##n,
enum kp_dead_reason { KP_DEAD_REASONS(KP__DEAD_ENUM) KP_DEAD_COUNT };
#undef KP__DEAD_ENUM
const char *kp_dead_reason_text(enum kp_dead_reason r);

/* Kinds of search-memory entries. */
#define KP_MEMORY_KINDS(X)                                                                         \
	X(COMPILE_FIX, "compile_fix")     /* an error message and the change that fixed it */     \
	X(API_USAGE, "api_usage")         /* an API or intrinsic used in a correct candidate */   \
	X(CODE_PATH, "code_path")         /* a code-search query and the paths it found */        \
	X(RECOMMENDATION, "recommendation") /* a tool recommendation offered, and what followed */ \
	X(DEAD_END, "dead_end")           /* a direction that was closed, and why */
#define KP__MEM_ENUM(n, s) KP_MEM_##n,
enum kp_store_memory_kind { KP_MEMORY_KINDS(KP__MEM_ENUM) KP_MEM_KIND_COUNT };
#undef KP__MEM_ENUM
const char *kp_store_memory_kind_name(enum kp_store_memory_kind k);

enum kp_store_memory_outcome { KP_MEMO_UNKNOWN = 0, KP_MEMO_WORKED = 1, KP_MEMO_FAILED = 2 };
const char *kp_store_memory_outcome_name(enum kp_store_memory_outcome o);

/* ---- Rows ------------------------------------------------------------------------------------ */

/*
 * One search node. Database ids are how nodes are named across iterations and sessions.
 * Statistics (visits, sum_r, max_r, dead, expansions) are what the search keeps up to date.
 */
struct kp_node_row {
	long id;              /* assigned by kp_store_node_insert */
	long parent;          /* 0 for the root */
	enum kp_node_kind kind;
	int depth;
	int evaluated;        /* an evaluation is committed for this node */
	enum kp_outcome outcome;
	double speedup;       /* NAN unless correct */
	double time_ms;       /* NAN when not timed */
	double energy_j;      /* NAN when not measured */
	double reward;        /* the search's reward for this node alone */
	long visits;
	double sum_r, max_r;
	int fail_depth;       /* consecutive failed nodes ending here (0 when correct) */
	int expansions;       /* children made from this node */
	enum kp_dead_reason dead;
	double created;       /* wall-clock seconds */
	char summary[256];    /* one line: what the programmer said this version changes */
	/*
	 * The candidate format the version is written in ("cuda", "torch", "triton": the programmer's
	 * kp_cand_format names); "" for the root and for runs made before schema 2.
	 */
	char format[16];
};

void kp_node_row_init(struct kp_node_row *r);

/* A prompt sent and the reply received, as one exchange of one generation. */
struct kp_exchange_row {
	long parent;          /* node the request was made from */
	long node;            /* node it produced, 0 when none */
	const char *mode;     /* the programmer mode's name: "initial", "debug", "optimize" */
	int round;            /* 0, then 1.. for tool/code-search rounds within one generation */
	const char *prompt;
	const char *reply;    /* NULL when the request failed */
	const char *error;    /* NULL on success */
	long tokens_in, tokens_out;
	double cost;          /* US dollars, 0 when unknown */
	double latency_s;
};

/* What one evaluation found. Strings may be NULL. */
struct kp_eval_row {
	long node;
	enum kp_outcome outcome;
	double time_ms, time_std_ms, ref_time_ms, speedup, energy_j; /* NAN when not measured */
	double wall_s;        /* how long the evaluation took */
	const char *log;      /* excerpt for the programmer: compile log, error, wrong-output evidence */
	const char *verdict_json; /* the harness's own verdict, verbatim */
	const char *profile_json;
	const char *feedback; /* the tools' semantic feedback text */
	const char *findings_json; /* array of findings as the tools produced them */
};

struct kp_store_memory_row {
	long id;
	enum kp_store_memory_kind kind;
	enum kp_store_memory_outcome outcome;
	const char *family;   /* task family, NULL for run-local */
	const char *key;      /* what it is about: an error line, an API name, a tool id */
	const char *text;     /* what to tell the programmer */
	double gain;          /* log-speedup change, NAN when not applicable */
	long node;
	const char *run;      /* run name that learned it */
	double created;
	int tries;            /* times recorded (set by kp_store_memory_add) */
	int wins;             /* of which outcome was "worked" */
};

/* ---- Lifecycle ------------------------------------------------------------------------------- */

struct kp_store;

enum kp_store_flags {
	KP_STORE_CREATE = 1 << 0,   /* create the file (and schema) when missing */
	KP_STORE_READONLY = 1 << 1, /* never writes; fails on a schema newer than this build or
				       older than KP_STORE_SCHEMA_READABLE */
};

/*
 * Opens (or creates) the database at `path` in WAL mode with synchronous=FULL, migrating an
 * older schema forward. A newer schema than this build knows is refused with a message naming
 * both versions. Without KP_STORE_CREATE: KP_ENOENT when the file is missing or holds no schema,
 * KP_EDB when it is empty (0 bytes) or not an SQLite database; each says what to do. *out is
 * freed with kp_store_close().
 */
int kp_store_open(struct kp_store **out, const char *path, unsigned flags, struct kp_error *err);
void kp_store_close(struct kp_store *s);
int kp_store_schema_version(struct kp_store *s);
const char *kp_store_path(const struct kp_store *s);
/* SQLite's integrity check: 0, or KP_EDB with what it found. */
int kp_store_check(struct kp_store *s, struct kp_error *err);

/* Transactions (BEGIN IMMEDIATE). Everything between begin and commit lands together or not at all. */
int kp_store_begin(struct kp_store *s, struct kp_error *err);
int kp_store_commit(struct kp_store *s, struct kp_error *err);
void kp_store_rollback(struct kp_store *s);

/* ---- Run metadata and counters -------------------------------------------------------------- */

int kp_store_meta_set(struct kp_store *s, const char *key, const char *value, struct kp_error *err);
/* Appends the value to `out`; KP_ENOENT when the key is absent. */
int kp_store_meta_get(struct kp_store *s, const char *key, struct kp_buf *out, struct kp_error *err);

/* A meta entry holding JSON: v (taken) stored compact with sorted keys; read back into *out (new
 * reference; KP_ENOENT when absent, KP_EPARSE when not JSON). */
int kp_store_meta_set_json(struct kp_store *s, const char *key, json_t *v, struct kp_error *err);
int kp_store_meta_get_json(struct kp_store *s, const char *key, json_t **out, struct kp_error *err);

/* Budget counters ("evaluations", "tokens_in", ...): add to and read. A missing counter reads 0. */
int kp_store_counter_add(struct kp_store *s, const char *name, double delta, struct kp_error *err);
double kp_store_counter(struct kp_store *s, const char *name);

/*
 * Sessions: each optimize (or resume) process is one session. elapsed_s is the session's own
 * time, recorded as it goes (kp_store_session_touch), so a killed session keeps its time; the
 * run's time is the sum (kp_store_elapsed_total).
 */
int kp_store_session_begin(struct kp_store *s, const char *argv_text, long *id, struct kp_error *err);
int kp_store_session_touch(struct kp_store *s, long id, double elapsed_s, struct kp_error *err);
int kp_store_session_end(struct kp_store *s, long id, double elapsed_s, const char *reason,
			 struct kp_error *err);
/* Wall seconds over all sessions, the running one as of its last touch. */
double kp_store_elapsed_total(struct kp_store *s);
long kp_store_session_count(struct kp_store *s);

/* ---- Nodes and candidates --------------------------------------------------------------------- */

/* Inserts the node and its candidate source; sets r->id. `source` may be NULL for the root. */
int kp_store_node_insert(struct kp_store *s, struct kp_node_row *r, const char *lang, const char *source,
			 struct kp_error *err);
/* Writes back the mutable fields (evaluation results and search statistics) of an existing node. */
int kp_store_node_update(struct kp_store *s, const struct kp_node_row *r, struct kp_error *err);
int kp_store_node_get(struct kp_store *s, long id, struct kp_node_row *r, struct kp_error *err);
/* All nodes in id order; *rows is allocated (free()). */
int kp_store_nodes_load(struct kp_store *s, struct kp_node_row **rows, size_t *n, struct kp_error *err);
/* The candidate source of a node, appended to `out`; `lang` (may be NULL) gets "cuda" or "python". */
int kp_store_candidate_get(struct kp_store *s, long node, struct kp_buf *out, char lang[16], struct kp_error *err);

/* ---- Evaluations, feedback, exchanges ------------------------------------------------------------ */

int kp_store_eval_insert(struct kp_store *s, const struct kp_eval_row *r, long session, struct kp_error *err);
/* The latest evaluation's text fields for a node, appended to the buffers given (any may be NULL). */
int kp_store_eval_text(struct kp_store *s, long node, struct kp_buf *log, struct kp_buf *feedback,
		       struct kp_buf *findings_json, struct kp_error *err);
/*
 * The numbers of a node's latest evaluation (outcome, times, speedup, energy, wall time) into *r;
 * its strings are left NULL (kp_store_eval_text reads them). KP_ENOENT when it has none.
 */
int kp_store_eval_last(struct kp_store *s, long node, struct kp_eval_row *r, struct kp_error *err);
/*
 * Calls fn for each evaluation, oldest first (log and verdict_json set, the other strings NULL;
 * valid during the call). fn returns nonzero to stop.
 */
int kp_store_evals_each(struct kp_store *s, int (*fn)(const struct kp_eval_row *r, void *ud), void *ud,
			struct kp_error *err);
/* The latest evaluation's verdict (kp_eval_row.verdict_json, verbatim) appended to out; nothing when none. */
int kp_store_verdict_get(struct kp_store *s, long node, struct kp_buf *out, struct kp_error *err);
/* The profile summary a node's evaluation saved (kp_eval_row.profile_json), appended to out; nothing when none. */
int kp_store_profile_get(struct kp_store *s, long node, struct kp_buf *out, struct kp_error *err);
/*
 * Saves a diagnosis made after the node's evaluation (the optimize loop profiles versions on demand:
 * docs/internals/search.md): its profile summary, feedback text and findings array, each left as it
 * was when NULL and replaced otherwise. Inside the caller's transaction.
 */
int kp_store_profile_put(struct kp_store *s, long node, const char *profile_json, const char *feedback,
                         const char *findings_json, struct kp_error *err);
/* *yes = 1 when the node has a saved profile summary (a profile that failed saves its note: it counts). */
int kp_store_profile_exists(struct kp_store *s, long node, int *yes, struct kp_error *err);
int kp_store_exchange_insert(struct kp_store *s, const struct kp_exchange_row *r, struct kp_error *err);
/*
 * Calls fn for each exchange that produced `node` (0: every exchange), oldest first. The row's
 * strings are valid during the call; reply is NULL when the request failed. fn returns nonzero to stop.
 */
int kp_store_exchanges_each(struct kp_store *s, long node, int (*fn)(const struct kp_exchange_row *r, void *ud),
			    void *ud, struct kp_error *err);
/* Number of exchanges (prompt/reply pairs) saved, and how many produced a node. */
long kp_store_exchange_count(struct kp_store *s, int with_node_only);

/* ---- The tune action (schema 4) --------------------------------------------------------------------- */

/*
 * One tune action: the version tuned (each at most once), how, and what it found. Strings may be
 * NULL. `status`: "running" (begun, not finished: a resumed run continues it), "done" (its best
 * variants became its children, possibly none), "nothing" (nothing to try: `note` says why).
 */
struct kp_tuning_row {
	long node;               /* the version tuned */
	long session;            /* the session that began it */
	const char *status;
	const char *strategy;    /* "auto", "exhaustive", "random", "bayes" (the resolved one once done) */
	long budget;             /* trials at most, results measured earlier included */
	long long seed;
	const char *derive;      /* which knobs: "declared" or "auto" (derived when none is declared) */
	const char *gpu;         /* the GPU the results are for */
	const char *space_json;  /* the knobs, their values and constraints */
	const char *trials_json; /* every trial: point, status, seconds, whether measured earlier (lib/tune's JSON) */
	const char *children_json; /* [{"node", "point", "time_ms"}]: the variants that became children */
	const char *untuned_point, *best_point;
	double untuned_ms, best_ms; /* NAN when not measured correct */
	long trials, evaluated, cache_hits;
	double wall_s, gpu_s;    /* this action's time over its sessions; of it, the GPU's */
	const char *note;
	double started, ended;   /* wall clock; ended 0 while running */
};

/* Starts the record of a tune action (status "running"): KP_EEXISTS when the node was tuned before. */
int kp_store_tuning_begin(struct kp_store *s, const struct kp_tuning_row *r, struct kp_error *err);
/* Writes what a tune action found (every field but node, session, budget, seed, started). */
int kp_store_tuning_end(struct kp_store *s, const struct kp_tuning_row *r, struct kp_error *err);
/*
 * Calls fn for each tune action, oldest first (strings valid during the call); fn returns nonzero to
 * stop. A database older than schema 4 has none.
 */
int kp_store_tunings_each(struct kp_store *s, int (*fn)(const struct kp_tuning_row *r, void *ud), void *ud,
			  struct kp_error *err);

/*
 * Each variant's measurement, kept per (space, point, GPU) as lib/tune's result cache keys it (the
 * space hash, "BLOCK=256 ITEMS=2", the GPU's name), so a tuning interrupted and resumed does not
 * measure a variant again. `status` is lib/tune's name ("ok", "wrong" ...), seconds > 0 when "ok".
 * put replaces an earlier result of the same key; `node`: the version whose tuning measured it.
 * get returns 1 with the result, 0 when there is none (and in a database older than schema 4).
 */
int kp_store_tune_result_put(struct kp_store *s, const char *space, const char *point, const char *gpu,
			     long node, const char *status, double seconds, struct kp_error *err);
int kp_store_tune_result_get(struct kp_store *s, const char *space, const char *point, const char *gpu,
			     char status[16], double *seconds, struct kp_error *err);

/* ---- Search memory -------------------------------------------------------------------------------- */

/*
 * Inserts, or when an entry with the same kind, key, text and family exists, counts one more try
 * (and a win when r->outcome is KP_MEMO_WORKED) and keeps the larger gain. Sets r->id, tries, wins.
 */
int kp_store_memory_add(struct kp_store *s, struct kp_store_memory_row *r, struct kp_error *err);
/*
 * Calls fn for each entry (oldest first) of the given family (NULL: all). The row's strings are
 * only valid during the call. fn returns nonzero to stop.
 */
int kp_store_memory_each(struct kp_store *s, const char *family,
			 int (*fn)(const struct kp_store_memory_row *r, void *ud), void *ud, struct kp_error *err);
long kp_store_memory_count(struct kp_store *s);

#endif
