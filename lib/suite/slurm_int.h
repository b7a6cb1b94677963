/*
 * Inside the Slurm modules (slurm_settings.c, slurm_script.c, slurm_submission.c, slurm_status.c):
 * what may reach a script (slurm_check.c) and running Slurm's own programs (slurm_client.c).
 */
#ifndef KP_SLURM_INT_H
#define KP_SLURM_INT_H

#include <stdbool.h>

#include "kernelpro/child.h"
#include "kernelpro/error.h"

#define KP__SLURM_MAX_SHARDS 10000

/* ---- slurm_check.c: values that reach a script or an #SBATCH line ------------------------------- */

/* True when every character is a letter, a digit or one of `extra`. */
bool kp__slurm_check_chars(const char *s, const char *extra);
/* True when s has a control character (below 0x20, or 0x7f). */
bool kp__slurm_check_has_control(const char *s);

/* Each returns 0, or KP_EINVAL with a message naming `what` and the value and saying what is allowed. */
/* A Slurm name (partition, account, QoS, job name): 1 to 64 letters, digits or `extra`. */
int kp__slurm_check_name(const char *what, const char *v, const char *extra, struct kp_error *err);
/* Slurm's time forms: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S. */
int kp__slurm_check_time(const char *what, const char *v, struct kp_error *err);
/* An absolute path without control characters (it goes single-quoted into a script's body). */
int kp__slurm_check_abs_path(const char *what, const char *v, struct kp_error *err);
/* An absolute path sbatch reads literally on an #SBATCH line. */
int kp__slurm_check_sbatch_path(const char *what, const char *v, struct kp_error *err);
int kp__slurm_check_module(const char *v, struct kp_error *err);
/* "NAME=value"; names kernelpro sets from other settings, and SLURM_*, are refused. */
int kp__slurm_check_env(const char *v, struct kp_error *err);
/* One long sbatch option, "--name" or "--name=value", that kernelpro does not write itself. */
int kp__slurm_check_sbatch_arg(const char *v, struct kp_error *err);

/* ---- slurm_client.c: Slurm's programs and what they print --------------------------------------- */

/* A whole number of 1 to 18 digits, no sign, not above max. */
bool kp__slurm_client_num(const char *s, size_t n, long long max, long long *out);

/*
 * Runs a Slurm program set up in c->args, in the C locale with a time limit and output caps (out_cap
 * bytes of stdout kept: more is KP_ETOOBIG). KP_ENOTOOL says to run on a login node when `prog`
 * is missing; otherwise 0, and the caller looks at how the child ended.
 */
int kp__slurm_client_run(struct kp_child *c, const char *prog, size_t out_cap, struct kp_error *err);
/* The error for a client that ended badly: "PROG exited with status N: its first line of output". */
int kp__slurm_client_failed(const struct kp_child *c, const char *prog, struct kp_error *err);

#endif
