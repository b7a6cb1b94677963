/*
 * A run: one optimize search on one task, kept in a directory that outlives the process.
 *
 *   RUNS/NAME/run.db          the run database (lib/store): the source of truth
 *   RUNS/NAME/candidates/N.*  a copy of each version's source, for people
 *   RUNS/NAME/best.*          the best version so far (absent until one beats the reference)
 *   RUNS/NAME/summary.json    what kp_run_summary() says, rewritten after every evaluation
 *   RUNS/NAME/profiles/       the harness evaluator's profiles; exec-eval/ the exec evaluator's files
 *   RUNS/NAME/run.lock        held by the one process working on the run
 *
 * This module creates and opens run directories, holds the lock, keeps the settings every
 * session of a run shares (search parameters, budget, orchestration, family, model, evaluator),
 * drives a session (kp_run_optimize: the programmer, the evaluator and lib/search's loop), keeps
 * the files beside the database, and answers the read queries of `runs` and `show`.
 *
 * Many runs may be open and driven in one process (a suite runner; one thread per run if it
 * likes): everything hangs off a struct kp_run, nothing is global, and nothing here handles a
 * signal: a stop flag is passed in (kp_run_session.stop). docs/internals/run.md.
 */
#ifndef KERNELPRO_RUN_H
#define KERNELPRO_RUN_H

#include <jansson.h>
#include <signal.h>

#include "kernelpro/buf.h"
#include "kernelpro/error.h"
#include "kernelpro/eval.h"
#include "kernelpro/feedback.h"
#include "kernelpro/llm.h"
#include "kernelpro/search.h"
#include "kernelpro/store.h"
#include "kernelpro/task.h"
#include "kernelpro/tools.h"

#define KP_RUN_DB "run.db"
/* The longest run name, in bytes (a file name's limit on Linux file systems). */
#define KP_RUN_NAME_MAX 255
/*
 * A run's or a suite's name (`what`: "run", "suite"): one printable path component (no '/', not
 * starting with '.', no control character) of at most `max` bytes. KP_EINVAL saying which rule.
 */
int kp_run_name_check(const char *name, const char *what, size_t max, struct kp_error *err);
/* The budget of a run started without any: this many candidate evaluations. */
#define KP_RUN_DEFAULT_EVALS 20
/* The model a run records when it has none (optimize --llm none): the tune action alone. */
#define KP_RUN_LLM_NONE "none"

/* ---- Where runs live ------------------------------------------------------------------------- */

/* `given` when set, else $KERNELPRO_RUNS when set, else "kernelpro-runs". */
const char *kp_run_root(const char *given);

/* Whether dir is a run directory (it holds run.db). */
int kp_run_exists(const char *dir);

/*
 * RUN is a run directory (holding run.db) or the name of one under `root`; its path is appended
 * to `dir`. KP_ENOENT with a hint when neither exists.
 */
int kp_run_resolve(const char *root, const char *run, struct kp_buf *dir, struct kp_error *err);

/*
 * Every run under `root`, sorted by name, as a JSON array (new reference) of their summaries
 * (kp_run_summary, with "dir"); a run that cannot be read is {"run", "dir", "error"}. A missing
 * root is no runs; KP_EIO when it cannot be read.
 */
int kp_run_list(const char *root, json_t **out, struct kp_error *err);

/* ---- Settings: what every session of a run shares -------------------------------------------- */

struct kp_run_settings {
	struct kp_search_params params;
	struct kp_search_budget budget; /* 0: no such limit */
	enum kp_orchestration orchestration;
	int tool_rounds; /* reactive: rounds of tool requests per version */
	char *family;    /* task family for shared memory; NULL: the task's name */
	char *llm;       /* the model as --llm names it (never a key); NULL: none chosen; KP_RUN_LLM_NONE: no LLM */
	char *evaluator; /* "harness" or "exec:PROGRAM ARGS" */
	/*
	 * The candidate formats versions may be written in, comma-separated ("torch,triton": optimize
	 * --formats cuda,triton); NULL: the task kind's one format.
	 */
	char *formats;
};

/* Defaults: kp_search_params_default, no budget, proactive, 3 tool rounds, no strings. */
void kp_run_settings_init(struct kp_run_settings *s);
void kp_run_settings_release(struct kp_run_settings *s);

/* Which budget limits a kp_run_set_budget() call replaces. */
enum kp_run_limit {
	KP_RUN_LIMIT_EVALS = 1 << 0,
	KP_RUN_LIMIT_WALL = 1 << 1,
	KP_RUN_LIMIT_TOKENS = 1 << 2,
	KP_RUN_LIMIT_COST = 1 << 3,
};

/* ---- Lifecycle ------------------------------------------------------------------------------- */

struct kp_run;

struct kp_run_new {
	const char *root;           /* the runs directory (made when missing) */
	const char *name;           /* NULL: TASK-YYYYMMDD-HHMMSS (UTC) */
	const struct kp_task *task; /* recorded as JSON with its absolute path */
	const struct kp_run_settings *settings;
};

