/*
 * kp_strmap: string -> index, open addressing, for the parsers' lookups (a function by name, an
 * opcode in a function) so that a file with many of them parses in linear time. Internal to
 * lib/profile.
 */
#ifndef KP_PROFILE_STRMAP_H
#define KP_PROFILE_STRMAP_H

#include <stddef.h>
#include <stdint.h>

struct kp_strmap_ent {
	const char *key; /* NULL: empty slot */
	uint64_t hash;
	size_t val;
};

/* Zeroed is empty. */
struct kp_strmap {
	struct kp_strmap_ent *e;
	size_t cap, n;
};

/* The value stored under key, or NULL. */
size_t *kp_strmap_find(const struct kp_strmap *m, const char *key);
/* Stores val under key (replacing any); the map keeps the pointer: key must outlive it. */
void kp_strmap_set(struct kp_strmap *m, const char *key, size_t val);
/* Empties the map (its storage is kept when small, freed when large). */
void kp_strmap_clear(struct kp_strmap *m);
/* Frees the storage; safe twice and on a zeroed map. */
void kp_strmap_release(struct kp_strmap *m);

#endif
