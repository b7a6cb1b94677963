/* Verdicts and baselines: lifecycle, flags, and their JSON form (docs/verdict.schema.json). */
#include "base/setup.h"

#include <math.h>

#include "eval/harness.h"
#include "kernelpro/buf.h"
#include "kernelpro/eval.h"
#include "kernelpro/json.h"
#include "kernelpro/str.h"

#define VERDICT_SCHEMA "kernelpro.verdict/1"

static const char *const status_names[] = {
	[KP_STATUS_NONE] = "none",
	[KP_STATUS_COMPILED] = "compiled",
	[KP_STATUS_CORRECT] = "correct",
	[KP_STATUS_COMPILE_ERROR] = "compile_error",
	[KP_STATUS_RUNTIME_ERROR] = "runtime_error",
	[KP_STATUS_TIMEOUT] = "timeout",
	[KP_STATUS_WRONG_OUTPUT] = "wrong_output",
	[KP_STATUS_CHEAT_SUSPECTED] = "cheat_suspected",
};

const char *kp_status_name(enum kp_status s)
{
	return (unsigned)s < KP_ARRAY_SIZE(status_names) ? status_names[s] : "none";
}

int kp_status_parse(const char *s, enum kp_status *out)
{
	for (size_t i = 0; i < KP_ARRAY_SIZE(status_names); i++)
		if (!strcmp(s, status_names[i])) {
			*out = (enum kp_status)i;
			return 0;
		}
	return KP_EINVAL;
}

static void timing_init(struct kp_timing *t)
{
	t->median_ms = t->mean_ms = t->std_ms = t->min_ms = t->max_ms = NAN;
	t->host_median_ms = NAN;
	t->trials = 0;
}

void kp_verdict_init(struct kp_verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->max_abs_diff = v->mean_abs_diff = NAN;
	v->atol = v->rtol = NAN;
	v->speedup = v->io_bytes = NAN;
	v->build_s = v->run_s = v->total_s = NAN;
	timing_init(&v->runtime);
	timing_init(&v->ref_runtime);
	v->gpu = -1;
}

void kp_verdict_release(struct kp_verdict *v)
{
	free(v->message);
	free(v->log);
	free(v->phase);
	free(v->artifact);
	free(v->work_dir);
	for (size_t i = 0; i < v->nflags; i++)
		free(v->flags[i].message);
	free(v->flags);
	kp_verdict_init(v);
}

void kp_verdict_flag(struct kp_verdict *v, const char *check, enum kp_severity sev, const char *fmt, ...)
{
	struct kp_buf b = KP_BUF_INIT;
	struct kp_flag *f;
	va_list ap;

	va_start(ap, fmt);
	kp_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	v->flags = kp_xrealloc(v->flags, kp_st_mult(v->nflags + 1, sizeof(*v->flags)));
	f = &v->flags[v->nflags++];
	memset(f, 0, sizeof(*f));
	kp_strlcpy(f->check, check, sizeof(f->check));
	f->severity = sev;
	f->message = kp_buf_detach(&b, NULL);
	if (sev == KP_SEV_REFUSE) {
		v->status = KP_STATUS_CHEAT_SUSPECTED;
		v->correct = 0;
	}
}

const struct kp_flag *kp_verdict_find_flag(const struct kp_verdict *v, const char *check)
{
	for (size_t i = 0; i < v->nflags; i++)
		if (!strcmp(v->flags[i].check, check))
			return &v->flags[i];
	return NULL;
}

/* --- JSON ------------------------------------------------------------------------------------ */

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *timing_json(const struct kp_timing *t)
{
	json_t *o;
	if (t->trials <= 0)
		return json_null();
	o = json_object();
	kp_json_set(o, "median_ms", kp_json_real(t->median_ms));
	kp_json_set(o, "mean_ms", kp_json_real(t->mean_ms));
	kp_json_set(o, "std_ms", kp_json_real(t->std_ms));
	kp_json_set(o, "min_ms", kp_json_real(t->min_ms));
	kp_json_set(o, "max_ms", kp_json_real(t->max_ms));
	kp_json_set(o, "trials", json_integer(t->trials));
	kp_json_set(o, "host_median_ms", kp_json_real(t->host_median_ms));
	return o;
}

static json_t *loop_json(const struct kp_loop *l)
{
	json_t *o;
	if (l->iterations <= 0)
		return json_null();
	o = json_object();
	kp_json_set(o, "iterations", json_integer(l->iterations));
	kp_json_set(o, "t0", kp_json_real(l->t0));
	kp_json_set(o, "t1", kp_json_real(l->t1));
	return o;
}

