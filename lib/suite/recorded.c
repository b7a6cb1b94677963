/*
 * KernelBench's eval_results.json, in the three layouts its scripts have written, into one list of
 * recorded verdicts (include/kernelpro/recorded.h). Strict: a file that is none of them is refused
 * naming the entry and the field, so a re-judge never compares against a half-read file.
 */
#include "base/setup.h"

#include <ctype.h>
#include <math.h>

#include "kernelpro/json.h"
#include "kernelpro/recorded.h"
#include "kernelpro/str.h"

#define MAX_ID 1000000

/* The metadata keys KernelBench writes for a failure, most telling first. */
static const char *const error_keys[] = {"compilation_error", "cuda_error",  "runtime_error",
                                         "correctness_issue", "other_error", NULL};

void kp_recorded_init(struct kp_recorded *r)
{
	memset(r, 0, sizeof(*r));
	r->runtime_ms = r->ref_ms = NAN;
}

void kp_recorded_release(struct kp_recorded *r)
{
	free(r->error_kind);
	free(r->message);
	free(r->hardware);
	kp_recorded_init(r);
}

void kp_recorded_set_init(struct kp_recorded_set *s)
{
	memset(s, 0, sizeof(*s));
}

void kp_recorded_set_release(struct kp_recorded_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		kp_recorded_release(&s->v[i]);
	free(s->v);
	kp_recorded_set_init(s);
}

/* A copy of at most KP_RECORDED_MSG_MAX bytes, cut before a UTF-8 continuation byte. */
static char *bounded(const char *s)
{
	size_t n = strlen(s);
	if (n > KP_RECORDED_MSG_MAX) {
		n = KP_RECORDED_MSG_MAX;
		while (n && ((unsigned char)s[n] & 0xC0) == 0x80)
			n--;
	}
	return kp_xstrndup(s, n);
}

/* "12" -> 12; anything but digits (or a number out of range) -> -1. */
static int parse_id(const char *s, size_t n)
{
	long v = 0;
	if (!n || n > 7)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v <= MAX_ID ? (int)v : -1;
}

/* "level_1_problem_3_sample_0" (or _solution_0, _epoch_2_sample_0): 0, or -1 when it is not that. */
static int parse_name(const char *name, int *level, int *problem, int *epoch, int *sample)
{
	const char *p = name, *e;
	int *dst[3] = {level, problem, sample};
	const char *const word[3] = {"level_", "_problem_", NULL};

	*epoch = 0;
	for (int i = 0; i < 3; i++) {
		if (i < 2) {
			if (strncmp(p, word[i], strlen(word[i])))
				return -1;
			p += strlen(word[i]);
		} else if (!strncmp(p, "_epoch_", 7)) {
			for (e = p + 7; isdigit((unsigned char)*e); e++)
				;
			if ((*epoch = parse_id(p + 7, (size_t)(e - p - 7))) < 0 || strncmp(e, "_sample_", 8))
				return -1;
			p = e + 8;
		} else if (!strncmp(p, "_sample_", 8)) {
			p += 8;
		} else if (!strncmp(p, "_solution_", 10)) {
			p += 10;
		} else {
			return -1;
		}
		for (e = p; isdigit((unsigned char)*e); e++)
			;
		if ((*dst[i] = parse_id(p, (size_t)(e - p))) < 0)
			return -1;
		p = e;
	}
	return *p ? -1 : 0;
}

static int want_bool(const json_t *o, const char *key, const char *where, int *out, struct kp_error *err)
{
	const json_t *v = json_object_get(o, key);
	if (!json_is_boolean(v))
		return kp_error_set(err, KP_EPARSE, "%s: '%s' must be true or false", where, key);
	*out = json_is_true(v);
	return 0;
}

/* A time in ms: a number >= 0, KernelBench's -1 (or a missing or null value) for "not timed". */
static int want_time(const json_t *o, const char *key, const char *where, double *out, struct kp_error *err)
{
	const json_t *v = json_object_get(o, key);
	double d;
	*out = NAN;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_number(v))
		return kp_error_set(err, KP_EPARSE, "%s: '%s' must be a number of milliseconds", where, key);
	d = json_number_value(v);
	if (d == -1.0)
		return 0;
	if (!(d >= 0) || !isfinite(d))
		return kp_error_set(err, KP_EPARSE, "%s: '%s' is %g: a time must be >= 0 (or -1: not timed)",
		                    where, key, d);
	*out = d;
	return 0;
}

