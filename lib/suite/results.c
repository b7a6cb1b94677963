/* A suite's results as files: results.json (read and written), results.csv and kernels/ in KernelBench's
 * layout. */
#include "base/setup.h"

#include <math.h>
#include <time.h>

#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/suite.h"
#include "suite/kbexport.h"

/* The task fields the document and the CSV share, in CSV column order (outcome counts follow). */
enum field_type {
	F_STR,
	F_INT,
	F_LONG,
	F_TIME,
	F_AMOUNT,
	F_BOOL,
	F_STATE,
	F_BASE_MS,
	F_SPEEDUP,
	F_BASE_MEAN
};

struct field {
	const char *key;
	enum field_type type;
	size_t off;
	int base;     /* for F_BASE_MS and F_SPEEDUP */
	int computed; /* written, never read back */
};

#define OFF(m) offsetof(struct kp_suite_task, m)
static const struct field fields[] = {
    {"name", F_STR, OFF(name), 0, 0},
    {"run", F_STR, OFF(run), 0, 0},
    {"kind", F_STR, OFF(kind), 0, 0},
    {"level", F_INT, OFF(level), 0, 0},
    {"problem_id", F_INT, OFF(problem_id), 0, 0},
    {"state", F_STATE, OFF(state), 0, 0},
    {"correct", F_BOOL, OFF(correct), 0, 0},
    {"best_node", F_LONG, OFF(best_node), 0, 0},
    {"best_ms", F_TIME, OFF(best_ms), 0, 0},
    {"ref_ms", F_TIME, OFF(ref_ms), 0, 0},
    {"eager_ms", F_BASE_MS, 0, KP_SUITE_EAGER, 0},
    {"eager_from", F_STR, OFF(eager_from), 0, 0},
    {"torch_compile_ms", F_BASE_MS, 0, KP_SUITE_COMPILE, 0},
    {"speedup_eager", F_SPEEDUP, 0, KP_SUITE_EAGER, 1},
    {"speedup_torch_compile", F_SPEEDUP, 0, KP_SUITE_COMPILE, 1},
    {"evaluations", F_LONG, OFF(evaluations), 0, 0},
    {"tokens_in", F_LONG, OFF(tokens_in), 0, 0},
    {"tokens_out", F_LONG, OFF(tokens_out), 0, 0},
    {"cost_usd", F_AMOUNT, OFF(cost_usd), 0, 0},
    {"elapsed_s", F_AMOUNT, OFF(elapsed_s), 0, 0},
    {"energy_j", F_TIME, OFF(energy_j), 0, 0},
    {"ref_energy_j", F_TIME, OFF(ref_energy_j), 0, 0},
    {"kernel", F_STR, OFF(kernel), 0, 0},
    {"reason", F_STR, OFF(reason), 0, 0},
    {"improved_node", F_LONG, OFF(improved_node), 0, 0},
    {"failure_node", F_LONG, OFF(failure_node), 0, 0},
    {"failure_outcome", F_STR, OFF(failure_outcome), 0, 0},
    {"failure_check", F_STR, OFF(failure_check), 0, 0},
    {"failure_message", F_STR, OFF(failure_message), 0, 0},
    {"best_mean_ms", F_TIME, OFF(best_mean_ms), 0, 0},
    {"ref_mean_ms", F_TIME, OFF(ref_mean_ms), 0, 0},
    {"gpu", F_STR, OFF(gpu), 0, 0},
    {"model", F_STR, OFF(model), 0, 0},
    {"cost_known", F_BOOL, OFF(cost_known), 0, 0},
    {"roofline_node", F_LONG, OFF(roofline_node), 0, 0},
    {"bottleneck", F_STR, OFF(bottleneck), 0, 0},
    {"ai", F_TIME, OFF(ai), 0, 0},
    {"roof_share", F_AMOUNT, OFF(roof_share), 0, 0},
    {"problem_file", F_STR, OFF(problem_file), 0, 0},
    {"eager_mean_ms", F_BASE_MEAN, 0, KP_SUITE_EAGER, 0},
    {"torch_compile_mean_ms", F_BASE_MEAN, 0, KP_SUITE_COMPILE, 0},
};
#undef OFF

