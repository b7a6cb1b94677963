/* kp_nameidx: sorted indices over a string field of an array of structs, searched by bisection. */
#include "base/setup.h"

#include "profile/nameidx.h"

static const char *field(const struct kp_nameidx *x, size_t i, size_t off)
{
	return *(const char *const *)(x->base + i * x->size + off);
}

static int cmp_opt(const char *a, const char *b) /* NULL sorts first */
{
	return !a || !b ? (a != NULL) - (b != NULL) : strcmp(a, b);
}

static int cmp(const void *pa, const void *pb, void *ud)
{
	const struct kp_nameidx *x = ud;
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	int c = strcmp(field(x, a, x->off), field(x, b, x->off));
	if (!c && x->off2 != KP_NAMEIDX_NONE)
		c = cmp_opt(field(x, a, x->off2), field(x, b, x->off2));
	return c ? c : (a > b) - (a < b);
}

void kp_nameidx_build(struct kp_nameidx *x, const void *base, size_t nmemb, size_t size, size_t off,
                      size_t off2, int (*keep)(const void *elem))
{
	x->base = base;
	x->size = size;
	x->off = off;
	x->off2 = off2;
	x->n = 0;
	x->ix = kp_xcalloc(nmemb ? nmemb : 1, sizeof(*x->ix));
	for (size_t i = 0; i < nmemb; i++)
		if (field(x, i, off) && (!keep || keep(x->base + i * size)))
			x->ix[x->n++] = i;
	qsort_r(x->ix, x->n, sizeof(*x->ix), cmp, x);
}

void kp_nameidx_release(struct kp_nameidx *x)
{
	free(x->ix);
	memset(x, 0, sizeof(*x));
}

/*
 * The first position in [lo, hi) whose field (level 0) or second field (level 1) compares >= key,
 * or > key when `after`.
 */
static size_t bound(const struct kp_nameidx *x, size_t lo, size_t hi, int level, const char *key, int after)
{
	size_t off = level ? x->off2 : x->off;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp_opt(field(x, x->ix[mid], off), key);
		if (c < 0 || (after && c == 0))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const void *kp_nameidx_first(const struct kp_nameidx *x, const char *name)
{
	size_t i = bound(x, 0, x->n, 0, name, 0);
	if (i < x->n && !strcmp(field(x, x->ix[i], x->off), name))
		return x->base + x->ix[i] * x->size;
	return NULL;
}

const void *kp_nameidx_unique(const struct kp_nameidx *x, const char *name, const char *second)
{
	size_t lo = bound(x, 0, x->n, 0, name, 0), hi = bound(x, lo, x->n, 0, name, 1);
	size_t nulls, same_lo, same_hi;
	if (!second || x->off2 == KP_NAMEIDX_NONE)
		return hi - lo == 1 ? x->base + x->ix[lo] * x->size : NULL;
	/* within [lo, hi): first those without a second field, then sorted by it */
	nulls = bound(x, lo, hi, 1, NULL, 1);
	same_lo = bound(x, nulls, hi, 1, second, 0);
	same_hi = bound(x, same_lo, hi, 1, second, 1);
	if ((nulls - lo) + (same_hi - same_lo) != 1)
		return NULL;
	return x->base + x->ix[nulls > lo ? lo : same_lo] * x->size;
}
