/* The suite page: headline figures, fast_p curves, the speedup distribution, time and cost, the task table.
 */
#include "base/setup.h"

#include <math.h>
#include <time.h>

#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/report_sections.h"
#include "kernelpro/run.h"
#include "report/report_int.h"

static const char *const base_cls[KP_SUITE_NBASE] = {"eager", "compile"};
static const char *const base_label[KP_SUITE_NBASE] = {"eager", "torch.compile"};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The speedups of the correct tasks against baseline b, sorted; returns how many. Caller frees *out. */
static size_t speedups(const struct kp_suite *s, enum kp_suite_baseline b, double **out)
{
	size_t k = 0;
	*out = kp_xcalloc(s->n ? s->n : 1, sizeof(double));
	for (size_t i = 0; i < s->n; i++)
		if (isfinite(s->v[i].speedup[b]))
			(*out)[k++] = s->v[i].speedup[b];
	qsort(*out, k, sizeof(double), cmp_double);
	return k;
}

static double max_speedup(const struct kp_suite *s)
{
	double m = 0;
	for (size_t i = 0; i < s->n; i++)
		for (int b = 0; b < KP_SUITE_NBASE; b++)
			if (isfinite(s->v[i].speedup[b]) && s->v[i].speedup[b] > m)
				m = s->v[i].speedup[b];
	return m;
}

/* ---- headline
 * ---------------------------------------------------------------------------------------------- */

static const char *fast1_label(char *buf, size_t n, const char *base)
{
	snprintf(buf, n, "fast_1 vs %s", base);
	return buf;
}

static void headline(struct kp_buf *b, const struct kp_suite *s)
{
	const struct kp_suite_summary *m = &s->sum;
	char v[64], d[200], t[32];

	kp_html_cards_begin(b);
	snprintf(v, sizeof(v), "%ld", m->tasks);
	snprintf(d, sizeof(d), "%ld finished, %ld failed, %ld stopped, %ld running, %ld pending",
	         m->states[KP_SUITE_FINISHED], m->states[KP_SUITE_FAILED], m->states[KP_SUITE_STOPPED],
	         m->states[KP_SUITE_RUNNING], m->states[KP_SUITE_PENDING]);
	kp_html_card(b, "Tasks", v, d);
	snprintf(d, sizeof(d), "%ld of %ld tasks have a correct version", m->correct, m->tasks);
	kp_html_card(b, "Correct", kp_html_pct(v, sizeof(v), m->correctness_rate), d);
	for (int k = 0; k < KP_SUITE_NBASE; k++) {
		const struct kp_suite_base_stats *st = &m->base[k];
		char label[64];
		snprintf(d, sizeof(d), "correct and faster, over %ld tasks", st->n);
		kp_html_card(b, fast1_label(label, sizeof(label), base_label[k]),
		             kp_html_pct(v, sizeof(v), st->fast_p[KP_SUITE_P_FAST1]),
		             st->n ? d : "baseline not measured");
	}
	for (int k = 0; k < KP_SUITE_NBASE; k++) {
		const struct kp_suite_base_stats *st = &m->base[k];
		char label[64];
		snprintf(label, sizeof(label), "Geomean vs %s", base_label[k]);
		snprintf(d, sizeof(d), "over %ld correct tasks; %s over all %ld (failures 1.0\xc3\x97)",
		         st->correct, kp_html_speedup(t, sizeof(t), st->geomean_all), st->n);
		kp_html_card(b, label, kp_html_speedup(v, sizeof(v), st->geomean_correct), d);
	}
	snprintf(d, sizeof(d), "%ld of %ld tasks have a final result",
	         m->states[KP_SUITE_FINISHED] + m->states[KP_SUITE_FAILED], m->tasks);
	kp_html_card(b, "Coverage", kp_html_pct(v, sizeof(v), m->coverage), d);
	/* The wall time is what the user waited; the tasks' own times overlap on several GPUs. */
	if (isfinite(s->ctx.wall_s)) {
		snprintf(d, sizeof(d),
		         "the bench sessions end to end; the tasks' own times sum to %s; %ld evaluations",
		         kp_html_duration(t, sizeof(t), m->elapsed_s), m->evaluations);
		kp_html_card(b, "Wall time", kp_html_duration(v, sizeof(v), s->ctx.wall_s), d);
	} else {
		snprintf(d, sizeof(d),
		         "the sum of the tasks' own times (the suite's wall time was not recorded); %ld "
		         "evaluations",
		         m->evaluations);
		kp_html_card(b, "Task time", kp_html_duration(v, sizeof(v), m->elapsed_s), d);
	}
	/* A model without a known price costs 0 in the counters: say unknown, never $0.00. */
	if (m->cost_unknown && m->cost_usd > 0) {
		snprintf(
		    d, sizeof(d),
		    "at least: %ld of %ld tasks used a model with no known price; %ld tokens in, %ld out",
		    m->cost_unknown, m->tasks, m->tokens_in, m->tokens_out);
		kp_html_card(b, "Cost", kp_html_fmt(v, sizeof(v), "$%.2f+", m->cost_usd), d);
	} else if (m->cost_unknown) {
		snprintf(d, sizeof(d),
		         "no price is known for the model of %ld task(s); %ld tokens in, %ld out",
		         m->cost_unknown, m->tokens_in, m->tokens_out);
		kp_html_card(b, "Cost", "unknown", d);
	} else {
		snprintf(d, sizeof(d), "%ld tokens in, %ld out", m->tokens_in, m->tokens_out);
		kp_html_card(b, "Cost", kp_html_fmt(v, sizeof(v), "$%.2f", m->cost_usd), d);
	}
	if (m->energy_tasks) {
		snprintf(d, sizeof(d), "geomean of best/reference energy per call over %ld tasks",
		         m->energy_tasks);
		kp_html_card(b, "Energy", kp_html_fmt(v, sizeof(v), "%.2f\xc3\x97", m->energy_ratio_geomean),
		             d);
	}
	kp_html_cards_end(b);
}

