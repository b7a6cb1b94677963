/* kp_secret: the process's secrets (API keys): held out of the environment, and scrubbed from output. */
#ifndef KERNELPRO_SECRET_H
#define KERNELPRO_SECRET_H

#include <stddef.h>

#include "kernelpro/buf.h"

/*
 * Call once, first thing in main, before any thread starts. Every environment variable whose name
 * holds a secret word (KEY, TOKEN, SECRET, PASSWORD, PASSWD, CREDENTIAL, AUTH, JWT) is taken out of
 * the environment into memory of our own: unsetenv'd, and its value overwritten with NULs where the
 * kernel put it, which is what /proc/PID/environ shows, so no process that can read our /proc
 * entries (model-written code run as the same user, root in a container) finds it there. Held
 * values of 16 characters or more are registered for scrubbing. Reading stays possible through
 * kp_secret_getenv; a child that inherits the whole environment (kp_child inherit_env) gets them back.
 */
void kp_secret_hold_env(void);

/* The held value of `name`, else getenv(name). The pointer stays valid for the process's life. */
const char *kp_secret_getenv(const char *name);

/* The held entries, "NAME=value", NULL-terminated (empty when nothing is held). */
const char *const *kp_secret_held(void);

/* True when a variable called name[0..n) is treated as a secret (the words above). */
int kp_secret_name(const char *name, size_t n);

/* Registers `value` (8 characters or more; shorter ones are ignored) for scrubbing. Thread-safe. */
void kp_secret_add(const char *value);

/*
 * The one scrub every writer goes through: each registered secret in data[0..len) replaced by
 * "[redacted]". Returns NULL when there is none (the data can be written as it is), else an
 * allocated copy the caller frees, its length in *out_len.
 */
char *kp_secret_scrub(const void *data, size_t len, size_t *out_len);

/* The same over a buffer, in place. Returns 1 when something was replaced. */
int kp_secret_scrub_buf(struct kp_buf *b);

#endif
