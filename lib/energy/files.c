/* Energy files: coefficient sets (JSON, in the cache directory) and corpora of measured kernels (JSON Lines). */
#include "base/setup.h"

#include <math.h>

#include "energy/jsonl.h"
#include "kernelpro/energy.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/str.h"

#define COEFFS_KIND "kernelpro-energy-coefficients"
#define COEFFS_MAX (1u << 20)
#define CORPUS_MAX (64u << 20)

json_t *kp_energy_coeffs_to_json(const struct kp_energy_coeffs *c)
{
	json_t *o = json_object(), *cs = json_object(), *fitted = json_array();
	kp_json_set(o, "kind", json_string(COEFFS_KIND));
	kp_json_set(o, "version", json_integer(1));
	kp_json_set(o, "device", json_string(c->device));
	kp_json_set(o, "source", json_string(c->source));
	kp_json_set(o, "idle_power_w", kp_json_real(c->idle_power_w));
	for (int t = 0; t < KP_ENERGY_NTERMS; t++) {
		kp_json_set(cs, kp_energy_term_name(t), kp_json_real(c->c[t]));
		if (c->fitted[t])
			json_array_append_new(fitted, json_string(kp_energy_term_name(t)));
	}
	kp_json_set(o, "coefficients", cs);
	kp_json_set(o, "fitted", fitted);
	return o;
}

int kp_energy_coeffs_from_json(const json_t *v, const char *what, struct kp_energy_coeffs *c,
			       struct kp_error *err)
{
	const json_t *cs, *fitted, *val;
	const char *key;
	size_t i;

	kp_energy_coeffs_default(c);
	if (!json_is_object(v) || strcmp(kp_json_str(v, "kind", ""), COEFFS_KIND) != 0)
		return kp_error_set(err, KP_EPARSE, "%s: not a kernelpro energy coefficient file (no \"kind\": \"%s\")",
				    what, COEFFS_KIND);
	if (kp_json_int(v, "version", 0) != 1)
		return kp_error_set(err, KP_EUNSUPPORTED, "%s: coefficient file version %lld is not supported", what,
				    kp_json_int(v, "version", 0));
	cs = json_object_get(v, "coefficients");
	if (!json_is_object(cs))
		return kp_error_set(err, KP_EPARSE, "%s: no \"coefficients\" object", what);
	/* Unknown names are terms of a newer kernelpro: ignored, so old binaries read new files. */
	json_object_foreach((json_t *)cs, key, val)
	{
		int t = kp_energy_term_find(key);
		if (t < 0)
			continue;
		if (!json_is_number(val) || !isfinite(json_number_value(val)) || json_number_value(val) < 0)
			return kp_error_set(err, KP_EPARSE, "%s: coefficient '%s' must be a number >= 0", what, key);
		c->c[t] = json_number_value(val);
	}
	fitted = json_object_get(v, "fitted");
	if (fitted && !json_is_array(fitted))
		return kp_error_set(err, KP_EPARSE, "%s: \"fitted\" must be a list of term names", what);
	json_array_foreach((json_t *)fitted, i, val)
	{
		int t = json_is_string(val) ? kp_energy_term_find(json_string_value(val)) : -1;
		if (t >= 0)
			c->fitted[t] = 1;
	}
	val = json_object_get(v, "idle_power_w");
	if (json_is_number(val) && isfinite(json_number_value(val)) && json_number_value(val) >= 0)
		c->idle_power_w = json_number_value(val);
	kp_strlcpy(c->device, kp_json_str(v, "device", ""), sizeof(c->device));
	kp_strlcpy(c->source, kp_json_str(v, "source", what), sizeof(c->source));
	return 0;
}

int kp_energy_coeffs_save(const struct kp_energy_coeffs *c, const char *path, struct kp_error *err)
{
	json_t *o = kp_energy_coeffs_to_json(c);
	struct kp_buf dir = KP_BUF_INIT;
	const char *slash = strrchr(path, '/');
	int rc = 0;
	if (slash && slash != path) {
		kp_buf_add(&dir, path, (size_t)(slash - path));
		rc = kp_mkdir_p(dir.buf, 0755, err);
	}
	if (!rc)
		rc = kp_json_write_file(path, o, err);
	kp_buf_release(&dir);
	json_decref(o);
	return rc;
}

int kp_energy_coeffs_load(const char *path, struct kp_energy_coeffs *c, struct kp_error *err)
{
	json_t *v = NULL;
	int rc = kp_json_load_file(path, COEFFS_MAX, &v, err);
	if (rc)
		return rc;
	rc = kp_energy_coeffs_from_json(v, path, c, err);
	json_decref(v);
	return rc;
}

int kp_energy_coeffs_path(const char *device, struct kp_buf *out, struct kp_error *err)
{
	int rc = kp_cache_dir(out, err), dash = 1;
	if (rc)
		return rc;
	kp_buf_adds(out, "/energy/coeffs-");
	for (const char *p = device ? device : ""; *p; p++) {
		char ch = *p;
		if (ch >= 'A' && ch <= 'Z')
			ch = (char)(ch - 'A' + 'a');
		if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')) {
			kp_buf_addch(out, ch);
			dash = 0;
		} else if (!dash) {
			kp_buf_addch(out, '-');
			dash = 1;
		}
	}
	if (out->buf[out->len - 1] == '-')
		kp_buf_setlen(out, out->len - 1);
	if (kp_ends_with(out->buf, "coeffs"))
		kp_buf_adds(out, "-default");
	kp_buf_adds(out, ".json");
	return 0;
}

