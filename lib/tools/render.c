/*
 * Feedback rendering: Markdown for the LLM (bounded in length, cut only at
 * section boundaries) and JSON for machines, from a built kp_feedback.
 */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/feedback.h"
#include "kernelpro/json.h"

#define TRY_FIRST 2
#define EVIDENCE_SHOWN 6

/* ---- Numbers people can read ----------------------------------------------------------------- */

static void add_time(struct kp_buf *b, double s)
{
	if (isnan(s))
		kp_buf_adds(b, "?");
	else if (s < 1e-6)
		kp_buf_addf(b, "%.0f ns", s * 1e9);
	else if (s < 1e-3)
		kp_buf_addf(b, "%.1f us", s * 1e6);
	else if (s < 1)
		kp_buf_addf(b, "%.2f ms", s * 1e3);
	else
		kp_buf_addf(b, "%.2f s", s);
}

static void add_scaled(struct kp_buf *b, double v, const char *unit)
{
	static const char *const prefix[] = {"", "K", "M", "G", "T", "P"};
	size_t i = 0;
	while (fabs(v) >= 1000 && i + 1 < KP_ARRAY_SIZE(prefix)) {
		v /= 1000;
		i++;
	}
	kp_buf_addf(b, "%.3g %s%s", v, prefix[i], unit);
}

static void add_value(struct kp_buf *b, double v, const char *unit)
{
	if (isnan(v)) {
		kp_buf_adds(b, "n/a");
	} else if (!strcmp(unit, "%")) {
		kp_buf_addf(b, "%.1f%%", v);
	} else if (!strcmp(unit, "B") || !strcmp(unit, "B/s") || !strcmp(unit, "FLOP/s") || !strcmp(unit, "op/s")) {
		add_scaled(b, v, unit);
	} else if (!strcmp(unit, "x")) {
		kp_buf_addf(b, "%.1fx", v);
	} else if (v == floor(v) && fabs(v) < 1e15) {
		kp_buf_addf(b, "%.0f%s%s", v, *unit ? " " : "", unit);
	} else {
		kp_buf_addf(b, "%.3g%s%s", v, *unit ? " " : "", unit);
	}
}

/* ---- Markdown --------------------------------------------------------------------------------- */

static void position_text(const struct kp_feedback *fb, struct kp_buf *b)
{
	kp_buf_addf(b, "# Feedback for %s\n", fb->kernel ? fb->kernel : "the kernel");
	if (fb->mode != KP_FEEDBACK_TOOLS) {
		kp_buf_adds(b, "Time ");
		add_time(b, fb->time_s);
		kp_buf_adds(b, ".\n");
		return;
	}
	kp_buf_addf(b, "Bottleneck: %s%s.", fb->bound, strcmp(fb->bound, "unknown") ? "-bound" : " (no Stage 1)");
	if (!isnan(fb->memory_frac) && fb->memory_peak > 0) {
		kp_buf_adds(b, " DRAM ");
		add_scaled(b, fb->achieved_bw, "B/s");
		kp_buf_adds(b, " of ");
		add_scaled(b, fb->memory_peak, "B/s");
		kp_buf_addf(b, "%s%s peak (%.0f%%);", fb->peak_source ? " " : "", fb->peak_source ? fb->peak_source : "",
			    fb->memory_frac * 100);
	}
	if (!isnan(fb->compute_frac) && fb->compute_peak > 0) {
		kp_buf_adds(b, " compute ");
		add_scaled(b, fb->achieved_flops, "FLOP/s");
		kp_buf_adds(b, " of ");
		add_scaled(b, fb->compute_peak, "FLOP/s");
		kp_buf_addf(b, " %s peak (%.1f%%).", fb->precision ? fb->precision : "", fb->compute_frac * 100);
	}
	if (!isnan(fb->sm_sol_pct) && !isnan(fb->mem_sol_pct))
		kp_buf_addf(b, " Speed of light: SM %.0f%%, memory %.0f%%.", fb->sm_sol_pct, fb->mem_sol_pct);
	kp_buf_adds(b, " Time ");
	add_time(b, fb->time_s);
	if (!isnan(fb->floor_time_s) && fb->floor_time_s > 0) {
		kp_buf_adds(b, ", roofline floor ");
		add_time(b, fb->floor_time_s);
	}
	kp_buf_adds(b, ".\n");
	if (fb->bound_reason)
		kp_buf_addf(b, "Why: %s\n", fb->bound_reason);
	if (fb->triton)
		kp_buf_addf(b, "%s.\n", fb->triton);
}

