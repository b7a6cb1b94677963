/*
 * A re-judged suite side by side with the verdicts its kernels' own run recorded: one row per kernel
 * (what each said, whether they agree, the check and message behind a disagreement), the agreement
 * counts, and fast_p and geomean under both (kp_rejudge_table, docs/rejudge.md).
 */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/json.h"
#include "kernelpro/recorded.h"
#include "kernelpro/rejudge.h"
#include "kernelpro/run.h"
#include "kernelpro/str.h"
#include "suite/bench_int.h"

/* kernelpro's verdict of a run's one given version. */
struct judged {
	int have;
	enum kp_outcome outcome;
	double time_ms;
	char *verdict_json;
	char *log;
};

struct find_ctx {
	struct kp_store *st;
	struct judged *j;
};

static int first_given(const struct kp_eval_row *r, void *ud)
{
	struct find_ctx *c = ud;
	struct kp_node_row row;
	struct kp_error ignore = KP_ERROR_INIT;
	if (kp_store_node_get(c->st, r->node, &row, &ignore) || row.kind != KP_NODE_GIVEN)
		return 0;
	c->j->have = 1;
	c->j->outcome = r->outcome;
	c->j->time_ms = r->time_ms;
	c->j->verdict_json = r->verdict_json ? kp_xstrdup(r->verdict_json) : NULL;
	c->j->log = r->log ? kp_xstrdup(r->log) : NULL;
	return 1;
}

/* The run's verdict of its given version; none (have 0) when the run has none yet. */
static void read_judged(const char *suite_dir, const char *name, struct judged *j)
{
	struct kp_buf dir = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_run *r = NULL;

	memset(j, 0, sizeof(*j));
	j->time_ms = NAN;
	kp__bench_run_dir(&dir, suite_dir, name);
	if (kp_run_exists(dir.buf) && !kp_run_open(&r, dir.buf, KP_RUN_READONLY, &err)) {
		struct find_ctx c = {kp_run_store(r), j};
		kp_store_evals_each(c.st, first_given, &c, &err);
	}
	kp_run_close(r);
	kp_buf_release(&dir);
}

/* The check that refused it (the first refusing flag) and the verdict's message, from its JSON. */
static void verdict_why(const struct judged *j, json_t *o)
{
	json_t *v = j->verdict_json ? json_loads(j->verdict_json, 0, NULL) : NULL;
	const json_t *flags = json_object_get(v, "flags");
	const char *check = NULL, *msg = kp_json_str(v, "message", NULL);

	for (size_t i = 0; i < json_array_size(flags) && !check; i++) {
		const json_t *f = json_array_get(flags, i);
		const char *sev = kp_json_str(f, "severity", "");
		if (!strcmp(sev, "refuse") || !strcmp(sev, "fail"))
			check = kp_json_str(f, "check", NULL);
	}
	if (!msg && j->log) /* an exec evaluator's verdict may say it in its log alone */
		msg = j->log;
	kp_json_set(o, "check", check ? json_string(check) : NULL);
	if (msg) {
		size_t n = strlen(msg) > KP_RECORDED_MSG_MAX ? KP_RECORDED_MSG_MAX : strlen(msg);
		while (n && n < strlen(msg) && ((unsigned char)msg[n] & 0xC0) == 0x80)
			n--;
		kp_json_set(o, "message", json_stringn(msg, n));
	} else {
		kp_json_set(o, "message", NULL);
	}
	json_decref(v);
}

/* fast_p and geomean over one side's speedups (NAN: not correct, or no speedup known). */
struct side {
	long n, correct, timed; /* kernels with a verdict; correct; correct with a speedup */
	long with_base;         /* kernels whose speedup could be known (a baseline or reference time) */
	long above[KP_SUITE_NP];
	double log_sum;
};

static void side_add(struct side *s, int have, int correct, double speedup, int base_known)
{
	if (!have)
		return;
	s->n++;
	s->with_base += base_known;
	if (!correct)
		return;
	s->correct++;
	if (isnan(speedup))
		return;
	s->timed++;
	s->log_sum += log(speedup);
	for (int p = 0; p < KP_SUITE_NP; p++)
		s->above[p] += speedup > kp_suite_p[p];
}

static json_t *side_json(const struct side *s, const char *against)
{
	json_t *o = json_object(), *fp = json_object();
	kp_json_set(o, "against", json_string(against));
	kp_json_set(o, "kernels", json_integer(s->n));
	kp_json_set(o, "correct", json_integer(s->correct));
	kp_json_set(o, "with_baseline", json_integer(s->with_base));
	/* fast_0 is the correctness rate over every kernel judged; above 0 the kernels whose speedup is
	 * known, failures included (KernelBench's denominator), and unknown when no correct kernel has one.
	 */
	for (int p = 0; p < KP_SUITE_NP; p++) {
		double d = p == 0 ? (double)s->n : (double)s->with_base;
		double v = p == 0 ? (double)s->correct : (double)s->above[p];
		int unknown = p > 0 && s->correct && !s->timed;
		kp_json_set(fp, kp_suite_p_key(p), kp_json_real(d > 0 && !unknown ? v / d : NAN));
	}
	kp_json_set(o, "fast_p", fp);
	kp_json_set(o, "geomean_correct", kp_json_real(s->timed ? exp(s->log_sum / (double)s->timed) : NAN));
	return o;
}