#define AT(t, f, type) ((type *)((char *)(t) + (f)->off))

static double field_num(const struct kp_suite_task *t, const struct field *f)
{
	switch (f->type) {
	case F_TIME:
	case F_AMOUNT: return *AT(t, f, const double);
	case F_BASE_MS: return t->base_ms[f->base];
	case F_BASE_MEAN: return t->base_mean_ms[f->base];
	case F_SPEEDUP: return t->speedup[f->base];
	default: KP_BUG("field %s is not a number", f->key);
	}
}

/* ---- JSON out ---------------------------------------------------------------------------------------- */

json_t *kp_suite_task_to_json(const struct kp_suite_task *t)
{
	json_t *o = json_object(), *oc = json_object();
	for (size_t i = 0; i < KP_ARRAY_SIZE(fields); i++) {
		const struct field *f = &fields[i];
		const char *s;
		switch (f->type) {
		case F_STR:
			s = *AT(t, f, char *const);
			kp_json_set(o, f->key, s ? json_string(s) : NULL);
			break;
		case F_BOOL: kp_json_set(o, f->key, json_boolean(*AT(t, f, const int))); break;
		case F_STATE: kp_json_set(o, f->key, json_string(kp_suite_state_name(t->state))); break;
		case F_INT: kp_json_set(o, f->key, json_integer(*AT(t, f, const int))); break;
		case F_LONG: kp_json_set(o, f->key, json_integer(*AT(t, f, const long))); break;
		default: kp_json_set(o, f->key, kp_json_real(field_num(t, f)));
		}
	}
	for (int k = 0; k < KP_OUTCOME_COUNT; k++)
		kp_json_set(oc, kp_outcome_name(k), json_integer(t->outcomes[k]));
	kp_json_set(o, "outcomes", oc);
	return o;
}

static json_t *base_json(const struct kp_suite_base_stats *st)
{
	json_t *o = json_object(), *fp = json_object();
	kp_json_set(o, "tasks", json_integer(st->n));
	kp_json_set(o, "correct", json_integer(st->correct));
	kp_json_set(o, "missing_baseline", json_integer(st->missing));
	for (int k = 0; k < KP_SUITE_NP; k++)
		kp_json_set(fp, kp_suite_p_key(k), kp_json_real(st->fast_p[k]));
	kp_json_set(o, "fast_p", fp);
	kp_json_set(o, "geomean_speedup_correct", kp_json_real(st->geomean_correct));
	kp_json_set(o, "geomean_speedup_all", kp_json_real(st->geomean_all));
	return o;
}

/* The distinct values of one string field over the tasks, in task order. */
static json_t *distinct(const struct kp_suite *s, size_t off)
{
	json_t *a = json_array();
	for (size_t i = 0; i < s->n; i++) {
		const char *v = *(char *const *)((const char *)&s->v[i] + off);
		int seen = 0;
		for (size_t j = 0; v && j < json_array_size(a) && !seen; j++)
			seen = !strcmp(json_string_value(json_array_get(a, j)), v);
		if (v && !seen)
			json_array_append_new(a, json_string(v));
	}
	return a;
}

static json_t *context_json(const struct kp_suite *s)
{
	json_t *o = json_object();
	char now[32];
	time_t t = time(NULL);
	struct tm tm;

	strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
	kp_json_set(o, "kernelpro", json_string(KP_VERSION " (" KP_GIT_REV ")"));
	kp_json_set(o, "written", json_string(now));
	kp_json_set(o, "created", s->ctx.created ? json_string(s->ctx.created) : NULL);
	kp_json_set(o, "gpus", distinct(s, offsetof(struct kp_suite_task, gpu)));
	kp_json_set(o, "models", distinct(s, offsetof(struct kp_suite_task, model)));
	kp_json_set(o, "wall_s", kp_json_real(s->ctx.wall_s));
	kp_json_set(o, "settings", s->ctx.settings ? json_incref(s->ctx.settings) : NULL);
	return o;
}

