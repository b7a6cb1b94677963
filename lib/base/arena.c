/* kp_arena: bump allocation in growing blocks, released together. */
#include "base/setup.h"

#include "kernelpro/arena.h"

struct kp_arena_block {
	struct kp_arena_block *next;
	size_t size, off;
	_Alignas(16) unsigned char data[];
};

#define KP_ARENA_MIN_BLOCK (64u << 10)

void *kp_arena_alloc(struct kp_arena *a, size_t n)
{
	struct kp_arena_block *b = a->head;
	size_t need = kp_st_add(n, 15) & ~(size_t)15;
	void *p;
	if (!need)
		need = 16;
	if (!b || b->size - b->off < need) {
		size_t size = need > KP_ARENA_MIN_BLOCK ? need : KP_ARENA_MIN_BLOCK;
		b = kp_xmalloc(kp_st_add(sizeof(*b), size));
		b->size = size;
		b->off = 0;
		b->next = a->head;
		a->head = b;
	}
	p = b->data + b->off;
	b->off += need;
	a->used += need;
	memset(p, 0, n);
	return p;
}

void *kp_arena_calloc(struct kp_arena *a, size_t nmemb, size_t size)
{
	return kp_arena_alloc(a, kp_st_mult(nmemb, size));
}

char *kp_arena_strndup(struct kp_arena *a, const char *s, size_t n)
{
	char *p = kp_arena_alloc(a, kp_st_add(n, 1));
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *kp_arena_strdup(struct kp_arena *a, const char *s)
{
	return kp_arena_strndup(a, s, strlen(s));
}

void kp_arena_release(struct kp_arena *a)
{
	struct kp_arena_block *b = a->head;
	while (b) {
		struct kp_arena_block *next = b->next;
		free(b);
		b = next;
	}
	a->head = NULL;
	a->used = 0;
}
