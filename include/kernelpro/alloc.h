/* Allocation wrappers that never return NULL: out of memory goes through one hook and aborts. */
#ifndef KERNELPRO_ALLOC_H
#define KERNELPRO_ALLOC_H

#include <stddef.h>

/* Each aborts through the OOM hook rather than returning NULL. */
void *kp_xmalloc(size_t n);
void *kp_xcalloc(size_t nmemb, size_t size);
void *kp_xrealloc(void *p, size_t n);
char *kp_xstrdup(const char *s);
char *kp_xstrndup(const char *s, size_t n); /* at most n bytes, stopping at a NUL */
/* Exactly n bytes (NUL bytes included) plus a terminating NUL: for data whose length is known. */
char *kp_xmemdupz(const void *p, size_t n);
/* Allocated, printf-formatted string; the caller frees it. */
char *kp_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* a * b, aborting on overflow. */
size_t kp_st_mult(size_t a, size_t b);
size_t kp_st_add(size_t a, size_t b);

/*
 * Called with the size that could not be allocated; must not return.
 * The default prints one line to stderr and aborts.
 */
typedef void (*kp_oom_fn)(size_t n);
void kp_set_oom_handler(kp_oom_fn fn);

/* Grows array `x` (with `alloc` slots) so that it holds at least `nr` items. */
#define KP_ALLOC_GROW(x, nr, alloc)                                            \
	do {                                                                   \
		if ((size_t)(nr) > (size_t)(alloc)) {                          \
			size_t kp__n = (alloc) < 8 ? 8 : (size_t)(alloc);      \
			while (kp__n < (size_t)(nr))                           \
				kp__n = kp_st_mult(kp__n, 2);                  \
			(x) = kp_xrealloc((x), kp_st_mult(kp__n, sizeof(*(x)))); \
			(alloc) = kp__n;                                       \
		}                                                              \
	} while (0)

/* Aborts with file and line: for states the code must never reach. */
#define KP_BUG(...) kp__bug(__FILE__, __LINE__, __VA_ARGS__)
_Noreturn void kp__bug(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define KP_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
