/* Every search constant in one table: name, default, range and what it does; set from text or JSON. */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/json.h"
#include "kernelpro/search.h"
#include "kernelpro/str.h"

enum { PT_DOUBLE = 0, PT_INT = 1, PT_CHOICE = 2 };

#define OFF(f) offsetof(struct kp_search_params, f)

/*
 * The defaults were chosen and checked with the search simulator (bench/search_sim.c): docs/search.md
 * gives the figures, docs/internals/design.md ("Search") the reasons.
 */
static const struct kp_search_param_desc params[] = {
	{"search", PT_CHOICE, OFF(algo), KP_SEARCH_MCTS, 0, 2, "mcts|greedy|beam",
	 "search algorithm: MCTS, or the greedy and beam baselines"},
	{"backup", PT_CHOICE, OFF(backup), KP_BACKUP_MAX, 0, 1, "mean|max",
	 "a node's value Q in UCT: mean of the rewards below it, or their maximum"},
	{"objective", PT_CHOICE, OFF(objective), KP_OBJECTIVE_SPEED, 0, 1, "speed|speed+energy",
	 "speed only, or speed with lower energy breaking ties within the noise band"},
	{"uct_c", PT_DOUBLE, OFF(uct_c), 0.1, 0, 100, NULL,
	 "UCT exploration constant c in Q + c*sqrt(ln N / n); Q is in log-speedup units"},
	{"refine_k", PT_DOUBLE, OFF(refine_k), 1.0, 0.01, 100, NULL,
	 "widening of a correct node: it may hold floor(k * N^alpha) children (N: its visits)"},
	{"refine_alpha", PT_DOUBLE, OFF(refine_alpha), 0.3, 0, 1, NULL, "widening exponent of a correct node"},
	{"refine_cap", PT_INT, OFF(refine_cap), 8, 0, 1000, NULL, "most children of a correct node (0: no cap)"},
	{"repair_k", PT_DOUBLE, OFF(repair_k), 1.0, 0.01, 100, NULL, "widening factor of a failed node"},
	{"repair_alpha", PT_DOUBLE, OFF(repair_alpha), 0.3, 0, 1, NULL, "widening exponent of a failed node"},
	{"repair_cap", PT_INT, OFF(repair_cap), 2, 1, 2, NULL, "most repair attempts made from one failed node (1 or 2)"},
	{"max_repairs", PT_INT, OFF(max_repairs), 2, 0, 10, NULL,
	 "consecutive failed versions on one line before it is closed (repairs of repairs)"},
	{"repair_fpu", PT_DOUBLE, OFF(repair_fpu), 0.3, 0, 100, NULL,
	 "first-play urgency of a failed node not yet repaired: valued at its parent's Q minus this"},
	{"leader_widen", PT_INT, OFF(leader_widen), 1, 0, 1, NULL,
	 "1: a correct node faster than everything made from it takes more children past its widening limit"},
	{"prune_m", PT_INT, OFF(prune_m), 6, 0, 1000, NULL,
	 "close a correct node once it has this many evaluated children and none gained (0: never)"},
	{"prune_delta", PT_DOUBLE, OFF(prune_delta), 0.02, 0, 10, NULL,
	 "a gain: a descendant's reward above the node's by more than this (log units)"},
	{"reward_min", PT_DOUBLE, OFF(reward_min), -2.0, -100, 0, NULL, "lower clip of log(speedup) for correct candidates"},
	{"reward_max", PT_DOUBLE, OFF(reward_max), 4.6, 0, 100, NULL, "upper clip of log(speedup) (4.6 = 100x)"},
	{"reward_fail", PT_DOUBLE, OFF(reward_fail), -1.0, -100, 0, NULL,
	 "fixed reward of a failed candidate (compile error, crash, wrong output, refused)"},
	{"noise_band", PT_DOUBLE, OFF(noise_band), 0.02, 0, 1, NULL,
	 "log-speedups closer than this are a tie (timing noise; ~2%)"},
	{"beam_width", PT_INT, OFF(beam_width), 3, 1, 100, NULL, "nodes kept by the beam baseline"},
	{"parallel", PT_INT, OFF(parallel), 1, 1, 64, NULL,
	 "programmer requests in flight at once (1: strictly one step after another)"},
	{"max_gen_failures", PT_INT, OFF(max_gen_failures), 3, 1, 1000, NULL,
	 "consecutive unusable replies before the run stops"},
	{"memory_bytes", PT_INT, OFF(memory_bytes), 1500, 0, 100000, NULL,
	 "most bytes of search memory put into one prompt"},
	{"tune", PT_CHOICE, OFF(tune), KP_SEARCH_TUNE_DECLARED, 0, 2, "off|declared|all",
	 "the tune action on the best version: off, when it declares knobs (KP_TUNE), or also on knobs "
	 "kernelpro derives (launch block sizes, unroll pragmas); without an LLM, declared means all"},
	{"tune_budget", PT_INT, OFF(tune_budget), 16, 2, 100000, NULL,
	 "evaluations one tune action may spend (without an LLM: only when the run has no --evals)"},
	{"tune_share", PT_DOUBLE, OFF(tune_share), 0.25, 0, 1, NULL,
	 "the share of the run's evaluation budget tuning may take when an LLM writes versions"},
	{"tune_strategy", PT_CHOICE, OFF(tune_strategy), KP_TUNE_AUTO, 0, 3, "auto|exhaustive|random|bayes",
	 "how a tune action picks variants (auto: exhaustive when every feasible point fits, else bayes)"},
	{"tune_children", PT_INT, OFF(tune_children), 1, 1, 4, NULL,
	 "the best variants a tune action adds as children (each is evaluated again as a version)"},
};

