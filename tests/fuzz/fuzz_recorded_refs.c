/* Fuzz target: KernelBench's reference times, baseline_time_torch.json (kp_recorded_refs_parse); every
 * entry parsed has a level and problem in range, a finite mean > 0, is the one found for its ids, and
 * a refusal says why and keeps nothing. */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/recorded.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_recorded_refs s;
	struct kp_error err = KP_ERROR_INIT;

	kp_recorded_refs_init(&s);
	if (kp_recorded_refs_parse(&s, (const char *)data, size, "fuzz", &err) == 0) {
		if (s.n > KP_RECORDED_REFS_MAX)
			abort();
		for (size_t i = 0; i < s.n; i++) {
			const struct kp_recorded_ref *r = &s.v[i];
			if (r->level < 1 || r->level > 999 || r->problem_id < 1 || !isfinite(r->mean_ms) || !(r->mean_ms > 0) ||
			    kp_recorded_ref_ms(&s, r->level, r->problem_id) != r->mean_ms)
				abort();
		}
	} else if (!err.msg[0] || s.n) {
		abort(); /* a refusal always says why, and keeps nothing */
	}
	kp_recorded_refs_release(&s);
	return 0;
}
