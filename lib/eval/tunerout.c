/* A tuning run's results for people and programs: the table of trials and the JSON document. */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/json.h"
#include "kernelpro/tuner.h"

void kp_tuner_table(const struct kp_tuner_result *r, struct kp_buf *out)
{
	if (r->space)
		kp_tune_result_table(r->space, &r->tune, isfinite(r->ref_s) ? r->ref_s : 0, out);
}

static json_t *ratio(double num, double den)
{
	return num > 0 && den > 0 && isfinite(num) && isfinite(den) ? kp_json_real(num / den) : json_null();
}

static double ok_seconds(const struct kp_tune_result *t, long i)
{
	return i >= 0 && t->trials[i].m.status == KP_TUNE_OK ? t->trials[i].m.seconds : NAN;
}

json_t *kp_tuner_to_json(const struct kp_tuner_result *r)
{
	const struct kp_tune_result *t = &r->tune;
	json_t *o = r->space ? kp_tune_result_to_json(r->space, t) : json_object();
	json_t *trials = json_object_get(o, "trials"), *untuned = json_object();
	size_t *order = kp_xcalloc(t->ntrials ? t->ntrials : 1, sizeof(*order));
	double def = ok_seconds(t, t->def), best = ok_seconds(t, t->best);

	kp_tune_result_ranked(t, order);
	for (size_t k = 0; k < t->ntrials; k++) {
		size_t i = order[k];
		json_t *j = json_array_get(trials, i);
		double s = ok_seconds(t, (long)i);
		kp_json_set(j, "rank", json_integer((json_int_t)k + 1));
		kp_json_set(j, "speedup_vs_untuned", ratio(def, s));
		kp_json_set(j, "speedup_vs_reference", ratio(r->ref_s, s));
		if (r->notes && r->notes[i].verdict != KP_STATUS_NONE) {
			kp_json_set(j, "verdict", json_string(kp_status_name(r->notes[i].verdict)));
			kp_json_set(j, "message",
			            r->notes[i].message ? json_string(r->notes[i].message) : json_null());
			kp_json_set(j, "wall_s", kp_json_real(r->notes[i].wall_s));
		}
	}
	if (r->space)
		kp_json_set(o, "space", kp_tune_space_to_json(r->space));
	kp_json_set(o, "gpu", json_string(r->gpu));
	kp_json_set(o, "evaluated", json_integer((json_int_t)r->evaluated));
	kp_json_set(o, "wall_s", kp_json_real(r->wall_s));
	kp_json_set(o, "variants_per_minute",
	            r->wall_s > 0 ? kp_json_real(60.0 * (double)r->evaluated / r->wall_s) : json_null());
	kp_json_set(o, "reference_seconds", isfinite(r->ref_s) ? kp_json_real(r->ref_s) : json_null());
	kp_json_set(untuned, "status", json_string(kp_status_name(r->untuned.status)));
	kp_json_set(untuned, "seconds",
	            r->untuned.status == KP_STATUS_CORRECT && isfinite(r->untuned.runtime.median_ms)
	                ? kp_json_real(r->untuned.runtime.median_ms / 1e3)
	                : json_null());
	kp_json_set(untuned, "message", r->untuned.message ? json_string(r->untuned.message) : json_null());
	kp_json_set(o, "untuned", untuned);
	if (t->best >= 0 && r->space) {
		struct kp_buf p = KP_BUF_INIT;
		kp_tune_point_format(r->space, &t->trials[t->best].point, &p);
		kp_json_set(o, "best_point", json_string(p.buf));
		kp_buf_release(&p);
	} else {
		kp_json_set(o, "best_point", json_null());
	}
	kp_json_set(o, "best_seconds", isfinite(best) ? kp_json_real(best) : json_null());
	kp_json_set(o, "speedup_vs_untuned", ratio(def, best));
	kp_json_set(o, "speedup_vs_reference", ratio(r->ref_s, best));
	if (r->worker_note[0])
		kp_json_set(o, "worker_note", json_string(r->worker_note));
	free(order);
	return o;
}