const struct kp_search_param_desc *kp_search_param_table(size_t *n)
{
	*n = KP_ARRAY_SIZE(params);
	return params;
}

static double *field_d(struct kp_search_params *p, const struct kp_search_param_desc *d)
{
	return (double *)((char *)p + d->offset);
}

static int *field_i(struct kp_search_params *p, const struct kp_search_param_desc *d)
{
	return (int *)((char *)p + d->offset);
}

void kp_search_params_default(struct kp_search_params *p)
{
	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < KP_ARRAY_SIZE(params); i++) {
		if (params[i].type == PT_DOUBLE)
			*field_d(p, &params[i]) = params[i].def;
		else
			*field_i(p, &params[i]) = (int)params[i].def;
	}
}

/* Matches "uct_c" and "uct-c". */
static const struct kp_search_param_desc *find_param(const char *name)
{
	for (size_t i = 0; i < KP_ARRAY_SIZE(params); i++) {
		const char *a = params[i].name, *b = name;
		while (*a && (*a == *b || (*a == '_' && *b == '-')))
			a++, b++;
		if (!*a && !*b)
			return &params[i];
	}
	return NULL;
}

/* Index of `value` in a '|'-separated list, or -1. */
static int choice_index(const char *choices, const char *value)
{
	size_t vlen = strlen(value);
	int idx = 0;
	for (const char *c = choices; *c; idx++) {
		const char *end = strchr(c, '|');
		size_t len = end ? (size_t)(end - c) : strlen(c);
		if (len == vlen && !strncmp(c, value, len))
			return idx;
		if (!end)
			break;
		c = end + 1;
	}
	return -1;
}

static const char *choice_name(const char *choices, int idx, char *buf, size_t n)
{
	const char *c = choices;
	for (int i = 0; i < idx && c; i++) {
		c = strchr(c, '|');
		if (c)
			c++;
	}
	if (!c)
		return "?";
	const char *end = strchr(c, '|');
	size_t len = end ? (size_t)(end - c) : strlen(c);
	snprintf(buf, n, "%.*s", (int)len, c);
	return buf;
}

int kp_search_param_set(struct kp_search_params *p, const char *name, const char *value, struct kp_error *err)
{
	const struct kp_search_param_desc *d = find_param(name);
	double v;
	long l;

	if (!d)
		return kp_error_set(err, KP_EINVAL, "unknown search parameter '%s' (kernelpro optimize --list-params "
						    "lists them)", name);
	switch (d->type) {
	case PT_CHOICE: {
		int idx = choice_index(d->choices, value);
		if (idx < 0)
			return kp_error_set(err, KP_EINVAL, "search parameter '%s' must be one of %s, not '%s'", d->name,
					    d->choices, value);
		*field_i(p, d) = idx;
		return 0;
	}
	case PT_INT:
		if (kp_parse_long(value, &l) || l < (long)d->min || l > (long)d->max)
			return kp_error_set(err, KP_EINVAL, "search parameter '%s' must be an integer in [%g, %g], not '%s'",
					    d->name, d->min, d->max, value);
		*field_i(p, d) = (int)l;
		return 0;
	default:
		if (kp_parse_double(value, &v) || !isfinite(v) || v < d->min || v > d->max)
			return kp_error_set(err, KP_EINVAL, "search parameter '%s' must be a number in [%g, %g], not '%s'",
					    d->name, d->min, d->max, value);
		*field_d(p, d) = v;
		return 0;
	}
}

