/* Fuzz target: an eval_results.json (kp_recorded_parse, every layout); every entry parsed has ids in
 * range, times that are NAN or >= 0 and bounded messages, survives its JSON round trip, and a
 * refusal says why and keeps nothing. */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/recorded.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_recorded_set s;
	struct kp_error err = KP_ERROR_INIT;

	kp_recorded_set_init(&s);
	if (kp_recorded_parse(&s, (const char *)data, size, 1, "fuzz", &err) == 0) {
		for (size_t i = 0; i < s.n; i++) {
			const struct kp_recorded *r = &s.v[i];
			struct kp_recorded back;
			json_t *j;
			if (r->problem_id < 1 || r->sample_id < 0 || r->level < 0 ||
			    !(isnan(r->runtime_ms) || r->runtime_ms >= 0) ||
			    !(isnan(r->ref_ms) || r->ref_ms >= 0) ||
			    (r->message && strlen(r->message) > KP_RECORDED_MSG_MAX) ||
			    kp_recorded_find(&s, r->level, r->problem_id, r->epoch, r->sample_id) != r)
				abort();
			kp_recorded_init(&back);
			j = kp_recorded_to_json(r);
			if (kp_recorded_from_json(&back, j, &err) || back.problem_id != r->problem_id ||
			    back.correct != r->correct)
				abort();
			json_decref(j);
			kp_recorded_release(&back);
		}
	} else if (!err.msg[0] || s.n) {
		abort(); /* a refusal always says why, and keeps nothing */
	}
	kp_recorded_set_release(&s);
	return 0;
}
