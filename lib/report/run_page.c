/* The run page: headline figures, the roofline before and after, the search tree, speedup over evaluations,
 * versions. */
#include "base/setup.h"

#include <math.h>
#include <time.h>

#include "kernelpro/json.h"
#include "kernelpro/run.h"
#include "kernelpro/str.h"
#include "report/report_int.h"

#define TEXT_CAP (24u << 10) /* one feedback or log shown at most this long */

struct run_page {
	struct kp_buf *b;
	const json_t *view, *sum, *nodes;
	const json_t *ref;  /* the root node */
	const json_t *best; /* the run's best version when it beat the reference, else NULL */
};

static const char *const outcome_short[] = {"", "CE", "RE", "TO", "WO", "CH"};

_Static_assert(KP_ARRAY_SIZE(outcome_short) == KP_OUTCOME_COUNT, "one abbreviation per outcome");

/* The CSS class of a node's outcome: only known names ever reach the page. */
#define KP__CLS(n, str) "o-" str,
static const char *const outcome_classes[KP_OUTCOME_COUNT + 1] = {KP_OUTCOMES(KP__CLS) "o-pending"};
#undef KP__CLS

static int outcome_index(const json_t *n)
{
	enum kp_outcome o = kp_outcome_parse(kp_json_str(n, "outcome", ""));
	return o == KP_OUTCOME_NONE ? KP_OUTCOME_COUNT : (int)o;
}

static const char *outcome_cls(const json_t *n)
{
	return outcome_classes[outcome_index(n)];
}

static const char *outcome_text(const json_t *n)
{
	enum kp_outcome o = kp_outcome_parse(kp_json_str(n, "outcome", ""));
	return o == KP_OUTCOME_NONE ? "pending" : kp_outcome_name(o);
}

static int is_correct(const json_t *n)
{
	return kp_outcome_parse(kp_json_str(n, "outcome", "")) == KP_OUTCOME_CORRECT;
}

static int is_root(const json_t *n)
{
	return !json_is_integer(json_object_get(n, "parent"));
}

/* A version the run made and evaluated (not the reference, not still pending). */
static int evaluated_version(const json_t *n)
{
	return !is_root(n) && outcome_index(n) != KP_OUTCOME_COUNT;
}

static const json_t *node_by_id(const struct run_page *P, long long id)
{
	for (size_t i = 0; i < json_array_size(P->nodes); i++)
		if (kp_json_int(json_array_get(P->nodes, i), "node", -1) == id)
			return json_array_get(P->nodes, i);
	return NULL;
}

/* Appends text escaped, cut at `cap` bytes on a character boundary with a note. */
static void escape_capped(struct kp_buf *b, const char *s, size_t cap)
{
	size_t n = strlen(s);
	char *cut;
	if (n <= cap) {
		kp_html_escape(b, s);
		return;
	}
	while (cap > 0 && ((unsigned char)s[cap] & 0xc0) == 0x80)
		cap--;
	cut = kp_xstrndup(s, cap);
	kp_html_escape(b, cut);
	kp_buf_addf(b, "\n\xe2\x80\xa6 (%zu more bytes in the run database)", n - cap);
	free(cut);
}

/* ---- headline
 * ------------------------------------------------------------------------------------------------ */

