/* Token scanners for the knob reader (lex.h). Offsets are into the whole source, so a knob's place is
 * the same whether the CUDA text is a .cu file or a string inside a Python candidate. */
#include "base/setup.h"

#include <ctype.h>

#include "tune/lex.h"

/* Larger literals are not knob values: treat them as plain numbers. */
#define INT_LIMIT 1000000000000000LL

struct lexer {
	const char *s;
	size_t pos, end;
	int line;
	size_t line_start;
	struct tok_list *out;
	struct kp_error *err;
};

static int push(struct lexer *lx, enum tok_kind kind, size_t off, size_t len, int line, size_t line_start)
{
	struct tok *t;
	if (lx->out->n >= TUNE_MAX_TOKENS)
		return kp_error_set(lx->err, KP_ETOOBIG, "source has more than %u tokens", TUNE_MAX_TOKENS);
	KP_ALLOC_GROW(lx->out->t, lx->out->n + 1, lx->out->alloc);
	t = &lx->out->t[lx->out->n++];
	memset(t, 0, sizeof(*t));
	t->off = off;
	t->len = len;
	t->kind = kind;
	t->line = line;
	t->col = (int)(off - line_start);
	return 0;
}

static void newline(struct lexer *lx)
{
	lx->line++;
	lx->line_start = lx->pos + 1;
}

/* At a line break: 1 for a newline, 2 for a backslash-continued line (either consumed), else 0. */
static int line_break(struct lexer *lx)
{
	const char *s = lx->s + lx->pos;
	size_t left = lx->end - lx->pos, skip;
	int kind = 2;
	if (s[0] == '\n') {
		skip = 0;
		kind = 1;
	} else if (s[0] == '\\' && left > 1 && s[1] == '\n') {
		skip = 1;
	} else if (s[0] == '\\' && left > 2 && s[1] == '\r' && s[2] == '\n') {
		skip = 2;
	} else {
		return 0;
	}
	lx->pos += skip;
	newline(lx);
	lx->pos++;
	return kind;
}

static int is_ident_start(int c)
{
	return isalpha(c) || c == '_' || c == '$';
}

static int is_ident_char(int c)
{
	return isalnum(c) || c == '_' || c == '$';
}

/* A pp-number (digits, letters, dots, digit separators, exponent signs); marks decimal integers. */
static void scan_number(struct lexer *lx, struct tok *t)
{
	const char *s = lx->s;
	size_t p = lx->pos, digits = 0;
	long long v = 0;
	int ok = 1;
	while (p < lx->end) {
		int c = (unsigned char)s[p];
		if (isalnum(c) || c == '_' || c == '.')
			p++;
		else if (c == '\'' && p + 1 < lx->end && isalnum((unsigned char)s[p + 1]))
			p++;
		else if ((c == '+' || c == '-') && strchr("eEpP", s[p - 1]))
			p++;
		else
			break;
	}
	t->len = p - t->off;
	while (digits < t->len && isdigit((unsigned char)s[t->off + digits])) {
		if (v > INT_LIMIT)
			ok = 0;
		else
			v = v * 10 + (s[t->off + digits] - '0');
		digits++;
	}
	if (digits > 1 && s[t->off] == '0')
		ok = 0; /* octal */
	for (size_t i = digits; i < t->len; i++)
		if (!strchr("uUlL", s[t->off + i]))
			ok = 0;
	if (ok && digits > 0) {
		t->is_int = 1;
		t->value = v;
		t->ndigits = digits;
	}
	lx->pos = p;
}

/* Skips a quoted literal starting at pos (the quote); stops at the closing quote or the line's end. */
static void skip_quoted(struct lexer *lx, char q)
{
	lx->pos++;
	while (lx->pos < lx->end) {
		char c = lx->s[lx->pos];
		if (c == '\\' && lx->pos + 1 < lx->end) {
			if (lx->s[lx->pos + 1] == '\n') {
				lx->pos++;
				newline(lx);
			}
			lx->pos += 2;
			continue;
		}
		if (c == '\n')
			return;
		lx->pos++;
		if (c == q)
			return;
	}
}