/* The distinct values of one task string field, joined ("NVIDIA H200, NVIDIA H100"); NULL when none. */
static char *joined(const struct kp_suite *s, size_t off)
{
	struct kp_buf b = KP_BUF_INIT;
	for (size_t i = 0; i < s->n; i++) {
		const char *v = *(char *const *)((const char *)&s->v[i] + off);
		int seen = 0;
		for (size_t j = 0; v && j < i && !seen; j++) {
			const char *w = *(char *const *)((const char *)&s->v[j] + off);
			seen = w && !strcmp(v, w);
		}
		if (v && !seen)
			kp_buf_addf(&b, "%s%s", b.len ? ", " : "", v);
	}
	return b.len ? kp_buf_detach(&b, NULL) : (kp_buf_release(&b), NULL);
}

/* GPU, model, kernelpro's version, the dates; then the settings the suite recorded. */
static void context(struct kp_buf *b, const struct kp_suite *s)
{
	static const char *const labels[] = {"GPU", "model", "kernelpro", "suite made", "page written"};
	char *gpus = joined(s, offsetof(struct kp_suite_task, gpu));
	char *models = joined(s, offsetof(struct kp_suite_task, model));
	const char *made_by = kp_json_str(s->ctx.settings, "kernelpro", NULL);
	char now[32], ver[96];
	time_t t = time(NULL);
	struct tm tm;
	const char *values[5];

	strftime(now, sizeof(now), "%Y-%m-%d %H:%M UTC", gmtime_r(&t, &tm));
	if (made_by && strcmp(made_by, KP_VERSION " (" KP_GIT_REV ")"))
		snprintf(ver, sizeof(ver), "%s (suite made by %.40s)", KP_VERSION " (" KP_GIT_REV ")",
		         made_by);
	else
		snprintf(ver, sizeof(ver), "%s", KP_VERSION " (" KP_GIT_REV ")");
	values[0] = gpus ? gpus : "unknown";
	values[1] = models ? models : "unknown";
	values[2] = ver;
	values[3] = s->ctx.created;
	values[4] = now;
	kp_html_facts(b, 5, labels, values);
	if (s->ctx.settings) {
		char *text = json_dumps(s->ctx.settings, JSON_INDENT(1) | JSON_SORT_KEYS);
		kp_buf_adds(b, "<details><summary>Settings the suite was made with</summary>\n<pre>");
		kp_html_escape(b, text);
		kp_buf_adds(b, "</pre></details>\n");
		free(text);
	}
	free(gpus);
	free(models);
}

/* ---- fast_p
 * ------------------------------------------------------------------------------------------------ */

