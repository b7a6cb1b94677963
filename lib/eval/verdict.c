/* Verdicts and baselines: lifecycle, flags, and their JSON form (docs/verdict.schema.json). */
#include "base/setup.h"

#include <limits.h>
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

static void floor_init(struct kp_floor *f)
{
	memset(f, 0, sizeof(*f));
	f->time_s = f->bytes = f->dram_bytes = f->flops = f->flop_time_s = f->dram_bw = f->compute_peak = NAN;
	f->in_bytes = f->out_bytes = NAN;
}

void kp_verdict_init(struct kp_verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->max_abs_diff = v->mean_abs_diff = NAN;
	v->atol = v->rtol = NAN;
	v->speedup = v->speedup_compile = v->io_bytes = v->flops = NAN;
	v->build_s = v->run_s = v->total_s = NAN;
	timing_init(&v->runtime);
	timing_init(&v->ref_runtime);
	timing_init(&v->compiled_ref_runtime);
	v->tf32_ref = v->tf32_cand = -1;
	floor_init(&v->floor);
	v->scaled.scale = NAN;
	v->gpu = -1;
}

void kp_verdict_release(struct kp_verdict *v)
{
	free(v->message);
	free(v->log);
	free(v->phase);
	free(v->artifact);
	free(v->work_dir);
	free(v->timeline);
	free(v->build_note);
	free(v->scaled.reason);
	for (size_t i = 0; i < v->nflags; i++)
		free(v->flags[i].message);
	free(v->flags);
	json_decref(v->sandbox);
	json_decref(v->evidence);
	kp_verdict_init(v);
}

void kp_verdict_flag(struct kp_verdict *v, const char *check, enum kp_check_severity sev, const char *fmt, ...)
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
	} else if (sev == KP_SEV_FAIL && v->status != KP_STATUS_CHEAT_SUSPECTED) {
		v->status = KP_STATUS_WRONG_OUTPUT;
		v->correct = 0;
	}
}

void kp_verdict_refused(struct kp_verdict *v, const char *check, const char *summary)
{
	free(v->message);
	v->message = kp_xasprintf("refused by check '%s': %s", check, summary);
	free(v->log);
	v->log = kp_xasprintf("refused by dynamic check '%s': %s", check,
			      v->nflags ? v->flags[v->nflags - 1].message : summary);
}

const struct kp_flag *kp_verdict_find_flag(const struct kp_verdict *v, const char *check)
{
	for (size_t i = 0; i < v->nflags; i++)
		if (!strcmp(v->flags[i].check, check))
			return &v->flags[i];
	return NULL;
}

static const char *tf32_words(int ref, int cand)
{
	if (ref == 0 && cand == 0)
		return "TF32 off on both";
	if (ref == 1 || cand == 1)
		return "TF32 ON on at least one side";
	return "TF32 not verified";
}

