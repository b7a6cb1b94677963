/*
 * Knobs kernelpro finds by itself in CUDA text: launch block sizes (literals, named constants, dim3),
 * the literals of a ceil-division grid tied to them, the factor of an `A * K` grid, __launch_bounds__
 * and #pragma unroll counts. Heuristic on purpose: a wrong guess gives a variant that fails its
 * correctness check, which the strategies treat as a point to avoid. docs/tune.md lists the patterns.
 */
#include "base/setup.h"

#include <ctype.h>

#include "tune/lex.h"
#include "tune/tune_int.h"

#define SCAN_LIMIT 512 /* tokens one launch configuration or declaration may span */

static const long long block_vals[] = {32, 64, 128, 256, 512, 1024};
static const long long dim_vals[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
static const long long grid_vals[] = {1, 2, 4, 8, 16, 32};
static const long long minblocks_vals[] = {1, 2, 3, 4, 6, 8};
static const long long unroll_vals[] = {1, 2, 4, 8, 16};

struct range {
	size_t a, b; /* token indices, [a, b) */
};

/* A name given a value: `#define N 256`, `const int n = 256;`, `dim3 block(16, 16)`. */
struct def {
	size_t name_off, name_len;
	size_t tok; /* where it is: only uses after it resolve to it */
	int dim3, ncomp;
	struct range comp[3];
};

/* A launch's block, component by component: a knob, a fixed literal, or unknown. */
struct launch {
	char kernel[48];
	int dim3, ncomp;
	int knob[3];
	long long val[3];
	int known[3];
};

struct dctx {
	struct tune_builder *b;
	const char *s;
	const struct tok *t;
	size_t n;
	uint8_t *in_marker;
	struct def *defs;
	size_t ndefs, adefs;
	struct launch *ls;
	size_t nls, als;
};

static int is(const struct dctx *d, size_t i, const char *p)
{
	return i < d->n && kp__tune_tok_is(d->s, &d->t[i], p);
}

static int ident(const struct dctx *d, size_t i, const char *w)
{
	return i < d->n && kp__tune_tok_ident(d->s, &d->t[i], w);
}

static int is_int(const struct dctx *d, size_t i)
{
	return i < d->n && d->t[i].is_int && !d->in_marker[i];
}

/* The token closing the bracket at `open` ((, [ or {), searching at most SCAN_LIMIT tokens; 0: none. */
static size_t match(const struct dctx *d, size_t open)
{
	int depth = 0;
	for (size_t i = open; i < d->n && i < open + SCAN_LIMIT; i++) {
		if (is(d, i, "(") || is(d, i, "[") || is(d, i, "{"))
			depth++;
		else if ((is(d, i, ")") || is(d, i, "]") || is(d, i, "}")) && --depth == 0)
			return i;
	}
	return 0;
}

/* Splits [a, b) at top-level commas; returns the number of pieces (max+1 when there are more). */
static int split(const struct dctx *d, size_t a, size_t b, struct range *out, int max)
{
	int n = 0, depth = 0;
	size_t start = a;
	if (a >= b)
		return 0;
	for (size_t i = a; i <= b; i++) {
		if (i == b || (depth == 0 && is(d, i, ","))) {
			if (n == max)
				return max + 1;
			out[n++] = (struct range){start, i};
			start = i + 1;
			continue;
		}
		if (is(d, i, "(") || is(d, i, "[") || is(d, i, "{"))
			depth++;
		else if ((is(d, i, ")") || is(d, i, "]") || is(d, i, "}")) && depth > 0)
			depth--;
	}
	return n;
}

/* The literal a range is: `256` or `(256)`; its token index, or 0 with *ok = 0. */
static int single_int(const struct dctx *d, struct range r, size_t *tok)
{
	if (r.b == r.a + 1 && is_int(d, r.a)) {
		*tok = r.a;
		return 1;
	}
	if (r.b == r.a + 3 && is(d, r.a, "(") && is_int(d, r.a + 1) && is(d, r.a + 2, ")")) {
		*tok = r.a + 1;
		return 1;
	}
	return 0;
}

static int single_ident(const struct dctx *d, struct range r)
{
	return r.b == r.a + 1 && d->t[r.a].kind == TK_IDENT;
}

/* The nearest definition of the identifier at token i made before token `before`; -1: none. */
static int resolve(const struct dctx *d, size_t i, size_t before)
{
	const struct tok *t = &d->t[i];
	int best = -1;
	for (size_t k = 0; k < d->ndefs; k++) {
		const struct def *f = &d->defs[k];
		if (f->tok < before && f->name_len == t->len &&
		    !memcmp(d->s + f->name_off, d->s + t->off, t->len) &&
		    (best < 0 || f->tok > d->defs[best].tok))
			best = (int)k;
	}
	return best;
}

/* Follows a range to the integer literal it stands for (through up to 4 scalar definitions). On success
 * *tok is the literal and *via the first definition used (-1: the literal was in the range itself). */
static int resolve_int(const struct dctx *d, struct range r, size_t before, size_t *tok, int *via)
{
	*via = -1;
	for (int depth = 0; depth < 5; depth++) {
		int k;
		if (single_int(d, r, tok))
			return 1;
		if (!single_ident(d, r) || (k = resolve(d, r.a, before)) < 0 || d->defs[k].dim3)
			return 0;
		if (*via < 0)
			*via = k;
		before = d->defs[k].tok;
		r = d->defs[k].comp[0];
	}
	return 0;
}

static void def_name(const struct dctx *d, int k, char *out, size_t n)
{
	snprintf(out, n, "%.*s", (int)(d->defs[k].name_len > 40 ? 40 : d->defs[k].name_len),
	         d->s + d->defs[k].name_off);
}

static int find_anchor(const struct dctx *d, size_t off)
{
	for (size_t k = 0; k < d->b->s->nknobs; k++)
		if (d->b->anchor[k] == off)
			return (int)k;
	return -1;
}

/*
 * The knob whose value is written at literal token `tok` (made on first use, with the role's values
 * and the literal's own). -1 when the literal belongs to something else or the space is full.
 */
static int knob_at(struct dctx *d, size_t tok, const char *base, enum kp_tune_origin origin,
                   const long long *vals, size_t nvals)
{
	struct tune_builder *b = d->b;
	const struct tok *t = &d->t[tok];
	char name[KP_TUNE_NAME_MAX];
	int k = find_anchor(d, t->off);

	if (k < 0) {
		if (kp__tune_site_taken(b, t->off, t->ndigits))
			return -1;
		snprintf(name, sizeof(name), "%s", base);
		for (int i = 2; i < 100 && kp__tune_find_knob(b, name) >= 0; i++)
			snprintf(name, sizeof(name), "%.56s_%u", base, (unsigned)i % 100u);
		if (kp__tune_find_knob(b, name) >= 0)
			return -1;
		if ((k = kp__tune_add_knob(b, name, origin, t->off, t->value)) < 0) {
			b->derived_full = 1;
			return -1;
		}
		kp__tune_add_site(b, k, t->off, t->ndigits, SITE_LITERAL);
		kp__tune_add_value(b, k, t->value, NULL);
	}
	/* At most 11 + 6 + 6 + 6 + 5 + 11 role values and one literal: never past the cap. */
	for (size_t i = 0; i < nvals; i++)
		kp__tune_add_value(b, k, vals[i], NULL);
	return k;
}

static void constraint(struct dctx *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void constraint(struct dctx *d, const char *fmt, ...)
{
	char text[TUNE_EXPR_MAX_TEXT];
	va_list ap;
	int n;
	va_start(ap, fmt);
	n = vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (n > 0 && (size_t)n < sizeof(text))
		kp__tune_add_constraint(d->b, text, (size_t)n, 0, NULL);
}

/* ---- definitions ---------------------------------------------------------------------------------- */

static void add_def(struct dctx *d, size_t name_tok, int dim3, const struct range *comp, int ncomp)
{
	struct def *f;
	if (ncomp < 1 || ncomp > 3)
		return;
	KP_ALLOC_GROW(d->defs, d->ndefs + 1, d->adefs);
	f = &d->defs[d->ndefs++];
	f->name_off = d->t[name_tok].off;
	f->name_len = d->t[name_tok].len;
	f->tok = name_tok;
	f->dim3 = dim3;
	f->ncomp = ncomp;
	for (int i = 0; i < ncomp; i++)
		f->comp[i] = comp[i];
}

/* The end of an initializer starting at i: the first top-level ',' ';' or closing bracket. */
static size_t init_end(const struct dctx *d, size_t i)
{
	int depth = 0;
	for (size_t k = i; k < d->n && k < i + SCAN_LIMIT; k++) {
		if (is(d, k, "(") || is(d, k, "[") || is(d, k, "{"))
			depth++;
		else if (is(d, k, ")") || is(d, k, "]") || is(d, k, "}")) {
			if (depth-- == 0)
				return k;
		} else if (depth == 0 && (is(d, k, ",") || is(d, k, ";")))
			return k;
	}
	return i;
}

static int int_type(const struct dctx *d, size_t i)
{
	static const char *const types[] = {"int",     "unsigned", "signed",  "long",     "short", "size_t",
	                                    "int32_t", "uint32_t", "int64_t", "uint64_t", "auto"};
	for (size_t k = 0; k < KP_ARRAY_SIZE(types); k++)
		if (ident(d, i, types[k]))
			return 1;
	return 0;
}

/* dim3 a(x, y), b{x}, c = dim3(x, y), e = {x, y}, f = n;  starting at the first declarator. */
static void dim3_declarators(struct dctx *d, size_t i)
{
	for (int guard = 0; guard < 8 && i + 1 < d->n && d->t[i].kind == TK_IDENT; guard++) {
		size_t name = i, open = 0, end;
		struct range comp[4];
		int n;
		if (is(d, i + 1, "(") || is(d, i + 1, "{"))
			open = i + 1;
		else if (is(d, i + 1, "=") && ident(d, i + 2, "dim3") &&
		         (is(d, i + 3, "(") || is(d, i + 3, "{")))
			open = i + 3;
		else if (is(d, i + 1, "=") && is(d, i + 2, "{"))
			open = i + 2;
		if (open) {
			if (!(end = match(d, open)))
				return;
			n = split(d, open + 1, end, comp, 3);
			add_def(d, name, 1, comp, n);
			i = end + 1;
		} else if (is(d, i + 1, "=")) {
			comp[0] = (struct range){i + 2, init_end(d, i + 2)};
			add_def(d, name, 1, comp, 1);
			i = comp[0].b;
		} else {
			return;
		}
		if (!is(d, i, ","))
			return;
		i++;
	}
}

/* int a = x, b = y;  starting at the first declarator. */
static void int_declarators(struct dctx *d, size_t i)
{
	for (int guard = 0; guard < 8 && d->t[i].kind == TK_IDENT && is(d, i + 1, "="); guard++) {
		struct range r = {i + 2, init_end(d, i + 2)};
		if (r.b <= r.a)
			return;
		add_def(d, i, 0, &r, 1);
		i = r.b;
		if (!is(d, i, ","))
			return;
		i++;
	}
}

static void collect_defs(struct dctx *d)
{
	for (size_t i = 0; i < d->n; i++) {
		const struct tok *t = &d->t[i];
		if (t->pp && is(d, i, "#") && ident(d, i + 1, "define") && i + 2 < d->n &&
		    d->t[i + 2].kind == TK_IDENT && d->t[i + 1].pp == t->pp && d->t[i + 2].pp == t->pp) {
			size_t name = i + 2, e = name + 1;
			/* NAME( right after the name is a function-like macro: not a constant */
			if (is(d, e, "(") && d->t[e].pp == t->pp &&
			    d->t[e].off == d->t[name].off + d->t[name].len)
				continue;
			while (e < d->n && d->t[e].pp == t->pp)
				e++;
			if (e > name + 1) {
				struct range r = {name + 1, e};
				add_def(d, name, 0, &r, 1);
			}
			i = e - 1;
		} else if (ident(d, i, "dim3") && i + 1 < d->n && d->t[i + 1].kind == TK_IDENT) {
			dim3_declarators(d, i + 1);
		} else if (int_type(d, i) && i + 2 < d->n && d->t[i + 1].kind == TK_IDENT &&
		           !int_type(d, i + 1) && is(d, i + 2, "=")) {
			int_declarators(d, i + 1);
		}
	}
}

/* ---- launches ------------------------------------------------------------------------------------- */

/* A ceil-division of the grid by block size v (`(n + 255) / 256`, `div_up(n, 256)`): ties every
 * literal v (and v - 1) in the range to knob k. Returns 1 when it was one. */
static int tie_range(struct dctx *d, struct range r, int k, long long v)
{
	int found = 0;
	for (size_t i = r.a; i < r.b && !found; i++) {
		if (is_int(d, i) && d->t[i].value == v && i > r.a && is(d, i - 1, "/"))
			found = 1;
		if (d->t[i].kind == TK_IDENT && is(d, i + 1, "(")) {
			char w[64];
			size_t end = match(d, i + 1), tok;
			struct range args[8];
			int n;
			snprintf(w, sizeof(w), "%.*s", (int)(d->t[i].len > 63 ? 63 : d->t[i].len),
			         d->s + d->t[i].off);
			for (char *c = w; *c; c++)
				*c = (char)tolower((unsigned char)*c);
			if (!strstr(w, "div") || !end || end > r.b)
				continue;
			n = split(d, i + 2, end, args, 7);
			if (n >= 2 && n <= 7 && single_int(d, args[n - 1], &tok) && d->t[tok].value == v)
				found = 1;
		}
	}
	if (!found)
		return 0;
	for (size_t i = r.a; i < r.b; i++) {
		if (!is_int(d, i))
			continue;
		if (d->t[i].value == v)
			kp__tune_add_site(d->b, k, d->t[i].off, d->t[i].ndigits, SITE_LITERAL);
		else if (d->t[i].value == v - 1 && v > 1)
			kp__tune_add_site(d->b, k, d->t[i].off, d->t[i].ndigits, SITE_LITERAL_M1);
	}
	return 1;
}

/* One component of a dim3 block (or a 1-D block when role is KP_TUNE_BLOCK). */
static void block_comp(struct dctx *d, struct launch *L, int c, struct range r, size_t before,
                       const char *base, enum kp_tune_origin role)
{
	size_t tok;
	int via;
	char name[KP_TUNE_NAME_MAX], dn[48];
	L->known[c] = 0;
	L->knob[c] = -1;
	if (!resolve_int(d, r, before, &tok, &via))
		return;
	L->known[c] = 1;
	L->val[c] = d->t[tok].value;
	if (L->val[c] < 2)
		return; /* a block dimension of 1 is the kernel's structure, not a tuning choice */
	if (via >= 0) {
		def_name(d, via, dn, sizeof(dn));
		snprintf(name, sizeof(name), "block_%s", dn);
	} else {
		snprintf(name, sizeof(name), "%s", base);
	}
	if (role == KP_TUNE_BLOCK)
		L->knob[c] = knob_at(d, tok, name, role, block_vals, KP_ARRAY_SIZE(block_vals));
	else
		L->knob[c] = knob_at(d, tok, name, role, dim_vals, KP_ARRAY_SIZE(dim_vals));
}

/* "block_k_x * block_k_y" (knobs by name, fixed components as numbers); 0 when a component is unknown. */
static int product(const struct dctx *d, const struct launch *L, char *out, size_t n, long long *init,
                   int *knobs)
{
	size_t len = 0;
	*init = 1;
	*knobs = 0;
	out[0] = '\0';
	for (int c = 0; c < L->ncomp; c++) {
		if (!L->known[c])
			return 0;
		*init *= L->val[c];
		if (L->knob[c] < 0 && L->val[c] == 1)
			continue; /* a factor of 1 says nothing */
		if (L->knob[c] >= 0) {
			len += (size_t)snprintf(out + len, n - len, "%s%s", len ? " * " : "",
			                        d->b->s->knobs[L->knob[c]].name);
			(*knobs)++;
		} else {
			len += (size_t)snprintf(out + len, n - len, "%s%lld", len ? " * " : "", L->val[c]);
		}
		if (len >= n)
			return 0;
	}
	return 1;
}

static void analyze_block(struct dctx *d, struct launch *L, struct range r, size_t at)
{
	static const char xyz[] = "xyz";
	char base[KP_TUNE_NAME_MAX], dn[48];
	struct range comp[4];
	size_t end;
	int k;

	if (ident(d, r.a, "dim3") && (is(d, r.a + 1, "(") || is(d, r.a + 1, "{")) &&
	    (end = match(d, r.a + 1)) && end + 1 == r.b) {
		int n = split(d, r.a + 2, end, comp, 3);
		if (n < 1 || n > 3)
			return;
		L->dim3 = n > 1;
		L->ncomp = n;
		for (int c = 0; c < n; c++) {
			if (n == 1)
				snprintf(base, sizeof(base), "block_%s", L->kernel);
			else
				snprintf(base, sizeof(base), "block_%s_%c", L->kernel, xyz[c]);
			block_comp(d, L, c, comp[c], at, base, n > 1 ? KP_TUNE_BLOCK_DIM : KP_TUNE_BLOCK);
		}
	} else if (single_ident(d, r) && (k = resolve(d, r.a, at)) >= 0 && d->defs[k].dim3) {
		const struct def *f = &d->defs[k];
		def_name(d, k, dn, sizeof(dn));
		L->dim3 = f->ncomp > 1;
		L->ncomp = f->ncomp;
		for (int c = 0; c < f->ncomp; c++) {
			if (f->ncomp == 1)
				snprintf(base, sizeof(base), "block_%s", dn);
			else
				snprintf(base, sizeof(base), "block_%s_%c", dn, xyz[c]);
			block_comp(d, L, c, f->comp[c], f->tok, base,
			           f->ncomp > 1 ? KP_TUNE_BLOCK_DIM : KP_TUNE_BLOCK);
		}
	} else {
		L->ncomp = 1;
		snprintf(base, sizeof(base), "block_%s", L->kernel);
		block_comp(d, L, 0, r, at, base, KP_TUNE_BLOCK);
	}
	if (L->dim3) {
		char p[256];
		long long init;
		int knobs;
		if (!product(d, L, p, sizeof(p), &init, &knobs) || !knobs)
			return;
		constraint(d, "%s <= MAX_THREADS_PER_BLOCK", p);
		if (init % 32 == 0)
			constraint(d, strchr(p, '*') ? "(%s) %% WARP_SIZE == 0" : "%s %% WARP_SIZE == 0", p);
		if (L->ncomp == 3 && L->knob[2] >= 0)
			constraint(d, "%s <= 64", d->b->s->knobs[L->knob[2]].name);
	}
}

/* The grid's components: a dim3(...) expression, a named dim3 or scalar, or the expression itself. */
static int grid_ranges(const struct dctx *d, struct range g, size_t at, struct range *out, int *named)
{
	size_t end;
	int k;
	*named = 0;
	if (ident(d, g.a, "dim3") && (is(d, g.a + 1, "(") || is(d, g.a + 1, "{")) &&
	    (end = match(d, g.a + 1)) && end + 1 == g.b)
		return split(d, g.a + 2, end, out, 3);
	if (single_ident(d, g) && (k = resolve(d, g.a, at)) >= 0) {
		*named = 1;
		for (int c = 0; c < d->defs[k].ncomp; c++)
			out[c] = d->defs[k].comp[c];
		return d->defs[k].ncomp;
	}
	out[0] = g;
	return 1;
}

static void analyze_launch(struct dctx *d, size_t i)
{
	struct launch L = {0};
	struct range args[5], grid[4], targs = {0, 0};
	size_t close = 0, name = i - 1;
	int nargs, ngrid, named, tied = 0;

	/* kernel<T, 256><<<...: the name before any template arguments */
	if (i >= 2 && (is(d, i - 1, ">") || is(d, i - 1, ">>"))) {
		int depth = 0;
		for (size_t k = i - 1; k > 0 && k + 64 > i; k--) {
			depth += is(d, k, ">")    ? 1
			         : is(d, k, ">>") ? 2
			         : is(d, k, "<")  ? -1
			         : is(d, k, "<<") ? -2
			                          : 0;
			if (depth == 0) {
				targs = (struct range){k + 1, i - 1};
				name = k - 1;
				break;
			}
		}
	}
	if (i >= 1 && d->t[name].kind == TK_IDENT)
		snprintf(L.kernel, sizeof(L.kernel), "%.*s", (int)(d->t[name].len > 40 ? 40 : d->t[name].len),
		         d->s + d->t[name].off);
	else
		snprintf(L.kernel, sizeof(L.kernel), "L%d", d->t[i].line);

	for (size_t k = i + 1, depth = 0; k < d->n && k < i + SCAN_LIMIT; k++) {
		if (is(d, k, "(") || is(d, k, "[") || is(d, k, "{"))
			depth++;
		else if ((is(d, k, ")") || is(d, k, "]") || is(d, k, "}")) && depth > 0)
			depth--;
		else if (depth == 0 && is(d, k, ";"))
			break;
		else if (depth == 0 && is(d, k, ">>>")) {
			close = k;
			break;
		}
	}
	if (!close || (nargs = split(d, i + 1, close, args, 4)) < 2 || nargs > 4)
		return;
	analyze_block(d, &L, args[1], i);

	/* the grid: literals tied to the block size through a ceil-division */
	ngrid = grid_ranges(d, args[0], i, grid, &named);
	for (int c = 0; c < ngrid && c < L.ncomp && c < 3; c++)
		if (L.knob[c] >= 0)
			tied |= tie_range(d, grid[c], L.knob[c], L.val[c]);
	/* or a grid-stride launch: `132 * 8`, `sms * 4` */
	if (!tied && ngrid == 1 && grid[0].b == grid[0].a + 3 && is(d, grid[0].a + 1, "*")) {
		size_t x = grid[0].a, y = grid[0].a + 2, lit = 0;
		if (is_int(d, x) && is_int(d, y))
			lit = d->t[x].value < d->t[y].value ? x : y;
		else if (is_int(d, x) && d->t[y].kind == TK_IDENT)
			lit = x;
		else if (is_int(d, y) && d->t[x].kind == TK_IDENT)
			lit = y;
		if (lit && d->t[lit].value >= 1) {
			char base[KP_TUNE_NAME_MAX];
			snprintf(base, sizeof(base), "grid_%s", L.kernel);
			knob_at(d, lit, base, KP_TUNE_GRID_MULT, grid_vals, KP_ARRAY_SIZE(grid_vals));
		}
	}
	/* the block size repeated in template arguments or the shared-memory size */
	if (!L.dim3 && L.ncomp == 1 && L.knob[0] >= 0) {
		struct range more[2] = {targs, nargs >= 3 ? args[2] : (struct range){0, 0}};
		for (int m = 0; m < 2; m++)
			for (size_t k = more[m].a; k < more[m].b; k++)
				if (is_int(d, k) && d->t[k].value == L.val[0])
					kp__tune_add_site(d->b, L.knob[0], d->t[k].off, d->t[k].ndigits,
					                  SITE_LITERAL);
	}
	KP_ALLOC_GROW(d->ls, d->nls + 1, d->als);
	d->ls[d->nls++] = L;
}

/* ---- __launch_bounds__ and #pragma unroll --------------------------------------------------------- */

static void analyze_bounds(struct dctx *d, size_t i)
{
	static const char *const skip[] = {"__attribute__", "__launch_bounds__", "__declspec", "alignas",
	                                   "__align__"};
	struct range args[4];
	size_t close = match(d, i + 1), tok;
	char kernel[48] = "", mt[KP_TUNE_NAME_MAX] = "", base[KP_TUNE_NAME_MAX];
	int n, via, k = -1;

	if (!close || (n = split(d, i + 2, close, args, 3)) < 1 || n > 3)
		return;
	for (size_t j = close + 1; j < d->n && j < close + 24 && !kernel[0]; j++) {
		int skipped = 0;
		if (d->t[j].kind != TK_IDENT || !is(d, j + 1, "("))
			continue;
		for (size_t s = 0; s < KP_ARRAY_SIZE(skip); s++)
			skipped |= ident(d, j, skip[s]);
		if (!skipped)
			snprintf(kernel, sizeof(kernel), "%.*s", (int)(d->t[j].len > 40 ? 40 : d->t[j].len),
			         d->s + d->t[j].off);
		else if ((j = match(d, j + 1)) == 0)
			return;
	}
	if (!kernel[0])
		return;

	if (resolve_int(d, args[0], i, &tok, &via)) {
		long long v = d->t[tok].value;
		if ((k = find_anchor(d, d->t[tok].off)) < 0) {
			/* the same literal as the kernel's block size: one knob */
			for (size_t l = 0; l < d->nls && k < 0; l++)
				if (!strcmp(d->ls[l].kernel, kernel) && !d->ls[l].dim3 &&
				    d->ls[l].knob[0] >= 0 && d->ls[l].val[0] == v &&
				    kp__tune_add_site(d->b, d->ls[l].knob[0], d->t[tok].off,
				                      d->t[tok].ndigits, SITE_LITERAL))
					k = d->ls[l].knob[0];
		}
		if (k < 0 && v >= 1 && v < 1024) {
			/* at least the source's value, which its launches may rely on */
			long long vals[12];
			size_t nv = 0;
			for (long long p = 64; p <= 1024; p *= 2)
				if (p > v)
					vals[nv++] = p;
			snprintf(base, sizeof(base), "maxthreads_%s", kernel);
			if ((k = knob_at(d, tok, base, KP_TUNE_MAX_THREADS, vals, nv)) >= 0)
				for (size_t l = 0; l < d->nls; l++) {
					char p[256];
					long long init;
					int knobs;
					if (strcmp(d->ls[l].kernel, kernel) ||
					    !product(d, &d->ls[l], p, sizeof(p), &init, &knobs) || !knobs)
						continue;
					constraint(d, "%s <= %s", p, d->b->s->knobs[k].name);
				}
		}
		if (k >= 0)
			snprintf(mt, sizeof(mt), "%s", d->b->s->knobs[k].name);
		else
			snprintf(mt, sizeof(mt), "%lld", v);
	}
	if (n >= 2 && resolve_int(d, args[1], i, &tok, &via) && d->t[tok].value >= 1) {
		snprintf(base, sizeof(base), "minblocks_%s", kernel);
		k = knob_at(d, tok, base, KP_TUNE_MIN_BLOCKS, minblocks_vals, KP_ARRAY_SIZE(minblocks_vals));
		if (k >= 0 && mt[0])
			constraint(d, "%s * %s <= MAX_THREADS_PER_SM", mt, d->b->s->knobs[k].name);
	}
}

static void analyze_unroll(struct dctx *d, size_t i)
{
	unsigned pp = d->t[i].pp;
	size_t j = i + 3, tok;
	char base[KP_TUNE_NAME_MAX], dn[48];
	int via;

	if (j < d->n && d->t[j].pp == pp && is(d, j, "("))
		j++;
	if (j >= d->n || d->t[j].pp != pp)
		return;
	if (!resolve_int(d, (struct range){j, j + 1}, i, &tok, &via) || d->t[tok].value < 1)
		return;
	if (via >= 0) {
		def_name(d, via, dn, sizeof(dn));
		snprintf(base, sizeof(base), "unroll_%s", dn);
	} else {
		snprintf(base, sizeof(base), "unroll_L%d", d->t[tok].line);
	}
	knob_at(d, tok, base, KP_TUNE_UNROLL, unroll_vals, KP_ARRAY_SIZE(unroll_vals));
}

/* Marks the tokens of KP_TUNE(...)-style markers: their numbers are the markers', not derivable. */
static void mark_markers(struct dctx *d)
{
	for (size_t i = 0; i + 1 < d->n; i++) {
		size_t end;
		if (d->t[i].kind != TK_IDENT || d->t[i].len < 7 || memcmp(d->s + d->t[i].off, "KP_", 3) ||
		    !is(d, i + 1, "("))
			continue;
		if (!(ident(d, i, "KP_TUNE") || ident(d, i, "KP_UNROLL") ||
		      ident(d, i, "KP_TUNE_CONSTRAINT")))
			continue;
		end = match(d, i + 1);
		for (size_t k = i; k <= (end ? end : i + 1); k++)
			d->in_marker[k] = 1;
		if (end)
			i = end;
	}
}

int kp__tune_derive_cuda(struct tune_builder *b, size_t start, size_t end, struct kp_error *err)
{
	struct tok_list l = {0};
	struct dctx d = {.b = b, .s = b->src};
	int rc;

	if ((rc = kp__tune_lex_cuda(b->src, start, end, kp__tune_line_of(b->src, start), &l, err)))
		goto out;
	d.t = l.t;
	d.n = l.n;
	d.in_marker = kp_xcalloc(l.n + 1, 1);
	mark_markers(&d);
	collect_defs(&d);
	for (size_t i = 1; i < d.n; i++)
		if (is(&d, i, "<<<") && !d.t[i].pp)
			analyze_launch(&d, i);
	for (size_t i = 0; i + 1 < d.n; i++)
		if (ident(&d, i, "__launch_bounds__") && is(&d, i + 1, "("))
			analyze_bounds(&d, i);
	for (size_t i = 0; i + 3 < d.n; i++)
		if (d.t[i].pp && is(&d, i, "#") && ident(&d, i + 1, "pragma") && ident(&d, i + 2, "unroll") &&
		    d.t[i + 1].pp == d.t[i].pp && d.t[i + 2].pp == d.t[i].pp)
			analyze_unroll(&d, i);
out:
	free(d.in_marker);
	free(d.defs);
	free(d.ls);
	kp__tune_toks_release(&l);
	return rc;
}