static void fast_p_table(struct kp_buf *b, const struct kp_suite *s)
{
	char v[32];
	kp_buf_adds(b, "<div class=\"tablewrap\" style=\"max-width:560px\"><table id=\"fastp-table\">\n"
	               "<thead><tr><th>p</th>");
	for (int k = 0; k < KP_SUITE_NBASE; k++)
		kp_buf_addf(b, "<th class=\"num\">vs %s (n = %ld)</th>", base_label[k], s->sum.base[k].n);
	kp_buf_adds(b, "</tr></thead>\n<tbody>\n");
	for (int i = 0; i < KP_SUITE_NP; i++) {
		kp_buf_addf(b, "<tr><td>fast_%g</td>", kp_suite_p[i]);
		for (int k = 0; k < KP_SUITE_NBASE; k++)
			kp_buf_addf(b, "<td class=\"num\">%s</td>",
			            kp_html_pct(v, sizeof(v), s->sum.base[k].fast_p[i]));
		kp_buf_adds(b, "</tr>\n");
	}
	kp_buf_adds(b, "</tbody></table></div>\n");
}

static void fast_p_chart(struct kp_buf *b, const struct kp_suite *s)
{
	struct kp_svg S = {.ml = 64, .mr = 24, .mt = 30, .mb = 52};
	double smax = max_speedup(s), xmax = ceil(smax * 1.1 * 2) / 2;
	const char *cls[KP_SUITE_NBASE], *labels[KP_SUITE_NBASE];
	char lab[KP_SUITE_NBASE][64];
	size_t nleg = 0;

	xmax = xmax < 2.5 ? 2.5 : xmax > 10 ? 10 : xmax;
	/* A little room beyond 0 and 100% so the marks there are not cut by the frame. */
	S.x = (struct kp_svg_axis){
	    -0.03 * xmax, xmax, KP_SVG_LINEAR, KP_SVG_TIMES, "p: speedup threshold over the baseline",
	    NULL,         0};
	S.y = (struct kp_svg_axis){
	    -0.03, 1.06, KP_SVG_LINEAR, KP_SVG_PCT, "fast_p: tasks correct and faster than p", NULL, 0};
	kp_svg_begin(&S, b, "fast_p", "fast_p curves against eager and torch.compile", 820, 400, 0);
	kp_svg_axes(&S);
	kp_svg_guide(&S, 1, 1);
	kp_svg_text(&S, kp_svg_px(&S, 1), S.mt - 8, 'm', "annot", "p = 1: faster than the baseline");
	kp_svg_clip_begin(&S);
	for (int k = 0; k < KP_SUITE_NBASE; k++) {
		const struct kp_suite_base_stats *st = &s->sum.base[k];
		double *sp, *x, *y;
		size_t n = speedups(s, k, &sp), m = 0, i = 0;
		if (!st->n) {
			free(sp);
			continue;
		}
		x = kp_xcalloc(2 * n + 2, sizeof(double));
		y = kp_xcalloc(2 * n + 2, sizeof(double));
		x[m] = 0;
		y[m++] = (double)n / (double)st->n;
		while (i < n) {
			double at = sp[i];
			while (i < n && sp[i] == at) /* ties drop together: fast_p counts speedup > p */
				i++;
			x[m] = at;
			y[m] = y[m - 1];
			m++;
			x[m] = at;
			y[m++] = (double)(n - i) / (double)st->n;
		}
		x[m] = xmax * 2;
		y[m] = y[m - 1];
		m++;
		kp_svg_line(&S, x, y, m, base_cls[k]);
		free(x);
		free(y);
		free(sp);
	}
	kp_svg_clip_end(&S);
	for (int k = 0; k < KP_SUITE_NBASE; k++) {
		const struct kp_suite_base_stats *st = &s->sum.base[k];
		if (st->n) {
			for (int i = 0; i < KP_SUITE_NP; i++) {
				char t[96], pct[16];
				snprintf(t, sizeof(t), "fast_%s vs %s: %s of %ld tasks", kp_suite_p_key(i),
				         base_label[k], kp_html_pct(pct, sizeof(pct), st->fast_p[i]), st->n);
				kp_svg_mark(&S, kp_suite_p[i], st->fast_p[i], k ? 's' : 'o', 4.5, base_cls[k],
				            t);
			}
			snprintf(lab[nleg], sizeof(lab[nleg]), "%s (n = %ld)", base_label[k], st->n);
		} else {
			snprintf(lab[nleg], sizeof(lab[nleg]), "%s: not measured", base_label[k]);
		}
		cls[nleg] = base_cls[k];
		labels[nleg] = lab[nleg];
		nleg++;
	}
	kp_svg_legend(&S, nleg, cls, labels, 0);
	kp_svg_end(&S);
	if (smax > 10)
		kp_html_para(b, "caption", "Speedups above 10\xc3\x97 run off the right edge of the chart.");
}

