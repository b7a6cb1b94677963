/* Checks on a finished harness child that kernelpro makes itself (trust.h), and the bounds every
 * evaluation result is held to before anything ranks by it (kp_eval_numbers_check). */
#include "base/setup.h"

#include <math.h>
#include <signal.h>

#include "eval/trust.h"
#include "kernelpro/eval.h"

#define SPEEDUP_SLACK 1.25 /* a given speedup may differ this much from ref_time / time */

static int time_ok(double ms)
{
	return isnan(ms) || (isfinite(ms) && ms >= KP_EVAL_MIN_MS && ms <= KP_EVAL_MAX_MS);
}

int kp_eval_numbers_check(const char *what, double time_ms, double time_std_ms, double ref_time_ms,
			  double speedup, double energy_j, struct kp_error *err)
{
	if (!time_ok(time_ms))
		return kp_error_set(err, KP_EPARSE, "%s: runtime %g ms is not a measurement (a time is %g..%g ms)", what,
				    time_ms, KP_EVAL_MIN_MS, KP_EVAL_MAX_MS);
	if (!time_ok(ref_time_ms))
		return kp_error_set(err, KP_EPARSE, "%s: reference runtime %g ms is not a measurement (a time is %g..%g ms)",
				    what, ref_time_ms, KP_EVAL_MIN_MS, KP_EVAL_MAX_MS);
	if (!isnan(time_std_ms) && !(isfinite(time_std_ms) && time_std_ms >= 0 && time_std_ms <= KP_EVAL_MAX_MS))
		return kp_error_set(err, KP_EPARSE, "%s: standard deviation %g ms is not a measurement", what, time_std_ms);
	if (!isnan(speedup) && !(isfinite(speedup) && speedup > 0 && speedup <= KP_EVAL_MAX_SPEEDUP))
		return kp_error_set(err, KP_EPARSE, "%s: speedup %g is not a measurement (a speedup is above 0 and at most %g)",
				    what, speedup, KP_EVAL_MAX_SPEEDUP);
	if (!isnan(speedup) && !isnan(time_ms) && !isnan(ref_time_ms)) {
		double ratio = speedup / (ref_time_ms / time_ms);
		if (ratio > SPEEDUP_SLACK || ratio < 1 / SPEEDUP_SLACK)
			return kp_error_set(err, KP_EPARSE,
					    "%s: speedup %g does not follow from the times (reference %g ms / candidate %g ms "
					    "= %g)",
					    what, speedup, ref_time_ms, time_ms, ref_time_ms / time_ms);
	}
	if (!isnan(energy_j) && !(isfinite(energy_j) && energy_j >= 0))
		return kp_error_set(err, KP_EPARSE, "%s: energy %g J is not a measurement", what, energy_j);
	return 0;
}

/* Every statistic of one timing: times in bounds, min <= median <= max. */
static int timing_check(const char *what, const struct kp_timing *t, struct kp_error *err)
{
	const double all[] = {t->median_ms, t->mean_ms, t->min_ms, t->max_ms, t->host_median_ms};
	int rc = 0;
	if (t->trials <= 0)
		return 0;
	for (size_t i = 0; i < KP_ARRAY_SIZE(all) && !rc; i++)
		rc = kp_eval_numbers_check(what, all[i], t->std_ms, NAN, NAN, NAN, err);
	if (!rc && t->min_ms <= t->max_ms && !(t->min_ms <= t->median_ms && t->median_ms <= t->max_ms))
		rc = kp_error_set(err, KP_EPARSE, "%s: median %g ms lies outside min %g .. max %g ms", what, t->median_ms,
				  t->min_ms, t->max_ms);
	if (!rc && t->min_ms > t->max_ms)
		rc = kp_error_set(err, KP_EPARSE, "%s: min %g ms above max %g ms", what, t->min_ms, t->max_ms);
	return rc;
}

void kp_eval_trust(const struct kp_harness_out *h, const struct kp_child *c, struct kp_verdict *v)
{
	const json_t *sb = h->result ? json_object_get(h->result, "sandbox") : NULL;
	const char *phase = v->phase ? v->phase : "start";
	struct kp_error err = KP_ERROR_INIT;

	if (json_is_object(sb)) {
		json_decref(v->sandbox);
		v->sandbox = json_deep_copy(sb);
	}
	if (!h->result && !c->timed_out && c->term_signal == SIGSYS) {
		kp_verdict_flag(v, "process_spawn", KP_SEV_REFUSE,
				"the evaluation child ended by SIGSYS in phase '%s': it made a call the sandbox refuses "
				"(starting a process) with SIGSYS blocked, as glibc's system() and posix_spawn do, so the "
				"kernel ended it; nothing was started",
				phase);
		kp_verdict_refused(v, "process_spawn", "the candidate tried to start a process");
		return;
	}
	if (!h->result && !c->timed_out && c->term_signal == SIGXCPU) {
		v->status = KP_STATUS_TIMEOUT;
		free(v->message);
		v->message = kp_xasprintf("the sandbox's CPU-time limit ended it in phase '%s': its threads together used "
					  "twice the evaluation's whole time budget in CPU time (busy threads, a spinning "
					  "host loop)",
					  phase);
		return;
	}
	if (v->status != KP_STATUS_CORRECT)
		return;
	if (timing_check("runtime", &v->runtime, &err) || timing_check("ref_runtime", &v->ref_runtime, &err) ||
	    timing_check("compiled_runtime", &v->compiled_ref_runtime, &err)) {
		kp_verdict_flag(v, "implausible_result", KP_SEV_REFUSE, "%s", err.msg);
		kp_verdict_refused(v, "implausible_result", "the harness reported numbers no measurement gives");
	}
}