static void headline(struct run_page *P)
{
	const json_t *used = json_object_get(P->sum, "used"), *oc = json_object_get(P->sum, "outcomes");
	long correct = 0, total = 0;
	char v[64], d[200], t1[32], t2[32];

	for (size_t i = 0; i < json_array_size(P->nodes); i++) {
		const json_t *n = json_array_get(P->nodes, i);
		if (!evaluated_version(n))
			continue;
		total++;
		correct += is_correct(n);
	}
	kp_html_cards_begin(P->b);
	if (P->best) {
		snprintf(d, sizeof(d), "version #%lld: %s ms against %s ms", kp_json_int(P->best, "node", 0),
		         kp_html_fmt(t1, sizeof(t1), "%.4g", kp_json_num(P->best, "time_ms", NAN)),
		         kp_html_fmt(t2, sizeof(t2), "%.4g", kp_json_num(P->ref, "time_ms", NAN)));
		kp_html_card(P->b, "Best speedup",
		             kp_html_speedup(v, sizeof(v), kp_json_num(P->best, "speedup", NAN)), d);
	} else {
		kp_html_card(P->b, "Best speedup", "1.00\xc3\x97: the reference",
		             "no version beat the reference yet, so the best is the reference itself");
	}
	kp_html_card(P->b, "Reference",
	             kp_html_fmt(v, sizeof(v), "%.4g ms", kp_json_num(P->ref, "time_ms", NAN)),
	             "the task's own code, timed by the run");
	{
		/* Every kind of failure present, refusals included: "1 compile error, 2 refused (cheat
		 * suspected)". */
		static const char *const what[][3] = {
		    {"compile_error", "compile error", "compile errors"},
		    {"wrong_output", "wrong output", "wrong outputs"},
		    {"runtime_error", "runtime error", "runtime errors"},
		    {"timeout", "timeout", "timeouts"},
		    {"cheat_suspected", "refused (cheat suspected)", "refused (cheat suspected)"}};
		size_t at = 0;
		d[0] = '\0';
		for (size_t k = 0; k < KP_ARRAY_SIZE(what) && at < sizeof(d); k++) {
			long long c = kp_json_int(oc, what[k][0], 0);
			if (c)
				at += (size_t)snprintf(d + at, sizeof(d) - at, "%s%lld %s", at ? ", " : "", c,
				                       what[k][c == 1 ? 1 : 2]);
		}
		if (!d[0])
			snprintf(d, sizeof(d), "no version failed");
	}
	snprintf(v, sizeof(v), "%ld of %ld", correct, total);
	kp_html_card(P->b, "Correct versions", v, d);
	snprintf(d, sizeof(d), "%lld generations, %lld unusable", kp_json_int(used, "generations", 0),
	         kp_json_int(used, "generation_failures", 0));
	kp_html_card(P->b, "Evaluations",
	             kp_html_fmt(v, sizeof(v), "%.0f", kp_json_num(used, "evaluations", 0)), d);
	snprintf(d, sizeof(d), "%lld in, %lld out", kp_json_int(used, "tokens_in", 0),
	         kp_json_int(used, "tokens_out", 0));
	/* No known price: the counter stays 0, which is not a measured $0.00. */
	if (json_is_false(json_object_get(json_object_get(P->sum, "context"), "cost_known")))
		kp_html_card(P->b, "Cost",
		             kp_json_num(used, "cost_usd", 0) > 0
		                 ? kp_html_fmt(v, sizeof(v), "$%.2f+", kp_json_num(used, "cost_usd", 0))
		                 : "unknown",
		             "no price is known for this model; tokens: see below");
	else
		kp_html_card(P->b, "Cost",
		             kp_html_fmt(v, sizeof(v), "$%.2f", kp_json_num(used, "cost_usd", 0)), d);
	if (json_is_false(json_object_get(json_object_get(P->sum, "context"), "cost_known"))) {
		snprintf(d, sizeof(d), "%lld in, %lld out", kp_json_int(used, "tokens_in", 0),
		         kp_json_int(used, "tokens_out", 0));
		kp_html_card(P->b, "Tokens",
		             kp_html_fmt(v, sizeof(v), "%.0f",
		                         (double)(kp_json_int(used, "tokens_in", 0) +
		                                  kp_json_int(used, "tokens_out", 0))),
		             d);
	}
	snprintf(d, sizeof(d), "wall time over %lld session(s)", kp_json_int(used, "sessions", 0));
	kp_html_card(P->b, "Wall time", kp_html_duration(v, sizeof(v), kp_json_num(used, "elapsed_s", NAN)),
	             d);
	if (P->best && isfinite(kp_json_num(P->best, "energy_j", NAN)) &&
	    isfinite(kp_json_num(P->ref, "energy_j", NAN))) {
		snprintf(d, sizeof(d), "%.4g J per call against %.4g J",
		         kp_json_num(P->best, "energy_j", NAN), kp_json_num(P->ref, "energy_j", NAN));
		kp_html_card(
		    P->b, "Energy",
		    kp_html_fmt(v, sizeof(v), "%.2f\xc3\x97",
		                kp_json_num(P->best, "energy_j", NAN) / kp_json_num(P->ref, "energy_j", NAN)),
		    d);
	}
	kp_html_cards_end(P->b);
}

