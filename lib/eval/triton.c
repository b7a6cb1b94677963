/*
 * Triton in the evaluation: where a candidate's Triton kernels are compiled and cached. Triton keys
 * its own cache by kernel source, options and versions; kernelpro gives each candidate source a
 * directory of its own so that it compiles once (the evaluation, the warm worker's children and the
 * profiling run share it) and its cubins and metadata can be read back as its own (lib/profile).
 */
#include "base/setup.h"

#include "eval/drivers.h"
#include "kernelpro/hash.h"
#include "kernelpro/str.h"

char *kp_eval_triton_cache(const struct kp_toolchain *tc, const char *cand_sha, const struct kp_task *t)
{
	char hex[KP_SHA256_HEX_LEN + 1];
	const char *key = cand_sha;

	if (!key || !*key) {
		const char *src = t && t->source ? t->source : "";
		kp_sha256_hex(src, strlen(src), hex);
		key = hex;
	}
	return kp_xasprintf("%s/triton/%.16s", tc->cache, key);
}
