/*
 * Report sections over documents other modules make: a re-judged suite beside its recorded verdicts
 * (kp_rejudge_table's document, on the suite's page) and a comparison of two suites
 * (kp_compare_to_json's, a page of its own). lib/report/rejudge_page.c; docs/rejudge.md.
 */
#ifndef KERNELPRO_REPORT_SECTIONS_H
#define KERNELPRO_REPORT_SECTIONS_H

#include <jansson.h>

#include "kernelpro/buf.h"
#include "kernelpro/error.h"

/* <section id="s-rejudge">: agreement, fast_p and geomean under both, one row per kernel. Appends. */
void kp_report_rejudge_section(struct kp_buf *out, const json_t *rejudge);
/* <section id="s-compare">: the figures and one row per task. Appends. */
void kp_report_compare_section(struct kp_buf *out, const json_t *compare);
/* A whole page holding kp_report_compare_section. Appends. */
int kp_report_compare_html(const json_t *compare, struct kp_buf *out, struct kp_error *err);

#endif
