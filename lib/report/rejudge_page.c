/*
 * The report's sections for a re-judged suite (its kernels beside the verdicts their own run
 * recorded) and for a comparison of two suites, from the documents lib/suite makes.
 */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/json.h"
#include "kernelpro/report_sections.h"
#include "kernelpro/suite.h"
#include "report/report_int.h"

static double num(const json_t *o, const char *key)
{
	return kp_json_num(o, key, NAN);
}

static const char *yes_no(const json_t *v)
{
	return json_is_true(v) ? "yes" : json_is_false(v) ? "no" : "\xe2\x80\x94";
}

/* fast_p and geomean under both sides, one row per figure. */
static void both_table(struct kp_buf *b, const json_t *sum)
{
	const json_t *r = json_object_get(sum, "recorded"), *k = json_object_get(sum, "kernelpro");
	char v1[32], v2[32];
	kp_buf_adds(
	    b, "<div class=\"tablewrap\" style=\"max-width:640px\"><table id=\"rejudge-fastp\">\n"
	       "<thead><tr><th>figure</th><th class=\"num\">recorded</th><th class=\"num\">kernelpro</th>"
	       "</tr></thead>\n<tbody>\n");
	for (int i = 0; i < KP_SUITE_NP; i++) {
		const char *key = kp_suite_p_key(i);
		kp_buf_addf(
		    b, "<tr><td>fast_%g</td><td class=\"num\">%s</td><td class=\"num\">%s</td></tr>\n",
		    kp_suite_p[i], kp_html_pct(v1, sizeof(v1), num(json_object_get(r, "fast_p"), key)),
		    kp_html_pct(v2, sizeof(v2), num(json_object_get(k, "fast_p"), key)));
	}
	kp_buf_addf(b,
	            "<tr><td>geomean (correct)</td><td class=\"num\">%s</td><td class=\"num\">%s</td></tr>\n",
	            kp_html_speedup(v1, sizeof(v1), num(r, "geomean_correct")),
	            kp_html_speedup(v2, sizeof(v2), num(k, "geomean_correct")));
	kp_buf_adds(b, "</tbody></table></div>\n");
}

void kp_report_rejudge_section(struct kp_buf *b, const json_t *rj)
{
	static const char *const cols[] = {"Kernel",        "Recorded", "#Recorded ms", "kernelpro",
	                                   "#kernelpro ms", "#Speedup", "Agree",        "Check",
	                                   "Message",       NULL};
	const json_t *sum = json_object_get(rj, "summary"), *rows = json_object_get(rj, "kernels");
	char v[64], d[160];

	kp_html_section(b, "rejudge", "Re-judged against the recorded verdicts");
	kp_html_cards_begin(b);
	snprintf(v, sizeof(v), "%lld", kp_json_int(sum, "kernels", 0));
	snprintf(d, sizeof(d), "%lld with a recorded verdict", kp_json_int(sum, "with_recorded", 0));
	kp_html_card(b, "Kernels", v, d);
	snprintf(v, sizeof(v), "%lld of %lld", kp_json_int(sum, "agree", 0), kp_json_int(sum, "compared", 0));
	snprintf(d, sizeof(d), "%lld recorded correct and refused here; %lld the other way",
	         kp_json_int(sum, "recorded_correct_kernelpro_not", 0),
	         kp_json_int(sum, "kernelpro_correct_recorded_not", 0));
	kp_html_card(b, "Agree on correctness", v, d);
	kp_html_cards_end(b);
	kp_html_para(
	    b, "caption",
	    "Recorded: what the kernels' own run wrote in eval_results.json (its speedups need the "
	    "reference time it recorded, so fast_p above 0 is blank when it recorded none). kernelpro: "
	    "this suite's evaluation of the same file, over eager measured here.");
	both_table(b, sum);
	kp_html_table_begin(b, "rejudge-table", cols);
	for (size_t i = 0; i < json_array_size(rows); i++) {
		const json_t *x = json_array_get(rows, i), *r = json_object_get(x, "recorded"),
		             *k = json_object_get(x, "kernelpro");
		const char *msg = json_is_false(json_object_get(x, "agree")) || !r
		                      ? kp_json_str(k, "message", kp_json_str(x, "reason", ""))
		                      : "";
		kp_buf_adds(b, "<tr>");
		kp_html_td(b, kp_json_str(x, "name", "?"));
		kp_html_td(b, kp_json_str(r, "outcome", "\xe2\x80\x94"));
		kp_html_td_num(b, num(r, "runtime_ms"),
		               kp_html_fmt(v, sizeof(v), "%.4g", num(r, "runtime_ms")));
		kp_html_td(b, kp_json_str(k, "outcome", kp_json_str(x, "state", "")));
		kp_html_td_num(b, num(k, "time_ms"), kp_html_fmt(v, sizeof(v), "%.4g", num(k, "time_ms")));
		kp_html_td_num(b, num(k, "speedup"), kp_html_speedup(v, sizeof(v), num(k, "speedup")));
		kp_html_td(b, yes_no(json_object_get(x, "agree")));
		kp_html_td(b, kp_json_str(k, "check", ""));
		kp_html_td(b, msg ? msg : "");
		kp_buf_adds(b, "</tr>\n");
	}
	kp_html_table_end(b);
	kp_html_section_end(b);
}