/* ---- the search tree
 * ------------------------------------------------------------------------------------------- */

struct tree_layout {
	size_t n;
	long long *id;
	long *parent; /* index, -1 for a root */
	double *x;
	int *depth;
	double slots;
	int max_depth;
};

static double layout(struct tree_layout *L, size_t i, int depth)
{
	double first = NAN, last = NAN;
	L->depth[i] = depth;
	L->max_depth = depth > L->max_depth ? depth : L->max_depth;
	for (size_t c = i + 1; c < L->n; c++) {
		if (L->parent[c] != (long)i)
			continue;
		last = layout(L, c, depth + 1);
		if (isnan(first))
			first = last;
	}
	L->x[i] = isnan(first) ? L->slots++ : (first + last) / 2;
	return L->x[i];
}

/* Marks the nodes on the path from a root to the best version. */
static void mark_best_path(const struct run_page *P, const struct tree_layout *L, char *on)
{
	long long best = P->best ? kp_json_int(P->best, "node", -1) : -1;
	for (size_t k = 0; k < L->n; k++)
		if (L->id[k] == best)
			for (long j = (long)k; j >= 0; j = L->parent[j])
				on[j] = 1;
}

static void node_tip(struct kp_buf *t, const json_t *n)
{
	char sp[32];
	kp_buf_addf(t, "#%lld %s", kp_json_int(n, "node", 0), kp_json_str(n, "kind", "?"));
	if (!is_root(n))
		kp_buf_addf(t, " of #%lld", kp_json_int(n, "parent", 0));
	kp_buf_addf(t, ": %s", outcome_text(n));
	if (is_correct(n))
		kp_buf_addf(t, ", %s", kp_html_speedup(sp, sizeof(sp), kp_json_num(n, "speedup", NAN)));
	if (kp_json_str(n, "summary", NULL) && *kp_json_str(n, "summary", ""))
		kp_buf_addf(t, "\n%s", kp_json_str(n, "summary", ""));
	if (kp_json_str(n, "closed", NULL))
		kp_buf_addf(t, "\n[closed: %s]", kp_json_str(n, "closed", ""));
}

/* The outcomes present, as one row of swatches across the top of the tree. */
static void tree_legend(struct kp_svg *S, const int *seen)
{
	double x = 12;
	for (int o = 0; o <= KP_OUTCOME_COUNT; o++) {
		const char *name = o == KP_OUTCOME_COUNT ? "pending" : kp_outcome_name(o);
		if (!seen[o])
			continue;
		kp_buf_addf(S->b, "<circle class=\"swatch %s\" cx=\"%.1f\" cy=\"16\" r=\"6\"/>",
		            outcome_classes[o], x + 6);
		kp_svg_text(S, x + 16, 20, 's', "legend", name);
		x += 30 + 6.8 * (double)strlen(name);
	}
	kp_buf_addf(S->b, "<circle class=\"swatch o-correct node-best\" cx=\"%.1f\" cy=\"16\" r=\"6\"/>",
	            x + 6);
	kp_svg_text(S, x + 16, 20, 's', "legend", "best version");
}

/* Over 80 lines: the layout, the edges and the nodes share the layout's arrays and the page's
 * geometry (slot, row, margins); drawn apart, each part would take all of them. */
