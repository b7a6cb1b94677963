/*
 * Search memory: what the run learned (compile errors and the change that fixed them, APIs that
 * worked, code-search results, tool recommendations and what followed, closed directions), kept in
 * the run database and optionally in a database shared by runs of one task family, and the
 * bounded, deterministic extract of it that goes into each prompt.
 */
#include "base/setup.h"

#include <ctype.h>
#include <math.h>

#include "kernelpro/codesearch.h"
#include "kernelpro/json.h"
#include "kernelpro/search.h"
#include "kernelpro/str.h"

/* Longest line of memory text shown for one entry, and the pieces it is built from. */
#define MEM_LINE_MAX 220
#define MEM_KEY_MAX 160
#define MEM_ADDED_LINES 4
#define MEM_RECOMMENDATIONS 3

/* APIs and idioms worth remembering when a correct candidate introduces them. */
static const char *const api_patterns[] = {
	"__ldg", "float4", "float2", "int4", "__half2", "__nv_bfloat162", "__shfl_down_sync", "__shfl_xor_sync",
	"__shfl_sync", "__syncwarp", "__reduce_add_sync", "cp.async", "__pipeline_memcpy_async",
	"cuda::memcpy_async", "cuda::pipeline", "wmma::", "mma.sync", "wgmma", "cp.async.bulk", "__launch_bounds__",
	"#pragma unroll", "__restrict__", "__fdividef", "__expf", "__frcp_rn", "rsqrtf", "__fmaf_rn", "atomicAdd",
	"cooperative_groups", "cub::", "extern __shared__", "cudaFuncSetAttribute", "__nanosleep", "__cvta_generic_to_shared",
};

static int add_row(const struct kp_memory *m, struct kp_store_memory_row *r, struct kp_error *err)
{
	int rc;
	r->family = m->family;
	r->run = m->run_name;
	rc = kp_store_memory_add(m->run, r, err);
	if (!rc && m->shared) {
		struct kp_store_memory_row copy = *r;
		copy.node = 0; /* node ids belong to the run */
		rc = kp_store_memory_add(m->shared, &copy, err);
		if (rc)
			kp_error_prefix(err, "shared search memory");
	}
	return rc;
}

/* The first error line of a log, without file positions and with numbers as N: one key per kind of error. */
static void error_signature(const char *log, char *out, size_t n)
{
	const char *line = log, *pick = NULL, *end;
	struct kp_buf b = KP_BUF_INIT;

	out[0] = 0;
	if (!log)
		return;
	for (; *line; line = end + (*end ? 1 : 0)) {
		end = strchrnul(line, '\n');
		for (const char *c = line; c + 5 <= end; c++) {
			if (!strncasecmp(c, "error", 5)) {
				pick = c;
				break;
			}
		}
		if (pick)
			break;
	}
	if (!pick) {
		pick = log;
		while (*pick && isspace((unsigned char)*pick))
			pick++;
	}
	end = strchrnul(pick, '\n');
	for (const char *c = pick; c < end && b.len < MEM_KEY_MAX; c++) {
		/* Numbers (line numbers, sizes) vary between versions; names with digits (float4) do not. */
		if (isdigit((unsigned char)*c) && (c == pick || !(isalnum((unsigned char)c[-1]) || c[-1] == '_'))) {
			while (c + 1 < end && isdigit((unsigned char)c[1]))
				c++;
			kp_buf_addch(&b, 'N');
		} else {
			kp_buf_addch(&b, *c);
		}
	}
	kp_buf_rtrim(&b);
	kp_strlcpy(out, b.buf, n);
	kp_buf_release(&b);
}

/*
 * Walks the lines of a text: sets [*a, *z) to the next line without its surrounding spaces and
 * returns 1, or 0 at the end. *p starts at the text and is advanced.
 */
static int next_line(const char **p, const char **a, const char **z)
{
	const char *e;
	if (!*p || !**p)
		return 0;
	e = strchrnul(*p, '\n');
	*a = *p;
	*z = e;
	while (*a < *z && isspace((unsigned char)**a))
		(*a)++;
	while (*z > *a && isspace((unsigned char)(*z)[-1]))
		(*z)--;
	*p = *e ? e + 1 : e;
	return 1;
}

/* Does `text` hold `line` (trimmed) as one of its lines? */
static int has_line(const char *text, const char *line, size_t len)
{
	const char *p = text, *a, *z;
	while (next_line(&p, &a, &z))
		if ((size_t)(z - a) == len && !memcmp(a, line, len))
			return 1;
	return 0;
}

