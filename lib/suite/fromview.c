/* One suite task record from a run view (kernelpro.run-view/1): the fastest correct version, counts, spend.
 */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/json.h"
#include "kernelpro/suite.h"
#include "kernelpro/task_kind.h"

/* KernelBench's ids from its path: .../level<L>/<P>_<Name>.py (dataset.py reads the same prefix). */
static void kernelbench_ids(struct kp_suite_task *t, const char *path)
{
	const char *base = strrchr(path, '/'), *dir;
	char *end;
	long l, p;

	if (!base || base == path)
		return;
	for (dir = base - 1; dir > path && dir[-1] != '/'; dir--)
		;
	if (strncmp(dir, "level", 5))
		return;
	l = strtol(dir + 5, &end, 10);
	if (end != base || l <= 0 || l > 1000)
		return;
	p = strtol(base + 1, &end, 10);
	if (end == base + 1 || *end != '_' || p <= 0 || p > 1000000)
		return;
	t->level = (int)l;
	t->problem_id = (int)p;
}

static enum kp_suite_state state_of(const char *status)
{
	int s = kp_suite_state_parse(status);
	/* A run database exists, so the run started; one without a status yet is under way. */
	return s < 0 || s == KP_SUITE_PENDING ? KP_SUITE_RUNNING : (enum kp_suite_state)s;
}

static double positive_or_nan(double v)
{
	return isfinite(v) && v > 0 ? v : NAN;
}

static double baseline_ms(const json_t *baseline, const char *key)
{
	return positive_or_nan(kp_json_num(json_object_get(baseline, key), "median_ms", NAN));
}

static char *str_or_null(const json_t *o, const char *key)
{
	const char *v = kp_json_str(o, key, NULL);
	return v && *v ? kp_xstrdup(v) : NULL;
}

/* The latest evaluated version that is not correct: its id, outcome, and the check and message of its reason.
 */
static void failure_of(struct kp_suite_task *t, const json_t *n)
{
	const json_t *reason = json_object_get(n, "reason");
	free(t->failure_outcome);
	free(t->failure_check);
	free(t->failure_message);
	t->failure_node = (long)kp_json_int(n, "node", 0);
	t->failure_outcome = str_or_null(n, "outcome");
	t->failure_check = str_or_null(reason, "check");
	t->failure_message = str_or_null(reason, "message");
}

/* The task's place on the roofline from node n's Stage-1 profile; 0 when it has none usable. */
static int roofline_of(struct kp_suite_task *t, const json_t *n)
{
	const json_t *s1 =
	    json_object_get(json_object_get(json_object_get(n, "profile"), "launch"), "stage1");
	double ai = kp_json_num(s1, "ai", NAN), f = kp_json_num(s1, "achieved_flops", NAN);
	double cp = kp_json_num(s1, "compute_peak", NAN), mp = kp_json_num(s1, "memory_peak", NAN), roof;

	if (!json_is_object(s1) || !(ai > 0 && isfinite(ai)))
		return 0;
	roof = fmin(cp, mp * ai);
	t->roofline_node = (long)kp_json_int(n, "node", 0);
	free(t->bottleneck);
	t->bottleneck = str_or_null(s1, "class");
	t->ai = ai;
	t->roof_share = roof > 0 && isfinite(roof) && f >= 0 && isfinite(f) ? f / roof : NAN;
	return 1;
}

static double mean_or_nan(const json_t *n)
{
	return n ? positive_or_nan(kp_json_num(n, "mean_ms", NAN)) : NAN;
}