/* R"delim( ... )delim": pos is at the quote. Returns 0 when it is not a well-formed opening. */
static int skip_raw(struct lexer *lx)
{
	size_t p = lx->pos + 1, d0 = p, clen;
	char close[20];
	while (p < lx->end && p - d0 <= 16 && lx->s[p] != '(' && !strchr(" \\)\t\n\"", lx->s[p]))
		p++;
	if (p >= lx->end || lx->s[p] != '(' || p - d0 > 16)
		return 0;
	clen = p - d0 + 2; /* ')' delim '"' */
	close[0] = ')';
	memcpy(close + 1, lx->s + d0, p - d0);
	close[p - d0 + 1] = '"';
	p++;
	while (p < lx->end) {
		if (lx->end - p >= clen && !memcmp(lx->s + p, close, clen)) {
			lx->pos = p + clen;
			return 1;
		}
		if (lx->s[p] == '\n') {
			lx->pos = p;
			newline(lx);
		}
		p++;
	}
	lx->pos = lx->end;
	return 1;
}

/* The identifier s[0, n) is one of the space-separated words of `set` (a literal's prefix). */
static int is_prefix(const char *s, size_t n, const char *set)
{
	while (*set) {
		size_t w = strcspn(set, " ");
		if (w == n && !memcmp(s, set, n))
			return 1;
		set += w;
		while (*set == ' ')
			set++;
	}
	return 0;
}

static const char *const puncts3[] = {"<<<", ">>>", "<<=", ">>=", "...", "->*"};
static const char *const puncts2[] = {"::", "->", "##", "==", "!=", "<=", ">=", "&&", "||", "++", "--",
                                      "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<", ">>", ".*"};

static size_t punct_len(const char *s, size_t avail)
{
	for (size_t i = 0; i < KP_ARRAY_SIZE(puncts3); i++)
		if (avail >= 3 && !memcmp(s, puncts3[i], 3))
			return 3;
	for (size_t i = 0; i < KP_ARRAY_SIZE(puncts2); i++)
		if (avail >= 2 && !memcmp(s, puncts2[i], 2))
			return 2;
	return 1;
}

/* Over 80 lines: a lexer's main loop, one branch per token class over one cursor; as a single loop
 * it can be read against the language it lexes. */
int kp__tune_lex_cuda(const char *src, size_t start, size_t end, int line0, struct tok_list *out,
                      struct kp_error *err)
{
	struct lexer lx = {
	    .s = src, .pos = start, .end = end, .line = line0, .line_start = start, .out = out, .err = err};
	int at_line_start = 1, br, rc;
	unsigned in_pp = 0, npp = 0;

	while (lx.pos < lx.end) {
		unsigned char c = (unsigned char)src[lx.pos];
		size_t off = lx.pos;
		struct tok *t;

		if ((br = line_break(&lx))) {
			if (br == 1) {
				at_line_start = 1;
				in_pp = 0;
			}
			continue; /* after a continued line a directive goes on */
		}
		if (isspace(c)) {
			lx.pos++;
			continue;
		}
		if (c == '/' && lx.pos + 1 < lx.end && src[lx.pos + 1] == '/') {
			while (lx.pos < lx.end && src[lx.pos] != '\n')
				lx.pos++;
			continue;
		}
		if (c == '/' && lx.pos + 1 < lx.end && src[lx.pos + 1] == '*') {
			lx.pos += 2;
			while (lx.pos < lx.end &&
			       !(src[lx.pos] == '*' && lx.pos + 1 < lx.end && src[lx.pos + 1] == '/')) {
				if (src[lx.pos] == '\n')
					newline(&lx);
				lx.pos++;
			}
			lx.pos = lx.pos + 2 <= lx.end ? lx.pos + 2 : lx.end;
			continue;
		}
		if (c == '#' && at_line_start)
			in_pp = ++npp;
		at_line_start = 0;
		if ((rc = push(&lx, TK_PUNCT, off, 1, lx.line, lx.line_start)))
			return rc;
		t = &out->t[out->n - 1];
		t->pp = in_pp;
		if (c == '"') {
			t->kind = TK_STRING;
			skip_quoted(&lx, '"');
		} else if (c == '\'') {
			t->kind = TK_CHAR;
			skip_quoted(&lx, '\'');
		} else if (isdigit(c) ||
		           (c == '.' && lx.pos + 1 < lx.end && isdigit((unsigned char)src[lx.pos + 1]))) {
			t->kind = TK_NUMBER;
			scan_number(&lx, t);
			continue;
		} else if (is_ident_start(c)) {
			size_t p = lx.pos;
			while (p < lx.end && is_ident_char((unsigned char)src[p]))
				p++;
			t->kind = TK_IDENT;
			lx.pos = p;
			/* R"(...)", u8R"(...)": a raw string literal */
			if (p < lx.end && src[p] == '"' && is_prefix(src + off, p - off, "R LR uR UR u8R")) {
				size_t save = lx.pos;
				t->kind = TK_STRING;
				if (!skip_raw(&lx)) {
					lx.pos = save;
					skip_quoted(&lx, '"');
				}
			} else if (p < lx.end && (src[p] == '"' || src[p] == '\'') &&
			           is_prefix(src + off, p - off, "u U L u8")) {
				t->kind = src[p] == '"' ? TK_STRING : TK_CHAR;
				skip_quoted(&lx, src[p]);
			}
		} else {
			lx.pos += punct_len(src + lx.pos, lx.end - lx.pos);
		}
		t->len = lx.pos - t->off;
	}
	return 0;
}

