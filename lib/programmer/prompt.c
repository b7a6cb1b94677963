/* Prompt building: the context's fields become bounded, formatted slot values for the templates. */
#include "base/setup.h"

#include <ctype.h>
#include <math.h>

#include "kernelpro/str.h"
#include "programmer/prog_int.h"

/* --- Log trimming --------------------------------------------------------------------------------- */

#define LOG_LINE_MAX 300

static const char *const error_words[] = {"error",     "fatal",	  "illegal",   "exception",
					  "traceback", "assert",   "segmentation", "failed",
					  "abort",     "undefined reference", "out of memory", "mismatch"};

static int is_error_line(const char *s, size_t n)
{
	char low[LOG_LINE_MAX + 1];
	size_t k = n < LOG_LINE_MAX ? n : LOG_LINE_MAX;
	for (size_t i = 0; i < k; i++)
		low[i] = (char)tolower((unsigned char)s[i]);
	low[k] = '\0';
	for (size_t i = 0; i < KP_ARRAY_SIZE(error_words); i++)
		if (strstr(low, error_words[i]))
			return 1;
	return 0;
}

/* The message part of an error line (after "error"), to spot the same error repeated at other places. */
static const char *error_text(const char *s, size_t n, size_t *len)
{
	for (size_t i = 0; i + 5 <= n; i++)
		if (!strncasecmp(s + i, "error", 5)) {
			*len = n - i;
			return s + i;
		}
	*len = n;
	return s;
}

struct line {
	size_t off, len;
	int keep;
};

static size_t shown_len(const struct line *l)
{
	return (l->len > LOG_LINE_MAX ? LOG_LINE_MAX + 4 : l->len) + 1;
}

/* Over 80 lines: lines found, then kept by one budget in order of worth (cut markers, the first errors
 * with their context, the tail), then emitted; the three passes share the line table. */
void kp_prog_trim_log(const char *log, size_t max_chars, struct kp_buf *out)
{
	struct line *lines = NULL;
	size_t n = 0, alloc = 0, total = 0, used = 0, len;
	size_t head_budget;
	int any_error = 0;

	if (!log || !*log)
		return;
	len = strlen(log);
	while (len && (log[len - 1] == '\n' || log[len - 1] == ' ' || log[len - 1] == '\r'))
		len--;
	for (size_t i = 0; i < len;) {
		size_t e = i;
		while (e < len && log[e] != '\n')
			e++;
		KP_ALLOC_GROW(lines, n + 1, alloc);
		lines[n] = (struct line){i, e - i, 0};
		while (lines[n].len && log[i + lines[n].len - 1] == '\r')
			lines[n].len--;
		total += shown_len(&lines[n]);
		n++;
		i = e + 1;
	}
	if (total <= max_chars) {
		for (size_t i = 0; i < n; i++)
			lines[i].keep = 1;
		goto emit;
	}
	/* Budget: room for the cut markers first, then the first errors with context, then the tail. */
	max_chars = max_chars > 200 ? max_chars - 120 : max_chars / 2;
	head_budget = max_chars * 65 / 100;
	for (size_t i = 0; i < n && used < head_budget; i++) {
		size_t elen, plen;
		const char *et;
		int dup = 0;
		if (!is_error_line(log + lines[i].off, lines[i].len))
			continue;
		any_error = 1;
		et = error_text(log + lines[i].off, lines[i].len, &elen);
		for (size_t k = 0; k < i && !dup; k++) {
			const char *pt;
			if (!lines[k].keep || !is_error_line(log + lines[k].off, lines[k].len))
				continue;
			pt = error_text(log + lines[k].off, lines[k].len, &plen);
			dup = plen == elen && !memcmp(pt, et, elen);
		}
		if (dup)
			continue;
		/* One line before (the file/function context) and two after (nvcc's caret lines, the cause). */
		for (size_t k = i ? i - 1 : 0; k <= i + 2 && k < n; k++)
			if (!lines[k].keep && used + shown_len(&lines[k]) <= head_budget) {
				lines[k].keep = 1;
				used += shown_len(&lines[k]);
			}
	}
	if (!any_error) /* no error lines (a hang, a silent crash): the start says what was running */
		for (size_t i = 0; i < n && used + shown_len(&lines[i]) <= max_chars * 30 / 100; i++)
			lines[i].keep = 1, used += shown_len(&lines[i]);
	for (size_t i = n; i-- > 0;) {
		if (lines[i].keep)
			continue;
		if (used + shown_len(&lines[i]) > max_chars)
			break;
		lines[i].keep = 1;
		used += shown_len(&lines[i]);
	}
emit:
	for (size_t i = 0; i < n;) {
		if (!lines[i].keep) {
			size_t j = i;
			while (j < n && !lines[j].keep)
				j++;
			kp_buf_addf(out, "[... %zu line%s left out ...]\n", j - i, j - i == 1 ? "" : "s");
			i = j;
			continue;
		}
		if (lines[i].len > LOG_LINE_MAX) {
			kp_buf_add(out, log + lines[i].off, LOG_LINE_MAX);
			kp_buf_adds(out, " ...\n");
		} else {
			kp_buf_add(out, log + lines[i].off, lines[i].len);
			kp_buf_addch(out, '\n');
		}
		i++;
	}
	free(lines);
}