/* The meaningful lines of `after` that `before` lacks, first few, joined by " | ". */
static void added_lines(const char *before, const char *after, struct kp_buf *out)
{
	const char *p = after, *a, *z;
	int shown = 0;
	while (shown < MEM_ADDED_LINES && next_line(&p, &a, &z)) {
		if (z - a > 3 && !has_line(before ? before : "", a, (size_t)(z - a)) && strncmp(a, "//", 2)) {
			kp_buf_addf(out, "%s%.*s", shown ? " | " : "", (int)((z - a) > 100 ? 100 : (z - a)), a);
			shown++;
		}
	}
}

/* The first line of `source` that mentions `pat`, trimmed, at most 100 bytes. */
static void line_with(const char *source, const char *pat, char *out, size_t n)
{
	const char *hit = strstr(source, pat), *a, *z;
	out[0] = 0;
	if (!hit)
		return;
	a = hit;
	while (a > source && a[-1] != '\n')
		a--;
	z = strchrnul(hit, '\n');
	while (a < z && isspace((unsigned char)*a))
		a++;
	snprintf(out, n, "%.*s", (int)((z - a) > 100 ? 100 : (z - a)), a);
}

static int learn_compile_fix(const struct kp_memory *m, const struct kp_tree *t, int child, const char *child_source,
			     const char *parent_source, const char *parent_log, struct kp_error *err)
{
	const struct kp_tnode *c = &t->n[child], *par = &t->n[c->parent];
	char key[MEM_KEY_MAX + 1];
	struct kp_buf text = KP_BUF_INIT;
	struct kp_store_memory_row r = {0};
	int fixed = c->outcome != KP_OUTCOME_COMPILE_ERROR, rc;

	if (par->outcome != KP_OUTCOME_COMPILE_ERROR || !child_source)
		return 0;
	error_signature(parent_log, key, sizeof(key));
	if (!key[0])
		return 0;
	kp_buf_adds(&text, fixed ? "fixed by: " : "did not fix it: ");
	{
		size_t before = text.len;
		added_lines(parent_source, child_source, &text);
		if (text.len == before)
			kp_buf_adds(&text, "a change with no new line of its own");
	}
	r.kind = KP_MEM_COMPILE_FIX;
	r.outcome = fixed ? KP_MEMO_WORKED : KP_MEMO_FAILED;
	r.key = key;
	r.text = text.buf;
	r.gain = NAN;
	r.node = c->id;
	rc = add_row(m, &r, err);
	kp_buf_release(&text);
	return rc;
}

static int learn_apis(const struct kp_memory *m, const struct kp_tree *t, int child, const char *child_source,
		      const char *parent_source, struct kp_error *err)
{
	const struct kp_tnode *c = &t->n[child];
	char line[128], text[MEM_LINE_MAX];
	int rc = 0;

	if (c->outcome != KP_OUTCOME_CORRECT || !child_source)
		return 0;
	for (size_t i = 0; i < KP_ARRAY_SIZE(api_patterns) && !rc; i++) {
		struct kp_store_memory_row r = {0};
		if (!strstr(child_source, api_patterns[i]) || (parent_source && strstr(parent_source, api_patterns[i])))
			continue;
		line_with(child_source, api_patterns[i], line, sizeof(line));
		snprintf(text, sizeof(text), "compiled and correct (%.2fx): %s", c->speedup, line);
		r.kind = KP_MEM_API_USAGE;
		r.outcome = KP_MEMO_WORKED;
		r.key = api_patterns[i];
		r.text = text;
		r.gain = c->reward - t->n[c->parent].reward;
		r.node = c->id;
		rc = add_row(m, &r, err);
	}
	return rc;
}

/* Each of the parent's top findings was a recommendation offered; the child is what followed. */
static int learn_recommendations(const struct kp_memory *m, const struct kp_tree *t, const struct kp_search_params *p,
				 int child, const char *findings_json, struct kp_error *err)
{
	const struct kp_tnode *c = &t->n[child], *par = &t->n[c->parent];
	json_t *arr;
	int rc = 0;

	if (!findings_json || par->outcome != KP_OUTCOME_CORRECT)
		return 0;
	arr = json_loads(findings_json, 0, NULL);
	for (size_t i = 0; json_is_array(arr) && i < json_array_size(arr) && i < MEM_RECOMMENDATIONS && !rc; i++) {
		json_t *f = json_array_get(arr, i), *recs = json_object_get(f, "recommendations");
		const char *tool = kp_json_str(f, "tool", kp_json_str(f, "id", "tool"));
		const char *title = kp_json_str(f, "title", "");
		const char *rec = json_is_array(recs) && json_array_size(recs) ? json_string_value(json_array_get(recs, 0)) : NULL;
		char key[MEM_KEY_MAX + 1], text[MEM_LINE_MAX];
		struct kp_store_memory_row r = {0};
		int worked = c->outcome == KP_OUTCOME_CORRECT && c->reward > par->reward + p->noise_band;

		snprintf(key, sizeof(key), "%s: %s", tool, title);
		snprintf(text, sizeof(text), "%s", rec ? rec : title);
		r.kind = KP_MEM_RECOMMENDATION;
		r.outcome = worked ? KP_MEMO_WORKED : KP_MEMO_FAILED;
		r.key = key;
		r.text = text;
		r.gain = c->outcome == KP_OUTCOME_CORRECT ? c->reward - par->reward : NAN;
		r.node = c->id;
		rc = add_row(m, &r, err);
	}
	json_decref(arr);
	return rc;
}

