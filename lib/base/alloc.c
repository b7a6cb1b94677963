/* Allocation wrappers: out of memory is not recoverable for a CLI, so it aborts through one hook. */
#include "base/setup.h"

static void default_oom(size_t n)
{
	fprintf(stderr, "kernelpro: fatal: out of memory allocating %zu bytes\n", n);
	abort();
}

static kp_oom_fn oom_fn = default_oom;

void kp_set_oom_handler(kp_oom_fn fn)
{
	oom_fn = fn ? fn : default_oom;
}

static _Noreturn void oom(size_t n)
{
	oom_fn(n);
	abort();
}

void *kp_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *kp_xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		oom(kp_st_mult(nmemb, size));
	return p;
}

void *kp_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom(n);
	return q;
}

char *kp_xstrdup(const char *s)
{
	return kp_xstrndup(s, strlen(s));
}

char *kp_xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = kp_xmalloc(kp_st_add(len, 1));
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *kp_xmemdupz(const void *p, size_t n)
{
	char *d = kp_xmalloc(kp_st_add(n, 1));
	if (n)
		memcpy(d, p, n);
	d[n] = '\0';
	return d;
}

char *kp_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;
	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom(strlen(fmt));
	return s;
}

size_t kp_st_mult(size_t a, size_t b)
{
	size_t r;
	if (__builtin_mul_overflow(a, b, &r))
		KP_BUG("size overflow: %zu * %zu", a, b);
	return r;
}

size_t kp_st_add(size_t a, size_t b)
{
	size_t r;
	if (__builtin_add_overflow(a, b, &r))
		KP_BUG("size overflow: %zu + %zu", a, b);
	return r;
}

void kp__bug(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "kernelpro: BUG: %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}
