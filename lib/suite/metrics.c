/* A suite's task records and their metrics: validation, speedups, fast_p, geometric means, coverage. */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/suite.h"

const double kp_suite_p[KP_SUITE_NP] = {0.0, 0.5, 0.8, 1.0, 1.5, 2.0};
static const char *const p_keys[KP_SUITE_NP] = {"0.0", "0.5", "0.8", "1.0", "1.5", "2.0"};
_Static_assert(KP_SUITE_P_FAST1 >= 0 && KP_SUITE_P_FAST1 < KP_SUITE_NP, "fast_1 is one of the thresholds");

#define KP__NAME(n, s) s,
static const char *const baseline_names[] = {KP_SUITE_BASELINES(KP__NAME)};
static const char *const state_names[] = {KP_SUITE_STATES(KP__NAME)};
#undef KP__NAME

const char *kp_suite_p_key(int i)
{
	return i >= 0 && i < KP_SUITE_NP ? p_keys[i] : "?";
}

const char *kp_suite_baseline_name(enum kp_suite_baseline b)
{
	return b >= 0 && b < KP_SUITE_NBASE ? baseline_names[b] : "unknown";
}

const char *kp_suite_state_name(enum kp_suite_state s)
{
	return s >= 0 && s < KP_SUITE_NSTATE ? state_names[s] : "unknown";
}

int kp_suite_state_parse(const char *name)
{
	for (int i = 0; name && i < KP_SUITE_NSTATE; i++)
		if (!strcmp(state_names[i], name))
			return i;
	return -1;
}

void kp_suite_task_init(struct kp_suite_task *t)
{
	memset(t, 0, sizeof(*t));
	t->state = KP_SUITE_PENDING;
	t->best_ms = t->ref_ms = NAN;
	t->energy_j = t->ref_energy_j = NAN;
	t->best_mean_ms = t->ref_mean_ms = NAN;
	t->ai = t->roof_share = NAN;
	t->cost_known = 1;
	for (int b = 0; b < KP_SUITE_NBASE; b++)
		t->base_ms[b] = t->speedup[b] = t->base_mean_ms[b] = NAN;
}

void kp_suite_task_release(struct kp_suite_task *t)
{
	free(t->name);
	free(t->run);
	free(t->kind);
	free(t->eager_from);
	free(t->lang);
	free(t->source);
	free(t->kernel);
	free(t->reason);
	free(t->failure_outcome);
	free(t->failure_check);
	free(t->failure_message);
	free(t->gpu);
	free(t->model);
	free(t->bottleneck);
	free(t->problem_file);
	kp_suite_task_init(t);
}

void kp_suite_init(struct kp_suite *s, const char *name)
{
	memset(s, 0, sizeof(*s));
	s->name = kp_xstrdup(name ? name : "suite");
	s->ctx.wall_s = NAN;
}

void kp_suite_release(struct kp_suite *s)
{
	for (size_t i = 0; i < s->n; i++)
		kp_suite_task_release(&s->v[i]);
	free(s->v);
	free(s->name);
	json_decref(s->rejudge);
	json_decref(s->ctx.settings);
	free(s->ctx.created);
	memset(s, 0, sizeof(*s));
}

void kp_suite_add(struct kp_suite *s, struct kp_suite_task *t)
{
	KP_ALLOC_GROW(s->v, s->n + 1, s->alloc);
	s->v[s->n++] = *t;
	kp_suite_task_init(t);
}

/* ---- validation --------------------------------------------------------------------------------- */

/* A time: NAN (not measured) or finite and > 0. */
static int check_time(const struct kp_suite_task *t, const char *field, double v, struct kp_error *err)
{
	if (isnan(v) || (isfinite(v) && v > 0))
		return 0;
	return kp_error_set(
	    err, KP_EINVAL,
	    "task '%s': %s is %g; a time is a positive number of ms, or null when not measured", t->name,
	    field, v);
}