static json_t *level_json(const struct kp_suite_level *L)
{
	json_t *o = json_object(), *bases = json_object();
	kp_json_set(o, "level", json_integer(L->level));
	kp_json_set(o, "tasks", json_integer(L->tasks));
	kp_json_set(o, "correct", json_integer(L->correct));
	for (int b = 0; b < KP_SUITE_NBASE; b++)
		kp_json_set(bases, kp_suite_baseline_name(b), base_json(&L->base[b]));
	kp_json_set(o, "baselines", bases);
	return o;
}

json_t *kp_suite_to_json(const struct kp_suite *s)
{
	const struct kp_suite_summary *m = &s->sum;
	json_t *o = json_object(), *sum = json_object(), *tasks = json_array(), *p = json_array();
	json_t *states = json_object(), *bases = json_object(), *oc = json_object(), *en = json_object();

	kp_json_set(o, "schema", json_string(KP_SUITE_SCHEMA));
	kp_json_set(o, "suite", json_string(s->name));
	for (int k = 0; k < KP_SUITE_NP; k++)
		json_array_append_new(p, json_real(kp_suite_p[k]));
	kp_json_set(o, "p", p);
	kp_json_set(sum, "tasks", json_integer(m->tasks));
	kp_json_set(sum, "correct", json_integer(m->correct));
	kp_json_set(sum, "correctness_rate", kp_json_real(m->correctness_rate));
	kp_json_set(sum, "coverage", kp_json_real(m->coverage));
	for (int i = 0; i < KP_SUITE_NSTATE; i++)
		kp_json_set(states, kp_suite_state_name(i), json_integer(m->states[i]));
	kp_json_set(sum, "states", states);
	for (int b = 0; b < KP_SUITE_NBASE; b++)
		kp_json_set(bases, kp_suite_baseline_name(b), base_json(&m->base[b]));
	kp_json_set(sum, "baselines", bases);
	for (int k = 0; k < KP_OUTCOME_COUNT; k++)
		kp_json_set(oc, kp_outcome_name(k), json_integer(m->outcomes[k]));
	kp_json_set(sum, "outcomes", oc);
	kp_json_set(sum, "evaluations", json_integer(m->evaluations));
	kp_json_set(sum, "tokens_in", json_integer(m->tokens_in));
	kp_json_set(sum, "tokens_out", json_integer(m->tokens_out));
	kp_json_set(sum, "cost_usd", kp_json_real(m->cost_usd));
	kp_json_set(sum, "elapsed_s", kp_json_real(m->elapsed_s));
	kp_json_set(en, "tasks", json_integer(m->energy_tasks));
	kp_json_set(en, "geomean_ratio", kp_json_real(m->energy_ratio_geomean));
	kp_json_set(sum, "energy", en);
	kp_json_set(sum, "cost_unknown", json_integer(m->cost_unknown));
	{
		json_t *lv = json_array();
		for (size_t i = 0; i < m->nlevels; i++)
			json_array_append_new(lv, level_json(&m->levels[i]));
		kp_json_set(sum, "levels", lv);
	}
	kp_json_set(o, "summary", sum);
	kp_json_set(o, "context", context_json(s));
	for (size_t i = 0; i < s->n; i++)
		json_array_append_new(tasks, kp_suite_task_to_json(&s->v[i]));
	kp_json_set(o, "tasks", tasks);
	if (s->rejudge) /* bench --kernels: beside the recorded verdicts (docs/rejudge.md) */
		kp_json_set(o, "rejudge", json_incref(s->rejudge));
	return o;
}

/* ---- JSON in ------------------------------------------------------------------------------------------- */

static int bad_type(const char *task, const struct field *f, const char *want, struct kp_error *err)
{
	return kp_error_set(err, KP_EPARSE, "results: task '%s': '%s' must be %s", task, f->key, want);
}

