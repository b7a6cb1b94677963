/* kp_arena: a bump allocator for short-lived trees (one parsed CSV or disassembly), freed all at once. */
#ifndef KERNELPRO_ARENA_H
#define KERNELPRO_ARENA_H

#include <stddef.h>

/*
 * Memory handed out stays valid until kp_arena_release(). Allocations are
 * 16-byte aligned and zeroed; out of memory aborts through the OOM hook.
 */
struct kp_arena {
	struct kp_arena_block *head;
	size_t used;   /* bytes handed out, for statistics */
};

#define KP_ARENA_INIT {NULL, 0}

void *kp_arena_alloc(struct kp_arena *a, size_t n);
/* n elements of `size` bytes, zeroed, aborting on overflow. */
void *kp_arena_calloc(struct kp_arena *a, size_t nmemb, size_t size);
char *kp_arena_strdup(struct kp_arena *a, const char *s);
char *kp_arena_strndup(struct kp_arena *a, const char *s, size_t n);
/* Frees every block. Safe twice and on a zeroed arena. */
void kp_arena_release(struct kp_arena *a);

#endif
