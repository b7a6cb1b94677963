/*
 * KernelBench's reference times (baseline_time_torch.json): the times a recorded run's speedups are
 * computed against when its eval_results.json has none (include/kernelpro/recorded.h).
 */
#include "base/setup.h"

#include <ctype.h>
#include <math.h>

#include "kernelpro/json.h"
#include "kernelpro/recorded.h"

void kp_recorded_refs_init(struct kp_recorded_refs *s)
{
	memset(s, 0, sizeof(*s));
}

void kp_recorded_refs_release(struct kp_recorded_refs *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].hardware);
	free(s->v);
	kp_recorded_refs_init(s);
}

/* "level12" -> 12; -1 for anything else (a level from 1 to 999). */
static int level_of(const char *key)
{
	long v = 0;
	const char *p = key + 5;
	if (strncmp(key, "level", 5) || !isdigit((unsigned char)*p))
		return -1;
	while (isdigit((unsigned char)*p) && v < 1000)
		v = v * 10 + (*p++ - '0');
	return *p || v < 1 || v > 999 ? -1 : (int)v;
}

/* "19_ReLU.py" -> 19; -1 for a name that does not start with a problem id and '_' or end in .py. */
static int problem_of(const char *name)
{
	long v = 0;
	size_t n = strlen(name);
	const char *p = name;
	if (n < 5 || strcmp(name + n - 3, ".py") || !isdigit((unsigned char)*p))
		return -1;
	while (isdigit((unsigned char)*p) && v < 1000000)
		v = v * 10 + (*p++ - '0');
	return *p != '_' || v < 1 || v >= 1000000 ? -1 : (int)v;
}

static int add(struct kp_recorded_refs *s, int level, int problem, const json_t *o, const char *where,
               struct kp_error *err)
{
	const json_t *mean = json_object_get(o, "mean"), *hw = json_object_get(o, "hardware");
	double ms;
	if (!json_is_object(o))
		return kp_error_set(err, KP_EPARSE, "%s: must be an object with a \"mean\" time", where);
	if (!json_is_number(mean) || !isfinite(ms = json_number_value(mean)) || !(ms > 0))
		return kp_error_set(err, KP_EPARSE, "%s: 'mean' must be a number of milliseconds > 0", where);
	if (hw && !json_is_null(hw) && !json_is_string(hw))
		return kp_error_set(err, KP_EPARSE, "%s: 'hardware' must be a string", where);
	if (!isnan(kp_recorded_ref_ms(s, level, problem)))
		return kp_error_set(err, KP_EPARSE, "%s: level %d problem %d is given twice", where, level, problem);
	if (s->n >= KP_RECORDED_REFS_MAX)
		return kp_error_set(err, KP_EPARSE, "%s: more than %d problems", where, KP_RECORDED_REFS_MAX);
	if (s->n == s->alloc) {
		s->alloc = s->alloc ? s->alloc * 2 : 64;
		s->v = kp_xrealloc(s->v, s->alloc * sizeof(*s->v));
	}
	s->v[s->n].level = level;
	s->v[s->n].problem_id = problem;
	s->v[s->n].mean_ms = ms;
	s->v[s->n].hardware = json_is_string(hw) ? kp_xstrdup(json_string_value(hw)) : NULL;
	s->n++;
	return 0;
}

int kp_recorded_refs_parse(struct kp_recorded_refs *s, const char *text, size_t len, const char *what,
                           struct kp_error *err)
{
	json_t *doc = NULL;
	const char *lkey, *pkey;
	const json_t *lv, *pv;
	char where[512];
	int rc;

	kp_recorded_refs_release(s);
	if ((rc = kp_json_load_mem(what, text, len, &doc, err)))
		return rc;
	if (!json_is_object(doc)) {
		rc = kp_error_set(err, KP_EPARSE,
		                  "%s: not a KernelBench baseline_time_torch.json: it holds an object of levels "
		                  "(\"level1\": {\"1_Name.py\": {\"mean\": MS, ...}})",
		                  what);
		goto out;
	}
	json_object_foreach ((json_t *)doc, lkey, lv) {
		int level = level_of(lkey);
		if (level < 0 || !json_is_object(lv)) {
			rc = kp_error_set(err, KP_EPARSE, "%s: \"%.64s\" must be levelN holding an object of task files",
			                  what, lkey);
			goto out;
		}
		json_object_foreach ((json_t *)lv, pkey, pv) {
			int problem = problem_of(pkey);
			snprintf(where, sizeof(where), "%s: %s/%.200s", what, lkey, pkey);
			if (problem < 0) {
				rc = kp_error_set(err, KP_EPARSE, "%s: a task file is named P_Name.py", where);
				goto out;
			}
			if ((rc = add(s, level, problem, pv, where, err)))
				goto out;
		}
	}
out:
	json_decref(doc);
	if (rc)
		kp_recorded_refs_release(s);
	return rc;
}

double kp_recorded_ref_ms(const struct kp_recorded_refs *s, int level, int problem_id)
{
	for (size_t i = 0; s && i < s->n; i++)
		if (s->v[i].level == level && s->v[i].problem_id == problem_id)
			return s->v[i].mean_ms;
	return NAN;
}
