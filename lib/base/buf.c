/* kp_buf: growable, always-terminated byte buffer with a cap for data from outside. */
#include "base/setup.h"

#include "kernelpro/buf.h"

char kp_buf_slopbuf[1];

void kp_buf_init(struct kp_buf *b, size_t cap)
{
	b->buf = kp_buf_slopbuf;
	b->len = 0;
	b->alloc = 0;
	b->cap = cap;
}

void kp_buf_release(struct kp_buf *b)
{
	if (b->alloc)
		free(b->buf);
	b->buf = kp_buf_slopbuf;
	b->len = 0;
	b->alloc = 0;
}

char *kp_buf_detach(struct kp_buf *b, size_t *len)
{
	char *s;
	if (len)
		*len = b->len;
	s = b->alloc ? b->buf : kp_xstrdup("");
	b->buf = kp_buf_slopbuf;
	b->len = 0;
	b->alloc = 0;
	return s;
}

void kp_buf_reset(struct kp_buf *b)
{
	kp_buf_setlen(b, 0);
}

int kp_buf_grow(struct kp_buf *b, size_t extra)
{
	size_t need = kp_st_add(kp_st_add(b->len, extra), 1);
	if (b->cap && need - 1 > b->cap)
		return KP_ETOOBIG;
	if (need > b->alloc) {
		size_t n = b->alloc < 64 ? 64 : b->alloc;
		char *old = b->alloc ? b->buf : NULL;
		while (n < need)
			n = kp_st_mult(n, 2);
		b->buf = kp_xrealloc(old, n);
		if (!old)
			b->buf[0] = '\0';
		b->alloc = n;
	}
	return 0;
}

void kp_buf_setlen(struct kp_buf *b, size_t len)
{
	if (!b->alloc) {
		if (len)
			KP_BUG("kp_buf_setlen(%zu) on an empty buffer", len);
		return;
	}
	if (len >= b->alloc)
		KP_BUG("kp_buf_setlen(%zu) beyond alloc %zu", len, b->alloc);
	b->len = len;
	b->buf[len] = '\0';
}

int kp_buf_add(struct kp_buf *b, const void *data, size_t n)
{
	if (kp_buf_grow(b, n))
		return KP_ETOOBIG;
	if (!b->alloc)
		return 0; /* n == 0 and nothing allocated: still a valid empty buffer */
	memcpy(b->buf + b->len, data, n);
	kp_buf_setlen(b, b->len + n);
	return 0;
}

int kp_buf_adds(struct kp_buf *b, const char *s)
{
	return kp_buf_add(b, s, strlen(s));
}

int kp_buf_addch(struct kp_buf *b, char c)
{
	return kp_buf_add(b, &c, 1);
}

int kp_buf_vaddf(struct kp_buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;
	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		KP_BUG("bad format string '%s'", fmt);
	if (kp_buf_grow(b, (size_t)n))
		return KP_ETOOBIG;
	if (!b->alloc)
		return 0;
	vsnprintf(b->buf + b->len, (size_t)n + 1, fmt, ap);
	kp_buf_setlen(b, b->len + (size_t)n);
	return 0;
}

int kp_buf_addf(struct kp_buf *b, const char *fmt, ...)
{
	va_list ap;
	int rc;
	va_start(ap, fmt);
	rc = kp_buf_vaddf(b, fmt, ap);
	va_end(ap);
	return rc;
}

int kp_buf_add_escaped(struct kp_buf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		int rc;
		switch (c) {
		case '"': rc = kp_buf_adds(b, "\\\""); break;
		case '\\': rc = kp_buf_adds(b, "\\\\"); break;
		case '\n': rc = kp_buf_adds(b, "\\n"); break;
		case '\r': rc = kp_buf_adds(b, "\\r"); break;
		case '\t': rc = kp_buf_adds(b, "\\t"); break;
		default:
			if (c < 0x20 || c == 0x7f)
				rc = kp_buf_addf(b, "\\u%04x", c);
			else
				rc = kp_buf_addch(b, (char)c);
		}
		if (rc)
			return rc;
	}
	return 0;
}

void kp_buf_rtrim(struct kp_buf *b)
{
	size_t n = b->len;
	while (n > 0 && (b->buf[n - 1] == ' ' || b->buf[n - 1] == '\t' || b->buf[n - 1] == '\n' ||
			 b->buf[n - 1] == '\r'))
		n--;
	if (b->alloc)
		kp_buf_setlen(b, n);
}