void kp_verdict_speedup_text(const struct kp_verdict *v, struct kp_buf *out)
{
	const char *prec = v->precision[0] ? v->precision : "?";
	if (v->status != KP_STATUS_CORRECT || isnan(v->speedup))
		return;
	kp_buf_addf(out, "%.3gx over %s (%.4g ms vs %.4g ms, medians of %d %s)", v->speedup,
		    v->reference[0] ? v->reference : "the reference", v->runtime.median_ms, v->ref_runtime.median_ms,
		    v->runtime.trials, kp_plural(v->runtime.trials, "trial", "trials"));
	if (!isnan(v->speedup_compile))
		kp_buf_addf(out, ", %.3gx over torch.compile (%.4g ms)", v->speedup_compile,
			    v->compiled_ref_runtime.median_ms);
	else
		kp_buf_adds(out, ", torch.compile not measured");
	kp_buf_addf(out, "; both sides in %s", prec);
	if (v->ref_precision[0] && v->cand_precision[0] && strcmp(v->ref_precision, v->cand_precision))
		kp_buf_addf(out, " (outputs: reference %s, candidate %s)", v->ref_precision, v->cand_precision);
	kp_buf_addf(out, ", %s; outputs within atol=%g, rtol=%g (%s%s%s) on %d of %d %s",
		    tf32_words(v->tf32_ref, v->tf32_cand), v->atol, v->rtol, v->tol_source[0] ? v->tol_source : "tolerance",
		    !strcmp(v->tol_source, "default") ? " for " : "", !strcmp(v->tol_source, "default") ? prec : "",
		    v->trials_passed, v->trials_run, kp_plural(v->trials_run, "trial", "trials"));
	if (!strcmp(v->scaled.status, "passed"))
		kp_buf_addf(out, " and with inputs scaled x%g (atol there widened to the outputs' rounding error)",
			    v->scaled.scale);
	else if (!strcmp(v->scaled.status, "skipped"))
		kp_buf_adds(out, " (scaled trial skipped)");
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

static json_t *tf32_json(int on)
{
	return on < 0 ? json_null() : json_boolean(on);
}

static json_t *floor_json(const struct kp_floor *f)
{
	json_t *o = json_object();
	kp_json_set(o, "time_s", kp_json_real(f->time_s));
	kp_json_set(o, "source", f->source[0] ? json_string(f->source) : json_null());
	kp_json_set(o, "bytes", kp_json_real(f->bytes));
	kp_json_set(o, "in_bytes", kp_json_real(f->in_bytes));
	kp_json_set(o, "out_bytes", kp_json_real(f->out_bytes));
	kp_json_set(o, "dram_bytes", kp_json_real(f->dram_bytes));
	kp_json_set(o, "flops", kp_json_real(f->flops));
	kp_json_set(o, "flops_counted", json_boolean(f->flops_counted));
	kp_json_set(o, "flop_time_s", kp_json_real(f->flop_time_s));
	kp_json_set(o, "dram_bw", kp_json_real(f->dram_bw));
	kp_json_set(o, "compute_peak", kp_json_real(f->compute_peak));
	kp_json_set(o, "gpu", f->gpu[0] ? json_string(f->gpu) : json_null());
	return o;
}

static json_t *conditions_json(const struct kp_verdict *v)
{
	json_t *o = json_object(), *tf = json_object();
	kp_json_set(o, "precision", v->precision[0] ? json_string(v->precision) : json_null());
	kp_json_set(o, "reference_precision", v->ref_precision[0] ? json_string(v->ref_precision) : json_null());
	kp_json_set(o, "candidate_precision", v->cand_precision[0] ? json_string(v->cand_precision) : json_null());
	kp_json_set(tf, "reference", tf32_json(v->tf32_ref));
	kp_json_set(tf, "candidate", tf32_json(v->tf32_cand));
	kp_json_set(o, "tf32", tf);
	kp_json_set(o, "atol", kp_json_real(v->atol));
	kp_json_set(o, "rtol", kp_json_real(v->rtol));
	kp_json_set(o, "tolerance", v->tol_source[0] ? json_string(v->tol_source) : json_null());
	kp_json_set(o, "reference", v->reference[0] ? json_string(v->reference) : json_null());
	return o;
}

/* seconds.correctness_parts: {"name": {"seconds", "calls", "longest"}, ...}, or null when none. */
static json_t *parts_json(const struct kp_verdict *v)
{
	json_t *o;

	if (!v->nparts)
		return json_null();
	o = json_object();
	for (size_t i = 0; i < v->nparts; i++) {
		json_t *p = json_object();
		kp_json_set(p, "seconds", kp_json_real(v->parts[i].seconds));
		kp_json_set(p, "calls", json_integer(v->parts[i].calls));
		kp_json_set(p, "longest", kp_json_real(v->parts[i].longest));
		kp_json_set(o, v->parts[i].name, p);
	}
	return o;
}

static json_t *scaled_json(const struct kp_scaled_trial *t)
{
	json_t *o;
	if (!t->status[0])
		return json_null();
	o = json_object();
	kp_json_set(o, "status", json_string(t->status));
	kp_json_set(o, "scale", kp_json_real(t->scale));
	kp_json_set(o, "reason", str_or_null(t->reason));
	return o;
}

json_t *kp_verdict_to_json(const struct kp_verdict *v)
{
	struct kp_buf claim = KP_BUF_INIT;
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
	kp_json_set(o, "timeline", str_or_null(v->timeline));
	kp_json_set(o, "build_note", str_or_null(v->build_note));

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
	kp_json_set(o, "compiled_ref_runtime", timing_json(&v->compiled_ref_runtime));
	kp_json_set(o, "speedup_compile", kp_json_real(v->speedup_compile));
	kp_verdict_speedup_text(v, &claim);
	kp_json_set(o, "claim", claim.len ? json_string(claim.buf) : json_null());
	kp_buf_release(&claim);
	kp_json_set(o, "conditions", conditions_json(v));
	kp_json_set(o, "io_bytes", kp_json_real(v->io_bytes));
	kp_json_set(o, "flops", kp_json_real(v->flops));
	kp_json_set(o, "floor", floor_json(&v->floor));
	kp_json_set(o, "scaled_trial", scaled_json(&v->scaled));

	for (size_t i = 0; i < v->nflags; i++) {
		json_t *f = json_object();
		kp_json_set(f, "check", json_string(v->flags[i].check));
		kp_json_set(f, "severity", json_string(kp_check_severity_name(v->flags[i].severity)));
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
	kp_json_set(secs, "correctness_parts", parts_json(v));
	kp_json_set(o, "seconds", secs);
	kp_json_set(o, "sandbox", v->sandbox ? json_deep_copy(v->sandbox) : json_null());
	kp_json_set(o, "runtime_evidence", v->evidence ? json_deep_copy(v->evidence) : json_null());
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

static void copy_name(char *dst, size_t n, const json_t *o, const char *key)
{
	kp_strlcpy(dst, kp_json_str(o, key, ""), n);
}

static int tf32_from_json(const json_t *o, const char *key)
{
	const json_t *x = json_object_get(o, key);
	return json_is_boolean(x) ? json_is_true(x) : -1;
}

static void floor_from_json(struct kp_floor *f, const json_t *o)
{
	floor_init(f);
	if (!json_is_object(o))
		return;
	f->time_s = num_or_nan(o, "time_s");
	f->bytes = num_or_nan(o, "bytes");
	f->in_bytes = num_or_nan(o, "in_bytes");
	f->out_bytes = num_or_nan(o, "out_bytes");
	f->dram_bytes = num_or_nan(o, "dram_bytes");
	f->flops = num_or_nan(o, "flops");
	f->flops_counted = kp_json_bool(o, "flops_counted", 0);
	f->flop_time_s = num_or_nan(o, "flop_time_s");
	f->dram_bw = num_or_nan(o, "dram_bw");
	f->compute_peak = num_or_nan(o, "compute_peak");
	copy_name(f->source, sizeof(f->source), o, "source");
	copy_name(f->gpu, sizeof(f->gpu), o, "gpu");
}

static void conditions_from_json(struct kp_verdict *v, const json_t *o)
{
	const json_t *tf = json_object_get(o, "tf32");
	copy_name(v->precision, sizeof(v->precision), o, "precision");
	copy_name(v->ref_precision, sizeof(v->ref_precision), o, "reference_precision");
	copy_name(v->cand_precision, sizeof(v->cand_precision), o, "candidate_precision");
	copy_name(v->tol_source, sizeof(v->tol_source), o, "tolerance");
	copy_name(v->reference, sizeof(v->reference), o, "reference");
	v->tf32_ref = tf32_from_json(tf, "reference");
	v->tf32_cand = tf32_from_json(tf, "candidate");
}

void kp_time_parts_from_json(struct kp_verdict *v, const json_t *o)
{
	const char *name;
	const json_t *p;

	v->nparts = 0;
	json_object_foreach((json_t *)o, name, p) {
		double s = num_or_nan(p, "seconds"), l = num_or_nan(p, "longest");
		json_int_t calls = kp_json_int(p, "calls", -1);
		struct kp_time_part *t;
		if (v->nparts == KP_TIME_PARTS_MAX)
			break;
		t = &v->parts[v->nparts];
		if (strlen(name) >= sizeof(t->name) || !(s >= 0 && s < 1e9) || !(l >= 0 && l <= s) ||
		    calls < 0 || calls > INT_MAX)
			continue;
		kp_strlcpy(t->name, name, sizeof(t->name));
		t->seconds = s;
		t->longest = l;
		t->calls = (int)calls;
		v->nparts++;
	}
}

/* The scaled trial from a verdict's or a harness result's "scaled_trial" object. */
void kp_scaled_from_json(struct kp_scaled_trial *t, const json_t *o)
{
	const char *reason = kp_json_str(o, "reason", NULL);
	free(t->reason);
	memset(t, 0, sizeof(*t));
	t->scale = NAN;
	if (!json_is_object(o))
		return;
	copy_name(t->status, sizeof(t->status), o, "status");
	t->scale = num_or_nan(o, "scale");
	t->reason = reason ? kp_xstrdup(reason) : NULL;
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
	v->timeline = dup_str(j, "timeline");
	v->build_note = dup_str(j, "build_note");
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
	timing_from_json(&v->compiled_ref_runtime, json_object_get(j, "compiled_ref_runtime"));
	v->speedup_compile = num_or_nan(j, "speedup_compile");
	conditions_from_json(v, json_object_get(j, "conditions"));
	v->io_bytes = num_or_nan(j, "io_bytes");
	v->flops = num_or_nan(j, "flops");
	floor_from_json(&v->floor, json_object_get(j, "floor"));
	kp_scaled_from_json(&v->scaled, json_object_get(j, "scaled_trial"));

	flags = json_object_get(j, "flags");
	json_array_foreach(flags, i, f) {
		const char *check = kp_json_str(f, "check", NULL);
		const char *msg = kp_json_str(f, "message", "");
		enum kp_check_severity sev = KP_SEV_WARN;
		enum kp_status keep = v->status;
		if (!check)
			continue;
		kp_check_severity_parse(kp_json_str(f, "severity", "warn"), &sev);
		kp_verdict_flag(v, check, sev, "%s", msg);
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
	kp_time_parts_from_json(v, json_object_get(secs, "correctness_parts"));
	if (json_is_object(json_object_get(j, "sandbox")))
		v->sandbox = json_deep_copy(json_object_get(j, "sandbox"));
	if (json_is_object(json_object_get(j, "runtime_evidence")))
		v->evidence = json_deep_copy(json_object_get(j, "runtime_evidence"));
	return 0;
}

/* --- baselines ------------------------------------------------------------------------------- */

void kp_baseline_init(struct kp_baseline *b)
{
	memset(b, 0, sizeof(*b));
	timing_init(&b->eager);
	timing_init(&b->compiled);
	b->io_bytes = b->flops = NAN;
	b->tf32 = -1;
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
	kp_json_set(o, "flops", kp_json_real(b->flops));
	kp_json_set(o, "precision", b->precision[0] ? json_string(b->precision) : json_null());
	kp_json_set(o, "tf32", tf32_json(b->tf32));
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