/* ---- distribution
 * ------------------------------------------------------------------------------------------- */

static const double bin_edges[] = {0, 0.5, 0.8, 1, 1.5, 2, 3, 5, 10, INFINITY};
#define NBINS (KP_ARRAY_SIZE(bin_edges) - 1)
static const char *const bin_labels[NBINS + 1] = {"<0.5\xc3\x97",
                                                  "0.5\xe2\x80\x93"
                                                  "0.8",
                                                  "0.8\xe2\x80\x93"
                                                  "1",
                                                  "1\xe2\x80\x93"
                                                  "1.5",
                                                  "1.5\xe2\x80\x93"
                                                  "2",
                                                  "2\xe2\x80\x93"
                                                  "3",
                                                  "3\xe2\x80\x93"
                                                  "5",
                                                  "5\xe2\x80\x93"
                                                  "10",
                                                  "\xe2\x89\xa5"
                                                  "10\xc3\x97",
                                                  "failed"};

static size_t bin_of(double v)
{
	for (size_t i = 0; i < NBINS; i++)
		if (v >= bin_edges[i] && v < bin_edges[i + 1])
			return i;
	return NBINS - 1;
}

static void distribution_chart(struct kp_buf *b, const struct kp_suite *s)
{
	struct kp_svg S = {.ml = 56, .mr = 24, .mt = 34, .mb = 52};
	long count[KP_SUITE_NBASE][NBINS + 1] = {{0}}, top = 1;
	const char *cls[KP_SUITE_NBASE], *labels[KP_SUITE_NBASE];

	for (size_t i = 0; i < s->n; i++)
		for (int k = 0; k < KP_SUITE_NBASE; k++) {
			const struct kp_suite_task *t = &s->v[i];
			if (isnan(t->base_ms[k]))
				continue;
			count[k][t->correct ? bin_of(t->speedup[k]) : NBINS]++;
		}
	for (int k = 0; k < KP_SUITE_NBASE; k++)
		for (size_t j = 0; j <= NBINS; j++)
			top = count[k][j] > top ? count[k][j] : top;
	S.x = (struct kp_svg_axis){
	    0,          NBINS + 1, KP_SVG_CATEGORY, KP_SVG_NUM, "speedup of the fastest correct version",
	    bin_labels, 0};
	S.y = (struct kp_svg_axis){
	    0, top < 4 ? 4 : ceil(top * 1.15), KP_SVG_LINEAR, KP_SVG_NUM, "tasks", NULL, 1};
	kp_svg_begin(&S, b, "speedup_distribution", "Distribution of speedups per task", 820, 360, 0);
	kp_svg_axes(&S);
	for (int k = 0; k < KP_SUITE_NBASE; k++) {
		for (size_t j = 0; j <= NBINS; j++) {
			char t[128];
			double x0 = (double)j + 0.1 + 0.4 * k;
			if (!count[k][j])
				continue;
			snprintf(t, sizeof(t), "%s: %ld task%s %s %s", base_label[k], count[k][j],
			         count[k][j] == 1 ? "" : "s", j == NBINS ? "with no correct version" : "at",
			         j == NBINS ? "" : bin_labels[j]);
			kp_svg_bar(&S, x0, x0 + 0.4, (double)count[k][j], base_cls[k], t);
		}
		cls[k] = base_cls[k];
		labels[k] = base_label[k];
	}
	kp_svg_guide(&S, 1, 3); /* between the bins below and above 1x */
	kp_svg_legend_row(&S, KP_SUITE_NBASE, cls, labels);
	kp_svg_end(&S);
}

/* ---- time and cost
 * -------------------------------------------------------------------------------------------- */

