/* JSON form of an energy measurement, and the reader of the kp-energy driver's output. */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/energy.h"
#include "kernelpro/json.h"
#include "kernelpro/str.h"

/* The driver prints one small object; anything bigger is not ours. */
#define DRIVER_OUTPUT_MAX (256u << 10)

static json_t *window_to_json(const struct kp_energy_window *w)
{
	json_t *o = json_object();
	kp_json_set(o, "launches", json_integer(w->launches));
	kp_json_set(o, "seconds", kp_json_real(w->seconds));
	kp_json_set(o, "gpu_seconds", kp_json_real(w->gpu_seconds));
	kp_json_set(o, "energy_j", kp_json_real(w->energy_j));
	kp_json_set(o, "tail_s", kp_json_real(w->tail_s));
	kp_json_set(o, "time_s", kp_json_real(w->time_s));
	kp_json_set(o, "energy_per_launch_j", kp_json_real(w->energy_per_launch_j));
	kp_json_set(o, "dynamic_per_launch_j", kp_json_real(w->dynamic_per_launch_j));
	kp_json_set(o, "power_w", kp_json_real(w->power_w));
	kp_json_set(o, "sm_clock_mhz", kp_json_real(w->sm_clock_mhz));
	kp_json_set(o, "mem_clock_mhz", kp_json_real(w->mem_clock_mhz));
	kp_json_set(o, "temp_start_c", kp_json_real(w->temp_start_c));
	kp_json_set(o, "temp_end_c", kp_json_real(w->temp_end_c));
	return o;
}

json_t *kp_energy_measurement_to_json(const struct kp_energy_measurement *m)
{
	json_t *o = json_object(), *ws = json_array();
	kp_json_set(o, "name", json_string(m->name));
	kp_json_set(o, "device", json_string(m->device));
	kp_json_set(o, "power_limit_w", kp_json_real(m->power_limit_w));
	kp_json_set(o, "idle_power_w", kp_json_real(m->idle_power_w));
	kp_json_set(o, "idle_s", kp_json_real(m->idle_s));
	kp_json_set(o, "time_s", kp_json_real(m->time_s));
	kp_json_set(o, "energy_j", kp_json_real(m->energy_j));
	kp_json_set(o, "dynamic_j", kp_json_real(m->dynamic_j));
	kp_json_set(o, "power_w", kp_json_real(m->power_w));
	kp_json_set(o, "energy_spread", kp_json_real(m->energy_spread));
	kp_json_set(o, "sm_clock_mhz", kp_json_real(m->sm_clock_mhz));
	kp_json_set(o, "mem_clock_mhz", kp_json_real(m->mem_clock_mhz));
	kp_json_set(o, "temp_max_c", kp_json_real(m->temp_max_c));
	kp_json_set(o, "notes", json_string(m->notes));
	for (int i = 0; i < m->nwindows; i++)
		json_array_append_new(ws, window_to_json(&m->w[i]));
	kp_json_set(o, "windows", ws);
	return o;
}

/*
 * A number field: null and absent read as NAN (missing); anything else must be a finite
 * number within [lo, hi].
 */
static int get_num(const json_t *o, const char *key, const char *what, double lo, double hi, double *out,
		   struct kp_error *err)
{
	const json_t *v = json_object_get(o, key);
	*out = NAN;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_number(v))
		return kp_error_set(err, KP_EPARSE, "%s: '%s' is not a number", what, key);
	*out = json_number_value(v);
	if (!isfinite(*out) || *out < lo || *out > hi)
		return kp_error_set(err, KP_EPARSE, "%s: '%s' = %g is out of range", what, key, *out);
	return 0;
}

static int get_str(const json_t *o, const char *key, const char *what, char *dst, size_t n, struct kp_error *err)
{
	const json_t *v = json_object_get(o, key);
	dst[0] = 0;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return kp_error_set(err, KP_EPARSE, "%s: '%s' is not a string", what, key);
	kp_strlcpy(dst, json_string_value(v), n);
	return 0;
}