/* The i-th recommendation of f in the feedback's language: NULL when it has none there (phrasing.c). */
static const char *rec_at(const struct kp_feedback *fb, const struct kp_finding *f, size_t i, struct kp_buf *tmp)
{
	return kp_phrase_rec(fb->lang, f->tool, f->recs.v[i], tmp);
}

static void try_first_text(const struct kp_feedback *fb, struct kp_buf *b)
{
	struct kp_buf tmp = KP_BUF_INIT;
	size_t k = 0;
	kp_buf_adds(b, "\n## What to try first\n");
	for (size_t i = 0; i < fb->findings.n && k < TRY_FIRST; i++) {
		const struct kp_finding *f = &fb->findings.v[i];
		const char *rec = NULL;
		for (size_t r = 0; r < f->recs.n && !rec; r++)
			rec = rec_at(fb, f, r, &tmp);
		if (rec)
			kp_buf_addf(b, "%zu. %s (%s)\n", ++k, rec, f->tool);
	}
	if (!k)
		kp_buf_adds(b, "Nothing stands out in the counters the tools read.\n");
	kp_buf_release(&tmp);
}

static void finding_text(const struct kp_feedback *fb, const struct kp_finding *f, size_t rank, struct kp_buf *b)
{
	struct kp_buf tmp = KP_BUF_INIT;
	kp_buf_addf(b, "\n### %zu. [%s] %s\n", rank, kp_finding_severity_name(f->severity), f->title);
	kp_buf_addf(b, "Tool: %s", f->tool);
	if (!isnan(f->gain))
		kp_buf_addf(b, "; estimated gain up to %.0f%% of the kernel time%s%s%s", f->gain * 100,
			    f->gain_basis ? " (" : "", f->gain_basis ? f->gain_basis : "", f->gain_basis ? ")" : "");
	kp_buf_adds(b, "\n");
	if (f->cause)
		kp_buf_addf(b, "Cause: %s\n", f->cause);
	if (f->nevidence)
		kp_buf_adds(b, "Evidence:\n");
	for (size_t i = 0; i < f->nevidence && i < EVIDENCE_SHOWN; i++) {
		const struct kp_evidence *e = &f->evidence[i];
		kp_buf_addf(b, "- %s: ", e->metric);
		add_value(b, e->value, e->unit);
		if (!isnan(e->threshold)) {
			kp_buf_adds(b, " (threshold ");
			add_value(b, e->threshold, e->unit);
			kp_buf_adds(b, ")");
		}
		kp_buf_adds(b, "\n");
	}
	for (size_t i = 0, shown = 0; i < f->recs.n && shown < fb->opts.max_recs; i++) {
		const char *rec = rec_at(fb, f, i, &tmp);
		if (!rec)
			continue;
		kp_buf_addf(b, "%s- %s\n", shown++ ? "" : "Do:\n", rec);
	}
	kp_buf_release(&tmp);
	if (f->also.n) {
		kp_buf_adds(b, "Also seen by: ");
		for (size_t i = 0; i < f->also.n; i++)
			kp_buf_addf(b, "%s%s", i ? ", " : "", f->also.v[i]);
		kp_buf_adds(b, "\n");
	}
}

static void raw_text(const struct kp_feedback *fb, struct kp_buf *out)
{
	struct kp_buf row = KP_BUF_INIT;
	kp_buf_adds(out, "\n| metric | value |\n|---|---|\n");
	for (size_t i = 0; i < fb->nraw; i++) {
		kp_buf_reset(&row);
		kp_buf_addf(&row, "| %s | ", fb->raw[i].name);
		if (fb->raw[i].missing)
			kp_buf_adds(&row, "missing");
		else
			add_value(&row, fb->raw[i].value, fb->raw[i].unit);
		kp_buf_adds(&row, " |\n");
		if (out->len + row.len + 64 > fb->opts.max_chars) {
			kp_buf_addf(out, "(%zu more rows omitted for length)\n", fb->nraw - i);
			break;
		}
		kp_buf_add(out, row.buf, row.len);
	}
	kp_buf_release(&row);
}

