/* kp_strvec: NULL-terminated vectors of owned strings. */
#include "base/setup.h"

#include "kernelpro/buf.h"
#include "kernelpro/strvec.h"

void kp_strvec_init(struct kp_strvec *sv)
{
	sv->v = NULL;
	sv->n = 0;
	sv->alloc = 0;
}

void kp_strvec_release(struct kp_strvec *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	kp_strvec_init(sv);
}

void kp_strvec_push_nodup(struct kp_strvec *sv, char *s)
{
	KP_ALLOC_GROW(sv->v, sv->n + 2, sv->alloc);
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
}

void kp_strvec_push(struct kp_strvec *sv, const char *s)
{
	kp_strvec_push_nodup(sv, kp_xstrdup(s));
}

void kp_strvec_pushf(struct kp_strvec *sv, const char *fmt, ...)
{
	struct kp_buf b = KP_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	kp_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	kp_strvec_push_nodup(sv, kp_buf_detach(&b, NULL));
}

void kp_strvec_pushl(struct kp_strvec *sv, ...)
{
	va_list ap;
	const char *s;
	va_start(ap, sv);
	while ((s = va_arg(ap, const char *)))
		kp_strvec_push(sv, s);
	va_end(ap);
}

void kp_strvec_pushv(struct kp_strvec *sv, const char *const *v)
{
	for (; v && *v; v++)
		kp_strvec_push(sv, *v);
}

void kp_strvec_pop(struct kp_strvec *sv)
{
	if (!sv->n)
		return;
	free(sv->v[--sv->n]);
	sv->v[sv->n] = NULL;
}

long kp_strvec_find(const struct kp_strvec *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return (long)i;
	return -1;
}

char *kp_strvec_join(const struct kp_strvec *sv, const char *sep)
{
	struct kp_buf b = KP_BUF_INIT;
	for (size_t i = 0; i < sv->n; i++) {
		if (i)
			kp_buf_adds(&b, sep);
		kp_buf_adds(&b, sv->v[i]);
	}
	return kp_buf_detach(&b, NULL);
}

void kp_strvec_split(struct kp_strvec *sv, const char *s, char sep)
{
	const char *p = s;
	for (;;) {
		const char *q = strchr(p, sep);
		if (!q) {
			kp_strvec_push(sv, p);
			return;
		}
		kp_strvec_push_nodup(sv, kp_xstrndup(p, (size_t)(q - p)));
		p = q + 1;
	}
}
