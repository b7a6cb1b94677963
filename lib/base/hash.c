/* SHA-256 content hashes through libcrypto's EVP interface (no hand-written crypto). */
#include "base/setup.h"

#include <openssl/evp.h>

#include "kernelpro/hash.h"

void kp_sha256_init(struct kp_sha256 *h)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	if (!ctx || EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1)
		KP_BUG("libcrypto cannot initialise SHA-256");
	h->ctx = ctx;
}

void kp_sha256_update(struct kp_sha256 *h, const void *data, size_t n)
{
	if (n && EVP_DigestUpdate(h->ctx, data, n) != 1)
		KP_BUG("libcrypto SHA-256 update failed");
}

void kp_sha256_update_str(struct kp_sha256 *h, const char *s)
{
	kp_sha256_update(h, s, strlen(s) + 1);
}

void kp_sha256_final(struct kp_sha256 *h, char hex[KP_SHA256_HEX_LEN + 1])
{
	static const char digits[] = "0123456789abcdef";
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	if (EVP_DigestFinal_ex(h->ctx, md, &n) != 1 || n != 32)
		KP_BUG("libcrypto SHA-256 final failed");
	EVP_MD_CTX_free(h->ctx);
	h->ctx = NULL;
	for (unsigned int i = 0; i < n; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 15];
	}
	hex[64] = '\0';
}

void kp_sha256_hex(const void *data, size_t n, char hex[KP_SHA256_HEX_LEN + 1])
{
	struct kp_sha256 h;
	kp_sha256_init(&h);
	kp_sha256_update(&h, data, n);
	kp_sha256_final(&h, hex);
}
