/* The scrubber: strings that must never be written anywhere (the key in use, other key variables). */
#ifndef KP_LLM_REDACT_H
#define KP_LLM_REDACT_H

#include <stddef.h>

#include "kernelpro/buf.h"

#define KP_LLM_MAX_SECRETS 8

struct kp_redactor {
	char *secret[KP_LLM_MAX_SECRETS];
	size_t n;
};

void kp_redactor_init(struct kp_redactor *r);
/* Adds the value of env var `name` when it is set and long enough to be a key. */
void kp_redactor_add_env(struct kp_redactor *r, const char *name);
void kp_redactor_add(struct kp_redactor *r, const char *secret);
void kp_redactor_release(struct kp_redactor *r);
/*
 * Replaces every secret with "[redacted]", in place. With `keyish`, also every
 * word that looks like a provider key ("sk-...", including masked echoes such
 * as "sk-abc***xyz"): for server messages and logs, not for prompts and code.
 */
void kp_redact_buf(const struct kp_redactor *r, struct kp_buf *b, int keyish);
/* The same, keyish words included, into a fixed buffer (a kp_error message). */
void kp_redact_str(const struct kp_redactor *r, char *s, size_t size);

#endif