static void spend_chart(struct kp_buf *b, const struct kp_suite *s)
{
	struct kp_svg S = {.ml = 64, .mr = 24, .mt = 20, .mb = 52};
	double tmax = 0, lo = 1, hi = 1, unit;
	const char *cls[2] = {"eager", "fail"}, *labels[2] = {"speedup vs eager", "no correct version"};

	for (size_t i = 0; i < s->n; i++) {
		const struct kp_suite_task *t = &s->v[i];
		double sp = t->speedup[KP_SUITE_EAGER];
		tmax = t->elapsed_s > tmax ? t->elapsed_s : tmax;
		if (isfinite(sp)) {
			lo = sp < lo ? sp : lo;
			hi = sp > hi ? sp : hi;
		}
	}
	unit = tmax >= 120 ? 60 : 1; /* minutes once a task takes more than two */
	S.x = (struct kp_svg_axis){0,
	                           tmax > 0 ? tmax * 1.08 / unit : 1,
	                           KP_SVG_LINEAR,
	                           KP_SVG_NUM,
	                           unit > 1 ? "time spent on the task (minutes)"
	                                    : "time spent on the task (seconds)",
	                           NULL,
	                           0};
	S.y = kp_svg_speedup_axis(lo, hi, "speedup vs eager");
	kp_svg_begin(&S, b, "time_cost", "Speedup against the time spent per task", 820, 360, 0);
	kp_svg_axes(&S);
	kp_svg_guide(&S, 0, 1);
	for (size_t i = 0; i < s->n; i++) {
		const struct kp_suite_task *t = &s->v[i];
		char tipbuf[400], sp[32], el[32];
		int ok = isfinite(t->speedup[KP_SUITE_EAGER]);
		snprintf(tipbuf, sizeof(tipbuf), "%.200s: %s vs eager, %s, $%.2f, %ld evaluations", t->name,
		         ok ? kp_html_speedup(sp, sizeof(sp), t->speedup[KP_SUITE_EAGER])
		            : "no correct version",
		         kp_html_duration(el, sizeof(el), t->elapsed_s), t->cost_usd, t->evaluations);
		kp_svg_mark(&S, t->elapsed_s / unit, ok ? t->speedup[KP_SUITE_EAGER] : S.y.lo * 1.15,
		            ok ? 'o' : 'x', ok ? 5 : 4.5, ok ? "eager" : "fail", tipbuf);
	}
	kp_svg_legend(&S, 2, cls, labels, 0);
	kp_svg_end(&S);
}

/* ---- tasks
 * -------------------------------------------------------------------------------------------------------- */

static const char *const outcome_code[] = {"ok", "CE", "RE", "TO", "WO", "CH"};
_Static_assert(KP_ARRAY_SIZE(outcome_code) == KP_OUTCOME_COUNT, "one code per outcome");

/* "6 ok, 1 CE, 1 WO": the verdicts of a task's versions (the codes of the run page's tree). */
static void outcomes_text(struct kp_buf *b, const long *oc)
{
	for (int k = 0; k < KP_OUTCOME_COUNT; k++)
		if (oc[k])
			kp_buf_addf(b, "%s%ld %s", b->len ? ", " : "", oc[k], outcome_code[k]);
}

/* Where the suite page finds each task's run page and kernel (relative to the page); NULL: none. */
struct suite_links {
	char **run_page, **kernel;
};

static const char *run_page_of(const struct suite_links *L, size_t i)
{
	return L && L->run_page ? L->run_page[i] : NULL;
}

/* The task's name, linked to its run page, and its kernel file. */
static void task_cell(struct kp_buf *b, const struct kp_suite_task *t, const struct suite_links *L, size_t i)
{
	kp_html_td_begin(b, t->name);
	if (run_page_of(L, i))
		kp_html_link(b, run_page_of(L, i), NULL, NULL, t->name);
	else
		kp_html_escape(b, t->name);
	if (L && L->kernel && L->kernel[i]) {
		kp_buf_adds(b, "<br>");
		kp_html_link(b, L->kernel[i], NULL, "small", "kernel");
	}
	kp_buf_adds(b, "</td>");
}

/* The best version in the page's one sense: one that beat the reference, else the reference. */
static void best_cell(struct kp_buf *b, const struct kp_suite_task *t, const struct suite_links *L, size_t i)
{
	char id[32];
	if (t->improved_node) {
		snprintf(id, sizeof(id), "#%ld", t->improved_node);
		kp_html_td_begin(b, id);
		if (run_page_of(L, i)) {
			char frag[32];
			snprintf(frag, sizeof(frag), "v%ld", t->improved_node);
			kp_html_link(b, run_page_of(L, i), frag, NULL, id);
		} else {
			kp_html_escape(b, id);
		}
	} else {
		kp_html_td_begin(b, "reference");
		kp_buf_adds(b, "reference");
		if (t->correct && t->best_node)
			kp_buf_addf(b, "<span class=\"why\">fastest correct #%ld did not beat it</span>",
			            t->best_node);
	}
	kp_buf_adds(b, "</td>");
}