int kp_suite_task_from_view(struct kp_suite_task *t, const json_t *view, struct kp_error *err)
{
	const json_t *sum = json_object_get(view, "summary"), *task = json_object_get(sum, "task");
	const json_t *used = json_object_get(sum, "used"), *nodes = json_object_get(view, "nodes");
	const json_t *baseline = json_object_get(view, "baseline"), *best = NULL, *ref = NULL, *failed = NULL;
	const json_t *ctx = json_object_get(sum, "context");
	const char *name = kp_json_str(task, "name", kp_json_str(sum, "run", NULL)),
	           *kind = kp_json_str(task, "kind", NULL);
	const struct kp_task_kind_info *ki = kp_task_kind_find(kind);
	double best_ms = NAN;

	if (!json_is_object(sum) || !json_is_array(nodes))
		return kp_error_set(err, KP_EPARSE, "run view: needs \"summary\" and \"nodes\" (schema %s)",
		                    "kernelpro.run-view/1");
	if (!name)
		return kp_error_set(err, KP_EPARSE, "run view: the run names no task");
	t->name = kp_xstrdup(name);
	t->kind = kind ? kp_xstrdup(kind) : NULL;
	t->run =
	    json_is_string(json_object_get(view, "dir")) ? kp_xstrdup(kp_json_str(view, "dir", "")) : NULL;
	if (ki && ki->kernelbench_ids && kp_json_str(task, "path", NULL))
		kernelbench_ids(t, kp_json_str(task, "path", ""));
	t->state = state_of(kp_json_str(sum, "status", NULL));

	for (size_t i = 0; i < json_array_size(nodes); i++) {
		const json_t *n = json_array_get(nodes, i);
		enum kp_outcome o = kp_outcome_parse(kp_json_str(n, "outcome", ""));
		double ms = positive_or_nan(kp_json_num(n, "time_ms", NAN));
		if (json_is_null(json_object_get(n, "parent")) || !json_object_get(n, "parent")) {
			t->ref_ms = ms;
			t->ref_energy_j = positive_or_nan(kp_json_num(n, "energy_j", NAN));
			ref = n;
			continue;
		}
		if (o == KP_OUTCOME_NONE)
			continue; /* not evaluated yet */
		t->outcomes[o]++;
		if (o != KP_OUTCOME_CORRECT) {
			failed = n; /* nodes come in id order: the latest wins */
			continue;
		}
		if (isnan(ms) && t->ref_ms > 0) /* a verdict that gave only the speedup */
			ms = positive_or_nan(t->ref_ms / kp_json_num(n, "speedup", NAN));
		if (!isnan(ms) && (isnan(best_ms) || ms < best_ms)) {
			best_ms = ms;
			best = n;
		}
	}
	if (best) {
		t->correct = 1;
		t->best_ms = best_ms;
		t->best_node = (long)kp_json_int(best, "node", 0);
		t->energy_j = positive_or_nan(kp_json_num(best, "energy_j", NAN));
		t->best_mean_ms = mean_or_nan(best);
	} else if (failed) {
		failure_of(t, failed);
	}
	t->ref_mean_ms = mean_or_nan(ref);
	if (!(best && roofline_of(t, best)) && ref)
		roofline_of(t, ref);
	t->gpu = str_or_null(ctx, "gpu");
	if (!t->gpu && kp_json_str(view, "hardware", NULL)) {
		t->gpu = kp_xstrdup(kp_json_str(view, "hardware", ""));
		t->gpu[strcspn(t->gpu, "\n")] = '\0';
	}
	t->model = str_or_null(ctx, "model");
	if (json_is_true(json_object_get(json_object_get(sum, "best"), "improved")))
		t->improved_node = (long)kp_json_int(json_object_get(sum, "best"), "node", 0);
	t->cost_known = !json_is_false(json_object_get(ctx, "cost_known"));
	if (json_is_object(baseline) && !isnan(baseline_ms(baseline, "eager"))) {
		t->base_ms[KP_SUITE_EAGER] = baseline_ms(baseline, "eager");
		t->eager_from = kp_xstrdup("baseline");
	} else if (!isnan(t->ref_ms)) {
		t->base_ms[KP_SUITE_EAGER] = t->ref_ms;
		t->eager_from = kp_xstrdup("run");
	}
	if (json_is_object(baseline))
		t->base_ms[KP_SUITE_COMPILE] = baseline_ms(baseline, "torch_compile");
	/* The means beside: from the baseline measured alone, else the run's own reference. */
	for (int b = 0; b < KP_SUITE_NBASE; b++)
		if (!isnan(t->base_ms[b]))
			t->base_mean_ms[b] = positive_or_nan(kp_json_num(
			    json_object_get(baseline, kp_suite_baseline_name(b)), "mean_ms", NAN));
	if (t->eager_from && !strcmp(t->eager_from, "run"))
		t->base_mean_ms[KP_SUITE_EAGER] = t->ref_mean_ms;
	if (t->level > 0 && kp_json_str(task, "path", NULL) && strrchr(kp_json_str(task, "path", ""), '/'))
		t->problem_file = kp_xstrdup(strrchr(kp_json_str(task, "path", ""), '/') + 1);
	t->evaluations = (long)kp_json_int(used, "evaluations", 0);
	t->tokens_in = (long)kp_json_int(used, "tokens_in", 0);
	t->tokens_out = (long)kp_json_int(used, "tokens_out", 0);
	t->cost_usd = kp_json_num(used, "cost_usd", 0);
	t->elapsed_s = kp_json_num(used, "elapsed_s", 0);
	return 0;
}
