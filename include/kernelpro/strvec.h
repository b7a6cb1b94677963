/* kp_strvec: a NULL-terminated vector of owned strings, for argv, env and lists. */
#ifndef KERNELPRO_STRVEC_H
#define KERNELPRO_STRVEC_H

#include <stddef.h>

/* v[n] is always NULL once anything was pushed; v is NULL only when empty. */
struct kp_strvec {
	char **v;
	size_t n;
	size_t alloc;
};

#define KP_STRVEC_INIT {NULL, 0, 0}

void kp_strvec_init(struct kp_strvec *sv);
/* Frees every string and the array. Safe twice. */
void kp_strvec_release(struct kp_strvec *sv);

/* Each copies its argument. */
void kp_strvec_push(struct kp_strvec *sv, const char *s);
void kp_strvec_pushf(struct kp_strvec *sv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Pushes every string up to a NULL. */
void kp_strvec_pushl(struct kp_strvec *sv, ...) __attribute__((sentinel));
void kp_strvec_pushv(struct kp_strvec *sv, const char *const *v);
/* Takes ownership of `s` (allocated). */
void kp_strvec_push_nodup(struct kp_strvec *sv, char *s);
void kp_strvec_pop(struct kp_strvec *sv);

/* Index of the first exact match, or -1. */
long kp_strvec_find(const struct kp_strvec *sv, const char *s);
/* Joined with `sep`; allocated, the caller frees it. */
char *kp_strvec_join(const struct kp_strvec *sv, const char *sep);
/* Splits `s` on `sep` (a single character), pushing every piece, empty ones included. */
void kp_strvec_split(struct kp_strvec *sv, const char *s, char sep);

#endif