/* The outcomes, and for a task with no correct version the check that refused its latest version. */
static void outcomes_cell(struct kp_buf *b, const struct kp_suite_task *t, const struct suite_links *L,
                          size_t i, struct kp_buf *scratch)
{
	kp_buf_reset(scratch);
	outcomes_text(scratch, t->outcomes);
	kp_html_td_begin(b, scratch->buf);
	kp_html_escape(b, scratch->buf);
	if (t->failure_node || t->reason) {
		kp_buf_adds(b, "<span class=\"why\">");
		if (t->failure_node) {
			char what[160], frag[32];
			enum kp_outcome o = kp_outcome_parse(t->failure_outcome ? t->failure_outcome : "");
			snprintf(what, sizeof(what), "#%ld %s%s%.100s", t->failure_node,
			         o == KP_OUTCOME_NONE ? "?" : outcome_code[o], t->failure_check ? " " : "",
			         t->failure_check ? t->failure_check : "");
			snprintf(frag, sizeof(frag), "v%ld", t->failure_node);
			if (run_page_of(L, i))
				kp_html_link(b, run_page_of(L, i), frag, NULL, what);
			else
				kp_html_escape(b, what);
			if (t->failure_message) {
				kp_buf_adds(b, ": ");
				kp_buf_reset(scratch);
				kp_buf_add(scratch, t->failure_message,
				           strlen(t->failure_message) > 200 ? 200
				                                            : strlen(t->failure_message));
				while (scratch->len &&
				       ((unsigned char)scratch->buf[scratch->len - 1] & 0xc0) == 0x80)
					scratch->buf[--scratch->len] = '\0'; /* never half a character */
				kp_html_escape(b, scratch->buf);
				if (strlen(t->failure_message) > 200)
					kp_buf_adds(b, "\xe2\x80\xa6");
			}
		}
		if (t->reason) {
			kp_buf_adds(b, t->failure_node ? "<br>" : "");
			kp_html_escape(b, t->reason);
		}
		kp_buf_adds(b, "</span>");
	}
	kp_buf_adds(b, "</td>");
}

static void task_table(struct kp_buf *b, const struct kp_suite *s, const struct suite_links *L)
{
	static const char *const cols[] = {"Task",     "State",     "Best",  "#vs eager", "#vs compile",
	                                   "#Best ms", "#Eager ms", "Bound", "#Roofline", "#Evals",
	                                   "Outcomes", "#Cost",     "#Time", NULL};
	struct kp_buf scratch = KP_BUF_INIT;
	char v[96], m[64];

	kp_html_table_begin(b, "tasks", cols);
	for (size_t i = 0; i < s->n; i++) {
		const struct kp_suite_task *t = &s->v[i];
		kp_buf_adds(b, "<tr>");
		task_cell(b, t, L, i);
		kp_html_td(b, kp_suite_state_name(t->state));
		best_cell(b, t, L, i);
		for (int k = 0; k < KP_SUITE_NBASE; k++)
			kp_html_td_num(b, t->speedup[k], kp_html_speedup(v, sizeof(v), t->speedup[k]));
		/* The median, the statistic of every figure here, with the mean KernelBench reports below it.
		 */
		if (isfinite(t->best_ms))
			kp_buf_addf(b, "<td class=\"num\" data-v=\"%.17g\">%s", t->best_ms,
			            kp_html_fmt(v, sizeof(v), "%.4g", t->best_ms));
		else
			kp_buf_addf(b, "<td class=\"num\" data-v=\"\">%s",
			            kp_html_fmt(v, sizeof(v), "%g", NAN));
		if (isfinite(t->best_mean_ms))
			kp_buf_addf(b, "<span class=\"why\">mean %s</span>",
			            kp_html_fmt(m, sizeof(m), "%.4g", t->best_mean_ms));
		kp_buf_adds(b, "</td>");
		kp_html_td_num(b, t->base_ms[KP_SUITE_EAGER],
		               kp_html_fmt(v, sizeof(v), "%.4g", t->base_ms[KP_SUITE_EAGER]));
		kp_html_td(b, t->bottleneck ? t->bottleneck : "");
		if (isfinite(t->roof_share)) {
			kp_buf_addf(b, "<td class=\"num\" data-v=\"%.17g\">%s", t->roof_share,
			            kp_html_pct(v, sizeof(v), t->roof_share));
			kp_buf_addf(b, "<span class=\"why\">of the roof at %s FLOP/B, #%ld</span></td>",
			            kp_html_fmt(m, sizeof(m), "%.3g", t->ai), t->roofline_node);
		} else {
			kp_html_td_num(b, NAN, "");
		}
		kp_html_td_num(b, (double)t->evaluations,
		               kp_html_fmt(v, sizeof(v), "%.0f", (double)t->evaluations));
		outcomes_cell(b, t, L, i, &scratch);
		kp_html_td_num(b, t->cost_known ? t->cost_usd : NAN,
		               t->cost_known ? kp_html_fmt(v, sizeof(v), "$%.2f", t->cost_usd) : "unknown");
		kp_html_td_num(b, t->elapsed_s, kp_html_duration(v, sizeof(v), t->elapsed_s));
		kp_buf_adds(b, "</tr>\n");
	}
	kp_html_table_end(b);
	kp_buf_release(&scratch);
}

