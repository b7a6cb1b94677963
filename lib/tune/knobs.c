/* Reading a candidate's knobs: KP_TUNE/KP_UNROLL/KP_TUNE_CONSTRAINT markers in CUDA, the KP_TUNE dict
 * and KP_TUNE_CONSTRAINTS list in Python, then (derive.c) the knobs kernelpro finds by itself. */
#include "base/setup.h"

#include <ctype.h>

#include "kernelpro/hash.h"
#include "tune/lex.h"
#include "tune/tune_int.h"

#define MARKER_HINT "write KP_TUNE(NAME, default, other values...) with decimal integers"

int kp__tune_line_of(const char *src, size_t off)
{
	int line = 1;
	for (size_t i = 0; i < off; i++)
		line += src[i] == '\n';
	return line;
}

int kp__tune_find_knob(const struct tune_builder *b, const char *name)
{
	for (size_t k = 0; k < b->s->nknobs; k++)
		if (!strcmp(b->s->knobs[k].name, name))
			return (int)k;
	return -1;
}

int kp__tune_add_knob(struct tune_builder *b, const char *name, enum kp_tune_origin origin, size_t off,
                      long long init)
{
	struct kp_tune_space *s = b->s;
	struct kp_tune_knob *k;
	if (s->nknobs >= KP_TUNE_MAX_KNOBS)
		return -1;
	k = &s->knobs[s->nknobs];
	memset(k, 0, sizeof(*k));
	snprintf(k->name, sizeof(k->name), "%s", name);
	k->origin = origin;
	k->line = kp__tune_line_of(b->src, off);
	b->first_off[s->nknobs] = off;
	b->anchor[s->nknobs] = off;
	b->init[s->nknobs] = init;
	return (int)s->nknobs++;
}

int kp__tune_add_value(struct tune_builder *b, int k, long long v, struct kp_error *err)
{
	struct kp_tune_knob *kn = &b->s->knobs[k];
	size_t i = 0;
	while (i < kn->nvalues && kn->values[i] < v)
		i++;
	if (i < kn->nvalues && kn->values[i] == v)
		return 0;
	if (kn->nvalues >= KP_TUNE_MAX_VALUES)
		return kp_error_set(err, KP_ETOOBIG, "knob '%s': more than %d values", kn->name,
		                    KP_TUNE_MAX_VALUES);
	memmove(kn->values + i + 1, kn->values + i, (kn->nvalues - i) * sizeof(kn->values[0]));
	kn->values[i] = v;
	kn->nvalues++;
	return 0;
}

int kp__tune_site_taken(const struct tune_builder *b, size_t off, size_t len)
{
	const struct kp_tune_space *s = b->s;
	for (size_t i = 0; i < s->nsites; i++)
		if (off < s->sites[i].off + s->sites[i].len && s->sites[i].off < off + len)
			return 1;
	return 0;
}

int kp__tune_add_site(struct tune_builder *b, int k, size_t off, size_t len, enum tune_site_kind kind)
{
	struct kp_tune_space *s = b->s;
	size_t i = 0;
	if (len == 0 || kp__tune_site_taken(b, off, len))
		return 0;
	KP_ALLOC_GROW(s->sites, s->nsites + 1, s->sites_alloc);
	while (i < s->nsites && s->sites[i].off < off)
		i++;
	memmove(s->sites + i + 1, s->sites + i, (s->nsites - i) * sizeof(s->sites[0]));
	s->sites[i] = (struct tune_site){.off = off, .len = len, .knob = k, .kind = kind};
	s->nsites++;
	if (off < b->first_off[k])
		b->first_off[k] = off;
	return 1;
}