/* Generous physical bounds: a GPU board draws well under 10 kW; one window lasts under a day. */
#define E_MAX 1e9
#define P_MAX 1e4
#define T_MAX 86400.0

static int window_from_json(const json_t *o, const char *what, struct kp_energy_window *w, struct kp_error *err)
{
	double launches;
	int rc = 0;
	if (!json_is_object(o))
		return kp_error_set(err, KP_EPARSE, "%s: a window is not an object", what);
	memset(w, 0, sizeof(*w));
	if ((rc = get_num(o, "launches", what, 1, 1e12, &launches, err)))
		return rc;
	if (!isfinite(launches))
		return kp_error_set(err, KP_EPARSE, "%s: a window lacks 'launches'", what);
	w->launches = (long)launches;
	rc = get_num(o, "seconds", what, 0, T_MAX, &w->seconds, err);
	if (!rc)
		rc = get_num(o, "gpu_seconds", what, 0, T_MAX, &w->gpu_seconds, err);
	if (!rc)
		rc = get_num(o, "energy_j", what, -E_MAX, E_MAX, &w->energy_j, err);
	if (!rc)
		rc = get_num(o, "tail_s", what, 0, T_MAX, &w->tail_s, err);
	if (!rc)
		rc = get_num(o, "time_s", what, 0, T_MAX, &w->time_s, err);
	if (!rc)
		rc = get_num(o, "energy_per_launch_j", what, -E_MAX, E_MAX, &w->energy_per_launch_j, err);
	if (!rc)
		rc = get_num(o, "dynamic_per_launch_j", what, -E_MAX, E_MAX, &w->dynamic_per_launch_j, err);
	if (!rc)
		rc = get_num(o, "power_w", what, -P_MAX, P_MAX, &w->power_w, err);
	if (!rc)
		rc = get_num(o, "sm_clock_mhz", what, 0, 1e5, &w->sm_clock_mhz, err);
	if (!rc)
		rc = get_num(o, "mem_clock_mhz", what, 0, 1e5, &w->mem_clock_mhz, err);
	if (!rc)
		rc = get_num(o, "temp_start_c", what, -100, 300, &w->temp_start_c, err);
	if (!rc)
		rc = get_num(o, "temp_end_c", what, -100, 300, &w->temp_end_c, err);
	return rc;
}

int kp_energy_measurement_from_json(const json_t *v, const char *what, struct kp_energy_measurement *m,
				    struct kp_error *err)
{
	const json_t *ws;
	size_t i;
	const json_t *wv;
	int rc = 0;

	memset(m, 0, sizeof(*m));
	if (!json_is_object(v))
		return kp_error_set(err, KP_EPARSE, "%s: a measurement must be a JSON object", what);
	rc = get_str(v, "device", what, m->device, sizeof(m->device), err);
	if (!rc)
		rc = get_str(v, "name", what, m->name, sizeof(m->name), err);
	if (!rc)
		rc = get_str(v, "notes", what, m->notes, sizeof(m->notes), err);
	if (!rc)
		rc = get_num(v, "power_limit_w", what, 0, P_MAX, &m->power_limit_w, err);
	if (!rc)
		rc = get_num(v, "idle_power_w", what, -P_MAX, P_MAX, &m->idle_power_w, err);
	if (!rc)
		rc = get_num(v, "idle_s", what, 0, T_MAX, &m->idle_s, err);
	if (!rc)
		rc = get_num(v, "time_s", what, 0, T_MAX, &m->time_s, err);
	if (!rc)
		rc = get_num(v, "energy_j", what, -E_MAX, E_MAX, &m->energy_j, err);
	if (!rc)
		rc = get_num(v, "dynamic_j", what, -E_MAX, E_MAX, &m->dynamic_j, err);
	if (!rc)
		rc = get_num(v, "power_w", what, -P_MAX, P_MAX, &m->power_w, err);
	if (!rc)
		rc = get_num(v, "energy_spread", what, 0, 1e6, &m->energy_spread, err);
	if (!rc)
		rc = get_num(v, "sm_clock_mhz", what, 0, 1e5, &m->sm_clock_mhz, err);
	if (!rc)
		rc = get_num(v, "mem_clock_mhz", what, 0, 1e5, &m->mem_clock_mhz, err);
	if (!rc)
		rc = get_num(v, "temp_max_c", what, -100, 300, &m->temp_max_c, err);
	if (rc)
		return rc;
	if (!isfinite(m->energy_j) || !isfinite(m->time_s))
		return kp_error_set(err, KP_EPARSE, "%s: a measurement needs 'energy_j' and 'time_s'", what);
	if (isnan(m->idle_s))
		m->idle_s = 0;
	ws = json_object_get(v, "windows");
	if (ws && !json_is_array(ws))
		return kp_error_set(err, KP_EPARSE, "%s: 'windows' is not an array", what);
	if (json_array_size(ws) > KP_ENERGY_MAX_WINDOWS)
		return kp_error_set(err, KP_EPARSE, "%s: more than %d windows", what, KP_ENERGY_MAX_WINDOWS);
	json_array_foreach(ws, i, wv)
	{
		if ((rc = window_from_json(wv, what, &m->w[i], err)))
			return rc;
		m->nwindows++;
	}
	return 0;
}

