/* Token scanners for the knob reader: CUDA C++ (comments, strings, raw strings, preprocessor lines)
 * and Python (for the KP_TUNE dict and the CUDA inside string literals). They never fail on odd
 * input: unterminated comments and strings end at the end of the text (or line). */
#ifndef KP_TUNE_LEX_H
#define KP_TUNE_LEX_H

#include <stddef.h>
#include <stdint.h>

#include "kernelpro/error.h"

enum tok_kind { TK_IDENT, TK_NUMBER, TK_STRING, TK_CHAR, TK_PUNCT };

struct tok {
	size_t off, len;
	int line;
	int col; /* column of the first byte, 0-based */
	uint8_t kind;
	unsigned pp;    /* CUDA: the directive it is part of (1, 2, ...), 0 outside directives */
	uint8_t is_int; /* a decimal integer literal (optional u/l suffix): value and ndigits are set */
	uint8_t triple; /* Python: a triple-quoted string */
	int depth;      /* Python: bracket depth before the token */
	size_t ndigits;
	long long value;
	size_t inner, ninner; /* strings: the text between the quotes */
};

struct tok_list {
	struct tok *t;
	size_t n, alloc;
};

/* At most this many tokens per scan (KP_ETOOBIG past it). */
#define TUNE_MAX_TOKENS (1u << 20)

/* Scans src[start, end), whose first byte is on line `line0`; appends to out. */
int kp__tune_lex_cuda(const char *src, size_t start, size_t end, int line0, struct tok_list *out,
                      struct kp_error *err);
int kp__tune_lex_python(const char *src, size_t len, struct tok_list *out, struct kp_error *err);
void kp__tune_toks_release(struct tok_list *l);

/* The token is punctuation `s` / the identifier `s`. */
int kp__tune_tok_is(const char *src, const struct tok *t, const char *s);
int kp__tune_tok_ident(const char *src, const struct tok *t, const char *s);

#endif