int kp__tune_add_constraint(struct tune_builder *b, const char *text, size_t n, int line,
                            struct kp_error *err)
{
	if (memchr(text, '\0', n))
		return kp_error_set(err, KP_EPARSE, "line %d: constraint with a NUL byte", line);
	for (size_t i = 0; i < b->ncons; i++)
		if (strlen(b->ctexts[i]) == n && !memcmp(b->ctexts[i], text, n))
			return 0;
	if (b->ncons >= KP_TUNE_MAX_CONSTRAINTS) {
		if (line == 0) {
			b->derived_full = 1;
			return 0;
		}
		return kp_error_set(err, KP_ETOOBIG, "line %d: more than %d constraints", line,
		                    KP_TUNE_MAX_CONSTRAINTS);
	}
	b->ctexts[b->ncons] = kp_xstrndup(text, n);
	b->cline[b->ncons] = line;
	b->ncons++;
	return 0;
}

/* Declared knob names: an uppercase letter, then letters, digits and '_' (derived ones start lowercase). */
static int valid_name(const char *s, size_t n)
{
	if (n == 0 || n >= KP_TUNE_NAME_MAX || !isupper((unsigned char)s[0]))
		return 0;
	for (size_t i = 1; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return 0;
	return 1;
}

/*
 * A declared knob's written values (one marker or list): the first use creates the knob, later
 * ones must repeat the same list. `site` spans the values; `where` names the marker in messages.
 */
static int declare(struct tune_builder *b, const char *name, const struct tune_written *w, size_t site_off,
                   size_t site_len, int line, const char *where, struct kp_error *err)
{
	int k = kp__tune_find_knob(b, name), rc;
	if (k >= 0) {
		const struct tune_written *old = &b->s->written[k];
		if (old->n != w->n || memcmp(old->v, w->v, w->n * sizeof(w->v[0])))
			return kp_error_set(
			    err, KP_EPARSE,
			    "line %d: %s(%s, ...) lists other values than on line %d; write the same list "
			    "at every use, or declare it once (constexpr int kName = KP_TUNE(%s, ...);)",
			    line, where, name, b->s->knobs[k].line, name);
	} else {
		k = kp__tune_add_knob(b, name, KP_TUNE_DECLARED, site_off, w->v[0]);
		if (k < 0)
			return kp_error_set(err, KP_ETOOBIG, "line %d: more than %d knobs", line,
			                    KP_TUNE_MAX_KNOBS);
		b->s->written[k] = *w;
		for (size_t i = 0; i < w->n; i++)
			if ((rc = kp__tune_add_value(b, k, w->v[i], err)))
				return rc;
	}
	kp__tune_add_site(b, k, site_off, site_len, SITE_LIST);
	return 0;
}

static int add_written(struct tune_written *w, long long v, const char *name, int line, struct kp_error *err)
{
	for (size_t i = 0; i < w->n; i++)
		if (w->v[i] == v)
			return 0; /* a repeated value adds nothing */
	if (w->n >= KP_TUNE_MAX_VALUES)
		return kp_error_set(err, KP_ETOOBIG, "line %d: knob '%s' has more than %d values", line, name,
		                    KP_TUNE_MAX_VALUES);
	w->v[w->n++] = v;
	return 0;
}

/* Index of the ')' closing the '(' at t[open], or 0 when there is none. */
static size_t close_paren(const char *src, const struct tok_list *l, size_t open)
{
	int depth = 0;
	for (size_t i = open; i < l->n; i++) {
		if (kp__tune_tok_is(src, &l->t[i], "("))
			depth++;
		else if (kp__tune_tok_is(src, &l->t[i], ")") && --depth == 0)
			return i;
	}
	return 0;
}

/* KP_TUNE(NAME, v1, v2, ...) or KP_UNROLL(...): tokens (open, close) exclusive. */
static int read_marker(struct tune_builder *b, const struct tok_list *l, size_t open, size_t close,
                       const char *where, struct kp_error *err)
{
	const char *src = b->src;
	const struct tok *t = l->t;
	struct tune_written w = {0};
	char name[KP_TUNE_NAME_MAX];
	int line = t[open].line, rc;
	size_t i = open + 1, first = 0, last = 0;

	if (i >= close || t[i].kind != TK_IDENT || !valid_name(src + t[i].off, t[i].len))
		return kp_error_set(
		    err, KP_EPARSE,
		    "line %d: %s(...): the first argument must be the knob's name, an uppercase letter "
		    "then letters, digits or '_' (%s)",
		    line, where, MARKER_HINT);
	snprintf(name, sizeof(name), "%.*s", (int)t[i].len, src + t[i].off);
	i++;
	while (i < close) {
		int neg = 0;
		if (!kp__tune_tok_is(src, &t[i], ","))
			return kp_error_set(
			    err, KP_EPARSE, "line %d: %s(%s, ...): expected ',' before '%.*s' (%s)", line,
			    where, name, (int)(t[i].len > 32 ? 32 : t[i].len), src + t[i].off, MARKER_HINT);
		i++;
		if (i < close && kp__tune_tok_is(src, &t[i], "-")) {
			neg = 1;
			i++;
		}
		if (i >= close || !t[i].is_int || t[i].ndigits != t[i].len)
			return kp_error_set(
			    err, KP_EPARSE,
			    "line %d: %s(%s, ...): value '%.*s' is not a decimal integer (%s)", line, where,
			    name, i < close ? (int)(t[i].len > 32 ? 32 : t[i].len) : 0,
			    i < close ? src + t[i].off : "", MARKER_HINT);
		if (!first)
			first = neg ? i - 1 : i;
		last = i;
		if ((rc = add_written(&w, neg ? -t[i].value : t[i].value, name, line, err)))
			return rc;
		i++;
	}
	if (w.n == 0)
		return kp_error_set(err, KP_EPARSE, "line %d: %s(%s) has no values (%s)", line, where, name,
		                    MARKER_HINT);
	return declare(b, name, &w, t[first].off, t[last].off + t[last].len - t[first].off, line, where, err);
}

int kp__tune_declared_cuda(struct tune_builder *b, struct kp_error *err)
{
	struct tok_list l = {0};
	const char *src = b->src;
	int rc;

	if ((rc = kp__tune_lex_cuda(src, 0, b->len, 1, &l, err)))
		goto out;
	for (size_t i = 0; i + 1 < l.n; i++) {
		static const char *const markers[] = {"KP_TUNE", "KP_UNROLL", "KP_TUNE_CONSTRAINT"};
		const struct tok *t = &l.t[i];
		const char *where = NULL;
		size_t close;
		for (size_t m = 0; m < KP_ARRAY_SIZE(markers) && !where; m++)
			if (kp__tune_tok_ident(src, t, markers[m]))
				where = markers[m];
		if (!where || !kp__tune_tok_is(src, &l.t[i + 1], "("))
			continue;
		/* The macro's own definition (a pasted copy of kp_tune.h) is not a use. */
		if (i >= 2 && t->pp && l.t[i - 1].pp == t->pp &&
		    kp__tune_tok_ident(src, &l.t[i - 1], "define"))
			continue;
		if (!(close = close_paren(src, &l, i + 1))) {
			rc = kp_error_set(err, KP_EPARSE, "line %d: %s( without its closing ')'", t->line,
			                  where);
			goto out;
		}
		if (!strcmp(where, "KP_TUNE_CONSTRAINT")) {
			size_t a = l.t[i + 1].off + 1, e = l.t[close].off;
			if ((rc = kp__tune_add_constraint(b, src + a, e - a, t->line, err)))
				goto out;
		} else if ((rc = read_marker(b, &l, i + 1, close, where, err))) {
			goto out;
		}
		i = close;
	}
out:
	kp__tune_toks_release(&l);
	return rc;
}

/* ---- Python ---------------------------------------------------------------------------------------- */

static int py_fail(const struct tok *t, const char *what, struct kp_error *err)
{
	return kp_error_set(
	    err, KP_EPARSE,
	    "line %d: %s (write KP_TUNE = {\"NAME\": [default, other values...]} at module level)",
	    t ? t->line : 0, what);
}

/* A name from a string key: the text between the quotes, no escapes. */
static int py_key(const char *src, const struct tok *t, char *name, struct kp_error *err)
{
	if (t->kind != TK_STRING || t->triple || t->inner != t->off + 1 ||
	    !valid_name(src + t->inner, t->ninner))
		return py_fail(t,
		               "each key must be a knob name in quotes: an uppercase letter, then letters, "
		               "digits or '_'",
		               err);
	snprintf(name, KP_TUNE_NAME_MAX, "%.*s", (int)t->ninner, src + t->inner);
	return 0;
}

/* KP_TUNE = { "NAME": [ints], ... }: i is at '{'. */
static int py_dict(struct tune_builder *b, const struct tok_list *l, size_t i, struct kp_error *err)
{
	const char *src = b->src;
	const struct tok *t = l->t;
	int rc;

	if (i >= l->n || !kp__tune_tok_is(src, &t[i], "{"))
		return py_fail(i < l->n ? &t[i] : &t[i - 1], "KP_TUNE must be a dict literal", err);
	i++;
	while (i < l->n && !kp__tune_tok_is(src, &t[i], "}")) {
		struct tune_written w = {0};
		char name[KP_TUNE_NAME_MAX], close;
		size_t first, last = 0;
		if ((rc = py_key(src, &t[i], name, err)))
			return rc;
		if (kp__tune_find_knob(b, name) >= 0)
			return py_fail(&t[i], "a knob is named twice", err);
		if (++i >= l->n || !kp__tune_tok_is(src, &t[i], ":"))
			return py_fail(&t[i - 1], "expected ':' after the knob's name", err);
		if (++i >= l->n || !(kp__tune_tok_is(src, &t[i], "[") || kp__tune_tok_is(src, &t[i], "(")))
			return py_fail(&t[i - 1], "each knob's values must be a list of integers", err);
		close = src[t[i].off] == '[' ? ']' : ')';
		first = ++i;
		while (i < l->n && !(t[i].len == 1 && src[t[i].off] == close)) {
			int neg = kp__tune_tok_is(src, &t[i], "-");
			size_t v = i + (size_t)neg;
			if (v >= l->n || !t[v].is_int || t[v].ndigits != t[v].len)
				return py_fail(&t[v < l->n ? v : i], "values must be decimal integers", err);
			if ((rc = add_written(&w, neg ? -t[v].value : t[v].value, name, t[v].line, err)))
				return rc;
			last = v;
			i = v + 1;
			if (i < l->n && kp__tune_tok_is(src, &t[i], ","))
				i++;
			else if (i < l->n && !(t[i].len == 1 && src[t[i].off] == close))
				return py_fail(&t[i], "expected ',' between values", err);
		}
		if (i >= l->n)
			return py_fail(&t[l->n - 1], "unterminated list", err);
		if (w.n == 0)
			return py_fail(&t[i], "a knob without values", err);
		if ((rc = declare(b, name, &w, t[first].off, t[last].off + t[last].len - t[first].off,
		                  t[first].line, "KP_TUNE", err)))
			return rc;
		i++;
		if (i < l->n && kp__tune_tok_is(src, &t[i], ","))
			i++;
		else if (i < l->n && !kp__tune_tok_is(src, &t[i], "}"))
			return py_fail(&t[i], "expected ',' between knobs", err);
	}
	if (i >= l->n)
		return py_fail(&t[l->n - 1], "unterminated dict", err);
	return 0;
}

/* KP_TUNE_CONSTRAINTS = ["expr", ...]: i is at '['. */
static int py_constraints(struct tune_builder *b, const struct tok_list *l, size_t i, struct kp_error *err)
{
	const char *src = b->src;
	const struct tok *t = l->t;
	char close;
	int rc;

	if (i >= l->n || !(kp__tune_tok_is(src, &t[i], "[") || kp__tune_tok_is(src, &t[i], "(")))
		return py_fail(&t[i < l->n ? i : i - 1], "KP_TUNE_CONSTRAINTS must be a list of strings",
		               err);
	close = src[t[i].off] == '[' ? ']' : ')';
	i++;
	while (i < l->n && !(t[i].len == 1 && src[t[i].off] == close)) {
		if (t[i].kind != TK_STRING)
			return py_fail(&t[i], "KP_TUNE_CONSTRAINTS must be a list of strings", err);
		if ((rc = kp__tune_add_constraint(b, src + t[i].inner, t[i].ninner, t[i].line, err)))
			return rc;
		i++;
		if (i < l->n && kp__tune_tok_is(src, &t[i], ","))
			i++;
	}
	if (i >= l->n)
		return py_fail(&t[l->n - 1], "unterminated KP_TUNE_CONSTRAINTS", err);
	return 0;
}

int kp__tune_declared_python(struct tune_builder *b, int derive, struct kp_error *err)
{
	struct tok_list l = {0};
	const char *src = b->src;
	int rc, seen_dict = 0, seen_cons = 0;

	if ((rc = kp__tune_lex_python(src, b->len, &l, err)))
		goto out;
	for (size_t i = 0; i + 1 < l.n; i++) {
		const struct tok *t = &l.t[i];
		int dict;
		if (t->depth || t->col || t->kind != TK_IDENT || !kp__tune_tok_is(src, &l.t[i + 1], "="))
			continue;
		if (kp__tune_tok_ident(src, t, "KP_TUNE"))
			dict = 1;
		else if (kp__tune_tok_ident(src, t, "KP_TUNE_CONSTRAINTS"))
			dict = 0;
		else
			continue;
		if (dict ? seen_dict++ : seen_cons++) {
			rc = py_fail(
			    t, dict ? "KP_TUNE is assigned twice" : "KP_TUNE_CONSTRAINTS is assigned twice",
			    err);
			goto out;
		}
		if ((rc = dict ? py_dict(b, &l, i + 2, err) : py_constraints(b, &l, i + 2, err)))
			goto out;
	}
	/* The CUDA inside string literals: derived knobs, when asked for. */
	if (derive == KP_TUNE_DERIVE_ALWAYS || (derive == KP_TUNE_DERIVE_AUTO && b->s->nknobs == 0))
		for (size_t i = 0; i < l.n; i++)
			if (l.t[i].kind == TK_STRING && l.t[i].ninner > 0 &&
			    (rc = kp__tune_derive_cuda(b, l.t[i].inner, l.t[i].inner + l.t[i].ninner, err)))
				goto out;
out:
	kp__tune_toks_release(&l);
	return rc;
}

/* The template: the source with each site blanked, then the knobs and their values. */
void kp__tune_space_rehash(struct kp_tune_space *s)
{
	struct kp_sha256 h;

	kp_sha256_init(&h);
	kp_sha256_update_str(&h, "kernelpro-tune-v1");
	kp_sha256_update_str(&h, s->lang == KP_TUNE_PYTHON ? "python" : "cuda");
	{
		size_t pos = 0;
		for (size_t i = 0; i < s->nsites; i++) {
			char mark[32];
			int n = snprintf(mark, sizeof(mark), "\x01%d\x02", s->sites[i].knob);
			kp_sha256_update(&h, s->src + pos, s->sites[i].off - pos);
			kp_sha256_update(&h, mark, (size_t)n);
			pos = s->sites[i].off + s->sites[i].len;
		}
		kp_sha256_update(&h, s->src + pos, s->len - pos);
	}
	for (size_t k = 0; k < s->nknobs; k++) {
		char v[32];
		kp_sha256_update_str(&h, s->knobs[k].name);
		for (size_t i = 0; i < s->knobs[k].nvalues; i++) {
			snprintf(v, sizeof(v), "%lld", s->knobs[k].values[i]);
			kp_sha256_update_str(&h, v);
		}
	}
	for (size_t i = 0; i < s->ncons; i++)
		kp_sha256_update_str(&h, s->cons[i].text);
	kp_sha256_final(&h, s->hash);
}

/* ---- Finishing the space ------------------------------------------------------------------------- */

/* Knobs in source order, each's default index, constraints parsed, the template hash. */
static int finish(struct tune_builder *b, struct kp_error *err)
{
	struct kp_tune_space *s = b->s;
	int order[KP_TUNE_MAX_KNOBS], where[KP_TUNE_MAX_KNOBS];
	struct kp_tune_knob knobs[KP_TUNE_MAX_KNOBS];
	struct tune_written written[KP_TUNE_MAX_KNOBS];
	long long init[KP_TUNE_MAX_KNOBS];
	int rc;

	for (size_t i = 0; i < s->nknobs; i++)
		order[i] = (int)i;
	for (size_t i = 1; i < s->nknobs; i++) /* insertion sort: stable, at most 24 */
		for (size_t j = i; j > 0 && b->first_off[order[j - 1]] > b->first_off[order[j]]; j--) {
			int x = order[j];
			order[j] = order[j - 1];
			order[j - 1] = x;
		}
	for (size_t i = 0; i < s->nknobs; i++) {
		knobs[i] = s->knobs[order[i]];
		written[i] = s->written[order[i]];
		init[i] = b->init[order[i]];
		where[order[i]] = (int)i;
	}
	memcpy(s->knobs, knobs, sizeof(knobs[0]) * s->nknobs);
	memcpy(s->written, written, sizeof(written[0]) * s->nknobs);
	for (size_t i = 0; i < s->nsites; i++) {
		s->sites[i].knob = where[s->sites[i].knob];
		s->knobs[s->sites[i].knob].nsites++;
	}
	for (size_t k = 0; k < s->nknobs; k++) {
		struct kp_tune_knob *kn = &s->knobs[k];
		for (size_t i = 0; i < s->nsites; i++)
			if (s->sites[i].knob == (int)k) {
				kn->line = kp__tune_line_of(s->src, s->sites[i].off);
				break;
			}
		for (size_t i = 0; i < kn->nvalues; i++)
			if (kn->values[i] == init[k])
				kn->def = (uint16_t)i;
	}
	for (size_t i = 0; i < b->ncons; i++) {
		struct tune_expr *e = &s->cons[s->ncons];
		if ((rc = kp__tune_expr_parse(e, b->ctexts[i], strlen(b->ctexts[i]), err))) {
			if (b->cline[i])
				kp_error_prefix(err, "line %d", b->cline[i]);
			return rc;
		}
		e->line = b->cline[i];
		s->ncons++;
	}

	kp__tune_space_rehash(s);
	return 0;
}

int kp_tune_parse(struct kp_tune_space **out, const char *what, const char *src, size_t len,
                  enum kp_tune_lang lang, enum kp_tune_derive derive, struct kp_error *err)
{
	struct kp_tune_space *s;
	struct tune_builder b = {0};
	int rc;

	*out = NULL;
	if (len > KP_TUNE_MAX_SOURCE)
		return kp_error_set(err, KP_ETOOBIG,
		                    "%s: %zu bytes; kernelpro tunes sources of at most %u bytes", what, len,
		                    KP_TUNE_MAX_SOURCE);
	if (lang != KP_TUNE_CUDA && lang != KP_TUNE_PYTHON)
		return kp_error_set(err, KP_EINVAL, "%s: unknown source language %d", what, (int)lang);
	s = kp_xcalloc(1, sizeof(*s));
	s->what = kp_xstrdup(what ? what : "source");
	s->src = kp_xmalloc(len + 1); /* not strndup: the text may hold NUL bytes */
	memcpy(s->src, src, len);
	s->src[len] = '\0';
	s->len = len;
	s->lang = lang;
	b.s = s;
	b.src = s->src;
	b.len = len;
	if (lang == KP_TUNE_PYTHON) {
		rc = kp__tune_declared_python(&b, (int)derive, err);
	} else {
		rc = kp__tune_declared_cuda(&b, err);
		if (!rc &&
		    (derive == KP_TUNE_DERIVE_ALWAYS || (derive == KP_TUNE_DERIVE_AUTO && s->nknobs == 0)))
			rc = kp__tune_derive_cuda(&b, 0, len, err);
	}
	if (!rc)
		rc = finish(&b, err);
	for (size_t i = 0; i < b.ncons; i++)
		free(b.ctexts[i]);
	if (rc) {
		kp_error_prefix(err, "%s", s->what);
		kp_tune_space_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

void kp_tune_space_free(struct kp_tune_space *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->ncons; i++)
		kp__tune_expr_release(&s->cons[i]);
	free(s->sites);
	free(s->src);
	free(s->what);
	free(s);
}