json_t *kp_verdict_to_json(const struct kp_verdict *v)
{
	json_t *o = json_object(), *c = json_object(), *flags = json_array(), *gpu = json_object(),
	       *secs = json_object();

	kp_json_set(o, "schema", json_string(VERDICT_SCHEMA));
	kp_json_set(o, "status", json_string(kp_status_name(v->status)));
	kp_json_set(o, "compiled", json_boolean(v->compiled));
	kp_json_set(o, "correct", json_boolean(v->correct));
	kp_json_set(o, "build_cached", json_boolean(v->build_cached));
	kp_json_set(o, "message", str_or_null(v->message));
	kp_json_set(o, "log", str_or_null(v->log));
	kp_json_set(o, "phase", str_or_null(v->phase));
	kp_json_set(o, "source_sha256", v->source_sha256[0] ? json_string(v->source_sha256) : json_null());
	kp_json_set(o, "artifact", str_or_null(v->artifact));
	kp_json_set(o, "work_dir", str_or_null(v->work_dir));

	kp_json_set(c, "trials_run", json_integer(v->trials_run));
	kp_json_set(c, "trials_passed", json_integer(v->trials_passed));
	kp_json_set(c, "max_abs_diff", kp_json_real(v->max_abs_diff));
	kp_json_set(c, "mean_abs_diff", kp_json_real(v->mean_abs_diff));
	kp_json_set(c, "atol", kp_json_real(v->atol));
	kp_json_set(c, "rtol", kp_json_real(v->rtol));
	kp_json_set(o, "correctness", c);

	kp_json_set(o, "runtime", timing_json(&v->runtime));
	kp_json_set(o, "ref_runtime", timing_json(&v->ref_runtime));
	kp_json_set(o, "speedup", kp_json_real(v->speedup));
	kp_json_set(o, "io_bytes", kp_json_real(v->io_bytes));

	for (size_t i = 0; i < v->nflags; i++) {
		json_t *f = json_object();
		kp_json_set(f, "check", json_string(v->flags[i].check));
		kp_json_set(f, "severity", json_string(kp_severity_name(v->flags[i].severity)));
		kp_json_set(f, "message", str_or_null(v->flags[i].message));
		json_array_append_new(flags, f);
	}
	kp_json_set(o, "flags", flags);
	kp_json_set(o, "loop", loop_json(&v->loop));
	kp_json_set(o, "ref_loop", loop_json(&v->ref_loop));

	kp_json_set(gpu, "index", v->gpu >= 0 ? json_integer(v->gpu) : json_null());
	kp_json_set(gpu, "name", v->gpu_name[0] ? json_string(v->gpu_name) : json_null());
	kp_json_set(o, "gpu", gpu);
	kp_json_set(secs, "build", kp_json_real(v->build_s));
	kp_json_set(secs, "run", kp_json_real(v->run_s));
	kp_json_set(secs, "total", kp_json_real(v->total_s));
	kp_json_set(o, "seconds", secs);
	return o;
}

static char *dup_str(const json_t *o, const char *key)
{
	const char *s = kp_json_str(o, key, NULL);
	return s ? kp_xstrdup(s) : NULL;
}

static double num_or_nan(const json_t *o, const char *key)
{
	return kp_json_num(o, key, NAN);
}

static void timing_from_json(struct kp_timing *t, const json_t *o)
{
	timing_init(t);
	if (!json_is_object(o))
		return;
	t->median_ms = num_or_nan(o, "median_ms");
	t->mean_ms = num_or_nan(o, "mean_ms");
	t->std_ms = num_or_nan(o, "std_ms");
	t->min_ms = num_or_nan(o, "min_ms");
	t->max_ms = num_or_nan(o, "max_ms");
	t->host_median_ms = num_or_nan(o, "host_median_ms");
	t->trials = (int)kp_json_int(o, "trials", 0);
	if (t->trials < 0)
		t->trials = 0;
}

static void loop_from_json(struct kp_loop *l, const json_t *o)
{
	memset(l, 0, sizeof(*l));
	if (!json_is_object(o))
		return;
	l->iterations = (long)kp_json_int(o, "iterations", 0);
	l->t0 = num_or_nan(o, "t0");
	l->t1 = num_or_nan(o, "t1");
}