/*
 * Creates ROOT/NAME with its database, takes its lock and records the task and settings.
 * KP_EEXISTS (saying how to resume) when the directory exists, KP_EINVAL for a name with '/' or
 * a leading '.'. *out is released with kp_run_close() or kp_run_abandon().
 */
int kp_run_create(struct kp_run **out, const struct kp_run_new *o, struct kp_error *err);

enum kp_run_open_flags {
	KP_RUN_READONLY = 1 << 0, /* for reading (runs, show, during a run): no lock, nothing written */
};

/*
 * Opens the run in `dir` (see kp_run_resolve) and reads its settings. Without KP_RUN_READONLY it
 * takes the lock: KP_EEXISTS naming the holder's pid when another process (or another open
 * handle) works on the run.
 */
int kp_run_open(struct kp_run **out, const char *dir, unsigned flags, struct kp_error *err);
/* Closes the database and releases the lock. NULL is fine. */
void kp_run_close(struct kp_run *r);
/*
 * Closes the run; a run this handle created in which no session began (setup failed) is removed
 * with its directory, and the runs directory too when kp_run_create made it and it is empty.
 */
void kp_run_abandon(struct kp_run *r);

const char *kp_run_dir(const struct kp_run *r);
const char *kp_run_name(const struct kp_run *r);
const struct kp_run_settings *kp_run_settings(const struct kp_run *r);
/* The run database, for queries this header does not have. Owned by the run. */
struct kp_store *kp_run_store(struct kp_run *r);

/*
 * Loads the run's task into t (kp_task_init'ed by the caller, kp_task_release'd after): from
 * `moved` when given (the task moved), else from the path recorded when the run began.
 */
int kp_run_load_task(struct kp_run *r, const char *moved, struct kp_task *t, struct kp_error *err);

/* Replaces the limits named in `which` (enum kp_run_limit) with b's and records them for later sessions. */
int kp_run_set_budget(struct kp_run *r, const struct kp_search_budget *b, unsigned which,
		      struct kp_error *err);

/* ---- A session: drive the search ------------------------------------------------------------- */

struct kp_cs_index;

/* One session's parts and options; everything is borrowed for the call. */
struct kp_run_session {
	const struct kp_task *task; /* required: the run's task (kp_run_load_task) */

	/* The parts: given ones are used as they are; missing ones are made from the options below. */
	struct kp_search_programmer *programmer; /* NULL: the LLM programmer over `llm` (none when the run's
	                                          * model is KP_RUN_LLM_NONE and `llm` chooses none) */
	struct kp_search_evaluator *evaluator;   /* NULL: the one `evaluator` names */

	/*
	 * The LLM programmer. The run completes `llm` where it knows better: no provider chosen ->
	 * the model the run records (its other settings kept); in-order replay -> the position after
	 * the replies the run already used. NULL: the recorded model with default settings.
	 */
	struct kp_llm_config *llm;
	const char *prompts_dir;        /* NULL: the bundled templates */
	struct kp_cs_index *codesearch; /* CUTLASS/CuTe snippets for the parent's findings; NULL: none */

	/* The evaluator. */
	const char *evaluator_spec;        /* "harness" or "exec:PROGRAM ARGS"; NULL: the run's */
	const struct kp_eval_opts *eval;   /* NULL: defaults; the exec evaluator takes its time limits */
	struct kp_toolset *toolset;        /* harness: NULL profiles nothing (timing-only feedback) */
	struct kp_toolset *reactive_tools; /* reactive orchestration: the answerer's own (threads) */
	enum kp_feedback_mode feedback;
	const char *hw_key; /* GPU model for the roofline; NULL: the one profiled */

	/* The session. */
	const char *from_source;           /* a new run's first version (optimize --from), or NULL */
	const char *from_name;             /* how its summary names it (the file) */
	int parallel;                      /* requests in flight; 0: the run's parameter */
	struct kp_store *shared_memory;    /* search memory shared by runs of a family; may be NULL */
	const char *argv_text;             /* recorded with the session */
	const volatile sig_atomic_t *stop; /* set to stop after the current step; may be NULL */
	/* Called once the parts are made, before the first step; p: the parameters in force. */
	void (*started)(struct kp_run *r, const struct kp_search_params *p, void *ud);
	void (*progress)(const struct kp_search_status *st, void *ud);
	void (*note)(const char *line, void *ud);
	void *ud;
};

/*
 * Makes the parts the session lacks (opening the LLM, the reactive answerer, the evaluator:
 * before any of them talks to a model or a GPU), brings the files up to date with the database,
 * and runs (or resumes) the search until the budget ends, the tree is exhausted, *stop is set or
 * something fails; the files are rewritten after every evaluation. Returns 0 when the session
 * ended for one of the first reasons (out->end), a negative code otherwise: the run is saved
 * and resumes once the cause is fixed. A failure before the first step leaves no session
 * behind (then kp_run_abandon() removes a run just created).
 */
