/* JSON helpers over jansson: errors with positions, typed getters, stable atomic dumps. */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/fs.h"
#include "kernelpro/json.h"

int kp_json_load_mem(const char *what, const char *text, size_t len, json_t **out, struct kp_error *err)
{
	json_error_t je;
	json_t *v = json_loadb(text, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
	if (!v)
		return kp_error_set(err, KP_EPARSE, "%s: line %d, column %d: %s", what, je.line, je.column,
				    je.text);
	*out = v;
	return 0;
}

int kp_json_load_file(const char *path, size_t cap, json_t **out, struct kp_error *err)
{
	struct kp_buf b = KP_BUF_INIT;
	int rc = kp_read_file(path, cap, &b, err);
	if (!rc)
		rc = kp_json_load_mem(path, b.buf, b.len, out, err);
	kp_buf_release(&b);
	return rc;
}

const char *kp_json_str(const json_t *obj, const char *key, const char *def)
{
	const json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;
	return json_is_string(v) ? json_string_value(v) : def;
}

double kp_json_num(const json_t *obj, const char *key, double def)
{
	const json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;
	return json_is_number(v) ? json_number_value(v) : def;
}

long long kp_json_int(const json_t *obj, const char *key, long long def)
{
	const json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;
	if (json_is_integer(v))
		return json_integer_value(v);
	if (json_is_real(v)) {
		double d = json_real_value(v);
		if (d == floor(d) && fabs(d) < 9e18)
			return (long long)d;
	}
	return def;
}

int kp_json_bool(const json_t *obj, const char *key, int def)
{
	const json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;
	return json_is_boolean(v) ? json_is_true(v) : def;
}

int kp_json_req_str(const json_t *obj, const char *key, const char *what, const char **out, struct kp_error *err)
{
	const json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;
	if (!json_is_string(v))
		return kp_error_set(err, KP_EPARSE, "%s: '%s' must be a string%s", what, key, v ? "" : " (missing)");
	*out = json_string_value(v);
	return 0;
}

int kp_json_req_num(const json_t *obj, const char *key, const char *what, double *out, struct kp_error *err)
{
	const json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;
	if (!json_is_number(v))
		return kp_error_set(err, KP_EPARSE, "%s: '%s' must be a number%s", what, key, v ? "" : " (missing)");
	*out = json_number_value(v);
	return 0;
}

void kp_json_set(json_t *obj, const char *key, json_t *value)
{
	if (!value)
		value = json_null();
	if (json_object_set_new(obj, key, value) != 0)
		KP_BUG("json_object_set_new('%s') failed", key);
}

json_t *kp_json_real(double v)
{
	if (!isfinite(v))
		return json_null();
	return json_real(v);
}

static int dump_cb(const char *buf, size_t size, void *data)
{
	return kp_buf_add(data, buf, size) ? -1 : 0;
}

char *kp_json_text(json_t *v)
{
	char *s = v ? json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	json_decref(v);
	return s;
}

int kp_json_dump_buf(const json_t *v, struct kp_buf *out, int compact)
{
	size_t flags = JSON_SORT_KEYS | JSON_ENCODE_ANY | JSON_REAL_PRECISION(10);
	flags |= compact ? JSON_COMPACT : JSON_INDENT(2);
	return json_dump_callback(v, dump_cb, out, flags) ? KP_ETOOBIG : 0;
}

int kp_json_write_file(const char *path, const json_t *v, struct kp_error *err)
{
	struct kp_buf b = KP_BUF_INIT;
	int rc = kp_json_dump_buf(v, &b, 0);
	if (rc)
		rc = kp_error_set(err, rc, "cannot serialise JSON for '%s'", path);
	else {
		kp_buf_addch(&b, '\n');
		rc = kp_write_file_atomic(path, b.buf, b.len, err);
	}
	kp_buf_release(&b);
	return rc;
}
