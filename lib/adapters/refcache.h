/* The reference's timing and profile kept across runs, by content (lib/adapters/refcache.c). */
#ifndef KP_ADAPTERS_REFCACHE_H
#define KP_ADAPTERS_REFCACHE_H

#include "kernelpro/search.h"
#include "kernelpro/search_backends.h"
#include "kernelpro/str.h"

/* The key: "" (no caching) when the options name no task identity or GPU. */
void kp_refcache_key(const struct kp_harness_opts *o, const struct kp_strvec *metrics, char hex[65]);

/*
 * 0 and `out` filled (its profile files copied into `profile_dir`, the profile JSON's "dir" pointing
 * there, *floor_s the anti-cheat floor) when the cache has `key`; KP_EMISSING otherwise (nothing
 * changed). `out` is initialised by the caller.
 */
int kp_refcache_load(const char *key, const char *profile_dir, struct kp_search_eval *out, double *floor_s);

/* Keeps `res` and the files of `profile_dir` under `key`; best effort (a warning on failure). */
void kp_refcache_store(const char *key, const char *profile_dir, const struct kp_search_eval *res, double floor_s);

#endif