int kp_run_optimize(struct kp_run *r, const struct kp_run_session *s, struct kp_search_outcome *out,
		    struct kp_error *err);

/* ---- Files and read queries ------------------------------------------------------------------ */

/*
 * The run's summary (new reference): run, status and why it ended, task, search settings,
 * orchestration, budget, what was used, outcome counts, the reference, the best version (its
 * file and the path of versions that led to it), the tune actions ("tuning": how many, their
 * evaluations and share of the run's, variants per minute, and per version tuned what it found),
 * and "dir".
 */
int kp_run_summary(struct kp_run *r, json_t **out, struct kp_error *err);
/* Rewrites summary.json and best.* (atomically; best.* only when it changed) and any missing candidates/
 * file. */
int kp_run_write_files(struct kp_run *r, struct kp_error *err);
/* Every version as a JSON array (new reference): kp_run_node_json's brief, KP_RUN_NODE_TREE's fields and
 * the reason a version failed (KP_RUN_NODE_REASON). */
int kp_run_tree(struct kp_run *r, json_t **out, struct kp_error *err);
/*
 * One version in full (new reference): the tree's fields, its source and language, its verdict
 * log, the tools' feedback, whether it is profiled ("profiled": false for a correct version the
 * search never profiled, null for others), every prompt and reply that made it ("exchanges"), and
 * its tune action when it was tuned ("tuning": the summary's entry, its "space" and what it
 * "tried"). KP_ENOENT when the run has no such version.
 */
int kp_run_node(struct kp_run *r, long id, json_t **out, struct kp_error *err);

/*
 * One version as JSON: the one view behind kp_run_tree, kp_run_node, the summary's versions and the
 * run report (lib/run/node.c). Always: node, parent, kind, outcome ("pending" until evaluated),
 * speedup (the reference's is 1.0 once it is timed, null before; a version's is its stored one,
 * null unless correct), time_ms. `parts` adds:
 *   KP_RUN_NODE_TREE     depth, format, language, energy_j, reward, visits, closed, created, summary
 *   KP_RUN_NODE_EVAL     log, feedback, findings, profiled, mean_ms (the mean over the timed
 *                        trials, beside time_ms, the median), and the stored verdict: "verdict"
 *                        ({status, phase, message, flags: [{check, severity, message}]}, null when
 *                        none was stored) and "reason" (kp_run_verdict_reason)
 *   KP_RUN_NODE_PROFILE  profile (the saved diagnosis, parsed)
 *   KP_RUN_NODE_SOURCE   lang, source ("" when none)
 *   KP_RUN_NODE_REASON   reason alone (KP_RUN_NODE_EVAL includes it)
 * New reference in *out.
 */
enum {
	KP_RUN_NODE_TREE = 1u << 0,
	KP_RUN_NODE_EVAL = 1u << 1,
	KP_RUN_NODE_PROFILE = 1u << 2,
	KP_RUN_NODE_SOURCE = 1u << 3,
	KP_RUN_NODE_REASON = 1u << 4,
};
int kp_run_node_json(struct kp_run *r, const struct kp_node_row *row, unsigned parts, json_t **out,
		     struct kp_error *err);
/*
 * Why a version that is not correct was judged so, from its verdict (the object "verdict" above;
 * may be NULL) and its log: {"check", "severity", "message", "phase"}. The check is the flag that
 * decided the outcome (severity "refuse" for cheat_suspected, "fail" for wrong_output; null when
 * no check did, as for a compile error); the message is that flag's, else the verdict's, else the
 * log's first line. NULL for a correct or pending version. New reference.
 */
json_t *kp_run_verdict_reason(const json_t *verdict, const char *outcome, const char *log);

/* What `show` and the report say of a correct version without a profile (docs/search.md). */
#define KP_RUN_NOT_PROFILED                                                                                 \
	"not profiled: the search never expanded this version. A version is profiled before its first "     \
	"child is asked for, while the GPU would otherwise wait on the model, and the best one before the " \
	"run ends."

/* ---- The run view ----------------------------------------------------------------------------------- */

#define KP_RUN_VIEW_SCHEMA "kernelpro.run-view/1"

/*
 * The run in `run_dir` (a directory holding run.db) as one document for the reports and the suite
 * metrics: {"schema", "dir", "summary" (the same object as `kernelpro show --json`), "hardware",
 * "stage1", "baseline", "nodes": [...]}, each node with its verdict, times, the model's summary, the
 * evaluation's log, the tools' feedback and findings, and its saved profile. Opens the database
 * read-only. New reference in *out. lib/run/view.c; docs/report.md has the fields.
 */
int kp_run_view(const char *run_dir, json_t **out, struct kp_error *err);

/* The source of one version of the run in run_dir (appended to `src`) and its language ("cuda", "python"). */
int kp_run_read_source(const char *run_dir, long node, struct kp_buf *src, char lang[16], struct kp_error *err);

#endif