static int read_field(struct kp_suite_task *t, const struct field *f, const json_t *v, struct kp_error *err)
{
	const char *name = t->name ? t->name : "?";
	int st;

	if (f->computed || !v || json_is_null(v)) {
		if (v && !f->computed && (f->type == F_BOOL || f->type == F_STATE))
			return bad_type(name, f, f->type == F_BOOL ? "true or false" : "a state name", err);
		return 0;
	}
	switch (f->type) {
	case F_STR:
		if (!json_is_string(v))
			return bad_type(name, f, "a string", err);
		free(*AT(t, f, char *));
		*AT(t, f, char *) = kp_xstrdup(json_string_value(v));
		return 0;
	case F_BOOL:
		if (!json_is_boolean(v))
			return bad_type(name, f, "true or false", err);
		*AT(t, f, int) = json_is_true(v);
		return 0;
	case F_STATE:
		if ((st = kp_suite_state_parse(json_string_value(v))) < 0)
			return bad_type(name, f, "one of pending, running, stopped, finished, failed", err);
		t->state = (enum kp_suite_state)st;
		return 0;
	case F_INT:
		if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 1000000000)
			return bad_type(name, f, "an integer >= 0", err);
		*AT(t, f, int) = (int)json_integer_value(v);
		return 0;
	case F_LONG:
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return bad_type(name, f, "an integer >= 0", err);
		*AT(t, f, long) = (long)json_integer_value(v);
		return 0;
	case F_TIME:
	case F_AMOUNT:
	case F_BASE_MS:
	case F_BASE_MEAN:
		if (!json_is_number(v))
			return bad_type(name, f, "a number or null", err);
		if (f->type == F_BASE_MS)
			t->base_ms[f->base] = json_number_value(v);
		else if (f->type == F_BASE_MEAN)
			t->base_mean_ms[f->base] = json_number_value(v);
		else
			*AT(t, f, double) = json_number_value(v);
		return 0; /* the ranges are kp_suite_compute's to check */
	default: return 0;
	}
}

static int read_task(struct kp_suite_task *t, const json_t *o, size_t idx, struct kp_error *err)
{
	const json_t *oc;
	const char *key;
	json_t *v;
	int rc;

	if (!json_is_object(o))
		return kp_error_set(err, KP_EPARSE, "results: tasks[%zu] is not an object", idx);
	if (!json_is_string(json_object_get(o, "name")))
		return kp_error_set(err, KP_EPARSE, "results: tasks[%zu] has no \"name\" string", idx);
	for (size_t i = 0; i < KP_ARRAY_SIZE(fields); i++)
		if ((rc = read_field(t, &fields[i], json_object_get(o, fields[i].key), err)))
			return rc;
	if (!json_is_boolean(json_object_get(o, "correct")) || !json_is_string(json_object_get(o, "state")))
		return kp_error_set(err, KP_EPARSE,
		                    "results: task '%s' needs \"correct\" (true/false) and \"state\"",
		                    t->name);
	oc = json_object_get(o, "outcomes");
	if (oc && !json_is_object(oc) && !json_is_null(oc))
		return kp_error_set(err, KP_EPARSE, "results: task '%s': 'outcomes' must be an object",
		                    t->name);
	json_object_foreach((json_t *)oc, key, v)
	{
		enum kp_outcome k = kp_outcome_parse(key);
		if (k == KP_OUTCOME_NONE)
			return kp_error_set(err, KP_EPARSE,
			                    "results: task '%s': outcome '%s' is not a verdict", t->name,
			                    key);
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return kp_error_set(err, KP_EPARSE,
			                    "results: task '%s': outcomes.%s must be an integer >= 0",
			                    t->name, key);
		t->outcomes[k] = (long)json_integer_value(v);
	}
	return 0;
}

int kp_suite_task_from_json(struct kp_suite_task *t, const json_t *o, struct kp_error *err)
{
	return read_task(t, o, 0, err);
}

