/* The run commands' shared CLI pieces (optimize, runs, show): --runs-dir, durations, printing a run. */
#ifndef KP_SRC_RUNS_H
#define KP_SRC_RUNS_H

#include <jansson.h>
#include <stdio.h>

#include "cli.h"
#include "kernelpro/run.h"
#include "kernelpro/str.h" /* kp_parse_duration */

/* The option every run command takes. */
#define KP_RUNS_DIR_OPT                                                                      \
	{                                                                                    \
		"runs-dir", 0, KP_OPT_STR, "DIR",                                            \
		    "where runs live (default $KERNELPRO_RUNS, else ./kernelpro-runs)", NULL \
	}

/* --runs-dir, else $KERNELPRO_RUNS, else "kernelpro-runs" (kp_run_root). */
const char *kp_cli_runs_root(const struct kp_args *a);

/* "45s", "3m12s", "1h02m". */
const char *kp_fmt_duration(double s, char *buf, size_t n);

/*
 * Text from a run (a model's words, a task's path, a name recorded by an older kernelpro) for a
 * terminal: control characters (ESC, CR, BEL, ..., and C1 in UTF-8) become \xNN / \u00NN, so
 * nothing printed can move the cursor or rewrite the screen. KP_TEXT_LINES keeps newlines and tabs.
 */
enum kp_text_flags { KP_TEXT_LINE = 0, KP_TEXT_LINES = 1 };
void kp_cli_text(struct kp_buf *out, const char *s, unsigned flags);
/* Every string in v (objects and arrays, recursively) made printable in place, for the human views. */
void kp_cli_json_printable(json_t *v, unsigned flags);

/* One step of a summary's path: "  #3    repair   correct   1.60x  what it changed". */
void kp_print_path_line(FILE *fp, const json_t *step);
/* A run's summary (kp_run_summary) for people: status, settings, use, outcomes, the best and its path. */
void kp_cli_print_run_summary(struct kp_cli *cli, const json_t *sum);

/* The progress line and event notes of a session (nothing with --json or --quiet). */
void kp_cli_run_progress(struct kp_cli *cli, const struct kp_search_status *st);
void kp_cli_run_note(struct kp_cli *cli, const char *line);
/* The end of a session: the summary with --json, else the best version and where to look next. */
void kp_cli_run_result(struct kp_cli *cli, struct kp_run *r, const struct kp_search_outcome *out);

#endif