/* A count or a sum: finite and >= 0, never "not measured". */
static int check_amount(const struct kp_suite_task *t, const char *field, double v, struct kp_error *err)
{
	if (isfinite(v) && v >= 0)
		return 0;
	return kp_error_set(err, KP_EINVAL, "task '%s': %s is %g; it must be a finite number >= 0", t->name,
	                    field, v);
}

static int check_task(const struct kp_suite_task *t, struct kp_error *err)
{
	int rc = 0;
	if (!t->name || !t->name[0])
		return kp_error_set(err, KP_EINVAL, "a task has no name");
	if (t->state < 0 || t->state >= KP_SUITE_NSTATE)
		return kp_error_set(err, KP_EINVAL, "task '%s': state %d is not a state", t->name,
		                    (int)t->state);
	if (t->level < 0 || t->problem_id < 0)
		return kp_error_set(err, KP_EINVAL, "task '%s': level and problem_id must be >= 0", t->name);
	rc = rc ? rc : check_time(t, "best_ms", t->best_ms, err);
	rc = rc ? rc : check_time(t, "ref_ms", t->ref_ms, err);
	rc = rc ? rc : check_time(t, "best_mean_ms", t->best_mean_ms, err);
	rc = rc ? rc : check_time(t, "ref_mean_ms", t->ref_mean_ms, err);
	for (int b = 0; b < KP_SUITE_NBASE && !rc; b++) {
		char field[48];
		snprintf(field, sizeof(field), "%s_mean_ms", kp_suite_baseline_name(b));
		rc = check_time(t, field, t->base_mean_ms[b], err);
	}
	if (!rc && !isnan(t->ai) && !(isfinite(t->ai) && t->ai > 0))
		rc = kp_error_set(err, KP_EINVAL,
		                  "task '%s': ai is %g; an intensity is a positive number, or null", t->name,
		                  t->ai);
	if (!rc && !isnan(t->roof_share))
		rc = check_amount(t, "roof_share", t->roof_share, err);
	for (int b = 0; b < KP_SUITE_NBASE && !rc; b++) {
		char field[48];
		snprintf(field, sizeof(field), "%s_ms", kp_suite_baseline_name(b));
		rc = check_time(t, field, t->base_ms[b], err);
	}
	for (int o = 0; o < KP_OUTCOME_COUNT && !rc; o++)
		rc = check_amount(t, kp_outcome_name(o), (double)t->outcomes[o], err);
	rc = rc ? rc : check_amount(t, "evaluations", (double)t->evaluations, err);
	rc = rc ? rc : check_amount(t, "tokens_in", (double)t->tokens_in, err);
	rc = rc ? rc : check_amount(t, "tokens_out", (double)t->tokens_out, err);
	rc = rc ? rc : check_amount(t, "cost_usd", t->cost_usd, err);
	rc = rc ? rc : check_amount(t, "elapsed_s", t->elapsed_s, err);
	if (!rc && !isnan(t->energy_j))
		rc = check_amount(t, "energy_j", t->energy_j, err);
	if (!rc && !isnan(t->ref_energy_j))
		rc = check_amount(t, "ref_energy_j", t->ref_energy_j, err);
	if (!rc && t->correct && isnan(t->best_ms))
		rc = kp_error_set(
		    err, KP_EINVAL,
		    "task '%s' is marked correct but has no best_ms; a correct task needs its time", t->name);
	return rc;
}

int kp_suite_task_check(struct kp_suite_task *t, struct kp_error *err)
{
	int rc = check_task(t, err);
	for (int b = 0; b < KP_SUITE_NBASE; b++)
		t->speedup[b] = !rc && t->correct && !isnan(t->base_ms[b]) ? t->base_ms[b] / t->best_ms : NAN;
	return rc;
}

/* ---- metrics ------------------------------------------------------------------------------------------- */

/* exp(mean(log x)): never overflows the way a running product does over hundreds of tasks. */
struct geomean {
	double sum_log;
	long n;
};

static void geo_add(struct geomean *g, double x)
{
	g->sum_log += log(x);
	g->n++;
}

static double geo_value(const struct geomean *g)
{
	return g->n ? exp(g->sum_log / (double)g->n) : NAN;
}