void kp_energy_driver_result(struct kp_buf *out, const struct kp_energy_measurement *m, size_t n,
			     const char *workload)
{
	json_t *o = json_object(), *ms = json_array(), *d = json_object();
	kp_json_set(o, "ok", json_true());
	kp_json_set(d, "workload", json_string(workload ? workload : ""));
	kp_json_set(o, "driver", d);
	for (size_t i = 0; i < n; i++)
		json_array_append_new(ms, kp_energy_measurement_to_json(&m[i]));
	kp_json_set(o, "measurements", ms);
	kp_json_dump_buf(o, out, 0);
	kp_buf_addch(out, '\n');
	json_decref(o);
}

void kp_energy_driver_failure(struct kp_buf *out, const struct kp_error *err)
{
	json_t *o = json_object();
	kp_json_set(o, "ok", json_false());
	kp_json_set(o, "code", json_string(kp_errname(err->code ? err->code : KP_EIO)));
	kp_json_set(o, "error", json_string(kp_error_msg(err)));
	kp_json_dump_buf(o, out, 0);
	kp_buf_addch(out, '\n');
	json_decref(o);
}

int kp_energy_parse_driver_output(const char *text, size_t len, struct kp_energy_measurement *m, size_t max,
				  size_t *n, struct kp_error *err)
{
	json_t *v = NULL;
	const json_t *ok, *ms, *mv;
	size_t i;
	int rc = 0;

	*n = 0;
	if (len > DRIVER_OUTPUT_MAX)
		return kp_error_set(err, KP_ETOOBIG, "kp-energy: output of %zu bytes is too long to be ours", len);
	if ((rc = kp_json_load_mem("kp-energy output", text, len, &v, err)))
		return rc;
	ok = json_object_get(v, "ok");
	ms = json_object_get(v, "measurements");
	if (!json_is_boolean(ok)) {
		rc = kp_error_set(err, KP_EPARSE, "kp-energy output: no boolean 'ok'");
	} else if (json_is_false(ok)) {
		const char *msg = kp_json_str(v, "error", "the driver failed without saying why");
		const char *code = kp_json_str(v, "code", "io");
		int c = KP_EIO;
		for (int k = -1; k >= -KP__NERR; k--)
			if (!strcmp(kp_errname(k), code))
				c = k;
		rc = kp_error_set(err, c, "%s", msg);
	} else if (!json_is_array(ms) || json_array_size(ms) == 0) {
		rc = kp_error_set(err, KP_EPARSE, "kp-energy output: no 'measurements'");
	} else if (json_array_size(ms) > max) {
		rc = kp_error_set(err, KP_EPARSE, "kp-energy output: %zu measurements, expected at most %zu",
				  json_array_size(ms), max);
	} else {
		json_array_foreach(ms, i, mv)
		{
			if ((rc = kp_energy_measurement_from_json(mv, "kp-energy output", &m[i], err)))
				break;
			(*n)++;
		}
	}
	json_decref(v);
	return rc;
}
