/* Run directories for optimize, runs and show: where they live, finding one by name, the lock, durations. */
#ifndef KP_SRC_RUNS_H
#define KP_SRC_RUNS_H

#include <jansson.h>
#include <stdio.h>

#include "cli.h"
#include "kernelpro/buf.h"
#include "kernelpro/error.h"
#include "kernelpro/store.h"

#define KP_RUN_DB "run.db"

/* The option every run command takes. */
#define KP_RUNS_DIR_OPT \
	{"runs-dir", 0, KP_OPT_STR, "DIR", "where runs live (default $KERNELPRO_RUNS, else ./kernelpro-runs)", NULL}

/* --runs-dir, else $KERNELPRO_RUNS, else "kernelpro-runs". */
const char *kp_runs_dir(const struct kp_args *a);

/*
 * RUN is a run directory (holding run.db) or the name of one under runs_dir; its path is
 * appended to `dir`. KP_ENOENT with a hint when neither exists.
 */
int kp_run_resolve(const char *runs_dir, const char *run, struct kp_buf *dir, struct kp_error *err);

/*
 * Takes the run's lock (an flock on DIR/run.lock, released when the process ends, kill -9
 * included): one process works on a run at a time. *fd is closed by kp_run_unlock().
 */
int kp_run_lock(const char *dir, int *fd, struct kp_error *err);
void kp_run_unlock(int fd);

/* "90", "90s", "30m", "2h", "1.5h" -> seconds; KP_EINVAL otherwise. */
int kp_parse_duration(const char *s, double *out);
/* "45s", "3m12s", "1h02m". */
const char *kp_fmt_duration(double s, char *buf, size_t n);

/* One step of a summary's path: "  #3    repair   correct   1.60x  what it changed". */
void kp_print_path_line(FILE *fp, const json_t *step);

#endif