int kp_energy_coeffs_for(const char *device, struct kp_energy_coeffs *c, int *calibrated, struct kp_error *err)
{
	struct kp_buf path = KP_BUF_INIT;
	int rc;
	*calibrated = 0;
	kp_energy_coeffs_default(c);
	if (!device || !*device)
		return 0;
	rc = kp_energy_coeffs_path(device, &path, err);
	if (rc) {
		/* No cache directory at all: nothing can have been calibrated. */
		kp_error_clear(err);
		kp_buf_release(&path);
		return 0;
	}
	if (kp_path_exists(path.buf)) {
		rc = kp_energy_coeffs_load(path.buf, c, err);
		if (rc)
			kp_error_prefix(err, "calibrated energy coefficients");
		else
			*calibrated = 1;
	}
	kp_buf_release(&path);
	return rc;
}

/* ---- samples and corpora ------------------------------------------------------------------- */

json_t *kp_energy_sample_to_json(const struct kp_energy_sample *s)
{
	json_t *o = json_object(), *k = json_object();
	kp_json_set(o, "name", json_string(s->name));
	kp_json_set(o, "device", json_string(s->device));
	kp_json_set(o, "energy_j", kp_json_real(s->energy_j));
	kp_json_set(o, "dynamic_j", kp_json_real(s->dynamic_j));
	kp_json_set(o, "time_s", kp_json_real(s->time_s));
	kp_json_set(o, "power_w", kp_json_real(s->power_w));
	kp_json_set(o, "idle_power_w", kp_json_real(s->idle_power_w));
	kp_json_set(o, "energy_spread", kp_json_real(s->energy_spread));
	for (int t = 0; t < KP_ENERGY_NTERMS; t++)
		kp_json_set(k, kp_energy_term_name(t), kp_json_real(s->counts.v[t]));
	kp_json_set(o, "counts", k);
	return o;
}

/* Optional number: absent or null is NAN; otherwise finite. */
static int opt_num(const json_t *o, const char *key, const char *what, double *out, struct kp_error *err)
{
	const json_t *v = json_object_get(o, key);
	*out = NAN;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_number(v) || !isfinite(json_number_value(v)))
		return kp_error_set(err, KP_EPARSE, "%s: '%s' must be a number", what, key);
	*out = json_number_value(v);
	return 0;
}

int kp_energy_sample_from_json(const json_t *v, const char *what, struct kp_energy_sample *s,
			       struct kp_error *err)
{
	const json_t *k, *val;
	const char *key;
	int rc = 0;

	memset(s, 0, sizeof(*s));
	kp_energy_counts_init(&s->counts);
	if (!json_is_object(v))
		return kp_error_set(err, KP_EPARSE, "%s: a sample must be a JSON object", what);
	kp_strlcpy(s->name, kp_json_str(v, "name", ""), sizeof(s->name));
	kp_strlcpy(s->device, kp_json_str(v, "device", ""), sizeof(s->device));
	if (!s->name[0])
		return kp_error_set(err, KP_EPARSE, "%s: a sample needs a \"name\"", what);
	rc = opt_num(v, "energy_j", what, &s->energy_j, err);
	if (!rc)
		rc = opt_num(v, "dynamic_j", what, &s->dynamic_j, err);
	if (!rc)
		rc = opt_num(v, "time_s", what, &s->time_s, err);
	if (!rc)
		rc = opt_num(v, "power_w", what, &s->power_w, err);
	if (!rc)
		rc = opt_num(v, "idle_power_w", what, &s->idle_power_w, err);
	if (!rc)
		rc = opt_num(v, "energy_spread", what, &s->energy_spread, err);
	if (rc)
		return rc;
	if (!(s->energy_j > 0))
		return kp_error_set(err, KP_EPARSE, "%s: sample '%s' needs a positive \"energy_j\"", what, s->name);
	k = json_object_get(v, "counts");
	if (!json_is_object(k))
		return kp_error_set(err, KP_EPARSE, "%s: sample '%s' has no \"counts\" object", what, s->name);
	json_object_foreach((json_t *)k, key, val)
	{
		int t = kp_energy_term_find(key);
		if (t < 0 || json_is_null(val))
			continue;
		if (!json_is_number(val) || !isfinite(json_number_value(val)) || json_number_value(val) < 0)
			return kp_error_set(err, KP_EPARSE, "%s: sample '%s': count '%s' must be a number >= 0", what,
					    s->name, key);
		s->counts.v[t] = json_number_value(val);
	}
	return 0;
}

int kp_energy_corpus_load(const char *path, struct kp_energy_sample **s, size_t *n, size_t *alloc,
			  struct kp_error *err)
{
	struct kp_buf text = KP_BUF_INIT;
	struct kp_jsonl it;
	json_t *v = NULL;
	int rc = kp_read_file(path, CORPUS_MAX, &text, err);
	if (rc)
		goto out;
	kp_jsonl_init(&it, text.buf, path);
	while ((rc = kp_jsonl_next(&it, &v, err)) == 1) {
		KP_ALLOC_GROW(*s, *n + 1, *alloc);
		rc = kp_energy_sample_from_json(v, it.where, &(*s)[*n], err);
		json_decref(v);
		if (rc)
			goto out;
		(*n)++;
	}
out:
	kp_buf_release(&text);
	return rc;
}
