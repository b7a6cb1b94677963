/*
 * libFuzzer target: the tuning result cache's file format (kp_tune_fcache_parse). Checks what it hands
 * out: every field present, a known status, a positive finite time exactly for "ok" results, and the
 * count of skipped lines no more than the lines there are.
 */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/tune.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(void *ctx, const struct kp_tune_fcache_line *l)
{
	size_t *n = ctx;
	(*n)++;
	if (!l->context || !l->gpu || !l->point || strchr(l->gpu, '\n'))
		abort();
	if (l->m.status == KP_TUNE_OK ? !(isfinite(l->m.seconds) && l->m.seconds > 0) : l->m.seconds != 0)
		abort();
	if (strcmp(kp_tune_status_name(l->m.status), "unknown") == 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t good = 0, lines = 1, bad;
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	bad = kp_tune_fcache_parse((const char *)data, size, check, &good);
	if (good + bad > lines)
		abort();
	return 0;
}