int kp_verdict_from_json(struct kp_verdict *v, const json_t *j, struct kp_error *err)
{
	const char *status, *sha;
	const json_t *c, *flags, *f, *gpu, *secs;
	size_t i;

	kp_verdict_release(v);
	if (!json_is_object(j))
		return kp_error_set(err, KP_EPARSE, "verdict: not a JSON object");
	status = kp_json_str(j, "status", NULL);
	if (!status || kp_status_parse(status, &v->status))
		return kp_error_set(err, KP_EPARSE, "verdict: missing or unknown \"status\"");
	v->compiled = (unsigned)kp_json_bool(j, "compiled", 0);
	v->correct = (unsigned)kp_json_bool(j, "correct", 0);
	v->build_cached = (unsigned)kp_json_bool(j, "build_cached", 0);
	v->message = dup_str(j, "message");
	v->log = dup_str(j, "log");
	v->phase = dup_str(j, "phase");
	v->artifact = dup_str(j, "artifact");
	v->work_dir = dup_str(j, "work_dir");
	sha = kp_json_str(j, "source_sha256", "");
	kp_strlcpy(v->source_sha256, strlen(sha) == 64 ? sha : "", sizeof(v->source_sha256));

	c = json_object_get(j, "correctness");
	v->trials_run = (int)kp_json_int(c, "trials_run", 0);
	v->trials_passed = (int)kp_json_int(c, "trials_passed", 0);
	v->max_abs_diff = num_or_nan(c, "max_abs_diff");
	v->mean_abs_diff = num_or_nan(c, "mean_abs_diff");
	v->atol = num_or_nan(c, "atol");
	v->rtol = num_or_nan(c, "rtol");

	timing_from_json(&v->runtime, json_object_get(j, "runtime"));
	timing_from_json(&v->ref_runtime, json_object_get(j, "ref_runtime"));
	v->speedup = num_or_nan(j, "speedup");
	v->io_bytes = num_or_nan(j, "io_bytes");

	flags = json_object_get(j, "flags");
	json_array_foreach(flags, i, f) {
		const char *check = kp_json_str(f, "check", NULL);
		const char *sev = kp_json_str(f, "severity", "warn");
		const char *msg = kp_json_str(f, "message", "");
		enum kp_status keep = v->status;
		if (!check)
			continue;
		kp_verdict_flag(v, check, !strcmp(sev, "refuse") ? KP_SEV_REFUSE : KP_SEV_WARN, "%s", msg);
		v->status = keep; /* the stored status is the truth */
	}
	v->correct = v->status == KP_STATUS_CORRECT;
	loop_from_json(&v->loop, json_object_get(j, "loop"));
	loop_from_json(&v->ref_loop, json_object_get(j, "ref_loop"));

	gpu = json_object_get(j, "gpu");
	v->gpu = (int)kp_json_int(gpu, "index", -1);
	kp_strlcpy(v->gpu_name, kp_json_str(gpu, "name", ""), sizeof(v->gpu_name));
	secs = json_object_get(j, "seconds");
	v->build_s = num_or_nan(secs, "build");
	v->run_s = num_or_nan(secs, "run");
	v->total_s = num_or_nan(secs, "total");
	return 0;
}

/* --- baselines ------------------------------------------------------------------------------- */

void kp_baseline_init(struct kp_baseline *b)
{
	memset(b, 0, sizeof(*b));
	timing_init(&b->eager);
	timing_init(&b->compiled);
	b->io_bytes = NAN;
	b->gpu = -1;
}

void kp_baseline_release(struct kp_baseline *b)
{
	free(b->compile_error);
	free(b->log);
	kp_baseline_init(b);
}

json_t *kp_baseline_to_json(const struct kp_baseline *b)
{
	json_t *o = json_object(), *gpu = json_object();
	kp_json_set(o, "schema", json_string("kernelpro.baseline/1"));
	kp_json_set(o, "eager", timing_json(&b->eager));
	kp_json_set(o, "torch_compile", timing_json(&b->compiled));
	kp_json_set(o, "compile_error", str_or_null(b->compile_error));
	kp_json_set(o, "io_bytes", kp_json_real(b->io_bytes));
	kp_json_set(o, "log", str_or_null(b->log));
	kp_json_set(gpu, "index", b->gpu >= 0 ? json_integer(b->gpu) : json_null());
	kp_json_set(gpu, "name", b->gpu_name[0] ? json_string(b->gpu_name) : json_null());
	kp_json_set(o, "gpu", gpu);
	return o;
}

void kp_timing_from_json(struct kp_timing *t, const json_t *o)
{
	timing_from_json(t, o);
}

void kp_loop_from_json(struct kp_loop *l, const json_t *o)
{
	loop_from_json(l, o);
}