int kp_suite_from_json(struct kp_suite *s, const json_t *doc, struct kp_error *err)
{
	const char *schema = kp_json_str(doc, "schema", NULL);
	const json_t *tasks = json_object_get(doc, "tasks");
	struct kp_suite_task t;
	int rc;

	if (!json_is_object(doc))
		return kp_error_set(err, KP_EPARSE, "results: expected a JSON object");
	if (!schema || strcmp(schema, KP_SUITE_SCHEMA))
		return kp_error_set(err, KP_EPARSE, "results: schema is '%s', expected '%s'",
		                    schema ? schema : "(missing)", KP_SUITE_SCHEMA);
	if (!json_is_array(tasks))
		return kp_error_set(err, KP_EPARSE, "results: \"tasks\" must be an array");
	if (json_is_string(json_object_get(doc, "suite"))) {
		free(s->name);
		s->name = kp_xstrdup(kp_json_str(doc, "suite", ""));
	}
	if (json_is_object(json_object_get(doc, "context"))) {
		const json_t *c = json_object_get(doc, "context");
		s->ctx.wall_s = kp_json_num(c, "wall_s", NAN);
		if (!(isfinite(s->ctx.wall_s) && s->ctx.wall_s >= 0))
			s->ctx.wall_s = NAN;
		if (json_is_string(json_object_get(c, "created"))) {
			free(s->ctx.created);
			s->ctx.created = kp_xstrdup(kp_json_str(c, "created", ""));
		}
		if (json_is_object(json_object_get(c, "settings"))) {
			json_decref(s->ctx.settings);
			s->ctx.settings = json_deep_copy(json_object_get(c, "settings"));
		}
	}
	for (size_t i = 0; i < json_array_size(tasks); i++) {
		kp_suite_task_init(&t);
		if ((rc = read_task(&t, json_array_get(tasks, i), i, err))) {
			kp_suite_task_release(&t);
			return rc;
		}
		kp_suite_add(s, &t);
	}
	if (json_is_object(json_object_get(doc, "rejudge")) && !s->rejudge)
		s->rejudge = json_incref(json_object_get(doc, "rejudge"));
	return kp_suite_compute(s, err);
}

/* ---- CSV ------------------------------------------------------------------------------------------------
 */

static void csv_str(struct kp_buf *b, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		kp_buf_adds(b, s);
		return;
	}
	kp_buf_addch(b, '"');
	for (; *s; s++) {
		if (*s == '"')
			kp_buf_addch(b, '"');
		kp_buf_addch(b, *s);
	}
	kp_buf_addch(b, '"');
}

void kp_suite_csv(const struct kp_suite *s, struct kp_buf *out)
{
	for (size_t i = 0; i < KP_ARRAY_SIZE(fields); i++)
		kp_buf_addf(out, "%s%s", i ? "," : "", fields[i].key);
	for (int k = 0; k < KP_OUTCOME_COUNT; k++)
		kp_buf_addf(out, ",n_%s", kp_outcome_name(k)); /* "correct" alone is the task's verdict */
	kp_buf_addch(out, '\n');
	for (size_t r = 0; r < s->n; r++) {
		const struct kp_suite_task *t = &s->v[r];
		for (size_t i = 0; i < KP_ARRAY_SIZE(fields); i++) {
			const struct field *f = &fields[i];
			double v;
			if (i)
				kp_buf_addch(out, ',');
			switch (f->type) {
			case F_STR: csv_str(out, *AT(t, f, char *const)); break;
			case F_BOOL: kp_buf_adds(out, *AT(t, f, const int) ? "true" : "false"); break;
			case F_STATE: kp_buf_adds(out, kp_suite_state_name(t->state)); break;
			case F_INT: kp_buf_addf(out, "%d", *AT(t, f, const int)); break;
			case F_LONG: kp_buf_addf(out, "%ld", *AT(t, f, const long)); break;
			default:
				v = field_num(t, f);
				if (!isnan(v))
					kp_buf_addf(out, "%.10g", v);
			}
		}
		for (int k = 0; k < KP_OUTCOME_COUNT; k++)
			kp_buf_addf(out, ",%ld", t->outcomes[k]);
		kp_buf_addch(out, '\n');
	}
}

/* ---- kernels/
 * ---------------------------------------------------------------------------------------------- */

/* A file name from a task name: [A-Za-z0-9_-] kept, anything else (dots and slashes too) '_', bounded. */
static void safe_name(struct kp_buf *b, const char *name)
{
	size_t start = b->len;
	for (const char *p = name; *p && b->len - start < 96; p++) {
		char c = *p;
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		         c == '_' || c == '-';
		kp_buf_addch(b, ok ? c : '_');
	}
	if (b->len == start)
		kp_buf_adds(b, "task");
}

