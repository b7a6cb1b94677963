/* JSON form of an energy measurement, and the reader of the kp-energy driver's output. */
#include "base/setup.h"

#include <math.h>
#include <stddef.h>

#include "kernelpro/energy.h"
#include "kernelpro/json.h"
#include "kernelpro/str.h"

/* The driver prints one small object; anything bigger is not ours. */
#define DRIVER_OUTPUT_MAX (256u << 10)

/* Generous physical bounds: a GPU board draws well under 10 kW; one window lasts under a day. */
#define E_MAX 1e9
#define P_MAX 1e4
#define T_MAX 86400.0

/* The numeric fields of the JSON form, one table per struct: both directions read the same table. */
struct field {
	const char *key;
	size_t off;
	double lo, hi;
};

#define W(f, lo, hi) {#f, offsetof(struct kp_energy_window, f), lo, hi}
static const struct field window_fields[] = {
	W(seconds, 0, T_MAX),           W(gpu_seconds, 0, T_MAX),
	W(energy_j, -E_MAX, E_MAX),     W(tail_s, 0, T_MAX),
	W(time_s, 0, T_MAX),            W(energy_per_launch_j, -E_MAX, E_MAX),
	W(dynamic_per_launch_j, -E_MAX, E_MAX), W(power_w, -P_MAX, P_MAX),
	W(sm_clock_mhz, 0, 1e5),        W(mem_clock_mhz, 0, 1e5),
	W(temp_start_c, -100, 300),     W(temp_end_c, -100, 300),
};
#undef W

#define M(f, lo, hi) {#f, offsetof(struct kp_energy_measurement, f), lo, hi}
static const struct field measurement_fields[] = {
	M(power_limit_w, 0, P_MAX),     M(idle_power_w, -P_MAX, P_MAX),
	M(idle_s, 0, T_MAX),            M(time_s, 0, T_MAX),
	M(energy_j, -E_MAX, E_MAX),     M(dynamic_j, -E_MAX, E_MAX),
	M(power_w, -P_MAX, P_MAX),      M(energy_spread, 0, 1e6),
	M(sm_clock_mhz, 0, 1e5),        M(mem_clock_mhz, 0, 1e5),
	M(temp_max_c, -100, 300),
};
#undef M

static void fields_to_json(json_t *o, const void *base, const struct field *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		kp_json_set(o, f[i].key, kp_json_real(*(const double *)((const char *)base + f[i].off)));
}

/*
 * Reads the fields: null and absent read as NAN (missing); anything else must be a finite number
 * within the field's bounds.
 */
static int fields_from_json(const json_t *o, const char *what, void *base, const struct field *f, size_t n,
			    struct kp_error *err)
{
	for (size_t i = 0; i < n; i++) {
		const json_t *v = json_object_get(o, f[i].key);
		double *out = (double *)((char *)base + f[i].off);
		*out = NAN;
		if (!v || json_is_null(v))
			continue;
		if (!json_is_number(v))
			return kp_error_set(err, KP_EPARSE, "%s: '%s' is not a number", what, f[i].key);
		*out = json_number_value(v);
		if (!isfinite(*out) || *out < f[i].lo || *out > f[i].hi)
			return kp_error_set(err, KP_EPARSE, "%s: '%s' = %g is out of range", what, f[i].key, *out);
	}
	return 0;
}

static json_t *window_to_json(const struct kp_energy_window *w)
{
	json_t *o = json_object();
	kp_json_set(o, "launches", json_integer(w->launches));
	fields_to_json(o, w, window_fields, KP_ARRAY_SIZE(window_fields));
	return o;
}

json_t *kp_energy_measurement_to_json(const struct kp_energy_measurement *m)
{
	json_t *o = json_object(), *ws = json_array();
	kp_json_set(o, "name", json_string(m->name));
	kp_json_set(o, "device", json_string(m->device));
	kp_json_set(o, "notes", json_string(m->notes));
	fields_to_json(o, m, measurement_fields, KP_ARRAY_SIZE(measurement_fields));
	for (int i = 0; i < m->nwindows; i++)
		json_array_append_new(ws, window_to_json(&m->w[i]));
	kp_json_set(o, "windows", ws);
	return o;
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

static int window_from_json(const json_t *o, const char *what, struct kp_energy_window *w, struct kp_error *err)
{
	const json_t *l = json_object_get(o, "launches");
	if (!json_is_object(o))
		return kp_error_set(err, KP_EPARSE, "%s: a window is not an object", what);
	memset(w, 0, sizeof(*w));
	if (!json_is_integer(l) || json_integer_value(l) < 1 || json_integer_value(l) > 1000000000000LL)
		return kp_error_set(err, KP_EPARSE, "%s: a window needs a positive integer 'launches'", what);
	w->launches = (long)json_integer_value(l);
	return fields_from_json(o, what, w, window_fields, KP_ARRAY_SIZE(window_fields), err);
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
		rc = fields_from_json(v, what, m, measurement_fields, KP_ARRAY_SIZE(measurement_fields), err);
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
