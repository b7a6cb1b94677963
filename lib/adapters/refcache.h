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

/*
 * The key's lock (flock on <cache>/references/<key>.lock), held while the reference is evaluated, so
 * runs that start side by side (bench --per-gpu, several samples of one problem) evaluate it once and
 * the others load it: a file descriptor to pass to kp_refcache_unlock, or -1 when there is no key or
 * no lock could be had (then each evaluates it, as before). Blocks while another process holds it.
 */
int kp_refcache_lock(const char *key);
void kp_refcache_unlock(int fd);

/* Keeps `res` and the files of `profile_dir` under `key`; best effort (a warning on failure). */
void kp_refcache_store(const char *key, const char *profile_dir, const struct kp_search_eval *res, double floor_s);

#endif