static void search_tree(struct run_page *P)
{
	struct tree_layout L = {0};
	struct kp_svg S = {0};
	struct kp_buf t = KP_BUF_INIT;
	const double slot = 58, row = 84, margin = 36, top = 64;
	size_t n = json_array_size(P->nodes);
	int seen[KP_OUTCOME_COUNT + 1] = {0};
	char *on_path;
	double w, h;

	if (!n) {
		kp_html_para(P->b, "empty", "The run has no versions yet.");
		return;
	}
	L.n = n;
	L.id = kp_xcalloc(n, sizeof(*L.id));
	L.parent = kp_xcalloc(n, sizeof(*L.parent));
	L.x = kp_xcalloc(n, sizeof(*L.x));
	L.depth = kp_xcalloc(n, sizeof(*L.depth));
	on_path = kp_xcalloc(n, 1);
	for (size_t i = 0; i < n; i++) {
		const json_t *nd = json_array_get(P->nodes, i);
		L.id[i] = kp_json_int(nd, "node", 0);
		L.parent[i] = -1;
		/* Nodes come in id order and a parent is older than its child. */
		for (size_t j = 0; j < i && !is_root(nd); j++)
			if (L.id[j] == kp_json_int(nd, "parent", -1))
				L.parent[i] = (long)j;
		seen[outcome_index(nd)] = 1;
	}
	for (size_t i = 0; i < n; i++)
		if (L.parent[i] < 0)
			layout(&L, i, 0);
	mark_best_path(P, &L, on_path);
	w = fmax(560, 2 * margin + L.slots * slot);
	h = top + margin + L.max_depth * row + 20;
	/* Data units are slots across and pixels down. */
	S.x = (struct kp_svg_axis){
	    -margin / slot - 0.5, (w - margin) / slot - 0.5, KP_SVG_LINEAR, KP_SVG_NUM, NULL, NULL, 0};
	S.y = (struct kp_svg_axis){h, 0, KP_SVG_LINEAR, KP_SVG_NUM, NULL, NULL, 0};
	kp_buf_adds(P->b, "<div class=\"scroll\">\n");
	kp_svg_begin(&S, P->b, "search_tree", "The search tree: every version, its outcome and speedup", w, h,
	             1);
	tree_legend(&S, seen);
	for (size_t i = 0; i < n; i++) {
		long p = L.parent[i];
		double x1, y1, x2, y2;
		if (p < 0)
			continue;
		/* From below the parent's labels to the top of the child's circle. */
		x1 = kp_svg_px(&S, L.x[p]);
		y1 = top + L.depth[p] * row + 44;
		x2 = kp_svg_px(&S, L.x[i]);
		y2 = top + L.depth[i] * row - 12;
		kp_buf_addf(P->b,
		            "<path class=\"line edge%s\" d=\"M%.1f %.1fC%.1f %.1f %.1f %.1f %.1f %.1f\"/>\n",
		            on_path[i] ? " path" : "", x1, y1, x1, (y1 + y2) / 2, x2, (y1 + y2) / 2, x2, y2);
	}
	for (size_t i = 0; i < n; i++) {
		const json_t *nd = json_array_get(P->nodes, i);
		int o = outcome_index(nd);
		double px = kp_svg_px(&S, L.x[i]), py = top + L.depth[i] * row;
		char sp[32], id[32];
		int best = P->best && kp_json_int(P->best, "node", -1) == L.id[i];
		kp_buf_reset(&t);
		node_tip(&t, nd);
		kp_buf_addf(
		    P->b,
		    "<g class=\"tree-node\"><circle class=\"mark %s%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"%d\">",
		    outcome_classes[o], best ? " node-best" : "", px, py, best ? 11 : 9);
		kp_buf_adds(P->b, "<title>");
		kp_html_escape(P->b, t.buf);
		kp_buf_adds(P->b, "</title></circle>\n");
		snprintf(id, sizeof(id), "#%lld", L.id[i]);
		kp_svg_text(&S, px, py + 24, 'm', "node-label", id);
		if (o == KP_OUTCOME_CORRECT)
			kp_svg_text(&S, px, py + 37, 'm', "node-label",
			            kp_html_speedup(sp, sizeof(sp),
			                            is_root(nd) ? 1.0 : kp_json_num(nd, "speedup", NAN)));
		else if (o < KP_OUTCOME_COUNT)
			kp_svg_text(&S, px, py + 37, 'm', "node-label", outcome_short[o]);
		kp_buf_adds(P->b, "</g>\n");
	}
	kp_svg_end(&S);
	kp_buf_adds(P->b, "</div>\n");
	kp_html_para(P->b, "caption",
	             "Each circle is a version, below it its id and speedup (or CE compile error, RE runtime "
	             "error, TO "
	             "timeout, WO wrong output, CH cheat suspected). The green edges lead to the best "
	             "version (ringed). "
	             "Hover a version for what the model said it changed.");
	kp_buf_release(&t);
	free(on_path);
	free(L.id);
	free(L.parent);
	free(L.x);
	free(L.depth);
}

/* ---- speedup over evaluations
 * ---------------------------------------------------------------------------------- */

