/* Ownership helpers for what programmers and evaluators hand back to the search. */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/search.h"

static char *dup_or_null(const char *s)
{
	return s ? kp_xstrdup(s) : NULL;
}

void kp_prog_result_release(struct kp_prog_result *r)
{
	free(r->source);
	free(r->lang);
	free(r->summary);
	free(r->error);
	for (size_t i = 0; i < r->nexchanges; i++) {
		free(r->exchanges[i].prompt);
		free(r->exchanges[i].reply);
		free(r->exchanges[i].error);
	}
	free(r->exchanges);
	for (size_t i = 0; i < r->nsearches; i++) {
		free(r->searches[i].query);
		free(r->searches[i].result);
	}
	free(r->searches);
	memset(r, 0, sizeof(*r));
}

void kp_prog_result_add_exchange(struct kp_prog_result *r, const struct kp_prog_exchange *x)
{
	struct kp_prog_exchange *n;
	r->exchanges = kp_xrealloc(r->exchanges, kp_st_mult(r->nexchanges + 1, sizeof(*r->exchanges)));
	n = &r->exchanges[r->nexchanges++];
	*n = *x;
	n->prompt = kp_xstrdup(x->prompt ? x->prompt : "");
	n->reply = dup_or_null(x->reply);
	n->error = dup_or_null(x->error);
}

void kp_prog_result_add_search(struct kp_prog_result *r, const char *query, const char *result)
{
	r->searches = kp_xrealloc(r->searches, kp_st_mult(r->nsearches + 1, sizeof(*r->searches)));
	r->searches[r->nsearches].query = kp_xstrdup(query);
	r->searches[r->nsearches].result = kp_xstrdup(result ? result : "");
	r->nsearches++;
}

void kp_eval_result_init(struct kp_eval_result *r)
{
	memset(r, 0, sizeof(*r));
	r->outcome = KP_OUTCOME_NONE;
	r->time_ms = r->time_std_ms = r->ref_time_ms = r->speedup = r->energy_j = NAN;
}

void kp_eval_result_release(struct kp_eval_result *r)
{
	free(r->log);
	free(r->verdict_json);
	free(r->profile_json);
	free(r->findings_json);
	free(r->feedback);
	free(r->stage1);
	free(r->hardware);
	kp_eval_result_init(r);
}