/* Each KernelBench level on its own, as KernelBench's analysis reports it. */
static void levels_table(struct kp_buf *b, const struct kp_suite *s)
{
	char v[32];
	kp_buf_adds(b, "<div class=\"tablewrap\"><table id=\"levels-table\">\n<thead><tr><th>level</th>"
	               "<th class=\"num\">tasks</th><th class=\"num\">correct</th>");
	for (int k = 0; k < KP_SUITE_NBASE; k++)
		kp_buf_addf(b,
		            "<th class=\"num\">n vs %s</th><th class=\"num\">fast_1</th><th "
		            "class=\"num\">geomean (correct)</th>",
		            base_label[k]);
	kp_buf_adds(b, "</tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < s->sum.nlevels; i++) {
		const struct kp_suite_level *L = &s->sum.levels[i];
		kp_buf_addf(b, "<tr><td>level %d</td><td class=\"num\">%ld</td><td class=\"num\">%ld</td>",
		            L->level, L->tasks, L->correct);
		for (int k = 0; k < KP_SUITE_NBASE; k++) {
			kp_buf_addf(b, "<td class=\"num\">%ld</td>", L->base[k].n);
			kp_buf_addf(b, "<td class=\"num\">%s</td>",
			            kp_html_pct(v, sizeof(v), L->base[k].fast_p[KP_SUITE_P_FAST1]));
			kp_buf_addf(b, "<td class=\"num\">%s</td>",
			            kp_html_speedup(v, sizeof(v), L->base[k].geomean_correct));
		}
		kp_buf_adds(b, "</tr>\n");
	}
	kp_buf_adds(b, "</tbody></table></div>\n");
}

static void suite_html(const struct kp_suite *s, const struct suite_links *L, struct kp_buf *out)
{
	struct kp_buf title = KP_BUF_INIT;

	kp_buf_addf(&title, "Suite %s", s->name);
	kp_html_begin(out, title.buf);
	kp_html_heading(out, title.buf,
	                "kernelpro suite report: KernelBench-compatible metrics over every task");
	context(out, s);
	headline(out, s);
	if (!s->n) {
		kp_html_para(out, "empty", "This suite has no tasks yet: nothing to plot.");
		goto end;
	}
	kp_html_section(out, "fast-p", "fast_p");
	kp_html_para(
	    out, "caption",
	    "fast_p is the share of tasks whose fastest correct version is more than p times faster than the "
	    "baseline (KernelBench's definition; tasks without a measured baseline are left out of its "
	    "count). "
	    "fast_0 is the correctness rate over those tasks. Times are medians over the timed trials.");
	fast_p_table(out, s);
	kp_buf_adds(out, "<div class=\"figure\">\n");
	fast_p_chart(out, s);
	kp_buf_adds(out, "</div>\n");
	kp_html_section_end(out);
	if (s->sum.nlevels) {
		kp_html_section(out, "levels", "Per KernelBench level");
		kp_html_para(
		    out, "caption",
		    "The same figures over each level's tasks alone, as KernelBench's analysis reports "
		    "them; native tasks belong to no level.");
		levels_table(out, s);
		kp_html_section_end(out);
	}
	kp_html_section(out, "distribution", "Speedup distribution");
	kp_buf_adds(out, "<div class=\"figure\">\n");
	distribution_chart(out, s);
	kp_buf_adds(out, "</div>\n");
	kp_html_para(out, "caption",
	             "One bar per baseline and speedup range; the dashed line separates slower (left) "
	             "from faster (right) than the baseline; \"failed\": no correct version.");
	kp_html_section_end(out);
	kp_html_section(out, "spend", "Time and cost");
	kp_buf_adds(out, "<div class=\"figure\">\n");
	spend_chart(out, s);
	kp_buf_adds(out, "</div>\n");
	kp_html_para(out, "caption",
	             "One point per task: the wall time its run took and the speedup it reached. Hover "
	             "a point for its cost and evaluations.");
	kp_html_section_end(out);
	kp_html_section(out, "task-table", "Tasks");
	kp_html_para(
	    out, "caption",
	    "Best: the version that beat the reference (the run's best, as its own page and kernelpro show "
	    "say), else the reference itself. The speedups, fast_p and the geomeans score the fastest "
	    "correct "
	    "version other than the reference, as KernelBench scores a submitted kernel, so a task whose "
	    "best "
	    "is the reference can count below 1\xc3\x97 there. Bound and Roofline: the bottleneck class and "
	    "the share of the roof reached, from the Stage-1 profile of the fastest correct version (else of "
	    "the reference). Click a task for its run page, a version for its verdict; click a column header "
	    "to sort (values not measured sort last). \"compile\" is torch.compile. Outcomes: ok correct, CE "
	    "compile error, RE runtime error, TO timeout, WO wrong output, CH cheat suspected; under them, "
	    "the "
	    "check that refused the latest version of a task with no correct one.");
	task_table(out, s, L);
	kp_html_section_end(out);
	if (s->rejudge) /* bench --kernels: lib/report/rejudge_page.c */
		kp_report_rejudge_section(out, s->rejudge);
end:
	kp_html_end(out);
	kp_buf_release(&title);
}