static void progress(struct run_page *P)
{
	struct kp_svg S = {.ml = 64, .mr = 24, .mt = 20, .mb = 52};
	size_t n = json_array_size(P->nodes), k = 0;
	double lo = 1, hi = 1, best = 1, *x = kp_xcalloc(2 * n + 2, sizeof(double)),
	       *y = kp_xcalloc(2 * n + 2, sizeof(double));
	size_t m = 0;
	const char *cls[3] = {"best", "o-correct", "fail"};
	const char *labels[3] = {"best so far", "correct version", "failed version"};
	struct kp_buf t = KP_BUF_INIT;

	for (size_t i = 0; i < n; i++) {
		const json_t *nd = json_array_get(P->nodes, i);
		double sp = kp_json_num(nd, "speedup", NAN);
		if (!evaluated_version(nd))
			continue;
		k++;
		if (is_correct(nd) && sp > 0) {
			lo = fmin(lo, sp);
			hi = fmax(hi, sp);
		}
	}
	S.x = (struct kp_svg_axis){0, (double)k + 1, KP_SVG_LINEAR, KP_SVG_NUM, "evaluation", NULL, 1};
	S.y = kp_svg_speedup_axis(lo, hi, "speedup over the reference");
	kp_svg_begin(&S, P->b, "speedup_over_evals", "Speedup over evaluations", 820, 360, 0);
	kp_svg_axes(&S);
	kp_svg_guide(&S, 0, 1);
	kp_svg_text(&S, S.w - S.mr - 6, kp_svg_py(&S, 1) - 6, 'e', "annot", "reference");
	x[m] = 0;
	y[m++] = 1;
	k = 0;
	for (size_t i = 0; i < n; i++) {
		const json_t *nd = json_array_get(P->nodes, i);
		double sp = kp_json_num(nd, "speedup", NAN);
		if (!evaluated_version(nd))
			continue;
		k++;
		kp_buf_reset(&t);
		node_tip(&t, nd);
		if (is_correct(nd) && sp > 0) {
			kp_svg_mark(&S, (double)k, sp, 'o', 4.5, "o-correct", t.buf);
			if (sp > best) {
				x[m] = (double)k;
				y[m++] = best;
				best = sp;
				x[m] = (double)k;
				y[m++] = best;
			}
		} else {
			kp_svg_mark(&S, (double)k, S.y.lo * 1.2, 'x', 4, "fail", t.buf);
		}
	}
	x[m] = S.x.hi;
	y[m++] = best;
	kp_svg_clip_begin(&S);
	kp_svg_line(&S, x, y, m, "best");
	kp_svg_clip_end(&S);
	kp_svg_legend(&S, 3, cls, labels, 1);
	kp_svg_end(&S);
	kp_buf_release(&t);
	free(x);
	free(y);
}

/* ---- versions
 * ----------------------------------------------------------------------------------------------------- */

/* "refused by reads_reference: ..." from a version's stored verdict; nothing for a correct one. */
static void reason_text(struct kp_buf *b, const json_t *nd)
{
	const json_t *r = json_object_get(nd, "reason");
	const char *check = kp_json_str(r, "check", NULL), *msg = kp_json_str(r, "message", NULL);
	if (!json_is_object(r))
		return;
	if (check)
		kp_buf_addf(b, "%s %s%s",
		            !strcmp(kp_json_str(r, "severity", ""), "refuse") ? "refused by" : "failed",
		            check, msg ? ": " : "");
	if (msg)
		kp_buf_adds(b, msg);
}

