/*
 * The symbol extractor: namespace-scope classes, function definitions, aliases and enums of a C++
 * (CUDA) source, with their line ranges and doc comments, and a file's one-line description. It
 * reads any text (outside data): a small lexer skips comments, strings and preprocessor lines, a
 * scope stack follows braces, and statements at namespace scope are classified by their tokens.
 * Malformed input yields fewer symbols, never an error.
 */
#include "base/setup.h"

#include <ctype.h>

#include "kernelpro/codesearch.h"
#include "kernelpro/str.h"

#define STMT_MAX  2048 /* tokens kept of one statement; longer ones are skipped */
#define SCOPE_MAX 256

const char *kp_cs_kind_name(enum kp_cs_kind k)
{
	static const char *const names[] = {"file", "example", "class", "function", "alias", "enum"};
	return k >= 0 && k < KP_CS_KIND_COUNT ? names[k] : "unknown";
}

void kp_cs_symbols_release(struct kp_cs_symbols *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

enum tok_type { T_IDENT, T_NUM, T_STR, T_PUNCT };

struct tok {
	enum tok_type type;
	size_t off, len;
	int line;
};

enum scope_kind { S_NAMESPACE, S_LINKAGE, S_CLASS, S_FUNCTION, S_OTHER };

struct scope {
	enum scope_kind kind;
	size_t name_len; /* how much of the namespace path this scope added */
	long sym;        /* symbol whose end line the closing brace sets, or -1 */
};

struct lexer {
	const char *s;
	size_t len, i;
	int line;
	int at_line_start;
	/* the comment block most recently seen: consecutive line comments merge */
	int com_start, com_end;
};

struct parser {
	struct lexer lx;
	struct tok stmt[STMT_MAX];
	size_t nstmt;
	int overflow;
	int paren;       /* ( and [ depth inside the statement */
	int inner_brace; /* { } inside parens (lambdas, braced args) */
	int doc_line;    /* doc comment start for the statement's first token */
	struct scope scopes[SCOPE_MAX];
	int nscopes;
	int lost;     /* scopes deeper than SCOPE_MAX, counted but not kept */
	char ns[256]; /* the namespace path: "cute::detail" */
	size_t ns_len;
	struct kp_cs_symbols *out;
	size_t max;
};

/* ---- lexer --------------------------------------------------------------------------------------------- */

static void note_comment(struct lexer *lx, int start, int end)
{
	if (lx->com_end >= 0 && start <= lx->com_end + 1 && start >= lx->com_start)
		lx->com_end = end; /* the block goes on */
	else {
		lx->com_start = start;
		lx->com_end = end;
	}
}

enum pp_kind { PP_OTHER, PP_IF, PP_ELSE, PP_ENDIF };

/* Skips one preprocessor line (with its continuations) starting at '#'; says what it was. */
static enum pp_kind skip_directive(struct lexer *lx)
{
	const char *s = lx->s;
	size_t w;
	enum pp_kind k = PP_OTHER;
	lx->i++;
	while (lx->i < lx->len && (s[lx->i] == ' ' || s[lx->i] == '\t'))
		lx->i++;
	w = lx->i;
	while (lx->i < lx->len && isalpha((unsigned char)s[lx->i]))
		lx->i++;
	if (lx->i - w >= 2 && !strncmp(s + w, "if", 2))
		k = PP_IF; /* if, ifdef, ifndef */
	else if (lx->i - w >= 4 && (!strncmp(s + w, "else", 4) || !strncmp(s + w, "elif", 4)))
		k = PP_ELSE;
	else if (lx->i - w == 5 && !strncmp(s + w, "endif", 5))
		k = PP_ENDIF;
	while (lx->i < lx->len && s[lx->i] != '\n') {
		if (s[lx->i] == '\\' && lx->i + 1 < lx->len && s[lx->i + 1] == '\n') {
			lx->line++;
			lx->i++;
		}
		lx->i++;
	}
	return k;
}

/* From inside an #else/#elif branch, skips past the #endif that closes its conditional. */
static void skip_to_endif(struct lexer *lx)
{
	int depth = 0;
	while (lx->i < lx->len) {
		char c = lx->s[lx->i];
		if (c == '\n') {
			lx->line++;
			lx->i++;
			lx->at_line_start = 1;
		} else if (c == ' ' || c == '\t' || c == '\r') {
			lx->i++;
		} else if (c == '#' && lx->at_line_start) {
			enum pp_kind k = skip_directive(lx);
			if (k == PP_IF)
				depth++;
			else if (k == PP_ENDIF && depth-- == 0)
				return;
		} else {
			lx->at_line_start = 0;
			while (lx->i < lx->len && lx->s[lx->i] != '\n')
				lx->i++;
		}
	}
}

/* Next token into t; 0 at the end of the text. */
static int lex(struct lexer *lx, struct tok *t)
{
	const char *s = lx->s;
	for (;;) {
		size_t i = lx->i;
		char c;
		if (i >= lx->len)
			return 0;
		c = s[i];
		if (c == '\n') {
			lx->line++;
			lx->i++;
			lx->at_line_start = 1;
			continue;
		}
		if (isspace((unsigned char)c)) {
			lx->i++;
			continue;
		}
		if (c == '/' && i + 1 < lx->len && s[i + 1] == '/') {
			while (lx->i < lx->len && s[lx->i] != '\n')
				lx->i++;
			note_comment(lx, lx->line, lx->line);
			continue;
		}
		if (c == '/' && i + 1 < lx->len && s[i + 1] == '*') {
			int start = lx->line;
			lx->i += 2;
			while (lx->i < lx->len &&
			       !(s[lx->i] == '*' && lx->i + 1 < lx->len && s[lx->i + 1] == '/')) {
				if (s[lx->i] == '\n')
					lx->line++;
				lx->i++;
			}
			lx->i = lx->i + 2 <= lx->len ? lx->i + 2 : lx->len;
			note_comment(lx, start, lx->line);
			continue;
		}
		if (c == '#' && lx->at_line_start) {
			/* #else and #elif branches are skipped whole: braces are followed in the first branch
			 * only, so `#if A struct X { #else struct X : B { #endif` opens one scope, not two.
			 */
			if (skip_directive(lx) == PP_ELSE)
				skip_to_endif(lx);
			continue;
		}
		lx->at_line_start = 0;
		t->off = i;
		t->line = lx->line;
		if (isalpha((unsigned char)c) || c == '_') {
			while (lx->i < lx->len && (isalnum((unsigned char)s[lx->i]) || s[lx->i] == '_'))
				lx->i++;
			t->type = T_IDENT;
		} else if (isdigit((unsigned char)c)) {
			while (lx->i < lx->len && (isalnum((unsigned char)s[lx->i]) || s[lx->i] == '_' ||
			                           s[lx->i] == '.' || s[lx->i] == '\''))
				lx->i++;
			t->type = T_NUM;
		} else if (c == '"' || c == '\'') {
			lx->i++;
			while (lx->i < lx->len && s[lx->i] != c && s[lx->i] != '\n') {
				if (s[lx->i] == '\\' && lx->i + 1 < lx->len)
					lx->i++;
				lx->i++;
			}
			if (lx->i < lx->len && s[lx->i] == c)
				lx->i++;
			t->type = T_STR;
		} else {
			lx->i++;
			if ((c == ':' && lx->i < lx->len && s[lx->i] == ':') ||
			    (c == '-' && lx->i < lx->len && s[lx->i] == '>'))
				lx->i++;
			t->type = T_PUNCT;
		}
		t->len = lx->i - i;
		return 1;
	}
}

/* ---- helpers over the statement ------------------------------------------------------------------------ */

static int is(const struct parser *p, size_t k, const char *word)
{
	const struct tok *t = &p->stmt[k];
	size_t n = strlen(word);
	return k < p->nstmt && t->len == n && !memcmp(p->lx.s + t->off, word, n);
}

static int is_ident(const struct parser *p, size_t k)
{
	return k < p->nstmt && p->stmt[k].type == T_IDENT;
}

static void tok_copy(const struct parser *p, size_t k, char *out, size_t n)
{
	snprintf(out, n, "%.*s", (int)p->stmt[k].len, p->lx.s + p->stmt[k].off);
}

/* Index after the group opened at k ("(" "[" "<" "{"), or nstmt + 1 when it does not close. */
static size_t skip_group(const struct parser *p, size_t k)
{
	char open = p->lx.s[p->stmt[k].off], close = open == '('   ? ')'
	                                             : open == '[' ? ']'
	                                             : open == '<' ? '>'
	                                                           : '}';
	int depth = 0, paren = 0;
	for (; k < p->nstmt; k++) {
		char c = p->stmt[k].type == T_PUNCT ? p->lx.s[p->stmt[k].off] : 0;
		if (p->stmt[k].len != 1)
			c = 0;
		if (open == '<' && (c == '(' || c == '['))
			paren++;
		else if (open == '<' && (c == ')' || c == ']'))
			paren--;
		else if (c == open && !paren)
			depth++;
		else if (c == close && !paren && --depth == 0)
			return k + 1;
	}
	return p->nstmt + 1;
}

/* Template arguments of the group at k, as compact text: "SM90_TMA_LOAD, Int<1>". */
static void group_text(const struct parser *p, size_t k, size_t end, char *out, size_t n)
{
	size_t w = 0;
	out[0] = 0;
	for (size_t i = k + 1; i + 1 < end && w + 1 < n; i++) {
		const struct tok *t = &p->stmt[i];
		int space = i > k + 1 && t->type != T_PUNCT && p->stmt[i - 1].type != T_PUNCT;
		int wrote =
		    snprintf(out + w, n - w, "%s%.*s", space ? " " : "", (int)t->len, p->lx.s + t->off);
		if (wrote < 0 || (size_t)wrote >= n - w) {
			out[w] = 0;
			break;
		}
		w += (size_t)wrote;
		if (t->len == 1 && p->lx.s[t->off] == ',' && w + 1 < n)
			out[w++] = ' ', out[w] = 0;
	}
}

static long add_symbol(struct parser *p, enum kp_cs_kind kind, size_t name_tok, int is_template, int end_line)
{
	struct kp_cs_symbol *s;
	if (p->max && p->out->n >= p->max)
		return -1;
	KP_ALLOC_GROW(p->out->v, p->out->n + 1, p->out->alloc);
	s = &p->out->v[p->out->n];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	tok_copy(p, name_tok, s->name, sizeof(s->name));
	kp_strlcpy(s->scope, p->ns, sizeof(s->scope));
	s->is_template = is_template;
	s->line = p->stmt[0].line;
	s->end_line = end_line;
	s->doc_line = p->doc_line > 0 ? p->doc_line : s->line;
	return (long)p->out->n++;
}

/* ---- statements ------------------------------------------------------------------------------------------
 */

/* Skips leading template<...> clauses (and `export`); returns the index after them. */
static size_t after_templates(const struct parser *p, int *is_template)
{
	size_t k = 0;
	*is_template = 0;
	while (k < p->nstmt && is(p, k, "template") && k + 1 < p->nstmt && is(p, k + 1, "<")) {
		*is_template = 1;
		k = skip_group(p, k + 1);
	}
	return k;
}

/* Words that name no declared entity when they precede '(' . */
static int is_not_a_name(const struct parser *p, size_t k)
{
	static const char *const words[] = {
	    "decltype",      "alignas",    "__align__",     "__launch_bounds__",
	    "__attribute__", "__declspec", "sizeof",        "alignof",
	    "noexcept",      "requires",   "static_assert", "if",
	    "for",           "while",      "switch",        "return",
	    "throw",         "explicit",   "__nv_pure__"};
	for (size_t i = 0; i < KP_ARRAY_SIZE(words); i++)
		if (is(p, k, words[i]))
			return 1;
	return 0;
}

/* Is `punct` in the statement from `from` on, outside ( ) and [ ] groups? */
static int has_top_level(const struct parser *p, size_t from, const char *punct)
{
	for (size_t k = from; k < p->nstmt; k++) {
		if (is(p, k, punct))
			return 1;
		if (is(p, k, "(") || is(p, k, "[")) {
			size_t e = skip_group(p, k);
			if (e > p->nstmt)
				return 0;
			k = e - 1;
		}
	}
	return 0;
}

/* A class head: struct|class|union [attrs] NAME [<args>] [final] [: bases]. Adds it; returns its index. */
static long class_head(struct parser *p, size_t k, int is_template, int end_line)
{
	size_t name = 0, end;
	int found = 0;
	long sym;
	for (k = k + 1; k < p->nstmt; k++) {
		if (is(p, k, "(") || is(p, k, "[")) {
			k = skip_group(p, k) - 1;
			continue;
		}
		if (is(p, k, "<") || is(p, k, ":") || is(p, k, "final") || is(p, k, "{"))
			break;
		if (is_ident(p, k)) {
			name = k;
			found = 1;
		}
	}
	if (!found)
		return -1; /* an anonymous struct */
	sym = add_symbol(p, KP_CS_CLASS, name, is_template, end_line);
	if (sym >= 0 && k < p->nstmt && is(p, k, "<")) {
		end = skip_group(p, k);
		group_text(p, k, end, p->out->v[sym].args, sizeof(p->out->v[sym].args));
	}
	return sym;
}

/* The function a definition head names: the identifier before its parameter list. */
static long function_head(struct parser *p, size_t k, int is_template, int end_line)
{
	for (; k < p->nstmt; k++) {
		if (!is(p, k, "("))
			continue;
		if (k == 0 || !is_ident(p, k - 1) || is_not_a_name(p, k - 1)) {
			k = skip_group(p, k) - 1;
			continue;
		}
		if (k >= 2 && (is(p, k - 2, "::") || is(p, k - 2, "operator") || is(p, k - 2, "~") ||
		               is(p, k - 2, ".")))
			return -1; /* a member defined out of its class, an operator, a destructor */
		if (is(p, k - 1, "operator"))
			return -1;
		return add_symbol(p, KP_CS_FUNCTION, k - 1, is_template, end_line);
	}
	return -1;
}

static int push_scope(struct parser *p, enum scope_kind kind, size_t name_len, long sym)
{
	if (p->nscopes >= SCOPE_MAX) {
		p->lost++;
		return 0;
	}
	p->scopes[p->nscopes++] = (struct scope){kind, name_len, sym};
	return 1;
}

static int at_namespace_scope(const struct parser *p)
{
	return !p->lost && (!p->nscopes || p->scopes[p->nscopes - 1].kind == S_NAMESPACE ||
	                    p->scopes[p->nscopes - 1].kind == S_LINKAGE);
}

/* The statement ended with '{' at namespace scope: what does the brace open? */
static void open_brace(struct parser *p)
{
	int tmpl;
	size_t k = p->overflow ? p->nstmt : after_templates(p, &tmpl);
	long sym = -1;

	if (k < p->nstmt && (is(p, 0, "namespace") || (is(p, 0, "inline") && is(p, 1, "namespace")))) {
		size_t before = p->ns_len;
		for (k = is(p, 0, "inline") ? 2 : 1; k < p->nstmt && (is_ident(p, k) || is(p, k, "::"));
		     k++) {
			if (is(p, k, "::"))
				continue;
			int n =
			    snprintf(p->ns + p->ns_len, sizeof(p->ns) - p->ns_len, "%s%.*s",
			             p->ns_len ? "::" : "", (int)p->stmt[k].len, p->lx.s + p->stmt[k].off);
			if (n > 0 && (size_t)n < sizeof(p->ns) - p->ns_len)
				p->ns_len += (size_t)n;
			else
				p->ns[p->ns_len] = 0;
		}
		if (!push_scope(p, S_NAMESPACE, p->ns_len - before, -1)) {
			p->ns_len = before;
			p->ns[before] = 0;
		}
		return;
	}
	if (k + 1 < p->nstmt && is(p, 0, "extern") && p->stmt[1].type == T_STR) {
		push_scope(p, S_LINKAGE, 0, -1);
		return;
	}
	for (size_t i = k; i < p->nstmt && !p->overflow; i++) {
		if (is(p, i, "(") || is(p, i, "=") || is(p, i, "["))
			break;
		if (is(p, i, "struct") || is(p, i, "class") || is(p, i, "union")) {
			sym = class_head(p, i, tmpl, p->lx.line);
			push_scope(p, S_CLASS, 0, sym);
			return;
		}
		if (is(p, i, "enum")) {
			size_t n = i + 1;
			if (is(p, n, "class") || is(p, n, "struct"))
				n++;
			if (is_ident(p, n))
				sym = add_symbol(p, KP_CS_ENUM, n, 0, p->lx.line);
			push_scope(p, S_OTHER, 0, sym);
			return;
		}
	}
	if (!p->overflow && !has_top_level(p, k, "=") && has_top_level(p, k, "(")) {
		sym = function_head(p, k, tmpl, p->lx.line);
		push_scope(p, S_FUNCTION, 0, sym);
		return;
	}
	push_scope(p, S_OTHER, 0, -1);
}

/* The statement ended with ';' at namespace scope: an alias is the only thing kept. */
static void end_statement(struct parser *p, int line)
{
	int tmpl;
	size_t k;
	if (p->overflow || !p->nstmt)
		return;
	k = after_templates(p, &tmpl);
	if (k + 2 < p->nstmt && is(p, k, "using") && is_ident(p, k + 1) && is(p, k + 2, "="))
		add_symbol(p, KP_CS_ALIAS, k + 1, tmpl, line);
	else if (k < p->nstmt && is(p, k, "typedef") && p->nstmt >= 2 && is_ident(p, p->nstmt - 1) &&
	         !has_top_level(p, k, "("))
		add_symbol(p, KP_CS_ALIAS, p->nstmt - 1, 0, line);
}

static void close_brace(struct parser *p, int line)
{
	struct scope *s;
	if (p->lost) {
		p->lost--;
		return;
	}
	if (!p->nscopes)
		return; /* unbalanced (#if branches): ignore */
	s = &p->scopes[--p->nscopes];
	if (s->sym >= 0 && (size_t)s->sym < p->out->n)
		p->out->v[s->sym].end_line = line;
	if (s->kind == S_NAMESPACE) {
		p->ns_len -= s->name_len;
		p->ns[p->ns_len] = 0;
	}
}

static void reset_statement(struct parser *p)
{
	p->nstmt = 0;
	p->overflow = 0;
	p->paren = 0;
	p->inner_brace = 0;
	p->doc_line = 0;
}

void kp_cs_extract(const char *text, size_t len, size_t max, struct kp_cs_symbols *out)
{
	struct parser *p = kp_xcalloc(1, sizeof(*p));
	struct tok t;

	p->lx = (struct lexer){text, len, 0, 1, 1, -1, -1};
	p->out = out;
	p->max = max;
	while (lex(&p->lx, &t)) {
		char c = t.type == T_PUNCT && t.len == 1 ? text[t.off] : 0;
		int ns_scope = at_namespace_scope(p);

		if (!ns_scope) {
			/* Inside a class, function or initializer: only braces matter. */
			if (c == '{')
				push_scope(p, S_OTHER, 0, -1);
			else if (c == '}')
				close_brace(p, t.line);
			continue;
		}
		if (!p->nstmt && !p->overflow) {
			p->doc_line = p->lx.com_end >= 0 &&
			                      (p->lx.com_end == t.line - 1 || p->lx.com_end == t.line) &&
			                      p->lx.com_start <= t.line
			                  ? p->lx.com_start
			                  : 0;
			if (c == ';' || c == '}') {
				if (c == '}')
					close_brace(p, t.line);
				continue;
			}
		}
		if (p->paren || p->inner_brace) {
			if (c == '(' || c == '[')
				p->paren++;
			else if ((c == ')' || c == ']') && p->paren > 0)
				p->paren--;
			else if (c == '{')
				p->inner_brace++;
			else if (c == '}' && p->inner_brace > 0)
				p->inner_brace--;
		} else if (c == '(' || c == '[') {
			p->paren++;
		} else if (c == '{') {
			open_brace(p);
			reset_statement(p);
			continue;
		} else if (c == ';') {
			end_statement(p, t.line);
			reset_statement(p);
			continue;
		} else if (c == '}') {
			reset_statement(p); /* a stray brace ends whatever was being read */
			close_brace(p, t.line);
			continue;
		}
		if (p->nstmt < STMT_MAX)
			p->stmt[p->nstmt++] = t;
		else
			p->overflow = 1;
	}
	free(p);
}

/* ---- descriptions
 * ------------------------------------------------------------------------------------------ */

static int is_licence(const char *s, size_t n)
{
	static const char *const marks[] = {"Copyright", "SPDX-License", "Redistribution and use",
	                                    "THIS SOFTWARE"};
	for (size_t i = 0; i < KP_ARRAY_SIZE(marks); i++)
		if (memmem(s, n, marks[i], strlen(marks[i])))
			return 1;
	return 0;
}

/* Appends a comment's words to out (markup, stars and slashes gone), at most n - 1 bytes. */
static void comment_words(const char *s, size_t len, char *out, size_t n)
{
	size_t w = 0;
	int space = 0;
	for (size_t i = 0; i < len && w + 1 < n; i++) {
		char c = s[i];
		if ((c == '\\' || c == '@') && i + 1 < len && isalpha((unsigned char)s[i + 1])) {
			size_t j = i + 1;
			while (j < len && isalpha((unsigned char)s[j]))
				j++;
			if ((j - i - 1 == 4 && !strncmp(s + i + 1, "file", 4))) {
				/* "\file name.hpp": the name is no description */
				while (j < len && (s[j] == ' ' || s[j] == '\t'))
					j++;
				while (j < len && !isspace((unsigned char)s[j]))
					j++;
			}
			i = j - 1;
			space = w > 0;
			continue;
		}
		if (c == '*' || c == '/' || c == '!' || isspace((unsigned char)c) || c == '=' || c == '-') {
			/* decoration, unless inside a word ("x-axis", "a/b", "a*b") */
			int inner = (c == '-' || c == '/' || c == '*') && w && i + 1 < len &&
			            isalnum((unsigned char)out[w - 1]) && isalnum((unsigned char)s[i + 1]);
			if (!inner) {
				space = w > 0;
				continue;
			}
		}
		if (space && w + 2 < n)
			out[w++] = ' ';
		space = 0;
		out[w++] = c;
	}
	out[w] = 0;
}

#define DESCRIPTION_MAX 200

/* Cuts s (a buffer of cap bytes) after its first sentence, and at a word boundary within DESCRIPTION_MAX. */
static void first_sentence(char *s, size_t cap)
{
	size_t limit = cap > 8 && cap - 4 < DESCRIPTION_MAX ? cap - 4 : DESCRIPTION_MAX;
	for (char *p = s; *p; p++) {
		if (*p == '.' && (p[1] == 0 || p[1] == ' ') && p - s > 8) {
			p[1] = 0;
			break;
		}
	}
	if (cap > 8 && strlen(s) > limit) {
		char *cut = s + limit;
		while (cut > s && *cut != ' ')
			cut--;
		if (cut == s)
			cut = s + limit;
		memcpy(cut, "...", 4);
	}
}

void kp_cs_describe(const char *text, size_t len, char *out, size_t n)
{
	size_t i = 0;
	if (!n)
		return;
	out[0] = 0;
	/* Comments before the first line of code (preprocessor lines don't count as code). */
	while (i + 1 < len) {
		size_t start, end;
		if (isspace((unsigned char)text[i])) {
			i++;
			continue;
		}
		if (text[i] == '/' && text[i + 1] == '*') {
			const char *e = memmem(text + i + 2, len - i - 2, "*/", 2);
			start = i + 2;
			end = e ? (size_t)(e - text) : len;
			i = e ? end + 2 : len;
		} else if (text[i] == '/' && text[i + 1] == '/') {
			start = end = i; /* a run of line comments is one comment */
			while (end + 1 < len && text[end] == '/' && text[end + 1] == '/') {
				const char *nl = memchr(text + end, '\n', len - end);
				end = nl ? (size_t)(nl - text) + 1 : len;
				while (end < len && (text[end] == ' ' || text[end] == '\t'))
					end++;
			}
			i = end;
		} else if (text[i] == '#') {
			const char *nl = memchr(text + i, '\n', len - i);
			i = nl ? (size_t)(nl - text) + 1 : len;
			continue;
		} else {
			return;
		}
		if (end > start && !is_licence(text + start, end - start)) {
			comment_words(text + start, end - start, out, n);
			first_sentence(out, n);
			if (out[0])
				return;
		}
	}
}
