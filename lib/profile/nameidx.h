/*
 * kp_nameidx: a sorted index over an array of structs by a string field (and an optional second
 * one, an architecture), so that joining launches to SASS and ptxas functions by name costs
 * O(log n) per lookup instead of a scan. Internal to lib/profile.
 */
#ifndef KP_PROFILE_NAMEIDX_H
#define KP_PROFILE_NAMEIDX_H

#include <stddef.h>

#define KP_NAMEIDX_NONE ((size_t)-1)

struct kp_nameidx {
	size_t *ix; /* element indices: by field, then second field (NULL first), then file order */
	size_t n;
	const char *base;
	size_t size, off, off2;
};

/*
 * Indexes the `nmemb` elements of `size` bytes at base whose `const char *` at byte offset `off`
 * is not NULL (and, when keep is given, for which keep(elem) is true); `off2` is the second
 * field's offset or KP_NAMEIDX_NONE. The array must not move while the index is used.
 */
void kp_nameidx_build(struct kp_nameidx *x, const void *base, size_t nmemb, size_t size, size_t off,
                      size_t off2, int (*keep)(const void *elem));
void kp_nameidx_release(struct kp_nameidx *x);

/* The first element in array order whose field equals name, or NULL. */
const void *kp_nameidx_first(const struct kp_nameidx *x, const char *name);
/*
 * The one element whose field equals name and whose second field is NULL or equal to `second`
 * (any second field when `second` is NULL); NULL when there is none or more than one.
 */
const void *kp_nameidx_unique(const struct kp_nameidx *x, const char *name, const char *second);

#endif