static void versions_table(struct run_page *P)
{
	static const char *const cols[] = {"#Version", "#Parent",      "Kind",          "Outcome", "#Speedup",
	                                   "#Time ms", "What changed", "Why it failed", NULL};
	struct kp_buf why = KP_BUF_INIT;
	char v[64], frag[32];

	kp_html_table_begin(P->b, "versions", cols);
	for (size_t i = 0; i < json_array_size(P->nodes); i++) {
		const json_t *nd = json_array_get(P->nodes, i);
		double sp = is_correct(nd) ? kp_json_num(nd, "speedup", NAN) : NAN;
		long long id = kp_json_int(nd, "node", 0);
		kp_buf_adds(P->b, "<tr>");
		kp_buf_addf(P->b, "<td class=\"num\" data-v=\"%lld\">", id);
		snprintf(v, sizeof(v), "#%lld", id);
		snprintf(frag, sizeof(frag), "v%lld", id);
		kp_buf_addf(P->b, "<a href=\"#%s\">%s</a></td>", frag, v);
		kp_html_td_num(
		    P->b, is_root(nd) ? NAN : (double)kp_json_int(nd, "parent", 0),
		    is_root(nd) ? ""
		                : kp_html_fmt(v, sizeof(v), "#%.0f", (double)kp_json_int(nd, "parent", 0)));
		kp_html_td(P->b, kp_json_str(nd, "kind", ""));
		kp_buf_addf(P->b, "<td data-v=\"%s\"><span class=\"oc %s\">%s</span></td>", outcome_text(nd),
		            outcome_cls(nd), outcome_text(nd));
		kp_html_td_num(P->b, sp, kp_html_speedup(v, sizeof(v), sp));
		kp_html_td_num(P->b, kp_json_num(nd, "time_ms", NAN),
		               kp_html_fmt(v, sizeof(v), "%.4g", kp_json_num(nd, "time_ms", NAN)));
		kp_html_td(P->b, kp_json_str(nd, "summary", ""));
		kp_buf_reset(&why);
		reason_text(&why, nd);
		kp_html_td(P->b, why.buf);
		kp_buf_adds(P->b, "</tr>\n");
	}
	kp_html_table_end(P->b);
	kp_buf_release(&why);
}

/* Every check the verdict flagged: the one that decided, and those that only warned. */
static void checks_list(struct kp_buf *b, const json_t *nd)
{
	const json_t *flags = json_object_get(json_object_get(nd, "verdict"), "flags");
	struct kp_buf why = KP_BUF_INIT;
	reason_text(&why, nd);
	if (why.len) {
		kp_buf_adds(b, "<p><b>Why: </b>");
		kp_html_escape(b, why.buf);
		kp_buf_adds(b, "</p>\n");
	}
	kp_buf_release(&why);
	if (!json_array_size(flags))
		return;
	kp_buf_adds(b, "<h3>Checks</h3>\n<ul class=\"findings\">\n");
	for (size_t i = 0; i < json_array_size(flags); i++) {
		const json_t *f = json_array_get(flags, i);
		kp_buf_adds(b, "<li><b>");
		kp_html_escape(b, kp_json_str(f, "severity", "?"));
		kp_buf_adds(b, "</b> ");
		kp_html_escape(b, kp_json_str(f, "check", "?"));
		kp_buf_adds(b, ": ");
		kp_html_escape(b, kp_json_str(f, "message", ""));
		kp_buf_adds(b, "</li>\n");
	}
	kp_buf_adds(b, "</ul>\n");
}

/* The version's source, and what changed against its parent and against the reference. */
static void source_and_diffs(struct run_page *P, const json_t *nd)
{
	const char *src = kp_json_str(nd, "source", NULL);
	const json_t *parent = is_root(nd) ? NULL : node_by_id(P, kp_json_int(nd, "parent", -1));
	if (!src || !*src)
		return;
	kp_buf_adds(P->b, "<details><summary>Source");
	if (kp_json_str(nd, "lang", NULL) && *kp_json_str(nd, "lang", "")) {
		kp_buf_adds(P->b, " (");
		kp_html_escape(P->b, kp_json_str(nd, "lang", ""));
		kp_buf_adds(P->b, ")");
	}
	kp_buf_adds(P->b, "</summary>\n<pre>");
	escape_capped(P->b, src, 4 * TEXT_CAP);
	kp_buf_adds(P->b, "</pre></details>\n");
	if (parent && kp_json_str(parent, "source", NULL)) {
		kp_buf_addf(P->b, "<details><summary>Diff against its parent #%lld</summary>\n",
		            kp_json_int(parent, "node", 0));
		kp_html_diff(P->b, kp_json_str(parent, "source", ""), src, 3);
		kp_buf_adds(P->b, "</details>\n");
	}
	if (parent && P->ref && parent != P->ref && kp_json_str(P->ref, "source", NULL)) {
		kp_buf_adds(P->b, "<details><summary>Diff against the reference</summary>\n");
		kp_html_diff(P->b, kp_json_str(P->ref, "source", ""), src, 3);
		kp_buf_adds(P->b, "</details>\n");
	}
}

