/* kp_slurm: a suite on a Slurm cluster: job-array and merge scripts, sbatch submission, squeue/sacct state.
 */
#ifndef KERNELPRO_SLURM_H
#define KERNELPRO_SLURM_H

#include <jansson.h>
#include <stddef.h>

#include "kernelpro/buf.h"
#include "kernelpro/error.h"
#include "kernelpro/strvec.h"

/*
 * docs/slurm.md is the user's page (settings file, worked example, failure outcomes). One suite
 * becomes one job array of `shards` elements, element K running
 *     kernelpro bench SUITE --shard K/M --resume [bench args]
 * on one node, and one merge job (`kernelpro bench SUITE --merge`) that depends on the whole
 * array with afterany. Every value that reaches a script is validated first; values in the
 * script body are single-quoted, values on #SBATCH lines are restricted to characters sbatch
 * reads literally, so no setting can inject shell or sbatch syntax.
 */

/* ---- Settings: what differs between clusters ---------------------------------------------------- */

struct kp_slurm_settings {
	char *partition; /* NULL: the cluster's default */
	char *account;
	char *qos;
	char *time;         /* each element's limit, Slurm syntax ("4:00:00", "1-12"); NULL: partition's */
	char *merge_time;   /* the merge job's limit; default "1:00:00" */
	long nodes;         /* array elements = shards, one node each; default 1 */
	long gpus_per_node; /* --gpus-per-node; 0 (default): none requested */
	int requeue;        /* --requeue (default 1): node failure or preemption reruns an element */
	long signal_s; /* SIGUSR1 this many seconds before an element's time limit; default 300, 0: none */
	struct kp_strvec modules;     /* `module load` each, in order */
	char *python;                 /* KERNELPRO_PYTHON on the nodes (absolute path) */
	char *cuda_home;              /* CUDA_HOME on the nodes (absolute); its bin/ goes first on PATH */
	struct kp_strvec env;         /* "NAME=value" exported in each job */
	struct kp_strvec sbatch_args; /* extra options for the array, each one "--name[=value]" */
};

void kp_slurm_settings_init(struct kp_slurm_settings *s);
/* Frees everything the settings hold. Safe twice, safe on a zeroed struct. */
void kp_slurm_settings_release(struct kp_slurm_settings *s);

/*
 * Reads a settings object (the "slurm" member of a suite's settings file) over the current
 * values. Unknown keys, wrong types and invalid values fail with KP_EINVAL naming `what` and the
 * key. Lists (modules, sbatch_args) replace the current list; env entries are added.
 */
int kp_slurm_settings_from_json(struct kp_slurm_settings *s, const json_t *obj, const char *what,
                                struct kp_error *err);
/* Reads the "slurm" object of the JSON file `path` (KP_ENOENT when the file has none). */
int kp_slurm_settings_load(struct kp_slurm_settings *s, const char *path, struct kp_error *err);

/*
 * Sets one setting from text, as the command line gives it: `key` is a JSON key ("partition",
 * "gpus_per_node", "requeue" with "yes"/"no", ...); for "modules", "env" ("NAME=value") and
 * "sbatch_args" the value is added to the list. Validates the value (KP_EINVAL).
 */
int kp_slurm_settings_set(struct kp_slurm_settings *s, const char *key, const char *value,
                          struct kp_error *err);

/* ---- Scripts ------------------------------------------------------------------------------------ */

struct kp_slurm_job {
	const char *suite_dir;              /* absolute, on the filesystem every node shares */
	const char *kernelpro;              /* absolute path of the kernelpro the nodes run */
	const char *job_name;               /* NULL: "kp-bench" (the merge job adds "-merge") */
	const struct kp_strvec *bench_args; /* more arguments for each element's `bench`; may be NULL */
};

/*
 * Appends the job-array script for `job` to `out`: #SBATCH lines from the settings, the
 * environment (modules, python, CUDA, env) and the `kernelpro bench --shard K/M --resume` line.
 * Logs go to SUITE/slurm/shard-K.log, appended across requeues. KP_EINVAL when a value cannot be
 * carried safely (the message names it and says what is allowed).
 */
int kp_slurm_array_script(const struct kp_slurm_settings *s, const struct kp_slurm_job *job,
                          struct kp_buf *out, struct kp_error *err);
/* The merge job's script: no GPUs, `kernelpro bench SUITE --merge`, log SUITE/slurm/merge.log. */
int kp_slurm_merge_script(const struct kp_slurm_settings *s, const struct kp_slurm_job *job,
                          struct kp_buf *out, struct kp_error *err);

/* ---- Submission --------------------------------------------------------------------------------- */

/* What was submitted, recorded in SUITE/slurm/submission.json. */
struct kp_slurm_submission {
	long long array_job; /* 0: not submitted */
	long long merge_job; /* 0: not submitted */
	long shards;
	char *cluster;       /* from sbatch's "ID;CLUSTER" answer; NULL when it named none */
	double submitted_at; /* Unix time */
};

void kp_slurm_submission_init(struct kp_slurm_submission *sub);
void kp_slurm_submission_release(struct kp_slurm_submission *sub);

/*
 * Parses `sbatch --parsable` output: "ID" or "ID;CLUSTER" on its last non-empty line.
 * *cluster gets an allocated name or NULL (the caller frees it; may be NULL to ignore).
 */
