/* kp_slurm_script: the job-array script (one element per shard) and the merge job's script. */
#ifndef KERNELPRO_SLURM_SCRIPT_H
#define KERNELPRO_SLURM_SCRIPT_H

#include "kernelpro/buf.h"
#include "kernelpro/error.h"
#include "kernelpro/slurm_settings.h"
#include "kernelpro/strvec.h"

/*
 * One suite becomes one job array of `nodes` elements, element K running
 *     kernelpro bench SUITE --shard K/M --resume [--slurm-requeue] [bench args]
 * on one node, and one merge job (`kernelpro bench SUITE --merge`) that depends on the whole
 * array with afterany (docs/slurm.md shows both scripts).
 */
struct kp_slurm_job {
	const char *suite_dir;              /* absolute, on the filesystem every node shares */
	const char *kernelpro;              /* absolute path of the kernelpro the nodes run */
	const char *job_name;               /* NULL: "kp-bench" (the merge job adds "-merge") */
	const struct kp_strvec *bench_args; /* more arguments for each element's `bench`; may be NULL */
	const char *workdir; /* where the bench line runs (relative paths in bench_args); NULL: suite_dir */
	const char *array;   /* the elements to run, "1,3" or "0-2"; NULL: all, 0-(nodes-1) */
};

/*
 * Appends the job-array script for `job` to `out`: #SBATCH lines from the settings, the
 * environment (modules, python, CUDA, env) and the `kernelpro bench --shard K/M --resume` line
 * (with --slurm-requeue when the settings requeue and signal before the time limit). Logs go to
 * SUITE/slurm/shard-K.log, appended across requeues. KP_EINVAL when a value cannot be carried
 * safely (the message names it and says what is allowed).
 */
int kp_slurm_script_array(const struct kp_slurm_settings *s, const struct kp_slurm_job *job,
                          struct kp_buf *out, struct kp_error *err);
/* The merge job's script: no GPUs, `kernelpro bench SUITE --merge`, log SUITE/slurm/merge.log. */
int kp_slurm_script_merge(const struct kp_slurm_settings *s, const struct kp_slurm_job *job,
                          struct kp_buf *out, struct kp_error *err);

/*
 * Reads an element list as kp_slurm_job.array takes it ("1,3", "0-2,5": increasing, below `nodes`)
 * and sets in[k] = 1 for each element named (in: `nodes` bytes, or NULL to check only). KP_EINVAL.
 */
int kp_slurm_script_elements(const char *array, long nodes, unsigned char *in, struct kp_error *err);

#endif