static void findings_list(struct kp_buf *b, const json_t *findings)
{
	if (!json_is_array(findings) || !json_array_size(findings))
		return;
	kp_buf_adds(b, "<ul class=\"findings\">\n");
	for (size_t i = 0; i < json_array_size(findings); i++) {
		const json_t *f = json_array_get(findings, i);
		kp_buf_adds(b, "<li><b>");
		kp_html_escape(b, kp_json_str(f, "severity", "?"));
		kp_buf_adds(b, "</b> ");
		kp_html_escape(b, kp_json_str(f, "title", ""));
		kp_buf_adds(b, " <span class=\"note\">(");
		kp_html_escape(b, kp_json_str(f, "tool", "?"));
		kp_buf_adds(b, ")</span></li>\n");
	}
	kp_buf_adds(b, "</ul>\n");
}

static void diagnoses(struct run_page *P)
{
	char sp[32];
	for (size_t i = 0; i < json_array_size(P->nodes); i++) {
		const json_t *nd = json_array_get(P->nodes, i);
		const char *fb = kp_json_str(nd, "feedback", NULL), *log = kp_json_str(nd, "log", NULL);
		kp_buf_addf(P->b,
		            "<details id=\"v%lld\"%s><summary>#%lld %s: <span class=\"oc %s\">%s</span>",
		            kp_json_int(nd, "node", 0), i ? "" : " open", kp_json_int(nd, "node", 0),
		            kp_json_str(nd, "kind", "?"), outcome_cls(nd), outcome_text(nd));
		if (is_correct(nd))
			kp_buf_addf(P->b, " %s",
			            kp_html_speedup(sp, sizeof(sp),
			                            is_root(nd) ? 1.0 : kp_json_num(nd, "speedup", NAN)));
		kp_buf_adds(P->b, " \xe2\x80\x94 ");
		kp_html_escape(P->b, kp_json_str(nd, "summary", ""));
		kp_buf_adds(P->b, "</summary>\n");
		checks_list(P->b, nd);
		if (is_root(nd) && kp_json_str(P->view, "stage1", NULL)) {
			kp_buf_adds(P->b, "<h3>Stage 1</h3>\n<pre>");
			escape_capped(P->b, kp_json_str(P->view, "stage1", ""), TEXT_CAP);
			kp_buf_adds(P->b, "</pre>\n");
		}
		if (fb) {
			kp_buf_adds(P->b, "<h3>Diagnosis</h3>\n");
			findings_list(P->b, json_object_get(nd, "findings"));
			kp_buf_adds(P->b, "<pre>");
			escape_capped(P->b, fb, TEXT_CAP);
			kp_buf_adds(P->b, "</pre>\n");
		}
		if (log) {
			kp_buf_adds(P->b, "<h3>Evaluation log</h3>\n<pre>");
			escape_capped(P->b, log, TEXT_CAP);
			kp_buf_adds(P->b, "</pre>\n");
		}
		if (!fb && json_is_false(json_object_get(nd, "profiled")))
			kp_html_para(P->b, "note", KP_RUN_NOT_PROFILED);
		else if (!fb && !log && !(is_root(nd) && kp_json_str(P->view, "stage1", NULL)))
			kp_html_para(P->b, "note", "No diagnosis or log was saved for this version.");
		source_and_diffs(P, nd);
		kp_buf_adds(P->b, "</details>\n");
	}
}

/* GPU, model, kernelpro's version, when the run was made, the evaluator; then its settings. */
static void run_context(struct run_page *P)
{
	static const char *const labels[] = {"GPU",      "model",     "kernelpro",
	                                     "run made", "evaluator", "page written"};
	const json_t *c = json_object_get(P->sum, "context");
	char now[32], gpu[160];
	time_t t = time(NULL);
	struct tm tm;
	const char *values[6];
	json_t *settings = json_object();
	char *text;

	strftime(now, sizeof(now), "%Y-%m-%d %H:%M UTC", gmtime_r(&t, &tm));
	snprintf(gpu, sizeof(gpu), "%s", kp_json_str(c, "gpu", kp_json_str(P->view, "hardware", "unknown")));
	gpu[strcspn(gpu, "\n")] = '\0';
	values[0] = gpu;
	values[1] = kp_json_str(c, "model", "none");
	values[2] = kp_json_str(c, "kernelpro", NULL);
	values[3] = kp_json_str(c, "created", NULL);
	values[4] = kp_json_str(c, "evaluator", NULL);
	values[5] = now;
	kp_html_facts(P->b, 6, labels, values);
	kp_json_set(settings, "search", json_incref(json_object_get(P->sum, "search")));
	kp_json_set(settings, "orchestration", json_incref(json_object_get(P->sum, "orchestration")));
	kp_json_set(settings, "budget", json_incref(json_object_get(P->sum, "budget")));
	text = json_dumps(settings, JSON_INDENT(1) | JSON_SORT_KEYS);
	kp_buf_adds(P->b, "<details><summary>Settings the run was made with</summary>\n<pre>");
	kp_html_escape(P->b, text);
	kp_buf_adds(P->b, "</pre></details>\n");
	free(text);
	json_decref(settings);
}