void kp_report_compare_section(struct kp_buf *b, const json_t *c)
{
	static const char *const cols[] = {"Task", "#A", "#B", "#A/B", NULL};
	const json_t *ci = json_object_get(c, "ci"), *w = json_object_get(c, "wilcoxon"),
	             *rows = json_object_get(c, "tasks");
	char v[64], d[200];

	kp_html_section(b, "compare", "A against B");
	kp_html_cards_begin(b);
	snprintf(d, sizeof(d), "%.0f%% CI [%.4g, %.4g], percentile bootstrap of %lld resamples",
	         num(ci, "level") * 100, num(ci, "lo"), num(ci, "hi"), kp_json_int(ci, "resamples", 0));
	kp_html_card(b, "Geomean A/B", kp_html_speedup(v, sizeof(v), num(c, "geomean_ratio")), d);
	snprintf(d, sizeof(d), "W = %g over %lld pairs (%s, two-sided)", num(w, "statistic"),
	         kp_json_int(w, "n", 0), kp_json_str(w, "method", ""));
	kp_html_card(b, "Wilcoxon p", kp_html_fmt(v, sizeof(v), "%.4g", num(w, "p")), d);
	snprintf(v, sizeof(v), "%lld", kp_json_int(c, "paired", 0));
	snprintf(d, sizeof(d), "A faster on %lld, B on %lld, %lld ties; %lld only in A, %lld only in B",
	         kp_json_int(c, "a_faster", 0), kp_json_int(c, "b_faster", 0), kp_json_int(c, "ties", 0),
	         kp_json_int(c, "only_a", 0), kp_json_int(c, "only_b", 0));
	kp_html_card(b, "Tasks paired", v, d);
	kp_html_cards_end(b);
	kp_buf_adds(b, "<p class=\"caption\">A = ");
	kp_html_escape(b, kp_json_str(c, "a", ""));
	kp_buf_adds(b, ", B = ");
	kp_html_escape(b, kp_json_str(c, "b", ""));
	kp_buf_adds(b, ". Speedups over eager; a task without a correct version counts 1.0\xc3\x97.</p>\n");
	kp_html_table_begin(b, "compare-table", cols);
	for (size_t i = 0; i < json_array_size(rows); i++) {
		const json_t *x = json_array_get(rows, i);
		kp_buf_adds(b, "<tr>");
		kp_html_td(b, kp_json_str(x, "key", "?"));
		kp_html_td_num(b, num(x, "a"), kp_html_speedup(v, sizeof(v), num(x, "a")));
		kp_html_td_num(b, num(x, "b"), kp_html_speedup(v, sizeof(v), num(x, "b")));
		kp_html_td_num(b, num(x, "ratio"), kp_html_fmt(v, sizeof(v), "%.3g", num(x, "ratio")));
		kp_buf_adds(b, "</tr>\n");
	}
	kp_html_table_end(b);
	kp_html_section_end(b);
}

int kp_report_compare_html(const json_t *c, struct kp_buf *out, struct kp_error *err)
{
	struct kp_buf title = KP_BUF_INIT;
	kp_buf_addf(&title, "%s vs %s", kp_json_str(c, "a", "A"), kp_json_str(c, "b", "B"));
	kp_html_begin(out, title.buf);
	kp_html_heading(out, title.buf, "kernelpro compare: paired speedups of two suites");
	kp_report_compare_section(out, c);
	kp_html_end(out);
	kp_buf_release(&title);
	(void)err;
	return 0;
}