/* The code-search snippets shown so far (CODE_PATH rows not yet judged), as kp_cs_ref lines. */
static int collect_shown(const struct kp_store_memory_row *r, void *ud)
{
	if (r->kind == KP_MEM_CODE_PATH && r->outcome == KP_MEMO_UNKNOWN && r->text)
		kp_strvec_push(ud, r->text);
	return 0;
}

/*
 * A correct child faster than its parent that uses a snippet code search showed (its name appears
 * in the child and not in the parent): that snippet helped. Recorded as a CODE_PATH row that worked.
 */
static int learn_snippets(const struct kp_memory *m, const struct kp_tree *t, const struct kp_search_params *p,
			  int child, const char *child_source, const char *parent_source, struct kp_error *err)
{
	const struct kp_tnode *c = &t->n[child], *par = &t->n[c->parent];
	struct kp_strvec shown = KP_STRVEC_INIT, done = KP_STRVEC_INIT;
	int rc;

	if (c->outcome != KP_OUTCOME_CORRECT || !child_source || c->reward <= par->reward + p->noise_band)
		return 0;
	rc = kp_store_memory_each(m->run, NULL, collect_shown, &shown, err);
	for (size_t i = 0; i < shown.n && !rc; i++) {
		struct kp_store_memory_row r = {0};
		char text[MEM_LINE_MAX];
		if (kp_strvec_find(&done, shown.v[i]) >= 0 || !kp_cs_ref_used(shown.v[i], child_source) ||
		    kp_cs_ref_used(shown.v[i], parent_source))
			continue;
		kp_strvec_push(&done, shown.v[i]);
		snprintf(text, sizeof(text), "used by #%ld, correct at %.2fx", c->id, c->speedup);
		r.kind = KP_MEM_CODE_PATH;
		r.outcome = KP_MEMO_WORKED;
		r.key = shown.v[i];
		r.text = text;
		r.gain = c->reward - par->reward;
		r.node = c->id;
		rc = add_row(m, &r, err);
	}
	kp_strvec_release(&shown);
	kp_strvec_release(&done);
	return rc;
}

int kp_memory_learn(const struct kp_memory *m, const struct kp_tree *t, const struct kp_search_params *p, int child,
		    const char *child_source, const char *parent_source, const char *parent_log,
		    const char *parent_findings_json, const char *child_summary, struct kp_error *err)
{
	int rc;
	if (t->n[child].parent < 0)
		return 0;
	rc = learn_compile_fix(m, t, child, child_source, parent_source, parent_log, err);
	if (!rc)
		rc = learn_apis(m, t, child, child_source, parent_source, err);
	if (!rc)
		rc = learn_recommendations(m, t, p, child, parent_findings_json, err);
	if (!rc)
		rc = learn_snippets(m, t, p, child, child_source, parent_source, err);
	return rc;
}

int kp_memory_dead_end(const struct kp_memory *m, const struct kp_tree *t, int idx, const char *summary,
		       const char *log, struct kp_error *err)
{
	const struct kp_tnode *n = &t->n[idx];
	char key[MEM_KEY_MAX + 1], text[MEM_LINE_MAX], sig[MEM_KEY_MAX + 1];
	struct kp_store_memory_row r = {0};

	if (summary && *summary)
		snprintf(key, sizeof(key), "%s", summary);
	else
		snprintf(key, sizeof(key), "version #%ld (%s)", n->id, kp_node_kind_name(n->kind));
	if (n->dead == KP_DEAD_REPAIRS_FAILED) {
		error_signature(log, sig, sizeof(sig));
		snprintf(text, sizeof(text), "%s after %d attempts in a row (%s): %s", kp_dead_reason_text(n->dead),
			 n->fail_depth, kp_outcome_name(n->outcome), sig[0] ? sig : "no log");
	} else if (n->outcome == KP_OUTCOME_CORRECT) {
		snprintf(text, sizeof(text), "%s: %d %s made from it (%.2fx), none faster", kp_dead_reason_text(n->dead),
			 n->expansions, kp_plural(n->expansions, "version", "versions"), n->speedup);
	} else {
		snprintf(text, sizeof(text), "%s", kp_dead_reason_text(n->dead));
	}
	r.kind = KP_MEM_DEAD_END;
	r.outcome = KP_MEMO_FAILED;
	r.key = key;
	r.text = text;
	r.gain = NAN;
	r.node = n->id;
	return add_row(m, &r, err);
}