static int name_taken(const struct kp_suite *s, size_t upto, const char *rel)
{
	for (size_t i = 0; i < upto; i++)
		if (s->v[i].kernel && !strcmp(s->v[i].kernel, rel))
			return 1;
	return 0;
}

/* The kernels/ path for task i, unique among the tasks before it. */
static char *kernel_rel(const struct kp_suite *s, size_t i)
{
	const struct kp_suite_task *t = &s->v[i];
	int python = t->lang && !strcmp(t->lang, "python");
	struct kp_buf b = KP_BUF_INIT;

	for (int k = 0;; k++) {
		kp_buf_reset(&b);
		if (python && t->level > 0 && t->problem_id > 0) {
			kp_buf_addf(&b, "kernels/level_%d_problem_%d_sample_%d_kernel.py", t->level,
			            t->problem_id, k);
		} else {
			kp_buf_adds(&b, "kernels/");
			safe_name(&b, t->name);
			if (k)
				kp_buf_addf(&b, "-%d", k + 1);
			kp_buf_adds(&b, python ? ".py" : ".cu");
		}
		if (!name_taken(s, i, b.buf))
			return kp_buf_detach(&b, NULL);
	}
}

static int write_kernels(struct kp_suite *s, const char *dir, struct kp_error *err)
{
	struct kp_buf path = KP_BUF_INIT, text = KP_BUF_INIT;
	int rc, rewritten;

	kp_path_join(&path, dir, "kernels");
	if ((rc = kp_rm_rf(path.buf, err)) || (rc = kp_mkdir_p(path.buf, 0755, err)))
		goto out;
	for (size_t i = 0; i < s->n; i++) {
		struct kp_suite_task *t = &s->v[i];
		int python = t->lang && !strcmp(t->lang, "python");
		free(t->kernel);
		t->kernel = NULL;
		if (!t->correct || !t->source)
			continue;
		t->kernel = kernel_rel(s, i);
		kp_buf_reset(&path);
		kp_path_join(&path, dir, t->kernel);
		kp_buf_reset(&text);
		/* A KernelBench kernel runs in KernelBench as it is: kernelpro's fast path inlined. */
		if (python && t->level > 0 ? (rc = kp__suite_kb_kernel(t->source, &text, &rewritten, err))
		                           : (rc = kp_buf_adds(&text, t->source)))
			goto out;
		if ((rc = kp_write_file_atomic(path.buf, text.buf, text.len, err)))
			goto out;
	}
out:
	kp_buf_release(&path);
	kp_buf_release(&text);
	return rc;
}

int kp_suite_write(struct kp_suite *s, const char *dir, struct kp_error *err)
{
	struct kp_buf path = KP_BUF_INIT, body = KP_BUF_INIT;
	json_t *doc = NULL;
	char *text = NULL;
	int rc;

	if ((rc = kp_suite_compute(s, err)) || (rc = kp_mkdir_p(dir, 0755, err)) ||
	    (rc = write_kernels(s, dir, err)))
		goto out;
	kp_suite_csv(s, &body);
	kp_path_join(&path, dir, "results.csv");
	if ((rc = kp_write_file_atomic(path.buf, body.buf, body.len, err)))
		goto out;
	doc = kp_suite_to_json(s);
	/* 17 digits: the file's times give back exactly the speedups computed here (fast_p ties included). */
	text = json_dumps(doc, JSON_SORT_KEYS | JSON_INDENT(2) | JSON_REAL_PRECISION(17));
	if (!text)
		KP_BUG("results document does not serialise");
	kp_buf_reset(&path);
	kp_path_join(&path, dir, "results.json");
	kp_buf_reset(&body);
	kp_buf_adds(&body, text);
	kp_buf_addch(&body, '\n');
	if (!(rc = kp_write_file_atomic(path.buf, body.buf, body.len, err)))
		rc = kp_suite_write_kernelbench(s, dir, err);
out:
	free(text);
	json_decref(doc);
	kp_buf_release(&path);
	kp_buf_release(&body);
	return rc;
}
