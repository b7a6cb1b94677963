/*
 * Reports: one self-contained HTML file per run or per suite (inline SVG made here, a few lines of
 * inline JavaScript to sort tables, nothing fetched at view time). docs/report.md describes the
 * pages and the run view's fields.
 *
 * A run's page is built from its run view (kp_run_view, lib/run/view.c), a suite's from a kp_suite
 * (kp_suite_load_dir, lib/suite/fromrun.c): lib/report reads no run directory itself.
 */
#ifndef KERNELPRO_REPORT_H
#define KERNELPRO_REPORT_H

#include <jansson.h>

#include "kernelpro/buf.h"
#include "kernelpro/error.h"
#include "kernelpro/suite.h"

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