int kp_memory_code_paths(const struct kp_memory *m, const struct kp_search_child *res, long node, struct kp_error *err)
{
	int rc = 0;
	for (size_t i = 0; i < res->nqueries && !rc; i++) {
		char text[MEM_LINE_MAX];
		struct kp_store_memory_row r = {0};
		if (!res->queries[i].query || !res->queries[i].result)
			continue;
		snprintf(text, sizeof(text), "%s", res->queries[i].result);
		r.kind = KP_MEM_CODE_PATH;
		r.outcome = KP_MEMO_UNKNOWN;
		r.key = res->queries[i].query;
		r.text = text;
		r.gain = NAN;
		r.node = node;
		rc = add_row(m, &r, err);
	}
	return rc;
}

/* ---- rendering ------------------------------------------------------------------------------------------ */

struct mem_entry {
	enum kp_store_memory_kind kind;
	enum kp_store_memory_outcome outcome;
	char *key, *text;
	double gain;
	int tries, wins;
	long order;   /* load order: deterministic ties */
	double score; /* relevance to this request */
};

struct mem_list {
	struct mem_entry *e;
	size_t n, alloc;
};

static int collect(const struct kp_store_memory_row *r, void *ud)
{
	struct mem_list *l = ud;
	for (size_t i = 0; i < l->n; i++) /* the same lesson from the run and the shared store: once */
		if (l->e[i].kind == r->kind && !strcmp(l->e[i].key, r->key) && !strcmp(l->e[i].text, r->text))
			return 0;
	KP_ALLOC_GROW(l->e, l->n + 1, l->alloc);
	l->e[l->n] = (struct mem_entry){r->kind, r->outcome, kp_xstrdup(r->key), kp_xstrdup(r->text), r->gain,
					r->tries, r->wins, (long)l->n, 0};
	l->n++;
	return 0;
}

/* Words two error signatures share, as a fraction of the first's words. */
static double overlap(const char *a, const char *b)
{
	int words = 0, shared = 0;
	for (const char *p = a; *p;) {
		while (*p && !isalnum((unsigned char)*p) && *p != '_')
			p++;
		const char *s = p;
		while (*p && (isalnum((unsigned char)*p) || *p == '_'))
			p++;
		if (p - s < 3)
			continue;
		words++;
		char w[64];
		snprintf(w, sizeof(w), "%.*s", (int)(p - s), s);
		if (strstr(b, w))
			shared++;
	}
	return words ? (double)shared / words : 0;
}

