/* kp_strmap: an open-addressing hash map from borrowed strings to indices (FNV-1a, linear probing). */
#include "base/setup.h"

#include "profile/strmap.h"

#define KEEP 1024 /* clearing frees a map larger than this many slots */

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* The slot holding key, or the empty slot where it would go. cap is a power of two, never full. */
static struct kp_strmap_ent *slot(const struct kp_strmap *m, const char *key, uint64_t h)
{
	size_t i = (size_t)h & (m->cap - 1);
	while (m->e[i].key && (m->e[i].hash != h || strcmp(m->e[i].key, key)))
		i = (i + 1) & (m->cap - 1);
	return &m->e[i];
}

size_t *kp_strmap_find(const struct kp_strmap *m, const char *key)
{
	struct kp_strmap_ent *e;
	if (!m->n)
		return NULL;
	e = slot(m, key, hash(key));
	return e->key ? &e->val : NULL;
}

static void grow(struct kp_strmap *m)
{
	struct kp_strmap old = *m;
	m->cap = old.cap ? old.cap * 2 : 16;
	m->e = kp_xcalloc(m->cap, sizeof(*m->e));
	for (size_t i = 0; i < old.cap; i++)
		if (old.e[i].key)
			*slot(m, old.e[i].key, old.e[i].hash) = old.e[i];
	free(old.e);
}

void kp_strmap_set(struct kp_strmap *m, const char *key, size_t val)
{
	uint64_t h = hash(key);
	struct kp_strmap_ent *e;
	if (2 * (m->n + 1) > m->cap)
		grow(m);
	e = slot(m, key, h);
	if (!e->key) {
		e->key = key;
		e->hash = h;
		m->n++;
	}
	e->val = val;
}

void kp_strmap_clear(struct kp_strmap *m)
{
	if (m->cap > KEEP) {
		kp_strmap_release(m);
		return;
	}
	if (m->e)
		memset(m->e, 0, m->cap * sizeof(*m->e));
	m->n = 0;
}

void kp_strmap_release(struct kp_strmap *m)
{
	free(m->e);
	m->e = NULL;
	m->cap = m->n = 0;
}
