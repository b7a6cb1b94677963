/*
 * kp_bench_slurm: a suite's shards as a Slurm job array (`kernelpro bench SUITE --slurm`, --status):
 * the settings a submission uses, the submission itself (refused while an earlier one is live; only
 * the shards with work left), and where each shard stands. docs/slurm.md is the user's page.
 */
#ifndef KERNELPRO_BENCH_SLURM_H
#define KERNELPRO_BENCH_SLURM_H

#include <jansson.h>

#include "kernelpro/error.h"
#include "kernelpro/slurm_settings.h"
#include "kernelpro/slurm_submission.h"
#include "kernelpro/strvec.h"

/* The suite's own settings file: the settings of its latest submission (or dry run). */
#define KP_BENCH_SLURM_SETTINGS "slurm/settings.json"

/*
 * Loads the settings a submission of the suite in `dir` starts from, over `s` (initialised by the
 * caller): the suite's own settings file when it has one (dir NULL: a suite not made yet has
 * none), else the user's when it exists
 * ($KERNELPRO_SLURM_CONFIG, else $XDG_CONFIG_HOME/kernelpro/slurm.json, else
 * ~/.config/kernelpro/slurm.json); then `file` (the "slurm" object of any JSON file) when given.
 * The caller applies its command line after. Errors name the file and the key.
 */
int kp_bench_slurm_settings(const char *dir, const char *file, struct kp_slurm_settings *s,
                            struct kp_error *err);

struct kp_bench_slurm_req {
	const char *dir;                          /* the suite, absolute, on a filesystem every node mounts */
	const char *kernelpro;                    /* absolute path of the kernelpro the nodes run */
	const char *workdir;                      /* where relative paths in bench_args resolve */
	const struct kp_strvec *bench_args;       /* options every element's bench gets; may be NULL */
	const struct kp_slurm_settings *settings; /* in force (kp_bench_slurm_settings, the command line) */
	int retry_failed;                         /* failed tasks count as work left */
	int submit;                               /* 0: write the scripts and settings only (a dry run) */
	const char *sbatch, *squeue, *sacct;      /* Slurm's programs; NULL: those on PATH */
};

/*
 * Submits the suite's shards that have work left (every one, the first time) as one job array and
 * its merge job (kp_slurm_submission_make), after writing the settings in force to the suite's
 * settings file. Refused with KP_EEXISTS while the suite's earlier submission has an element or
 * its merge job still queued or running (the message lists them and says how to cancel), with
 * KP_EINVAL when `nodes` differs from the shards of an earlier submission (a suite keeps them), and
 * with KP_ENOENT when no shard has work left. A dry run asks Slurm nothing.
 */
int kp_bench_slurm_submit(const struct kp_bench_slurm_req *r, struct kp_slurm_submission *out,
                          struct kp_error *err);

/*
 * Where each shard of the suite's latest submission stands, as JSON (new reference): the
 * submission ("array_job", "merge_job", "shards", "array", "submitted_at"), "merge" (the merge
 * job's state), "slurm_error" (null, or why squeue/sacct could not be asked: then every state is
 * UNKNOWN), and "elements": one per shard K with "shard", "submitted" (K is in the latest array),
 * Slurm's "state", "attempts", "exit_code", "exit_signal", "reason", "nodes", and the shard's
 * "tasks", "pending", "running", "stopped", "finished", "failed" from `status` (kp_bench_status's
 * document). KP_ENOENT when the suite was never submitted.
 */
int kp_bench_slurm_status(const char *dir, const json_t *status, const char *squeue, const char *sacct,
                          json_t **out, struct kp_error *err);

#endif