/* "<lead>tool, tool.\n" for the notes ("tool status: message") of one status. */
static void notes_text(const struct kp_feedback *fb, const char *status, const char *lead, struct kp_buf *b)
{
	size_t n = 0;
	for (size_t i = 0; i < fb->notes.n; i++) {
		const char *sp = strchr(fb->notes.v[i], ' ');
		if (!sp || strncmp(sp + 1, status, strlen(status)))
			continue;
		kp_buf_addf(b, "%s%.*s", n++ ? ", " : lead, (int)(sp - fb->notes.v[i]), fb->notes.v[i]);
	}
	if (n)
		kp_buf_adds(b, ".\n");
}

void kp_feedback_text(const struct kp_feedback *fb, struct kp_buf *out)
{
	struct kp_buf piece = KP_BUF_INIT;
	size_t start = out->len, cap = fb->opts.max_chars, shown = 0;

	position_text(fb, out);
	if (fb->mode == KP_FEEDBACK_RAW)
		raw_text(fb, out);
	if (fb->mode != KP_FEEDBACK_TOOLS)
		goto out;
	try_first_text(fb, out);
	if (fb->findings.n)
		kp_buf_adds(out, "\n## Findings (most important first)\n");
	for (size_t i = 0; i < fb->findings.n; i++) {
		kp_buf_reset(&piece);
		finding_text(fb, &fb->findings.v[i], i + 1, &piece);
		if (out->len - start + piece.len + 160 > cap)
			break;
		kp_buf_add(out, piece.buf, piece.len);
		shown++;
	}
	if (shown < fb->findings.n || fb->nomitted || fb->nfolded || fb->ndropped) {
		kp_buf_adds(out, "\n(");
		if (shown < fb->findings.n || fb->nomitted) {
			kp_buf_addf(out, "%zu more finding(s) omitted", fb->findings.n - shown + fb->nomitted);
			for (size_t i = 0; i < fb->omitted.n && i < 4; i++)
				kp_buf_addf(out, "%s%s", i ? ", " : ": ", fb->omitted.v[i]);
			kp_buf_adds(out, "; ");
		}
		kp_buf_addf(out, "%zu folded into the findings that explain them; %zu estimated to gain too little)\n",
			    fb->nfolded, fb->ndropped);
	}
	if (fb->notes.n) {
		kp_buf_reset(&piece);
		notes_text(fb, "missing", "\nNo data for: ", &piece);
		notes_text(fb, "failed", "\nFailed (see the log): ", &piece);
		if (out->len - start + piece.len <= cap)
			kp_buf_add(out, piece.buf, piece.len);
	}
out:
	if (out->len - start > cap) /* only a cap smaller than the header and what to try first gets here */
		kp_buf_setlen(out, start + cap);
	kp_buf_release(&piece);
}

/* ---- JSON -------------------------------------------------------------------------------------- */

static json_t *strvec_json(const struct kp_strvec *sv, size_t max)
{
	json_t *a = json_array();
	for (size_t i = 0; i < sv->n && i < max; i++)
		json_array_append_new(a, json_string(sv->v[i]));
	return a;
}

json_t *kp_finding_json(const struct kp_finding *f)
{
	json_t *o = json_object(), *ev = json_array();
	kp_json_set(o, "tool", json_string(f->tool ? f->tool : ""));
	kp_json_set(o, "severity", json_string(kp_finding_severity_name(f->severity)));
	kp_json_set(o, "title", json_string(f->title ? f->title : ""));
	kp_json_set(o, "cause", f->cause ? json_string(f->cause) : NULL);
	for (size_t i = 0; i < f->nevidence; i++) {
		json_t *e = json_object();
		kp_json_set(e, "metric", json_string(f->evidence[i].metric));
		kp_json_set(e, "value", kp_json_real(f->evidence[i].value));
		kp_json_set(e, "threshold", kp_json_real(f->evidence[i].threshold));
		kp_json_set(e, "unit", json_string(f->evidence[i].unit));
		json_array_append_new(ev, e);
	}
	kp_json_set(o, "evidence", ev);
	kp_json_set(o, "recommendations", strvec_json(&f->recs, (size_t)-1));
	kp_json_set(o, "gain", kp_json_real(f->gain));
	kp_json_set(o, "gain_basis", f->gain_basis ? json_string(f->gain_basis) : NULL);
	kp_json_set(o, "also", strvec_json(&f->also, (size_t)-1));
	return o;
}

