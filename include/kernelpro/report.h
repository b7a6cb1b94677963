/*
 * Reports: one self-contained HTML file per run or per suite (inline SVG made here, a few lines of
 * inline JavaScript to sort tables, nothing fetched at view time), and the run view they are built
 * from. docs/report.md describes the pages and the run view's fields.
 *
 * The run view is the only place that reads a run directory; everything else works on the JSON
 * document it returns, so a change in how runs are stored changes one file (lib/report/runview.c).
 */
#ifndef KERNELPRO_REPORT_H
#define KERNELPRO_REPORT_H

#include <jansson.h>

#include "kernelpro/buf.h"
#include "kernelpro/error.h"
#include "kernelpro/suite.h"

#define KP_RUN_VIEW_SCHEMA "kernelpro.run-view/1"

/* ---- Reading runs -------------------------------------------------------------------------------- */

/*
 * The run in `run_dir` (a directory holding run.db) as one document: {"schema", "dir", "summary"
 * (the same object as `kernelpro show --json`), "hardware", "stage1", "baseline", "nodes": [...]},
 * each node with its verdict, times, the model's summary, the evaluation's log, the tools' feedback
 * and findings, and its saved profile. Opens the database read-only. New reference in *out.
 */
int kp_report_run_view(const char *run_dir, json_t **out, struct kp_error *err);

/* The source of one version of the run (appended to `src`) and its language ("cuda", "python"). */
int kp_report_run_source(const char *run_dir, long node, struct kp_buf *src, char lang[16],
                         struct kp_error *err);

/*
 * One suite task record from the run in run_dir (kp_suite_task_init'ed by the caller): its view
 * through kp_suite_task_from_view, and the fastest correct version's source and language.
 */
int kp_report_suite_task(const char *run_dir, struct kp_suite_task *t, struct kp_error *err);

/*
 * A suite from a directory: DIR/results.json when there is one (kernelpro.bench-results/1), else
 * every subdirectory of DIR that holds a run (sorted by name), one task each, with the fastest
 * correct version's source. `s` is initialised by the caller; kp_suite_compute has run on success.
 */
int kp_report_suite_load(const char *dir, struct kp_suite *s, struct kp_error *err);

/* Whether `dir` holds a run (run.db) and whether it looks like a suite (results.json or runs under it). */
int kp_report_is_run(const char *dir);
int kp_report_is_suite(const char *dir);

/* ---- Pages ------------------------------------------------------------------------------------------ */

/* The HTML page of one run, from its view. Appends to `out`. */
int kp_report_run_html(const json_t *view, struct kp_buf *out, struct kp_error *err);

/* The HTML page of a suite (after kp_suite_compute). Appends to `out`. */
int kp_report_suite_html(const struct kp_suite *s, struct kp_buf *out, struct kp_error *err);

/*
 * Writes the suite's page to the file `page` and, for each task whose run directory lies under the
 * page's directory (PAGE_DIR/run, as results.json's "run" names it), that run's page beside it
 * (RUN/report.html). The suite page links each task to its run page, its best and refused versions
 * to their places there, and its kernel (PAGE_DIR/kernel) when the file exists. A run that cannot
 * be read, or whose run page cannot be written there (a read-only store), keeps its row without a
 * link; only the suite page's own write can fail.
 */
int kp_report_suite_write(const struct kp_suite *s, const char *page, struct kp_error *err);

/* ---- Escaping ----------------------------------------------------------------------------------------- */

/*
 * Appends `s` escaped for HTML text and for a double- or single-quoted attribute value: & < > " '
 * become entities, control characters other than tab and newline become U+FFFD. NULL appends "".
 */
void kp_html_escape(struct kp_buf *b, const char *s);

#endif