int kp_slurm_parse_job_id(const char *text, size_t len, long long *id, char **cluster, struct kp_error *err);

/*
 * Runs `sbatch --parsable [--dependency=afterany:DEP] SCRIPT` (`sbatch`: a path, or NULL for
 * the one on PATH) and returns the job id. KP_ENOTOOL without sbatch, KP_ECHILD with sbatch's
 * own message when it refuses, KP_EPARSE when its answer is not a job id.
 */
int kp_slurm_sbatch(const char *sbatch, const char *script, long long afterany, long long *id, char **cluster,
                    struct kp_error *err);

/*
 * Writes SUITE/slurm/bench.sbatch and SUITE/slurm/merge.sbatch (what --dry-run shows), and
 * with `submit` submits the array, then the merge with afterany on it, and records both ids in
 * SUITE/slurm/submission.json. When the merge submission fails after the array went in, the
 * array id is recorded all the same and the error says to run `--merge` by hand.
 */
int kp_slurm_write_and_submit(const struct kp_slurm_settings *s, const struct kp_slurm_job *job,
                              const char *sbatch, int submit, struct kp_slurm_submission *out,
                              struct kp_error *err);

/* Reads SUITE/slurm/submission.json (KP_ENOENT when the suite was never submitted). */
int kp_slurm_submission_load(const char *suite_dir, struct kp_slurm_submission *out, struct kp_error *err);

/* ---- State of the elements: squeue and sacct ---------------------------------------------------- */

/* Slurm job states; OTHER: one not listed here; UNKNOWN: neither squeue nor sacct knows the job. */
#define KP_SLURM_STATES(X) \
	X(UNKNOWN)         \
	X(PENDING)         \
	X(RUNNING)         \
	X(SUSPENDED)       \
	X(COMPLETING)      \
	X(COMPLETED)       \
	X(CANCELLED)       \
	X(FAILED)          \
	X(TIMEOUT)         \
	X(NODE_FAIL)       \
	X(PREEMPTED)       \
	X(BOOT_FAIL)       \
	X(DEADLINE)        \
	X(OUT_OF_MEMORY)   \
	X(REQUEUED)        \
	X(REQUEUE_HOLD)    \
	X(OTHER)

#define KP__SLURM_STATE(name) KP_SLURM_##name,
enum kp_slurm_state { KP_SLURM_STATES(KP__SLURM_STATE) };
#undef KP__SLURM_STATE

/* "PENDING", "NODE_FAIL", ...: Slurm's own names. */
const char *kp_slurm_state_name(enum kp_slurm_state st);
/* Slurm's name (the first word: "CANCELLED by 0" is CANCELLED); KP_SLURM_OTHER for one not listed. */
enum kp_slurm_state kp_slurm_state_parse(const char *name, size_t len);
/* True for states in which the element will not run again by itself. */
int kp_slurm_state_is_final(enum kp_slurm_state st);

struct kp_slurm_elem {
	long long job; /* the array's job id (what sbatch answered), or a plain job's id */
	long task;     /* the array index; -1: not an array element */
	enum kp_slurm_state state;
	int attempts;    /* runs that started (1 + requeues), from accounting; 0: none or not known */
	int exit_code;   /* of the last run, from accounting; -1: not known */
	int exit_signal; /* signal that ended the last run; 0: none, -1: not known */
	char reason[64]; /* why it waits (squeue), "" if not known */
	char nodes[128]; /* node list of the last run, "" if none */
};

struct kp_slurm_status {
	struct kp_slurm_elem *v;
	size_t n, alloc;
};

void kp_slurm_status_init(struct kp_slurm_status *st);
void kp_slurm_status_release(struct kp_slurm_status *st);

/*
 * Parse the output of
 *     squeue --noheader --array --states=all --jobs=ID --format=%F|%K|%T|%r|%N
 *     sacct --noheader --parsable2 --allocations --duplicates --jobs=ID
 *           --format=JobID,State,ExitCode,NodeList
 * (kp_slurm_query runs exactly these), appending one element per line (sacct: per element,
 * folding its requeued runs into `attempts`; pending ranges like "7_[2-5%2]" are expanded).
 * KP_EPARSE names the line for anything else; more than 100,000 elements is KP_ETOOBIG.
 */
int kp_slurm_parse_squeue(const char *text, size_t len, struct kp_slurm_status *st, struct kp_error *err);
int kp_slurm_parse_sacct(const char *text, size_t len, struct kp_slurm_status *st, struct kp_error *err);

/*
 * The state of elements 0..shards-1 of array `job`, st->v[k] for element k (shards 0: `job` is
 * a plain job, like the merge job, in st->v[0]): squeue for the live ones, sacct for attempts,
 * exit codes and those squeue no longer lists. Without
 * accounting (sacct says it is disabled) an element squeue has forgotten is KP_SLURM_UNKNOWN:
 * the shard database then tells what it did. NULL programs: squeue and sacct on PATH.
 */
int kp_slurm_query(const char *squeue, const char *sacct, long long job, long shards,
                   struct kp_slurm_status *st, struct kp_error *err);

/* [{"job":..,"task":..,"state":"RUNNING","attempts":..,"exit_code":..,"exit_signal":..,"reason":..,"nodes":..}]
 */
json_t *kp_slurm_status_json(const struct kp_slurm_status *st);

#endif