/* The fields every layout shares, from one entry object. */
static int read_entry(const json_t *o, const char *where, struct kp_recorded *r, struct kp_error *err)
{
	const json_t *md;
	int rc;

	if (!json_is_object(o))
		return kp_error_set(err, KP_EPARSE, "%s: an entry must be an object", where);
	if ((rc = want_bool(o, "compiled", where, &r->compiled, err)) ||
	    (rc = want_bool(o, "correctness", where, &r->correct, err)) ||
	    (rc = want_time(o, "runtime", where, &r->runtime_ms, err)) ||
	    (rc = want_time(o, "ref_runtime", where, &r->ref_ms, err)))
		return rc;
	md = json_object_get(o, "metadata");
	if (md && !json_is_null(md) && !json_is_object(md))
		return kp_error_set(err, KP_EPARSE, "%s: 'metadata' must be an object", where);
	for (int i = 0; md && error_keys[i]; i++) {
		const json_t *v = json_object_get(md, error_keys[i]);
		if (!v)
			continue;
		r->error_kind = kp_xstrdup(error_keys[i]);
		if (json_is_string(v))
			r->message = bounded(json_string_value(v));
		else {
			char *t = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
			r->message = bounded(t ? t : "");
			free(t);
		}
		break;
	}
	if (kp_json_str(md, "hardware", NULL))
		r->hardware = bounded(kp_json_str(md, "hardware", NULL));
	return 0;
}

static int sample_of(const json_t *o, const char *where, int *sample, struct kp_error *err)
{
	const json_t *v = json_object_get(o, "sample_id");
	if (!v) {
		*sample = 0; /* the oldest layout held one sample per problem */
		return 0;
	}
	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > MAX_ID)
		return kp_error_set(err, KP_EPARSE, "%s: 'sample_id' must be a whole number from 0", where);
	*sample = (int)json_integer_value(v);
	return 0;
}

static int add(struct kp_recorded_set *s, struct kp_recorded *r, const char *where, struct kp_error *err)
{
	if (kp_recorded_find(s, r->level, r->problem_id, r->epoch, r->sample_id))
		return kp_error_set(err, KP_EPARSE, "%s: problem %d epoch %d sample %d is recorded twice",
		                    where, r->problem_id, r->epoch, r->sample_id);
	if (s->n == s->alloc) {
		s->alloc = s->alloc ? s->alloc * 2 : 64;
		s->v = kp_xrealloc(s->v, s->alloc * sizeof(*s->v));
	}
	s->v[s->n++] = *r;
	kp_recorded_init(r);
	return 0;
}

/* One entry at `where`, with its ids known; the entry is added or the error returned. */
static int take(struct kp_recorded_set *s, const json_t *o, int level, int problem, const char *where,
                struct kp_error *err)
{
	struct kp_recorded r;
	int rc;
	kp_recorded_init(&r);
	r.level = level;
	r.problem_id = problem;
	if (!(rc = sample_of(o, where, &r.sample_id, err)) && !(rc = read_entry(o, where, &r, err)))
		rc = add(s, &r, where, err);
	kp_recorded_release(&r);
	return rc;
}

static int parse_object(struct kp_recorded_set *s, const json_t *doc, int level, const char *what,
                        struct kp_error *err)
{
	const char *key;
	const json_t *v;
	char where[160];
	int rc = 0;

	s->layout = NULL;
	json_object_foreach((json_t *)doc, key, v)
	{
		int problem = parse_id(key, strlen(key));
		const char *layout = json_is_array(v) ? "kernelbench" : "kernelbench-v0";
		snprintf(where, sizeof(where), "%s: problem \"%.40s\"", what, key);
		if (problem < 1)
			return kp_error_set(err, KP_EPARSE,
			                    "%s: a key must be a problem id (a whole number from 1)", where);
		if (!json_is_array(v) && !json_is_object(v))
			return kp_error_set(err, KP_EPARSE, "%s: must be a list of samples or one sample",
			                    where);
		if (s->layout && strcmp(s->layout, layout))
			return kp_error_set(err, KP_EPARSE,
			                    "%s: mixes one-sample entries and lists of samples", where);
		s->layout = layout;
		if (json_is_object(v)) {
			if ((rc = take(s, v, level, problem, where, err)))
				return rc;
			continue;
		}
		for (size_t i = 0; i < json_array_size(v); i++) {
			snprintf(where, sizeof(where), "%s: problem \"%.40s\" [%zu]", what, key, i);
			if ((rc = take(s, json_array_get(v, i), level, problem, where, err)))
				return rc;
		}
	}
	if (!s->layout)
		s->layout = "kernelbench";
	return 0;
}

