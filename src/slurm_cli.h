/* The Slurm side of `kernelpro bench`: --slurm (submission), the Slurm part of --status, --slurm-requeue. */
#ifndef KP_SLURM_CLI_H
#define KP_SLURM_CLI_H

#include <jansson.h>

#include "cli.h"
#include "kernelpro/bench.h"
#include "kernelpro/slurm_settings.h"

/* Put inside bench's option table. */
#define KP_SLURM_CLI_OPTS                                                                                  \
	{"slurm",                                                                                          \
	 0,                                                                                                \
	 KP_OPT_FLAG,                                                                                      \
	 NULL,                                                                                             \
	 "submit the suite to Slurm: a job array of shards, then a merge job (docs/slurm.md)",             \
	 NULL},                                                                                            \
	    {"nodes", 0, KP_OPT_INT, "M", "--slurm: shards, one array element (one node) each", NULL},     \
	    {"gpus-per-node",                                                                              \
	     0,                                                                                            \
	     KP_OPT_INT,                                                                                   \
	     "N",                                                                                          \
	     "--slurm: GPUs each element asks for (its --gpus all)",                                       \
	     NULL},                                                                                        \
	    {"partition", 0, KP_OPT_STR, "P", "--slurm: the partition (a name or a comma list)", NULL},    \
	    {"account", 0, KP_OPT_STR, "A", "--slurm: the account charged", NULL},                         \
	    {"qos", 0, KP_OPT_STR, "Q", "--slurm: the quality of service", NULL},                          \
	    {"slurm-time",                                                                                 \
	     0,                                                                                            \
	     KP_OPT_STR,                                                                                   \
	     "T",                                                                                          \
	     "--slurm: each element's time limit as Slurm writes it (4:00:00, 1-12); --time is per task",  \
	     NULL},                                                                                        \
	    {"sbatch-arg",                                                                                 \
	     0,                                                                                            \
	     KP_OPT_LIST,                                                                                  \
	     "ARG",                                                                                        \
	     "--slurm: one more sbatch option for the array, --name=value",                                \
	     NULL},                                                                                        \
	    {"slurm-config",                                                                               \
	     0,                                                                                            \
	     KP_OPT_STR,                                                                                   \
	     "FILE",                                                                                       \
	     "--slurm: settings (the file's \"slurm\" object) over the suite's, else "                     \
	     "~/.config/kernelpro/slurm.json",                                                             \
	     NULL},                                                                                        \
	    {"dry-run", 0, KP_OPT_FLAG, NULL, "--slurm: write and print the job scripts, submit nothing",  \
	     NULL},                                                                                        \
	{                                                                                                  \
		"slurm-requeue", 0, KP_OPT_FLAG, NULL,                                                     \
		    "in a Slurm array element (its script passes it): on SIGUSR1 with work left, requeue " \
		    "the element",                                                                         \
		    NULL                                                                                   \
	}

/* Option combinations: 0, or KP_EXIT_USAGE after saying what is wrong (Slurm options without --slurm, ...).
 */
int kp_slurm_cli_check(struct kp_cli *cli, const struct kp_args *a);

/*
 * The Slurm settings of a submission, into s (initialised by the caller): the suite's own settings
 * file (dir: an existing suite; NULL for one not made yet) or the user's, --slurm-config, then each
 * option given. 0, or the exit code after saying what is wrong: checked before a suite is made.
 */
int kp_slurm_cli_settings(struct kp_cli *cli, const struct kp_args *a, const char *dir,
                          struct kp_slurm_settings *s);

/*
 * --slurm on the suite in `dir` (made by this command when `created`) with the settings `s`: the
 * elements' options from the command line, the submission (or with --dry-run the scripts,
 * printed). The exit code: 0, 75 while an earlier submission is live, 1 or 3 on errors.
 */
int kp_slurm_cli_submit(struct kp_cli *cli, const struct kp_args *a, const char *dir, int created,
                        const struct kp_slurm_settings *s);

/*
 * --status: the suite's latest Slurm submission and each shard's element next to its tasks, printed
 * (or, with --json, added to `doc` as "slurm"). Nothing for a suite never submitted.
 */
void kp_slurm_cli_status(struct kp_cli *cli, const char *dir, json_t *doc);

/* --merge with tasks not done: which shards they are in and their elements' Slurm states. */
void kp_slurm_cli_merge_incomplete(struct kp_cli *cli, const char *dir);

/*
 * After a shard session that SIGUSR1 stopped (`out`): as a Slurm array element with
 * --slurm-requeue, requeues the element when the shard has work left and the session made progress.
 * Returns the exit code: 0 requeued, 1 not (the message says why and what to do).
 */
int kp_slurm_cli_requeue(struct kp_cli *cli, const char *dir, int shard, int shards,
                         const struct kp_bench_outcome *out);

#endif