int kp_search_param_assign(struct kp_search_params *p, const char *assignment, struct kp_error *err)
{
	const char *eq = strchr(assignment, '=');
	char name[64];
	if (!eq || eq == assignment || (size_t)(eq - assignment) >= sizeof(name))
		return kp_error_set(err, KP_EINVAL, "search parameter '%s': expected NAME=VALUE", assignment);
	snprintf(name, sizeof(name), "%.*s", (int)(eq - assignment), assignment);
	return kp_search_param_set(p, name, eq + 1, err);
}

void kp_search_param_format(const struct kp_search_params *p, const struct kp_search_param_desc *d,
			    struct kp_buf *out)
{
	struct kp_search_params *mp = (struct kp_search_params *)p;
	char buf[64];
	if (d->type == PT_CHOICE)
		kp_buf_adds(out, choice_name(d->choices, *field_i(mp, d), buf, sizeof(buf)));
	else if (d->type == PT_INT)
		kp_buf_addf(out, "%d", *field_i(mp, d));
	else
		kp_buf_addf(out, "%.6g", *field_d(mp, d));
}

json_t *kp_search_params_to_json(const struct kp_search_params *p)
{
	json_t *o = json_object();
	struct kp_search_params *mp = (struct kp_search_params *)p;
	char buf[64];
	for (size_t i = 0; i < KP_ARRAY_SIZE(params); i++) {
		const struct kp_search_param_desc *d = &params[i];
		if (d->type == PT_CHOICE)
			kp_json_set(o, d->name, json_string(choice_name(d->choices, *field_i(mp, d), buf, sizeof(buf))));
		else if (d->type == PT_INT)
			kp_json_set(o, d->name, json_integer(*field_i(mp, d)));
		else
			kp_json_set(o, d->name, json_real(*field_d(mp, d)));
	}
	return o;
}

int kp_search_params_from_json(struct kp_search_params *p, const json_t *obj, struct kp_error *err)
{
	const char *key;
	json_t *v;
	char text[64];

	if (!json_is_object(obj))
		return kp_error_set(err, KP_EPARSE, "search parameters: expected a JSON object");
	json_object_foreach((json_t *)obj, key, v) {
		int rc;
		if (json_is_string(v))
			snprintf(text, sizeof(text), "%s", json_string_value(v));
		else if (json_is_integer(v))
			snprintf(text, sizeof(text), "%lld", (long long)json_integer_value(v));
		else if (json_is_real(v))
			snprintf(text, sizeof(text), "%.17g", json_real_value(v));
		else
			return kp_error_set(err, KP_EPARSE, "search parameter '%s': expected a string or a number", key);
		rc = kp_search_param_set(p, key, text, err);
		if (rc)
			return rc;
	}
	return 0;
}

const char *kp_search_algo_name(int algo)
{
	static const char *const names[] = {"mcts", "greedy", "beam"};
	return algo >= 0 && algo < 3 ? names[algo] : "unknown";
}

const char *kp_objective_name(int objective)
{
	return objective == KP_OBJECTIVE_SPEED_ENERGY ? "speed+energy" : "speed";
}

json_t *kp_search_budget_to_json(const struct kp_search_budget *b)
{
	json_t *o = json_object();
	kp_json_set(o, "evals", b->evals ? json_integer(b->evals) : NULL);
	kp_json_set(o, "wall_s", b->wall_s > 0 ? json_real(b->wall_s) : NULL);
	kp_json_set(o, "tokens", b->tokens ? json_integer(b->tokens) : NULL);
	kp_json_set(o, "cost_usd", b->cost > 0 ? json_real(b->cost) : NULL);
	return o;
}

void kp_search_budget_from_json(const json_t *o, struct kp_search_budget *b)
{
	b->evals = (long)kp_json_int(o, "evals", 0);
	b->wall_s = kp_json_num(o, "wall_s", 0);
	b->tokens = (long)kp_json_int(o, "tokens", 0);
	b->cost = kp_json_num(o, "cost_usd", 0);
}