/* --- Values ---------------------------------------------------------------------------------------- */

/* Code longer than max keeps its head and tail, with a marker where lines were left out. */
static void trim_code(const char *code, size_t max, struct kp_buf *out)
{
	size_t len = strlen(code), head, tail, cut_lines = 0;
	if (len <= max) {
		kp_buf_add(out, code, len);
		return;
	}
	head = max * 6 / 10;
	while (head > 0 && code[head - 1] != '\n')
		head--;
	tail = len - (max - head);
	while (tail < len && code[tail - 1] != '\n')
		tail++;
	for (size_t i = head; i < tail; i++)
		cut_lines += code[i] == '\n';
	kp_buf_add(out, code, head);
	kp_buf_addf(out, "[... %zu lines left out to fit the prompt ...]\n", cut_lines);
	kp_buf_add(out, code + tail, len - tail);
}

/* A fence longer than any backtick run inside, so code holding ``` cannot end the block early. */
static void fenced(struct kp_buf *out, const char *tag, const char *body)
{
	size_t run = 0, longest = 2;
	for (const char *p = body; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	for (size_t i = 0; i <= longest; i++)
		kp_buf_addch(out, '`');
	kp_buf_adds(out, tag);
	kp_buf_addch(out, '\n');
	kp_buf_adds(out, body);
	if (out->len && out->buf[out->len - 1] != '\n')
		kp_buf_addch(out, '\n');
	for (size_t i = 0; i <= longest; i++)
		kp_buf_addch(out, '`');
}

static int set(const char *s)
{
	return s && *s;
}

static void fmt_time(char *buf, size_t n, double s)
{
	if (!(s > 0) || !isfinite(s))
		buf[0] = '\0';
	else if (s >= 1e-5)
		snprintf(buf, n, "%.4g ms", s * 1e3);
	else
		snprintf(buf, n, "%.2f us", s * 1e6);
}

static void fmt_speedup(char *buf, size_t n, double ref, double t)
{
	if (ref > 0 && t > 0 && isfinite(ref) && isfinite(t))
		snprintf(buf, n, "%.2fx", ref / t);
	else
		buf[0] = '\0';
}

const char *kp_prog_failure_name(enum kp_prog_failure f)
{
	switch (f) {
	case KP_PROG_FAIL_COMPILE:
		return "compile_error";
	case KP_PROG_FAIL_RUNTIME:
		return "runtime_error";
	case KP_PROG_FAIL_TIMEOUT:
		return "timeout";
	case KP_PROG_FAIL_WRONG_OUTPUT:
		return "wrong_output";
	case KP_PROG_FAIL_CHEAT:
		return "cheat_suspected";
	case KP_PROG_FAIL_REJECTED:
		return "rejected_reply";
	case KP_PROG_FAIL_NONE:
		break;
	}
	return "none";
}

static const char *failure_phrase(enum kp_prog_failure f)
{
	switch (f) {
	case KP_PROG_FAIL_COMPILE:
		return "It does not compile.";
	case KP_PROG_FAIL_RUNTIME:
		return "It compiles, but fails at run time (a crash, a CUDA error or an exception).";
	case KP_PROG_FAIL_TIMEOUT:
		return "It did not finish within the time limit (a hang, a deadlock or an extremely slow kernel).";
	case KP_PROG_FAIL_WRONG_OUTPUT:
		return "It runs, but computes the wrong result.";
	case KP_PROG_FAIL_CHEAT:
		return "The harness refused it: it does not compute the task honestly (see the checks below).";
	case KP_PROG_FAIL_REJECTED:
		return "The last reply held no usable code.";
	case KP_PROG_FAIL_NONE:
		break;
	}
	return "It failed.";
}

static void wrong_output_text(const struct kp_prog_wrong_output *w, struct kp_buf *out)
{
	if (w->mismatched >= 0 && w->total > 0)
		kp_buf_addf(out, "%ld of %ld elements (%.2f%%) are outside the tolerance.\n", w->mismatched, w->total,
			    100.0 * (double)w->mismatched / (double)w->total);
	if (isfinite(w->max_abs_err) || isfinite(w->max_rel_err)) {
		kp_buf_adds(out, "Largest error:");
		if (isfinite(w->max_abs_err))
			kp_buf_addf(out, " absolute %.6g", w->max_abs_err);
		if (isfinite(w->max_abs_err) && isfinite(w->max_rel_err))
			kp_buf_adds(out, ",");
		if (isfinite(w->max_rel_err))
			kp_buf_addf(out, " relative %.6g", w->max_rel_err);
		kp_buf_adds(out, ".\n");
	}
	if (isfinite(w->atol) || isfinite(w->rtol)) {
		kp_buf_adds(out, "Tolerance:");
		if (isfinite(w->atol))
			kp_buf_addf(out, " atol %.3g", w->atol);
		if (isfinite(w->rtol))
			kp_buf_addf(out, "%s rtol %.3g", isfinite(w->atol) ? "," : "", w->rtol);
		kp_buf_adds(out, " (an element passes when |out - ref| <= atol + rtol * |ref|).\n");
	}
	if (set(w->where))
		kp_buf_addf(out, "Where: %.600s\n", w->where);
}

/* The parts of a prompt that may be cut to fit, each with its own budget in characters (P_KNOBS, the
 * fixed section on declaring knobs, is whole or left out: any budget above 0 keeps it). */
enum part {
	P_CODESEARCH, P_MEMORY, P_REFERENCE, P_HARDWARE, P_STAGE1, P_FEEDBACK, P_TASK, P_LOG, P_PARENT, P_KNOBS, P_N
};

struct budgets {
	size_t cap[P_N];
	size_t instructions, tools; /* the user's words and the tool list are never cut further */
};

static void budgets_default(struct budgets *b)
{
	static const size_t def[P_N] = {[P_CODESEARCH] = 8000, [P_MEMORY] = 4000, [P_REFERENCE] = 24000,
					[P_HARDWARE] = 2000,   [P_STAGE1] = 3000, [P_FEEDBACK] = 8000,
					[P_TASK] = 8000,       [P_LOG] = 6000,	  [P_PARENT] = 32000,
					[P_KNOBS] = 1};
	memcpy(b->cap, def, sizeof(def));
	b->instructions = 3000;
	b->tools = 3000;
}

static size_t slen(const char *s)
{
	return s ? strlen(s) : 0;
}

/* How long a part is now: its text, or its budget when that is smaller. */
static size_t part_len(const struct kp_prog_ctx *c, const struct budgets *b, enum part p)
{
	size_t n = 0;
	if ((unsigned)p >= P_N)
		return 0;
	switch (p) {
	case P_CODESEARCH:
		n = slen(c->codesearch_text);
		break;
	case P_MEMORY:
		n = slen(c->memory_text);
		break;
	case P_REFERENCE:
		n = slen(c->reference_code);
		break;
	case P_HARDWARE:
		n = slen(c->hardware_text);
		break;
	case P_STAGE1:
		n = slen(c->stage1_text);
		break;
	case P_FEEDBACK:
		n = c->mode == KP_PROG_OPTIMIZE ? slen(c->feedback_text) : 0;
		break;
	case P_TASK:
		n = slen(c->task_text);
		break;
	case P_LOG:
		n = c->mode == KP_PROG_DEBUG ? slen(c->compile_log) + slen(c->runtime_log) : 0;
		break;
	case P_PARENT:
		n = c->mode == KP_PROG_INITIAL ? 0 : slen(c->parent_code);
		break;
	case P_KNOBS:
		n = c->mode == KP_PROG_OPTIMIZE;
		break;
	case P_N:
		return 0;
	}
	return n < b->cap[p] ? n : b->cap[p];
}

/*
 * Cuts the first part in give-way order that still has text by what the
 * prompt is over (and a little for the cut markers); a part left too small
 * to be useful goes entirely. Returns 0 when nothing is left to cut.
 */
static int shrink(const struct kp_prog_ctx *c, struct budgets *b, size_t over)
{
	/*
	 * Least needed first, per mode: when optimizing, the reference is the
	 * first to go (the parent computes the same thing); when repairing, it
	 * is what the output must match, so it stays almost to the end.
	 */
	static const enum part initial[] = {P_CODESEARCH, P_MEMORY, P_HARDWARE, P_STAGE1, P_TASK, P_REFERENCE};
	static const enum part debug[] = {P_CODESEARCH, P_HARDWARE, P_STAGE1, P_MEMORY,
					  P_TASK,	P_REFERENCE, P_LOG,    P_PARENT};
	static const enum part optimize[] = {P_KNOBS,  P_REFERENCE, P_CODESEARCH, P_HARDWARE, P_MEMORY,
					     P_STAGE1, P_TASK,	    P_FEEDBACK,	  P_PARENT};
	const enum part *order = c->mode == KP_PROG_INITIAL ? initial : c->mode == KP_PROG_DEBUG ? debug : optimize;
	size_t n = c->mode == KP_PROG_INITIAL ? KP_ARRAY_SIZE(initial)
		   : c->mode == KP_PROG_DEBUG ? KP_ARRAY_SIZE(debug)
					      : KP_ARRAY_SIZE(optimize);

	for (size_t i = 0; i < n; i++) {
		size_t len = part_len(c, b, order[i]), want = over + 120;
		if (!len)
			continue;
		b->cap[order[i]] = len > want + 400 ? len - want : 0;
		return 1;
	}
	return 0;
}

/* Text trimmed to `max` characters at a line boundary, with a note. */
static void trim_text(const char *s, size_t max, struct kp_buf *out)
{
	size_t len = strlen(s), cut;
	if (len <= max) {
		kp_buf_add(out, s, len);
		return;
	}
	cut = max;
	while (cut > max / 2 && s[cut - 1] != '\n')
		cut--;
	kp_buf_add(out, s, cut);
	kp_buf_addf(out, "%s[... %zu characters left out ...]", cut && s[cut - 1] == '\n' ? "" : "\n", len - cut);
}

struct slots {
	struct kp_buf v[KP_NSLOTS];
	const char *p[KP_NSLOTS];
};

static void slots_release(struct slots *s)
{
	for (int i = 0; i < KP_NSLOTS; i++)
		kp_buf_release(&s->v[i]);
}

#define V(name) (&s->v[KP_SLOT_##name])

/* What the task is and what surrounds it: every mode. */
static void fill_task(const struct kp_prog_ctx *c, const struct budgets *b, struct slots *s, struct kp_buf *tmp)
{
	kp_buf_adds(V(mode), kp_prog_mode_name(c->mode));
	if (set(c->task_name))
		kp_buf_adds(V(task_name), c->task_name);
	if (set(c->task_text) && b->cap[P_TASK])
		trim_text(c->task_text, b->cap[P_TASK], V(task));
	if (set(c->reference_code) && b->cap[P_REFERENCE]) {
		trim_code(c->reference_code, b->cap[P_REFERENCE], tmp);
		/* KernelBench references are PyTorch; native ones are CUDA. */
		fenced(V(reference), kp_cand_format_info(c->format)->fence, tmp->buf);
		kp_buf_reset(tmp);
	}
	if (set(c->stage1_text) && b->cap[P_STAGE1])
		trim_text(c->stage1_text, b->cap[P_STAGE1], V(stage1));
	if (set(c->hardware_text) && b->cap[P_HARDWARE])
		trim_text(c->hardware_text, b->cap[P_HARDWARE], V(hardware));
	if (set(c->memory_text) && b->cap[P_MEMORY])
		trim_text(c->memory_text, b->cap[P_MEMORY], V(memory));
	if (set(c->codesearch_text) && b->cap[P_CODESEARCH])
		trim_text(c->codesearch_text, b->cap[P_CODESEARCH], V(codesearch));
	if (set(c->instructions))
		trim_text(c->instructions, b->instructions, V(instructions));
}

static void fill_log(const char *log, const struct budgets *b, struct kp_buf *slot, struct kp_buf *tmp)
{
	kp_prog_trim_log(log, b->cap[P_LOG] ? b->cap[P_LOG] : 1, tmp);
	fenced(slot, "text", tmp->buf);
	kp_buf_reset(tmp);
}

/* The parent and, in debug, how it failed; in optimize, what the tools found. */
static void fill_parent(const struct kp_prog_ctx *c, const struct kp_cand_format_info *f, const struct budgets *b,
			struct slots *s, struct kp_buf *tmp)
{
	if (set(c->parent_code) && c->mode != KP_PROG_INITIAL) {
		trim_code(c->parent_code, b->cap[P_PARENT] ? b->cap[P_PARENT] : 1, tmp);
		fenced(V(parent_code), f->fence, tmp->buf);
		kp_buf_reset(tmp);
	}
	if (c->mode == KP_PROG_DEBUG) {
		kp_buf_adds(V(failure), failure_phrase(c->failure));
		kp_buf_adds(V(failure_kind), kp_prog_failure_name(c->failure));
		if (set(c->compile_log))
			fill_log(c->compile_log, b, V(compile_log), tmp);
		if (set(c->runtime_log))
			fill_log(c->runtime_log, b, V(runtime_log), tmp);
		wrong_output_text(&c->wrong, V(wrong_output));
		if (set(c->reject_reason))
			trim_text(c->reject_reason, 600, V(reject_reason));
	}
	if (c->mode == KP_PROG_OPTIMIZE && set(c->feedback_text) && b->cap[P_FEEDBACK])
		trim_text(c->feedback_text, b->cap[P_FEEDBACK], V(feedback));
}

static void fill_times(const struct kp_prog_ctx *c, struct slots *s)
{
	char t[64];
	fmt_time(t, sizeof(t), c->reference_time_s);
	kp_buf_adds(V(reference_time), t);
	if (c->mode == KP_PROG_INITIAL)
		return;
	fmt_time(t, sizeof(t), c->parent_time_s);
	kp_buf_adds(V(parent_time), t);
	fmt_time(t, sizeof(t), c->best_time_s);
	kp_buf_adds(V(best_time), t);
	fmt_speedup(t, sizeof(t), c->reference_time_s, c->parent_time_s);
	kp_buf_adds(V(parent_speedup), t);
	fmt_speedup(t, sizeof(t), c->reference_time_s, c->best_time_s);
	kp_buf_adds(V(best_speedup), t);
}

static const int knobs_tmpl[] = {[KP_CAND_CUDA] = KP_PT_KNOBS_CUDA,
				 [KP_CAND_TORCH] = KP_PT_KNOBS_TORCH,
				 [KP_CAND_TRITON] = KP_PT_KNOBS_TRITON};

static void fill(struct kp_programmer *pg, const struct kp_prog_ctx *c, const struct budgets *b, struct slots *s)
{
	const struct kp_cand_format_info *f = kp_cand_format_info(c->format);
	const char *const *entries = c->entry_points ? c->entry_points : f->entry_points;
	struct kp_buf tmp = KP_BUF_INIT;
	int search_on = pg->opts.hooks.search && pg->max_rounds > 0;
	int tools_on = pg->opts.hooks.tool && set(c->tools_text) && pg->max_rounds > 0;

	memset(s, 0, sizeof(*s));
	fill_task(c, b, s, &tmp);
	fill_parent(c, f, b, s, &tmp);
	fill_times(c, s);
	kp_buf_adds(V(format_name), f->name);
	kp_buf_adds(V(language), f->language);
	kp_buf_adds(V(fence), f->fence);
	kp_buf_adds(V(kernel_language), f->kernels);
	if (c->mode == KP_PROG_OPTIMIZE && set(c->parent_kernels) && strcmp(c->parent_kernels, f->kernels))
		kp_buf_adds(V(port_from), c->parent_kernels);
	for (size_t i = 0; entries[i]; i++)
		kp_buf_addf(V(entry_points), "%s%s", i ? ", " : "", entries[i]);
	if (search_on)
		kp_buf_adds(V(search_on), "yes");
	if (tools_on) {
		kp_buf_adds(V(tools_on), "yes");
		trim_text(c->tools_text, b->tools, V(tools));
	}
	kp_buf_addf(V(max_rounds), "%d", pg->max_rounds);

	for (int i = 0; i < KP_NSLOTS; i++)
		s->p[i] = s->v[i].buf;
	/* The format section and the request protocol are templates themselves, over the same slots. */
	kp_tmpl_render(&pg->t[KP_PT_FMT_CUDA + c->format], s->p, V(format)); /* KP_PT_FMT_* follow enum kp_cand_format */
	s->p[KP_SLOT_format] = s->v[KP_SLOT_format].buf;
	/* How to leave numbers to the tuner (lib/tune), for the formats whose knobs kernelpro reads. */
	if (b->cap[P_KNOBS] && (size_t)c->format < KP_ARRAY_SIZE(knobs_tmpl) && knobs_tmpl[c->format]) {
		kp_tmpl_render(&pg->t[knobs_tmpl[c->format]], s->p, V(knobs));
		s->p[KP_SLOT_knobs] = s->v[KP_SLOT_knobs].buf;
	}
	if (search_on || tools_on) {
		kp_tmpl_render(&pg->t[KP_PT_TOOLS], s->p, V(protocol));
		s->p[KP_SLOT_protocol] = s->v[KP_SLOT_protocol].buf;
	}
	kp_buf_release(&tmp);
}

#undef V

int kp_prog_build(struct kp_programmer *pg, const struct kp_prog_ctx *c, struct kp_buf *system, struct kp_buf *user,
		  struct kp_error *err)
{
	static const int mode_tmpl[] = {[KP_PROG_INITIAL] = KP_PT_INITIAL, [KP_PROG_DEBUG] = KP_PT_DEBUG,
					[KP_PROG_OPTIMIZE] = KP_PT_OPTIMIZE};
	struct budgets b;
	struct kp_buf u = KP_BUF_INIT;

	if ((unsigned)c->mode >= KP_ARRAY_SIZE(mode_tmpl))
		return kp_error_set(err, KP_EINVAL, "programmer: unknown mode %d", (int)c->mode);
	if ((unsigned)c->format >= KP_CAND_NFORMATS)
		return kp_error_set(err, KP_EINVAL, "programmer: unknown candidate format %d", (int)c->format);
	if (c->mode != KP_PROG_INITIAL && !set(c->parent_code))
		return kp_error_set(err, KP_EINVAL, "programmer: %s mode needs the parent code", kp_prog_mode_name(c->mode));
	if (!set(c->task_text) && !set(c->reference_code))
		return kp_error_set(err, KP_EINVAL, "programmer: the context needs the task text or the reference code");
	budgets_default(&b);
	for (;;) {
		struct slots s;
		int fits;
		fill(pg, c, &b, &s);
		kp_buf_reset(&u);
		kp_tmpl_render(&pg->t[mode_tmpl[c->mode]], s.p, &u);
		fits = u.len <= pg->max_prompt;
		if (fits) {
			kp_tmpl_render(&pg->t[KP_PT_SYSTEM], s.p, system);
			kp_buf_add(user, u.buf, u.len);
		}
		slots_release(&s);
		if (fits || !shrink(c, &b, u.len - pg->max_prompt))
			break;
	}
	if (u.len > pg->max_prompt) {
		size_t n = u.len;
		kp_buf_release(&u);
		return kp_error_set(err, KP_ETOOBIG,
				    "programmer: the %s prompt needs %zu characters even with every part cut down, over "
				    "max_prompt_chars (%zu); raise the limit or shorten the code",
				    kp_prog_mode_name(c->mode), n, pg->max_prompt);
	}
	kp_buf_release(&u);
	return 0;
}