int kp_report_suite_html(const struct kp_suite *s, struct kp_buf *out, struct kp_error *err)
{
	(void)err;
	suite_html(s, NULL, out);
	return 0;
}

/* The directory part of a path ("." when it has none). New string. */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? kp_xstrndup(path, slash == path ? 1 : (size_t)(slash - path)) : kp_xstrdup(".");
}

/*
 * Writes RUN/report.html for the task when its run lies under the page's directory, and sets *rel to
 * its path relative to the page. A run that cannot be read, or whose directory cannot be written (a
 * read-only store shared for reading), gets no page and no link: *rel NULL.
 */
static void write_run_page(const char *page_dir, const struct kp_suite_task *t, char **rel)
{
	struct kp_buf dir = KP_BUF_INIT, html = KP_BUF_INIT, r = KP_BUF_INIT;
	struct kp_error unread = KP_ERROR_INIT;
	json_t *view = NULL;

	*rel = NULL;
	if (!t->run || t->run[0] == '/' || strstr(t->run, ".."))
		return;
	kp_path_join(&dir, page_dir, t->run);
	if (kp_run_exists(dir.buf) && !kp_run_view(dir.buf, &view, &unread) &&
	    !kp_report_run_html(view, &html, &unread)) {
		kp_path_join(&r, t->run, "report.html");
		kp_buf_reset(&dir);
		kp_path_join(&dir, page_dir, r.buf);
		if (!kp_write_file_atomic(dir.buf, html.buf, html.len, &unread))
			*rel = kp_buf_detach(&r, NULL);
	}
	json_decref(view);
	kp_buf_release(&dir);
	kp_buf_release(&html);
	kp_buf_release(&r);
}

int kp_report_suite_write(const struct kp_suite *s, const char *page, struct kp_error *err)
{
	struct suite_links L = {kp_xcalloc(s->n + 1, sizeof(char *)), kp_xcalloc(s->n + 1, sizeof(char *))};
	struct kp_buf html = KP_BUF_INIT, p = KP_BUF_INIT;
	char *page_dir = dir_of(page);
	int rc;

	for (size_t i = 0; i < s->n; i++) {
		const struct kp_suite_task *t = &s->v[i];
		/* A run that cannot be read keeps its row, without a link: the suite page still shows it. */
		write_run_page(page_dir, t, &L.run_page[i]);
		if (t->kernel && t->kernel[0] != '/' && !strstr(t->kernel, "..")) {
			kp_buf_reset(&p);
			kp_path_join(&p, page_dir, t->kernel);
			if (kp_path_exists(p.buf))
				L.kernel[i] = kp_xstrdup(t->kernel);
		}
	}
	suite_html(s, &L, &html);
	rc = kp_write_file_atomic(page, html.buf, html.len, err);
	for (size_t i = 0; i < s->n; i++) {
		free(L.run_page[i]);
		free(L.kernel[i]);
	}
	free(L.run_page);
	free(L.kernel);
	free(page_dir);
	kp_buf_release(&html);
	kp_buf_release(&p);
	return rc;
}