int kp__tune_tok_is(const char *src, const struct tok *t, const char *s)
{
	size_t n = strlen(s);
	return t->kind == TK_PUNCT && t->len == n && !memcmp(src + t->off, s, n);
}

int kp__tune_tok_ident(const char *src, const struct tok *t, const char *s)
{
	size_t n = strlen(s);
	return t->kind == TK_IDENT && t->len == n && !memcmp(src + t->off, s, n);
}

void kp__tune_toks_release(struct tok_list *l)
{
	free(l->t);
	memset(l, 0, sizeof(*l));
}

/* ---- Python ---------------------------------------------------------------------------------------- */

/* A string literal at pos (after any prefix): single or triple quoted; records the inner text. */
static void py_string(struct lexer *lx, struct tok *t)
{
	const char *s = lx->s;
	char q = s[lx->pos];
	int triple = lx->end - lx->pos >= 3 && s[lx->pos + 1] == q && s[lx->pos + 2] == q;
	size_t p = lx->pos + (triple ? 3 : 1);

	t->kind = TK_STRING;
	t->triple = (uint8_t)triple;
	t->inner = p;
	while (p < lx->end) {
		char c = s[p];
		if (c == '\\' && p + 1 < lx->end) {
			if (s[p + 1] == '\n') {
				lx->pos = p + 1;
				newline(lx);
			}
			p += 2;
			continue;
		}
		if (c == '\n') {
			if (!triple)
				break;
			lx->pos = p;
			newline(lx);
		}
		if (c == q && (!triple || (lx->end - p >= 3 && s[p + 1] == q && s[p + 2] == q))) {
			t->ninner = p - t->inner;
			lx->pos = p + (triple ? 3 : 1);
			return;
		}
		p++;
	}
	t->ninner = (p < lx->end ? p : lx->end) - t->inner;
	lx->pos = p < lx->end ? p : lx->end;
}

int kp__tune_lex_python(const char *src, size_t len, struct tok_list *out, struct kp_error *err)
{
	struct lexer lx = {
	    .s = src, .pos = 0, .end = len, .line = 1, .line_start = 0, .out = out, .err = err};
	int depth = 0, rc;

	while (lx.pos < lx.end) {
		unsigned char c = (unsigned char)src[lx.pos];
		size_t off = lx.pos;
		struct tok *t;

		if (line_break(&lx))
			continue;
		if (isspace(c)) {
			lx.pos++;
			continue;
		}
		if (c == '#') {
			while (lx.pos < lx.end && src[lx.pos] != '\n')
				lx.pos++;
			continue;
		}
		if ((rc = push(&lx, TK_PUNCT, off, 1, lx.line, lx.line_start)))
			return rc;
		t = &out->t[out->n - 1];
		t->depth = depth;
		if (c == '"' || c == '\'') {
			py_string(&lx, t);
		} else if (isdigit(c)) {
			t->kind = TK_NUMBER;
			scan_number(&lx, t);
		} else if (isalpha(c) || c == '_') {
			size_t p = lx.pos;
			while (p < lx.end && (isalnum((unsigned char)src[p]) || src[p] == '_'))
				p++;
			t->kind = TK_IDENT;
			lx.pos = p;
			if (p < lx.end && (src[p] == '"' || src[p] == '\'') && p - off <= 2) {
				int prefix = 1;
				for (size_t i = off; i < p; i++)
					if (!strchr("rRbBuUfF", src[i]))
						prefix = 0;
				if (prefix)
					py_string(&lx, t);
			}
		} else {
			if (c == '(' || c == '[' || c == '{')
				depth++;
			else if ((c == ')' || c == ']' || c == '}') && depth > 0)
				depth--;
			lx.pos += (c == '=' && lx.pos + 1 < lx.end && src[lx.pos + 1] == '=') ? 2 : 1;
		}
		t->len = lx.pos - t->off;
	}
	return 0;
}
