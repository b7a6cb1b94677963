/* Content hashes: SHA-256 through libcrypto, as lowercase hex. */
#ifndef KERNELPRO_HASH_H
#define KERNELPRO_HASH_H

#include <stddef.h>

#define KP_SHA256_HEX_LEN 64

/* Incremental hashing: init, update any number of times, final. */
struct kp_sha256 {
	void *ctx; /* EVP_MD_CTX */
};

void kp_sha256_init(struct kp_sha256 *h);
void kp_sha256_update(struct kp_sha256 *h, const void *data, size_t n);
/* Adds a string and its terminating NUL, so ("ab","c") and ("a","bc") differ. */
void kp_sha256_update_str(struct kp_sha256 *h, const char *s);
/* Writes 64 hex digits and a NUL into `hex`; releases the context. */
void kp_sha256_final(struct kp_sha256 *h, char hex[KP_SHA256_HEX_LEN + 1]);

void kp_sha256_hex(const void *data, size_t n, char hex[KP_SHA256_HEX_LEN + 1]);

#endif
