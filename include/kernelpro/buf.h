/* kp_buf: the one growable byte buffer, always NUL-terminated, with an optional size cap. */
#ifndef KERNELPRO_BUF_H
#define KERNELPRO_BUF_H

#include <stdarg.h>
#include <stddef.h>

/*
 * Invariants: `buf` is never NULL and buf[len] == '\0'. Memory belongs to
 * the buffer until kp_buf_detach(). `cap` bounds `len` (0 = no cap): an
 * append that would pass it appends nothing and returns KP_ETOOBIG, so data
 * from outside (child output, HTTP bodies, files) can never grow unbounded.
 */
struct kp_buf {
	char *buf;
	size_t len;
	size_t alloc;
	size_t cap;
};

extern char kp_buf_slopbuf[];
#define KP_BUF_INIT {kp_buf_slopbuf, 0, 0, 0}

/* Lifecycle. */
void kp_buf_init(struct kp_buf *b, size_t cap);
/* Frees the storage and leaves an empty buffer (cap kept). Safe twice. */
void kp_buf_release(struct kp_buf *b);
/* Returns the string, which the caller now owns and frees; leaves b empty. */
char *kp_buf_detach(struct kp_buf *b, size_t *len);
void kp_buf_reset(struct kp_buf *b);

/* Appending. Each returns 0, or KP_ETOOBIG when the cap would be passed. */
int kp_buf_add(struct kp_buf *b, const void *data, size_t n);
int kp_buf_adds(struct kp_buf *b, const char *s);
int kp_buf_addch(struct kp_buf *b, char c);
int kp_buf_addf(struct kp_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int kp_buf_vaddf(struct kp_buf *b, const char *fmt, va_list ap);
/* Appends `n` bytes of `s` with JSON/C-style escaping of controls, quotes and backslashes. */
int kp_buf_add_escaped(struct kp_buf *b, const char *s, size_t n);

/* Makes room for `extra` more bytes without changing len. Same cap rule. */
int kp_buf_grow(struct kp_buf *b, size_t extra);
/* Sets len (<= alloc-1 after a grow) and terminates. */
void kp_buf_setlen(struct kp_buf *b, size_t len);
/* Removes trailing whitespace. */
void kp_buf_rtrim(struct kp_buf *b);

#endif
