/* kp_slurm_settings: what differs between Slurm clusters (partition, account, modules, python, ...). */
#ifndef KERNELPRO_SLURM_SETTINGS_H
#define KERNELPRO_SLURM_SETTINGS_H

#include <jansson.h>

#include "kernelpro/error.h"
#include "kernelpro/strvec.h"

/*
 * docs/slurm.md lists every setting with its JSON key, type and default. Every value is checked
 * when it is set (and again by the script writer, since the struct may be filled directly): values
 * that go into a script's body are single-quoted there, values on #SBATCH lines are limited to
 * characters sbatch reads literally, so no setting can inject shell or sbatch syntax.
 */
struct kp_slurm_settings {
	char *partition; /* NULL: the cluster's default */
	char *account;
	char *qos;
	char *time;         /* each element's limit, Slurm syntax ("4:00:00", "1-12"); NULL: partition's */
	char *merge_time;   /* the merge job's limit; default "1:00:00" */
	long nodes;         /* array elements = shards, one node each; default 1 */
	long gpus_per_node; /* --gpus-per-node; 0 (default): none requested */
	int requeue;        /* --requeue (default 1): node failure, preemption or the time limit reruns it */
	long signal_s; /* SIGUSR1 this many seconds before an element's time limit; default 300, 0: none */
	struct kp_strvec modules;     /* `module load` each, in order */
	char *python;                 /* KERNELPRO_PYTHON on the nodes (absolute path) */
	char *cuda_home;              /* CUDA_HOME on the nodes (absolute); its bin/ goes first on PATH */
	struct kp_strvec env;         /* "NAME=value" exported in each job */
	struct kp_strvec sbatch_args; /* extra options for the array, each one "--name[=value]" */
};

/* ---- Lifecycle ------------------------------------------------------------------------------------ */

void kp_slurm_settings_init(struct kp_slurm_settings *s);
/* Frees everything the settings hold. Safe twice, safe on a zeroed struct. */
void kp_slurm_settings_release(struct kp_slurm_settings *s);

/* ---- Reading and writing ---------------------------------------------------------------------------- */

/*
 * Reads a settings object (the "slurm" member of a settings file) over the current values.
 * Unknown keys, wrong types and invalid values fail with KP_EINVAL naming `what` and the key.
 * Lists (modules, sbatch_args) replace the current list; env entries are added.
 */
int kp_slurm_settings_from_json(struct kp_slurm_settings *s, const json_t *obj, const char *what,
                                struct kp_error *err);
/* Reads the "slurm" object of the JSON file `path` (KP_ENOENT when the file has none). */
int kp_slurm_settings_load(struct kp_slurm_settings *s, const char *path, struct kp_error *err);
/*
 * Every setting as a "slurm" object (new reference): unset names (partition, ...) are left out,
 * so kp_slurm_settings_from_json over fresh settings gives the same settings back.
 */
json_t *kp_slurm_settings_to_json(const struct kp_slurm_settings *s);

/*
 * Sets one setting from text, as the command line gives it: `key` is a JSON key ("partition",
 * "gpus_per_node", "requeue" with "yes"/"no", ...); for "modules", "env" ("NAME=value") and
 * "sbatch_args" the value is added to the list. Validates the value (KP_EINVAL).
 */
int kp_slurm_settings_set(struct kp_slurm_settings *s, const char *key, const char *value,
                          struct kp_error *err);

/* Checks every value again (the struct may have been filled directly): 0 or KP_EINVAL. */
int kp_slurm_settings_check(const struct kp_slurm_settings *s, struct kp_error *err);

#endif