static double ratio(long a, long b)
{
	return b ? (double)a / (double)b : NAN;
}

/* The figures against baseline b over the tasks of `level` (0: every task). */
static void base_stats(const struct kp_suite *s, enum kp_suite_baseline b, int level,
                       struct kp_suite_base_stats *st)
{
	struct geomean correct = {0}, all = {0};
	long fast[KP_SUITE_NP] = {0};

	memset(st, 0, sizeof(*st));
	for (size_t i = 0; i < s->n; i++) {
		const struct kp_suite_task *t = &s->v[i];
		if (level && t->level != level)
			continue;
		if (isnan(t->base_ms[b])) {
			st->missing++;
			continue;
		}
		st->n++;
		if (!t->correct) {
			geo_add(&all, 1.0);
			continue;
		}
		st->correct++;
		geo_add(&correct, t->speedup[b]);
		geo_add(&all, t->speedup[b]);
		for (int k = 0; k < KP_SUITE_NP; k++)
			fast[k] += t->speedup[b] > kp_suite_p[k];
	}
	for (int k = 0; k < KP_SUITE_NP; k++)
		st->fast_p[k] = ratio(fast[k], st->n);
	st->geomean_correct = geo_value(&correct);
	st->geomean_all = st->n ? geo_value(&all) : NAN;
}

/* The KernelBench levels present, each summarised alone (KernelBench analyses one level at a time). */
static void level_stats(struct kp_suite *s)
{
	struct kp_suite_summary *m = &s->sum;
	for (int lv = 1; lv <= 1000 && m->nlevels < KP_SUITE_MAX_LEVELS; lv++) {
		struct kp_suite_level *L = &m->levels[m->nlevels];
		memset(L, 0, sizeof(*L));
		for (size_t i = 0; i < s->n; i++)
			if (s->v[i].level == lv) {
				L->tasks++;
				L->correct += s->v[i].correct != 0;
			}
		if (!L->tasks)
			continue;
		L->level = lv;
		for (int b = 0; b < KP_SUITE_NBASE; b++)
			base_stats(s, b, lv, &L->base[b]);
		m->nlevels++;
	}
}

int kp_suite_compute(struct kp_suite *s, struct kp_error *err)
{
	struct kp_suite_summary *m = &s->sum;
	struct geomean energy = {0};
	int rc;

	memset(m, 0, sizeof(*m));
	for (size_t i = 0; i < s->n; i++)
		if ((rc = kp_suite_task_check(&s->v[i], err)))
			return rc;
	m->tasks = (long)s->n;
	for (size_t i = 0; i < s->n; i++) {
		struct kp_suite_task *t = &s->v[i];
		m->states[t->state]++;
		m->correct += t->correct != 0;
		for (int o = 0; o < KP_OUTCOME_COUNT; o++)
			m->outcomes[o] += t->outcomes[o];
		m->evaluations += t->evaluations;
		m->tokens_in += t->tokens_in;
		m->tokens_out += t->tokens_out;
		m->cost_usd += t->cost_usd;
		m->elapsed_s += t->elapsed_s;
		m->cost_unknown += !t->cost_known;
		if (t->correct && t->energy_j > 0 && t->ref_energy_j > 0) {
			geo_add(&energy, t->energy_j / t->ref_energy_j);
			m->energy_tasks++;
		}
	}
	m->correctness_rate = ratio(m->correct, m->tasks);
	m->coverage = ratio(m->states[KP_SUITE_FINISHED] + m->states[KP_SUITE_FAILED], m->tasks);
	for (int b = 0; b < KP_SUITE_NBASE; b++)
		base_stats(s, b, 0, &m->base[b]);
	level_stats(s);
	m->energy_ratio_geomean = geo_value(&energy);
	return 0;
}

double kp_suite_fast_p(const struct kp_suite *s, enum kp_suite_baseline b, double p)
{
	long n = 0, fast = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct kp_suite_task *t = &s->v[i];
		if (isnan(t->base_ms[b]))
			continue;
		n++;
		fast += t->correct && t->speedup[b] > p;
	}
	return ratio(fast, n);
}
