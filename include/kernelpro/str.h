/* Small string helpers: strict number parsing, prefixes, bounded copies. */
#ifndef KERNELPRO_STR_H
#define KERNELPRO_STR_H

#include <stddef.h>

/* Whole-string parses: leading/trailing spaces allowed, anything else fails with KP_EINVAL. */
int kp_parse_long(const char *s, long *out);
int kp_parse_double(const char *s, double *out);
/* Like kp_parse_long but also accepts a size suffix: k, M, G (powers of 1024). */
int kp_parse_size(const char *s, size_t *out);
/* A duration: "90", "90s", "30m", "2h", "1.5h" -> seconds (> 0); KP_EINVAL otherwise. */
int kp_parse_duration(const char *s, double *out);

int kp_starts_with(const char *s, const char *prefix);

/*
 * The word for a count: `one` when n is 1 (or -1), else `many`: "%ld %s", n, kp_plural(n,
 * "evaluation", "evaluations"). Both borrowed; the result is one of them.
 */
const char *kp_plural(long long n, const char *one, const char *many);
int kp_ends_with(const char *s, const char *suffix);

/* Copies at most n-1 bytes and terminates; returns strlen(src) (>= n means truncated). */
size_t kp_strlcpy(char *dst, const char *src, size_t n);

/* Trims ASCII whitespace in place; returns s advanced past leading space. */
char *kp_str_trim(char *s);

/* Case-insensitive ASCII comparison. */
int kp_str_ieq(const char *a, const char *b);

#endif
