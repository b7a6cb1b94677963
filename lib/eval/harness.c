/* Reading a harness child's JSON lines and turning them, and how the child ended, into a verdict. */
#include "base/setup.h"

#include <math.h>

#include "eval/excerpt.h"
#include "eval/harness.h"
#include "kernelpro/json.h"
#include "kernelpro/str.h"

#define LOG_CAP 8000

void kp_harness_parse(const char *out, size_t len, struct kp_harness_out *h)
{
	const char *p = out, *end = out + len;

	memset(h, 0, sizeof(*h));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		json_t *o = NULL;

		if (e > p && *p == '{' && kp_json_load_mem("harness", p, (size_t)(e - p), &o, NULL) == 0) {
			const json_t *r = json_object_get(o, "result");
			const char *phase = kp_json_str(o, "phase", NULL);
			h->lines++;
			if (json_is_object(r)) {
				json_decref(h->result);
				h->result = json_incref((json_t *)r);
			} else if (phase) {
				kp_strlcpy(h->phase, phase, sizeof(h->phase));
				h->phase_limit_s = kp_json_num(o, "limit_s", NAN);
			}
		}
		json_decref(o);
		p = e + 1;
	}
}

void kp_harness_release(struct kp_harness_out *h)
{
	json_decref(h->result);
	memset(h, 0, sizeof(*h));
}

static void set_str(char **dst, const char *s)
{
	free(*dst);
	*dst = s ? kp_xstrdup(s) : NULL;
}

static void stderr_excerpt(const struct kp_child *c, struct kp_buf *out)
{
	struct kp_buf tmp = KP_BUF_INIT;
	kp_buf_add(&tmp, c->err.buf, c->err.len);
	kp_buf_rtrim(&tmp);
	kp_excerpt(tmp.buf, tmp.len, LOG_CAP, 3, out);
	kp_buf_release(&tmp);
}

/* The child died without a result: say how, where, and show its stderr. */
static void from_exit(const struct kp_harness_out *h, const struct kp_child *c, struct kp_verdict *v)
{
	const char *phase = h->phase[0] ? h->phase : "start";
	int watchdog = strstr(c->err.buf, "Timeout (") != NULL || (!c->term_signal && c->exit_code == 124);
	struct kp_buf log = KP_BUF_INIT;
	char how[160];

	stderr_excerpt(c, &log);
	set_str(&v->phase, phase);
	if (c->timed_out || watchdog) {
		v->status = KP_STATUS_TIMEOUT;
		if (!isnan(h->phase_limit_s) && h->phase_limit_s > 0)
			v->message = kp_xasprintf("timed out in phase '%s' (limit %.0f s): a hang, an endless loop or "
						  "a deadlock in a kernel",
						  phase, h->phase_limit_s);
		else
			v->message = kp_xasprintf("timed out in phase '%s' (%s)", phase, kp_child_describe(c, how, sizeof(how)));
	} else {
		v->status = KP_STATUS_RUNTIME_ERROR;
		v->message = kp_xasprintf("the harness %s in phase '%s'%s", kp_child_describe(c, how, sizeof(how)), phase,
					  c->term_signal == 11	 ? ": a host-side crash (bad pointer, ABI mismatch)"
					  : c->term_signal == 6 ? ": aborted"
								 : "");
	}
	v->log = kp_buf_detach(&log, NULL);
	kp_buf_release(&log);
}

static void copy_dtype(char *dst, size_t n, const json_t *o, const char *key)
{
	const char *s = kp_json_str(o, key, NULL);
	if (s)
		kp_strlcpy(dst, s, n);
}

/* What both sides ran at: output dtypes, TF32, and what the reference is. */
static void read_conditions(const json_t *r, struct kp_verdict *v)
{
	const json_t *p = json_object_get(r, "precision"), *tf = json_object_get(r, "tf32");
	copy_dtype(v->ref_precision, sizeof(v->ref_precision), p, "reference");
	copy_dtype(v->cand_precision, sizeof(v->cand_precision), p, "candidate");
	copy_dtype(v->reference, sizeof(v->reference), r, "reference");
	if (json_is_boolean(json_object_get(tf, "reference")))
		v->tf32_ref = json_is_true(json_object_get(tf, "reference"));
	if (json_is_boolean(json_object_get(tf, "candidate")))
		v->tf32_cand = json_is_true(json_object_get(tf, "candidate"));
}

/* Over 80 lines: one field of the harness's result after another into the verdict; a list, not logic. */
int kp_harness_apply(const struct kp_harness_out *h, const struct kp_child *c, struct kp_verdict *v,
		     struct kp_error *err)
{
	const json_t *r = h->result, *flags, *f, *builds, *b;
	const char *status;
	size_t i;
	int all_cached = 1, nbuilds = 0;