static int parse_list(struct kp_recorded_set *s, const json_t *doc, const char *what, struct kp_error *err)
{
	char where[160];
	s->layout = "list";
	for (size_t i = 0; i < json_array_size(doc); i++) {
		const json_t *o = json_array_get(doc, i);
		const char *id = kp_json_str(o, "evaluation_id", kp_json_str(o, "solution_id", NULL));
		struct kp_recorded r;
		int rc;

		snprintf(where, sizeof(where), "%s: entry %zu", what, i);
		if (!json_is_object(o))
			return kp_error_set(err, KP_EPARSE, "%s: an entry must be an object", where);
		kp_recorded_init(&r);
		if (!id || parse_name(id, &r.level, &r.problem_id, &r.epoch, &r.sample_id) ||
		    r.problem_id < 1)
			rc = kp_error_set(err, KP_EPARSE,
			                  "%s: 'evaluation_id' must name the kernel as "
			                  "level_L_problem_P_sample_S (or _solution_S, _epoch_E_sample_S)",
			                  where);
		else if (!(rc = read_entry(o, where, &r, err)))
			rc = add(s, &r, where, err);
		kp_recorded_release(&r);
		if (rc)
			return rc;
	}
	return 0;
}

int kp_recorded_parse(struct kp_recorded_set *s, const char *text, size_t len, int level, const char *what,
                      struct kp_error *err)
{
	json_t *doc = NULL;
	int rc;

	kp_recorded_set_release(s);
	if ((rc = kp_json_load_mem(what, text, len, &doc, err)))
		return rc;
	if (json_is_object(doc))
		rc = parse_object(s, doc, level, what, err);
	else if (json_is_array(doc))
		rc = parse_list(s, doc, what, err);
	else
		rc = kp_error_set(
		    err, KP_EPARSE,
		    "%s: not an eval_results.json: KernelBench writes an object of problems or a "
		    "list of evaluations",
		    what);
	json_decref(doc);
	if (rc)
		kp_recorded_set_release(s);
	return rc;
}

const struct kp_recorded *kp_recorded_find(const struct kp_recorded_set *s, int level, int problem_id,
                                           int epoch, int sample_id)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct kp_recorded *r = &s->v[i];
		if (r->problem_id == problem_id && r->sample_id == sample_id && r->epoch == epoch &&
		    (!r->level || !level || r->level == level))
			return r;
	}
	return NULL;
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

json_t *kp_recorded_to_json(const struct kp_recorded *r)
{
	json_t *o = json_object();
	kp_json_set(o, "level", r->level ? json_integer(r->level) : NULL);
	kp_json_set(o, "problem_id", json_integer(r->problem_id));
	kp_json_set(o, "epoch", json_integer(r->epoch));
	kp_json_set(o, "sample_id", json_integer(r->sample_id));
	kp_json_set(o, "compiled", json_boolean(r->compiled));
	kp_json_set(o, "correct", json_boolean(r->correct));
	kp_json_set(o, "runtime_ms", kp_json_real(r->runtime_ms));
	kp_json_set(o, "ref_ms", kp_json_real(r->ref_ms));
	kp_json_set(o, "error_kind", str_or_null(r->error_kind));
	kp_json_set(o, "message", str_or_null(r->message));
	kp_json_set(o, "hardware", str_or_null(r->hardware));
	return o;
}

static char *dup_field(const json_t *o, const char *key)
{
	const char *v = kp_json_str(o, key, NULL);
	return v ? bounded(v) : NULL;
}

int kp_recorded_from_json(struct kp_recorded *r, const json_t *o, struct kp_error *err)
{
	if (!json_is_object(o) || !json_is_integer(json_object_get(o, "problem_id")) ||
	    !json_is_boolean(json_object_get(o, "compiled")) ||
	    !json_is_boolean(json_object_get(o, "correct")))
		return kp_error_set(err, KP_EPARSE,
		                    "a recorded verdict needs problem_id, compiled and correct");
	r->level = (int)kp_json_int(o, "level", 0);
	r->problem_id = (int)kp_json_int(o, "problem_id", 0);
	r->epoch = (int)kp_json_int(o, "epoch", 0);
	r->sample_id = (int)kp_json_int(o, "sample_id", 0);
	r->compiled = kp_json_bool(o, "compiled", 0);
	r->correct = kp_json_bool(o, "correct", 0);
	r->runtime_ms = kp_json_num(o, "runtime_ms", NAN);
	r->ref_ms = kp_json_num(o, "ref_ms", NAN);
	r->error_kind = dup_field(o, "error_kind");
	r->message = dup_field(o, "message");
	r->hardware = dup_field(o, "hardware");
	return 0;
}

const char *kp_recorded_outcome(const struct kp_recorded *r)
{
	if (r->correct)
		return "correct";
	if (!r->compiled)
		return "compile_error";
	if (r->error_kind && !strcmp(r->error_kind, "correctness_issue"))
		return "wrong_output";
	return "runtime_error";
}