json_t *kp_feedback_json(const struct kp_feedback *fb)
{
	json_t *o = json_object(), *roof = json_object(), *fs = json_array(), *try = json_array();

	kp_json_set(o, "kernel", fb->kernel ? json_string(fb->kernel) : NULL);
	kp_json_set(o, "mode", json_string(kp_feedback_mode_name(fb->mode)));
	kp_json_set(o, "time_s", kp_json_real(fb->time_s));
	kp_json_set(o, "bound", json_string(fb->bound ? fb->bound : "unknown"));
	kp_json_set(o, "reason", fb->bound_reason ? json_string(fb->bound_reason) : NULL);
	kp_json_set(roof, "achieved_bw", kp_json_real(fb->achieved_bw));
	kp_json_set(roof, "memory_peak", kp_json_real(fb->memory_peak));
	kp_json_set(roof, "memory_frac", kp_json_real(fb->memory_frac));
	kp_json_set(roof, "achieved_flops", kp_json_real(fb->achieved_flops));
	kp_json_set(roof, "compute_peak", kp_json_real(fb->compute_peak));
	kp_json_set(roof, "compute_frac", kp_json_real(fb->compute_frac));
	kp_json_set(roof, "precision", fb->precision ? json_string(fb->precision) : NULL);
	kp_json_set(roof, "peak_source", fb->peak_source ? json_string(fb->peak_source) : NULL);
	kp_json_set(roof, "floor_time_s", kp_json_real(fb->floor_time_s));
	kp_json_set(roof, "sm_sol_pct", kp_json_real(fb->sm_sol_pct));
	kp_json_set(roof, "mem_sol_pct", kp_json_real(fb->mem_sol_pct));
	kp_json_set(o, "roofline", roof);
	for (size_t i = 0; i < fb->findings.n; i++) {
		const struct kp_finding *f = &fb->findings.v[i];
		json_t *fj = kp_finding_json(f), *recs = json_array();
		struct kp_buf tmp = KP_BUF_INIT;
		for (size_t r = 0; r < f->recs.n; r++) {
			const char *rec = rec_at(fb, f, r, &tmp);
			if (rec)
				json_array_append_new(recs, json_string(rec));
		}
		kp_json_set(fj, "recommendations", recs); /* in the feedback's language */
		json_array_append_new(fs, fj);
		if (i < TRY_FIRST && json_array_size(recs))
			json_array_append_new(try, json_incref(json_array_get(recs, 0)));
		kp_buf_release(&tmp);
	}
	if (fb->lang == KP_LANG_TRITON) { /* (CUDA feedback keeps its JSON as it was) */
		kp_json_set(o, "language", json_string("triton"));
		kp_json_set(o, "triton", fb->triton ? json_string(fb->triton) : NULL);
	}
	kp_json_set(o, "try_first", try);
	kp_json_set(o, "findings", fs);
	kp_json_set(o, "folded", json_integer((json_int_t)fb->nfolded));
	kp_json_set(o, "omitted", json_integer((json_int_t)fb->nomitted));
	kp_json_set(o, "notes", strvec_json(&fb->notes, (size_t)-1));
	if (fb->mode == KP_FEEDBACK_RAW) {
		json_t *raw = json_array();
		for (size_t i = 0; i < fb->nraw; i++) {
			json_t *r = json_object();
			kp_json_set(r, "metric", json_string(fb->raw[i].name));
			kp_json_set(r, "value", fb->raw[i].missing ? NULL : kp_json_real(fb->raw[i].value));
			kp_json_set(r, "unit", json_string(fb->raw[i].unit));
			json_array_append_new(raw, r);
		}
		kp_json_set(o, "raw", raw);
	}
	return o;
}
