/* kp_slurm_submission: a suite's job array and merge job given to sbatch, and the record of them. */
#ifndef KERNELPRO_SLURM_SUBMISSION_H
#define KERNELPRO_SLURM_SUBMISSION_H

#include <stddef.h>

#include "kernelpro/error.h"
#include "kernelpro/slurm_script.h"
#include "kernelpro/slurm_settings.h"

/* What was submitted, recorded in SUITE/slurm/submission.json. */
struct kp_slurm_submission {
	long long array_job; /* 0: not submitted */
	long long merge_job; /* 0: not submitted */
	long shards;         /* M: the array's elements are shards K of M */
	char *array;         /* the elements submitted ("1,3"); NULL: all of 0..M-1 */
	char *cluster;       /* from sbatch's "ID;CLUSTER" answer; NULL when it named none */
	double submitted_at; /* Unix time */
};

/* ---- Lifecycle ------------------------------------------------------------------------------------ */

void kp_slurm_submission_init(struct kp_slurm_submission *sub);
void kp_slurm_submission_release(struct kp_slurm_submission *sub);

/* ---- Submitting ------------------------------------------------------------------------------------- */

/*
 * Writes SUITE/slurm/bench.sbatch and SUITE/slurm/merge.sbatch (what --dry-run shows), and
 * with `submit` submits the array, then the merge with afterany on it, and records both ids in
 * SUITE/slurm/submission.json. When the merge submission fails after the array went in, the
 * array id is recorded all the same and the error says to run `--merge` by hand. `sbatch`: a
 * path, or NULL for the one on PATH.
 */
int kp_slurm_submission_make(const struct kp_slurm_settings *s, const struct kp_slurm_job *job,
                             const char *sbatch, int submit, struct kp_slurm_submission *out,
                             struct kp_error *err);

/*
 * Runs `sbatch --parsable [--dependency=afterany:DEP] SCRIPT` and returns the job id. KP_ENOTOOL
 * without sbatch, KP_ECHILD with sbatch's own message when it refuses, KP_EPARSE when its answer
 * is not a job id. *cluster as kp_slurm_submission_parse_id gives it (may be NULL to ignore).
 */
int kp_slurm_submission_sbatch(const char *sbatch, const char *script, long long afterany, long long *id,
                               char **cluster, struct kp_error *err);

/*
 * Parses `sbatch --parsable` output: "ID" or "ID;CLUSTER" on its last non-empty line.
 * *cluster gets an allocated name or NULL (the caller frees it; may be NULL to ignore).
 */
int kp_slurm_submission_parse_id(const char *text, size_t len, long long *id, char **cluster,
                                 struct kp_error *err);

/*
 * Puts element `task` of array `job` back in the queue (`scontrol requeue JOB_TASK`; `scontrol`:
 * a path or NULL for the one on PATH). A running element is ended by Slurm and runs again later.
 */
int kp_slurm_submission_requeue(const char *scontrol, long long job, long task, struct kp_error *err);

/* ---- The record ------------------------------------------------------------------------------------- */

/* Reads SUITE/slurm/submission.json (KP_ENOENT when the suite was never submitted). */
int kp_slurm_submission_load(const char *suite_dir, struct kp_slurm_submission *out, struct kp_error *err);

#endif
