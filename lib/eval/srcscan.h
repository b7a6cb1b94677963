/* Source scanning for the static checks: Python split into code and string literals; C/CUDA with
 * comments and string literals blanked. Line structure is kept so evidence can cite line numbers. */
#ifndef KP_EVAL_SRCSCAN_H
#define KP_EVAL_SRCSCAN_H

#include <stddef.h>

#include "kernelpro/buf.h"

struct kp_pystr {
	char *text;  /* the literal's content between its quotes, escapes left as written */
	int line;    /* 1-based line where the literal starts */
};

struct kp_pysrc {
	struct kp_buf code;      /* the source with comments blanked and every string literal reduced to
				  * "" followed by the newlines it contained */
	struct kp_pystr *strs;
	size_t nstrs, alloc;
};

/* Splits `src` (any bytes; unterminated strings end at the end of input). */
void kp_pysrc_parse(struct kp_pysrc *p, const char *src, size_t len);
void kp_pysrc_release(struct kp_pysrc *p);

/* Appends `src` with // and block comments and "..."/'...' literals blanked (newlines kept). */
void kp_csrc_strip(struct kp_buf *out, const char *src, size_t len);

/* 1-based line of byte offset `off` in `text`. */
int kp_src_line_of(const char *text, size_t off);

#endif