int kp_report_run_html(const json_t *view, struct kp_buf *out, struct kp_error *err)
{
	struct run_page P = {out,  view, json_object_get(view, "summary"), json_object_get(view, "nodes"),
	                     NULL, NULL};
	const json_t *task, *best;
	struct kp_buf title = KP_BUF_INIT, sub = KP_BUF_INIT;

	if (!json_is_object(P.sum) || !json_is_array(P.nodes))
		return kp_error_set(err, KP_EPARSE, "run view: needs \"summary\" and \"nodes\" (%s)",
		                    KP_RUN_VIEW_SCHEMA);
	task = json_object_get(P.sum, "task");
	for (size_t i = 0; i < json_array_size(P.nodes) && !P.ref; i++)
		if (is_root(json_array_get(P.nodes, i)))
			P.ref = json_array_get(P.nodes, i);
	best = json_object_get(P.sum, "best");
	if (json_is_true(json_object_get(best, "improved")))
		P.best = node_by_id(&P, kp_json_int(best, "node", -1));
	kp_buf_addf(&title, "Run %s", kp_json_str(P.sum, "run", "?"));
	kp_buf_addf(&sub, "task %s (%s) \xc2\xb7 %s", kp_json_str(task, "name", "?"),
	            kp_json_str(task, "kind", "?"), kp_json_str(P.sum, "status", "?"));
	if (kp_json_str(P.sum, "end_reason", NULL))
		kp_buf_addf(&sub, ": %s", kp_json_str(P.sum, "end_reason", ""));
	if (kp_json_str(view, "hardware", NULL))
		kp_buf_addf(&sub, " \xc2\xb7 %s", kp_json_str(view, "hardware", ""));
	kp_html_begin(out, title.buf);
	kp_html_heading(out, title.buf, sub.buf);
	run_context(&P);
	headline(&P);
	kp_html_para(
	    out, "caption",
	    "Best: the version that beat the reference by the most (kernelpro show and the suite page "
	    "mean the same), else the reference itself. Times are medians over the timed trials.");
	kp_html_section(out, "roofline", "Roofline before and after");
	kp_buf_adds(out, "<div class=\"figure\">\n");
	kp__report_roofline(P.b, P.ref, P.best); /* run_roofline.c */
	kp_buf_adds(out, "</div>\n");
	kp_html_para(out, "caption",
	             "Each version's longest kernel on the GPU's roofline, from its Stage-1 profile: "
	             "arithmetic intensity "
	             "against achieved FLOP/s under the memory slope and the compute roof of its precision.");
	kp_html_section_end(out);
	kp_html_section(out, "tree", "Search tree");
	search_tree(&P);
	kp_html_section_end(out);
	kp_html_section(out, "progress", "Speedup over evaluations");
	kp_buf_adds(out, "<div class=\"figure\">\n");
	progress(&P);
	kp_buf_adds(out, "</div>\n");
	kp_html_para(out, "caption",
	             "Versions in the order they were made; failed versions sit at the bottom.");
	kp_html_section_end(out);
	kp_html_section(out, "versions", "Versions");
	kp_html_para(out, "caption", "Click a column header to sort.");
	versions_table(&P);
	kp_html_section_end(out);
	kp_html_section(out, "diagnoses", "Diagnosis of each version");
	diagnoses(&P);
	kp_html_section_end(out);
	kp_html_end(out);
	kp_buf_release(&title);
	kp_buf_release(&sub);
	return 0;
}
