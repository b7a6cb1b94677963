/* kp_slurm_status: the state of Slurm jobs and array elements, from squeue and sacct. */
#ifndef KERNELPRO_SLURM_STATUS_H
#define KERNELPRO_SLURM_STATUS_H

#include <jansson.h>
#include <stddef.h>

#include "kernelpro/error.h"

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
const char *kp_slurm_status_state_name(enum kp_slurm_state st);
/* Slurm's name (the first word: "CANCELLED by 0" is CANCELLED); KP_SLURM_OTHER for one not listed. */
enum kp_slurm_state kp_slurm_status_state_parse(const char *name, size_t len);
/* True for states in which the element will not run again by itself. */
int kp_slurm_status_state_final(enum kp_slurm_state st);
/* True while a run of the job is on a node (RUNNING, SUSPENDED, COMPLETING, and OTHER to be safe). */
int kp_slurm_status_state_running(enum kp_slurm_state st);

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
 * (kp_slurm_status_query runs exactly these), appending one element per line (sacct: per element,
 * folding its requeued runs into `attempts`; pending ranges like "7_[2-5%2]" are expanded).
 * KP_EPARSE names the line for anything else; more than 100,000 elements is KP_ETOOBIG.
 */
int kp_slurm_status_parse_squeue(const char *text, size_t len, struct kp_slurm_status *st,
                                 struct kp_error *err);
int kp_slurm_status_parse_sacct(const char *text, size_t len, struct kp_slurm_status *st,
                                struct kp_error *err);

/*
 * The state of elements 0..shards-1 of array `job`, st->v[k] for element k (shards 0: `job` is
 * a plain job, like the merge job, in st->v[0]): squeue for the live ones, sacct for attempts,
 * exit codes and those squeue no longer lists. Without
 * accounting (sacct says it is disabled) an element squeue has forgotten is KP_SLURM_UNKNOWN:
 * the shard database then tells what it did. NULL programs: squeue and sacct on PATH.
 */
int kp_slurm_status_query(const char *squeue, const char *sacct, long long job, long shards,
                          struct kp_slurm_status *st, struct kp_error *err);

/* [{"job":..,"task":..,"state":"RUNNING","attempts":..,"exit_code":..,"exit_signal":..,"reason":..,"nodes":..}]
 */
json_t *kp_slurm_status_json(const struct kp_slurm_status *st);

#endif