static int by_score(const void *x, const void *y)
{
	const struct mem_entry *a = x, *b = y;
	if (a->score != b->score)
		return a->score > b->score ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* Appends one line if it fits the bound; returns 0 when it did not. */
static int add_line(struct kp_buf *out, size_t max_bytes, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int add_line(struct kp_buf *out, size_t max_bytes, const char *fmt, ...)
{
	char line[MEM_LINE_MAX + 64];
	va_list ap;
	int n;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		return 0;
	if ((size_t)n >= sizeof(line))
		n = (int)sizeof(line) - 1;
	if (out->len + (size_t)n + 1 > max_bytes)
		return 0;
	kp_buf_add(out, line, (size_t)n);
	kp_buf_addch(out, '\n');
	return 1;
}

/* The versions leading to `parent`, each with what it changed and how it did. */
static void render_lineage(const struct kp_memory *m, const struct kp_tree *t, int parent, size_t max_bytes,
			   struct kp_buf *out)
{
	int path[64], n = 0;
	struct kp_error err = KP_ERROR_INIT;
	for (int i = parent; i > 0 && n < (int)KP_ARRAY_SIZE(path); i = t->n[i].parent)
		path[n++] = i;
	if (!n)
		return;
	if (!add_line(out, max_bytes, "This version's line (oldest first):"))
		return;
	for (int k = n - 1; k >= 0; k--) {
		const struct kp_tnode *v = &t->n[path[k]];
		struct kp_node_row row;
		char how[48];
		if (kp_store_node_get(m->run, v->id, &row, &err))
			row.summary[0] = 0;
		if (v->outcome == KP_OUTCOME_CORRECT)
			snprintf(how, sizeof(how), "%.2fx", v->speedup);
		else
			snprintf(how, sizeof(how), "%s", kp_outcome_name(v->outcome));
		if (!add_line(out, max_bytes, "- #%ld %s, %s: %s", v->id, kp_node_kind_name(v->kind), how,
			      row.summary[0] ? row.summary : "(no summary)"))
			return;
	}
}

/* An entry's relevance to a request of `mode` (sig: the parent's error signature): kind first (by mode),
 * then evidence. */
static double relevance(const struct mem_entry *e, enum kp_prog_mode mode, const char *sig)
{
	double kind_w;
	switch (e->kind) {
	case KP_MEM_COMPILE_FIX:
		kind_w = mode == KP_PROG_DEBUG ? 100 + 50 * overlap(sig, e->key) : 1;
		break;
	case KP_MEM_RECOMMENDATION:
		kind_w = mode == KP_PROG_DEBUG ? 5 : 60;
		break;
	case KP_MEM_DEAD_END:
		kind_w = mode == KP_PROG_DEBUG ? 10 : 50;
		break;
	case KP_MEM_API_USAGE:
		kind_w = 30;
		break;
	case KP_MEM_CODE_PATH:
		kind_w = e->outcome == KP_MEMO_WORKED && mode != KP_PROG_DEBUG ? 40 : 20;
		break;
	default:
		kind_w = 20;
	}
	return kind_w + (e->outcome == KP_MEMO_WORKED ? 2 : 0) + (e->tries > 9 ? 9 : e->tries) * 0.1;
}

int kp_memory_render(const struct kp_memory *m, const struct kp_tree *t, int parent, enum kp_prog_mode mode,
		     const char *parent_log, size_t max_bytes, struct kp_buf *out, struct kp_error *err)
{
	struct mem_list l = {0};
	char sig[MEM_KEY_MAX + 1];
	size_t start = out->len;
	int rc;
	max_bytes += out->len;

	rc = kp_store_memory_each(m->run, NULL, collect, &l, err);
	if (!rc && m->shared)
		rc = kp_store_memory_each(m->shared, m->family, collect, &l, err);
	if (rc)
		goto out;
	error_signature(parent_log, sig, sizeof(sig));
	for (size_t i = 0; i < l.n; i++)
		l.e[i].score = relevance(&l.e[i], mode, sig);
	if (l.n)
		qsort(l.e, l.n, sizeof(*l.e), by_score);
	render_lineage(m, t, parent, max_bytes, out);
	for (size_t i = 0; i < l.n; i++) {
		const struct mem_entry *e = &l.e[i];
		int ok;
		switch (e->kind) {
		case KP_MEM_COMPILE_FIX:
			if (mode != KP_PROG_DEBUG && e->outcome != KP_MEMO_WORKED)
				continue;
			ok = add_line(out, max_bytes, "- compile error \"%.100s\" %s", e->key, e->text);
			break;
		case KP_MEM_RECOMMENDATION:
			if (isfinite(e->gain))
				ok = add_line(out, max_bytes, "- tried \"%.90s\" (%s): helped %d of %d times, best %+.0f%%",
					      e->text, e->key, e->wins, e->tries, (exp(e->gain) - 1) * 100);
			else
				ok = add_line(out, max_bytes, "- tried \"%.90s\" (%s): helped %d of %d times, failed last time",
					      e->text, e->key, e->wins, e->tries);
			break;
		case KP_MEM_DEAD_END:
			ok = add_line(out, max_bytes, "- dead end: %.80s: %s", e->key, e->text);
			break;
		case KP_MEM_API_USAGE:
			ok = add_line(out, max_bytes, "- %s worked: %s", e->key, e->text);
			break;
		case KP_MEM_CODE_PATH:
			if (e->outcome == KP_MEMO_WORKED)
				ok = add_line(out, max_bytes, "- code-search snippet %.120s helped: %s", e->key, e->text);
			else
				ok = add_line(out, max_bytes, "- code search \"%.60s\" found: %s", e->key, e->text);
			break;
		default:
			continue;
		}
		if (!ok)
			break;
	}
	if (out->len > start && !strchr(out->buf + start, '-'))
		kp_buf_setlen(out, start); /* a header alone says nothing */
out:
	for (size_t i = 0; i < l.n; i++) {
		free(l.e[i].key);
		free(l.e[i].text);
	}
	free(l.e);
	return rc;
}
