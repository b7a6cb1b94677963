/* Small string helpers used everywhere instead of atoi/strcpy and friends. */
#include "base/setup.h"

#include <ctype.h>
#include <math.h>

#include "kernelpro/str.h"

static const char *skip_space(const char *s)
{
	while (*s && isspace((unsigned char)*s))
		s++;
	return s;
}

int kp_parse_long(const char *s, long *out)
{
	char *end;
	long v;
	if (!s)
		return KP_EINVAL;
	s = skip_space(s);
	if (!*s)
		return KP_EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *skip_space(end))
		return KP_EINVAL;
	*out = v;
	return 0;
}

int kp_parse_double(const char *s, double *out)
{
	char *end;
	double v;
	if (!s)
		return KP_EINVAL;
	s = skip_space(s);
	if (!*s)
		return KP_EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno == ERANGE && fabs(v) > 1.0)
		return KP_EINVAL;
	if (end == s || *skip_space(end))
		return KP_EINVAL;
	*out = v;
	return 0;
}

int kp_parse_size(const char *s, size_t *out)
{
	char *end;
	unsigned long long v, mult = 1;
	if (!s)
		return KP_EINVAL;
	s = skip_space(s);
	if (!*s || *s == '-')
		return KP_EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return KP_EINVAL;
	switch (*end) {
	case 'k': case 'K': mult = 1ull << 10; end++; break;
	case 'm': case 'M': mult = 1ull << 20; end++; break;
	case 'g': case 'G': mult = 1ull << 30; end++; break;
	default: break;
	}
	if (*skip_space(end) || (v && mult > (unsigned long long)SIZE_MAX / v))
		return KP_EINVAL;
	*out = (size_t)(v * mult);
	return 0;
}

int kp_parse_duration(const char *s, double *out)
{
	char num[64];
	size_t n = s ? strlen(s) : 0;
	double mult = 1, v;

	if (!n || n >= sizeof(num))
		return KP_EINVAL;
	memcpy(num, s, n + 1);
	switch (num[n - 1]) {
	case 's': num[n - 1] = '\0'; break;
	case 'm':
		mult = 60;
		num[n - 1] = '\0';
		break;
	case 'h':
		mult = 3600;
		num[n - 1] = '\0';
		break;
	default: break;
	}
	if (kp_parse_double(num, &v) || !(v > 0) || !isfinite(v))
		return KP_EINVAL;
	*out = v * mult;
	return 0;
}

const char *kp_plural(long long n, const char *one, const char *many)
{
	return n == 1 || n == -1 ? one : many;
}

int kp_starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

int kp_ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !memcmp(s + n - m, suffix, m);
}

size_t kp_strlcpy(char *dst, const char *src, size_t n)
{
	size_t len = strlen(src);
	if (n) {
		size_t c = len < n - 1 ? len : n - 1;
		memcpy(dst, src, c);
		dst[c] = '\0';
	}
	return len;
}

char *kp_str_trim(char *s)
{
	size_t n;
	while (*s && isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

int kp_str_ieq(const char *a, const char *b)
{
	return !strcasecmp(a, b);
}