	if (!r) {
		from_exit(h, c, v);
		return 0;
	}
	status = kp_json_str(r, "status", "");
	if (!strcmp(status, "harness_error")) {
		struct kp_buf log = KP_BUF_INIT;
		stderr_excerpt(c, &log);
		kp_error_set(err, KP_ENODEV, "the harness could not evaluate: %s%s%s", kp_json_str(r, "message", "?"),
			     log.len ? "\n" : "", log.buf);
		kp_buf_release(&log);
		return KP_ENODEV;
	}
	if (kp_status_parse(status, &v->status) || v->status == KP_STATUS_NONE) {
		v->status = KP_STATUS_RUNTIME_ERROR;
		set_str(&v->message, "the harness wrote a result without a valid status");
	} else
		set_str(&v->message, kp_json_str(r, "message", NULL));
	set_str(&v->phase, kp_json_str(r, "phase", h->phase[0] ? h->phase : NULL));
	{
		const char *log = kp_json_str(r, "log", NULL);
		if (log && *log)
			set_str(&v->log, log);
		else if (v->status != KP_STATUS_CORRECT && v->status != KP_STATUS_COMPILED && c->err.len) {
			struct kp_buf tmp = KP_BUF_INIT;
			stderr_excerpt(c, &tmp);
			free(v->log);
			v->log = kp_buf_detach(&tmp, NULL);
		}
	}
	set_str(&v->timeline, kp_json_str(r, "timeline", NULL));
	set_str(&v->build_note, kp_json_str(r, "build_note", NULL));
	if (json_is_object(json_object_get(r, "runtime_evidence"))) {
		json_decref(v->evidence);
		v->evidence = json_deep_copy(json_object_get(r, "runtime_evidence"));
	}
	kp_time_parts_from_json(v, json_object_get(r, "correctness_parts"));
	v->compiled = kp_json_bool(r, "compiled", v->compiled) ? 1 : 0;
	v->trials_run = (int)kp_json_int(r, "trials_run", 0);
	v->trials_passed = (int)kp_json_int(r, "trials_passed", 0);
	v->max_abs_diff = kp_json_num(r, "max_abs_diff", NAN);
	v->mean_abs_diff = kp_json_num(r, "mean_abs_diff", NAN);
	kp_timing_from_json(&v->runtime, json_object_get(r, "runtime"));
	kp_timing_from_json(&v->ref_runtime, json_object_get(r, "ref_runtime"));
	kp_loop_from_json(&v->loop, json_object_get(r, "loop"));
	kp_loop_from_json(&v->ref_loop, json_object_get(r, "ref_loop"));
	v->io_bytes = kp_json_num(r, "io_bytes", v->io_bytes);
	v->flops = kp_json_num(r, "flops", v->flops);
	v->floor.in_bytes = kp_json_num(r, "in_bytes", v->floor.in_bytes);
	v->floor.out_bytes = kp_json_num(r, "out_bytes", v->floor.out_bytes);
	kp_timing_from_json(&v->compiled_ref_runtime, json_object_get(r, "compiled_runtime"));
	read_conditions(r, v);
	if (json_is_object(json_object_get(r, "scaled_trial")))
		kp_scaled_from_json(&v->scaled, json_object_get(r, "scaled_trial"));
	kp_strlcpy(v->gpu_name, kp_json_str(r, "gpu_name", v->gpu_name), sizeof(v->gpu_name));
	if (isnan(v->build_s) && json_is_number(json_object_get(r, "build_s")))
		v->build_s = kp_json_num(r, "build_s", NAN);

	builds = json_object_get(r, "fast_builds");
	json_array_foreach(builds, i, b) {
		const char *lib = kp_json_str(b, "lib", NULL);
		nbuilds++;
		if (!kp_json_bool(b, "cached", 0))
			all_cached = 0;
		if (lib && !v->artifact)
			v->artifact = kp_xstrdup(lib);
	}
	if (nbuilds)
		v->build_cached = (unsigned)all_cached;

	flags = json_object_get(r, "flags");
	json_array_foreach(flags, i, f) {
		const char *check = kp_json_str(f, "check", NULL);
		enum kp_check_severity sev = KP_SEV_WARN;
		enum kp_status keep = v->status;
		if (!check)
			continue;
		kp_check_severity_parse(kp_json_str(f, "severity", "warn"), &sev);
		kp_verdict_flag(v, check, sev, "%s", kp_json_str(f, "message", ""));
		v->status = keep; /* the harness already decided: a refusing or failing flag ended the run */
	}
	v->correct = v->status == KP_STATUS_CORRECT;
	if (v->status == KP_STATUS_CORRECT && !v->compiled)
		v->compiled = 1;
	return 0;
}