static json_t *row_json(const struct kp_suitedb_task *t, const struct kp_bench_task_settings *set,
                        const struct kp_suite_task *rec, const char *suite_dir, struct side *sr,
                        struct side *sk, long *agree, long *disagree, long *rec_only, long *kp_only)
{
	json_t *o = json_object(), *rj = NULL, *kj = NULL;
	struct kp_recorded r;
	struct kp_error err = KP_ERROR_INIT;
	struct judged j;
	int have_r = 0;

	kp_recorded_init(&r);
	if (set->recorded) {
		json_t *x = json_loads(set->recorded, 0, NULL);
		have_r = x && !kp_recorded_from_json(&r, x, &err);
		json_decref(x);
	}
	read_judged(suite_dir, t->name, &j);
	kp_json_set(o, "name", json_string(t->name));
	kp_json_set(o, "kernel", json_string(set->kernel));
	kp_json_set(o, "task", json_string(t->path));
	kp_json_set(o, "state", json_string(kp_suite_state_name(rec->state)));
	kp_json_set(o, "reason", rec->reason ? json_string(rec->reason) : NULL);
	if (have_r) {
		double sp = r.correct && r.ref_ms > 0 && r.runtime_ms > 0 ? r.ref_ms / r.runtime_ms : NAN;
		rj = json_object();
		kp_json_set(rj, "outcome", json_string(kp_recorded_outcome(&r)));
		kp_json_set(rj, "correct", json_boolean(r.correct));
		kp_json_set(rj, "runtime_ms", kp_json_real(r.runtime_ms));
		kp_json_set(rj, "ref_ms", kp_json_real(r.ref_ms));
		kp_json_set(rj, "speedup", kp_json_real(sp));
		kp_json_set(rj, "error_kind", r.error_kind ? json_string(r.error_kind) : NULL);
		kp_json_set(rj, "message", r.message ? json_string(r.message) : NULL);
		kp_json_set(rj, "hardware", r.hardware ? json_string(r.hardware) : NULL);
		side_add(sr, 1, r.correct, sp, !r.correct || r.ref_ms > 0);
	}
	if (j.have) {
		int ok = j.outcome == KP_OUTCOME_CORRECT;
		double sp = ok ? rec->speedup[KP_SUITE_EAGER] : NAN;
		kj = json_object();
		kp_json_set(kj, "outcome", json_string(kp_outcome_name(j.outcome)));
		kp_json_set(kj, "correct", json_boolean(ok));
		kp_json_set(kj, "time_ms", kp_json_real(j.time_ms));
		kp_json_set(kj, "eager_ms", kp_json_real(rec->base_ms[KP_SUITE_EAGER]));
		kp_json_set(kj, "speedup", kp_json_real(sp));
		verdict_why(&j, kj);
		side_add(sk, 1, ok, sp, !isnan(rec->base_ms[KP_SUITE_EAGER]));
	}
	kp_json_set(o, "recorded", rj);
	kp_json_set(o, "kernelpro", kj);
	if (have_r && j.have) {
		int same = r.correct == (j.outcome == KP_OUTCOME_CORRECT);
		kp_json_set(o, "agree", json_boolean(same));
		*agree += same;
		*disagree += !same;
		*rec_only += r.correct && !same;
		*kp_only += !r.correct && !same;
	} else {
		kp_json_set(o, "agree", NULL);
	}
	free(j.verdict_json);
	free(j.log);
	kp_recorded_release(&r);
	return o;
}

int kp_rejudge_table(const char *suite_dir, const struct kp_suite *s, json_t **out, struct kp_error *err)
{
	struct kp_bench *b = NULL;
	struct side sr = {0}, sk = {0};
	long agree = 0, disagree = 0, rec_only = 0, kp_only = 0, kernels = 0, recorded = 0;
	json_t *rows = NULL, *sum;
	int rc;

	*out = NULL;
	if ((rc = kp_bench_open(&b, suite_dir, err)))
		return rc;
	rows = json_array();
	for (size_t i = 0; i < b->ntasks && i < s->n; i++) {
		struct kp_bench_task_settings set;
		kp__bench_task_settings(&b->tasks[i], &set);
		if (set.kernel) {
			kernels++;
			recorded += set.recorded != NULL;
			json_array_append_new(rows, row_json(&b->tasks[i], &set, &s->v[i], suite_dir, &sr,
			                                     &sk, &agree, &disagree, &rec_only, &kp_only));
		}
		kp__bench_task_settings_release(&set);
	}
	kp_bench_close(b);
	if (!kernels) {
		json_decref(rows);
		return 0;
	}
	sum = json_object();
	kp_json_set(sum, "kernels", json_integer(kernels));
	kp_json_set(sum, "with_recorded", json_integer(recorded));
	kp_json_set(sum, "compared", json_integer(agree + disagree));
	kp_json_set(sum, "agree", json_integer(agree));
	kp_json_set(sum, "disagree", json_integer(disagree));
	kp_json_set(sum, "recorded_correct_kernelpro_not", json_integer(rec_only));
	kp_json_set(sum, "kernelpro_correct_recorded_not", json_integer(kp_only));
	kp_json_set(sum, "recorded", side_json(&sr, "the reference time the run recorded (or --recorded-baseline's)"));
	kp_json_set(sum, "kernelpro", side_json(&sk, "eager, measured by kernelpro"));
	*out = json_object();
	kp_json_set(*out, "kernels", rows);
	kp_json_set(*out, "summary", sum);
	return 0;
}
