/* Ownership helpers for what programmers and evaluators hand back to the search. */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/search.h"

static char *dup_or_null(const char *s)
{
	return s ? kp_xstrdup(s) : NULL;
}

void kp_search_child_release(struct kp_search_child *r)
{
	free(r->source);
	free(r->summary);
	free(r->error);
	for (size_t i = 0; i < r->nexchanges; i++) {
		free(r->exchanges[i].prompt);
		free(r->exchanges[i].reply);
		free(r->exchanges[i].error);
	}
	free(r->exchanges);
	for (size_t i = 0; i < r->nqueries; i++) {
		free(r->queries[i].query);
		free(r->queries[i].result);
	}
	free(r->queries);
	memset(r, 0, sizeof(*r));
}

void kp_search_child_add_exchange(struct kp_search_child *r, const struct kp_search_exchange *x)
{
	struct kp_search_exchange *n;
	r->exchanges = kp_xrealloc(r->exchanges, kp_st_mult(r->nexchanges + 1, sizeof(*r->exchanges)));
	n = &r->exchanges[r->nexchanges++];
	*n = *x;
	n->prompt = kp_xstrdup(x->prompt ? x->prompt : "");
	n->reply = dup_or_null(x->reply);
	n->error = dup_or_null(x->error);
}

void kp_search_child_add_query(struct kp_search_child *r, const char *query, const char *result)
{
	r->queries = kp_xrealloc(r->queries, kp_st_mult(r->nqueries + 1, sizeof(*r->queries)));
	r->queries[r->nqueries].query = kp_xstrdup(query);
	r->queries[r->nqueries].result = kp_xstrdup(result ? result : "");
	r->nqueries++;
}

void kp_search_eval_init(struct kp_search_eval *r)
{
	memset(r, 0, sizeof(*r));
	r->outcome = KP_OUTCOME_NONE;
	r->time_ms = r->time_std_ms = r->ref_time_ms = r->speedup = r->energy_j = r->gpu_s = NAN;
}

void kp_search_eval_implausible(struct kp_search_eval *r, const struct kp_error *why)
{
	char *log = kp_xasprintf("refused by check 'implausible_result': %s%s%s", kp_error_msg(why), r->log ? "\n" : "",
				 r->log ? r->log : "");
	free(r->log);
	r->log = log;
	r->outcome = KP_OUTCOME_CHEAT_SUSPECTED;
	r->time_ms = r->time_std_ms = r->speedup = r->energy_j = NAN;
}

void kp_search_eval_release(struct kp_search_eval *r)
{
	free(r->log);
	free(r->verdict_json);
	free(r->profile_json);
	free(r->findings_json);
	free(r->feedback);
	free(r->stage1);
	free(r->hardware);
	kp_search_eval_init(r);
}
