/*
 * The tune action's evaluator side: what a tuning found (kp_search_tuning), and a tune method for
 * evaluators that judge variants one at a time (kp_search_tune_each: the exec evaluator, the tests'
 * fake harness). The harness evaluator tunes through lib/eval's tuner instead (harness_eval.c).
 */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/json.h"
#include "kernelpro/log.h"
#include "kernelpro/str.h"
#include "search/tune_int.h"

void kp_search_tuning_init(struct kp_search_tuning *t)
{
	memset(t, 0, sizeof(*t));
	t->untuned_ms = t->best_ms = NAN;
	t->gpu_s = NAN;
}

void kp_search_tuning_release(struct kp_search_tuning *t)
{
	for (size_t i = 0; i < t->nbest; i++) {
		free(t->best[i].source);
		free(t->best[i].point);
	}
	free(t->best);
	free(t->strategy);
	free(t->space_json);
	free(t->trials_json);
	free(t->untuned_point);
	free(t->best_point);
	free(t->note);
	kp_search_tuning_init(t);
}

int kp__search_tune_lang(const char *lang)
{
	if (lang && !strcmp(lang, "cuda"))
		return KP_TUNE_CUDA;
	if (lang && !strcmp(lang, "python"))
		return KP_TUNE_PYTHON;
	return -1;
}

int kp__search_tunable(const char *lang, const char *source, enum kp_tune_derive derive)
{
	struct kp_tune_space *s = NULL;
	int l = kp__search_tune_lang(lang), yes;

	if (l < 0 || !source ||
	    kp_tune_parse(&s, "version", source, strlen(source), (enum kp_tune_lang)l, derive, NULL))
		return 0;
	yes = kp_tune_nknobs(s) > 0 && kp_tune_space_size(s) > 1;
	kp_tune_space_free(s);
	return yes;
}

int kp_search_tune_note_error(int code)
{
	/* No knob, one point, no correct variant; not correct as given, a bad override; malformed markers;
	 * exhaustive past its budget; a language without knobs; a source too large. */
	return code == KP_EMISSING || code == KP_EINVAL || code == KP_EPARSE || code == KP_EBUDGET ||
	       code == KP_EUNSUPPORTED || code == KP_ETOOBIG;
}

static char *point_text(const struct kp_tune_space *s, const struct kp_tune_point *p)
{
	struct kp_buf b = KP_BUF_INIT;
	kp_tune_point_format(s, p, &b);
	return kp_buf_detach(&b, NULL);
}

int kp_search_tuning_fill(const struct kp_tune_space *s, const struct kp_tune_result *r, int children,
                          struct kp_search_tuning *out, struct kp_error *err)
{
	size_t *order = kp_xcalloc(r->ntrials ? r->ntrials : 1, sizeof(*order));
	const struct kp_tune_trial *def = r->def >= 0 ? &r->trials[r->def] : NULL;
	double untuned_s = def && def->m.status == KP_TUNE_OK ? def->m.seconds : INFINITY;
	int rc = 0;

	out->strategy = kp_xstrdup(kp_tune_strategy_name(r->strategy));
	out->space_json = kp_json_text(kp_tune_space_to_json(s));
	out->trials_json = kp_json_text(kp_tune_result_to_json(s, r));
	out->trials = r->ntrials;
	out->cache_hits = r->cache_hits;
	if (def) {
		out->untuned_point = point_text(s, &def->point);
		out->untuned_ms = def->m.status == KP_TUNE_OK ? def->m.seconds * 1e3 : NAN;
	}
	if (r->best >= 0) {
		out->best_point = point_text(s, &r->trials[r->best].point);
		out->best_ms = r->trials[r->best].m.seconds * 1e3;
	}
	kp_tune_result_ranked(r, order);
	out->best = kp_xcalloc((size_t)(children > 0 ? children : 1), sizeof(*out->best));
	for (size_t i = 0; i < r->ntrials && out->nbest < (size_t)children && !rc; i++) {
		const struct kp_tune_trial *t = &r->trials[order[i]];
		struct kp_search_variant *v = &out->best[out->nbest];
		struct kp_buf src = KP_BUF_INIT;
		if (t->m.status != KP_TUNE_OK || !(t->m.seconds < untuned_s))
			break; /* ranked: the rest are slower, or failed */
		if ((rc = kp_tune_variant(s, &t->point, &src, err))) {
			kp_buf_release(&src);
			break;
		}
		v->source = kp_buf_detach(&src, NULL);
		v->point = point_text(s, &t->point);
		v->time_ms = t->m.seconds * 1e3;
		out->nbest++;
	}
	if (!rc && !out->nbest && !out->note) {
		if (r->best < 0)
			out->note = kp_xasprintf("none of the %zu variants tried was correct", r->ntrials);
		else
			out->note = kp_xasprintf(
			    "no variant of the %zu tried was faster than the untuned one (%s, %.4g ms)",
			    r->ntrials, out->untuned_point ? out->untuned_point : "?", out->untuned_ms);
	}
	free(order);
	return rc;
}

/* ---- one variant at a time: kp_search_tune_each --------------------------------------------------- */

struct each_ctx {
	const struct kp_search_tune_req *req;
	int (*each)(void *ctx, const char *source, struct kp_search_eval *out, struct kp_error *err);
	void *ctx;
	size_t evaluated;
	double gpu_s;
};

static enum kp_tune_status status_of(enum kp_outcome o)
{
	switch (o) {
	case KP_OUTCOME_CORRECT: return KP_TUNE_OK;
	case KP_OUTCOME_COMPILE_ERROR: return KP_TUNE_BUILD_FAILED;
	case KP_OUTCOME_WRONG_OUTPUT: return KP_TUNE_WRONG;
	case KP_OUTCOME_CHEAT_SUSPECTED: return KP_TUNE_REFUSED;
	default: return KP_TUNE_RUN_FAILED;
	}
}

static int each_evaluate(void *ctx, const struct kp_tune_space *s, const struct kp_tune_point *pts, size_t n,
                         struct kp_tune_measure *out, struct kp_error *err)
{
	struct each_ctx *c = ctx;
	int rc = 0;

	for (size_t i = 0; i < n && !rc; i++) {
		struct kp_buf src = KP_BUF_INIT;
		struct kp_search_eval e;
		kp_search_eval_init(&e);
		if (!(rc = kp_tune_variant(s, &pts[i], &src, err)) &&
		    !(rc = c->each(c->ctx, src.buf, &e, err))) {
			out[i].status = status_of(e.outcome);
			out[i].seconds = out[i].status == KP_TUNE_OK ? e.time_ms / 1e3 : 0;
			if (out[i].status == KP_TUNE_OK && !(isfinite(out[i].seconds) && out[i].seconds > 0))
				out[i].status = KP_TUNE_RUN_FAILED, out[i].seconds = 0;
			if (isfinite(e.gpu_s))
				c->gpu_s = (isfinite(c->gpu_s) ? c->gpu_s : 0) + e.gpu_s;
			c->evaluated++;
			if (c->req->evaluated)
				c->req->evaluated(c->req->ud);
		}
		kp_search_eval_release(&e);
		kp_buf_release(&src);
	}
	return rc;
}

/* Binds the constraints: the device's limits (else the H200's: the names are the same on every GPU),
 * and the task's shapes when there is a task. */
static int bind_space(struct kp_tune_space *s, const struct kp_task *task, struct kp_error *err)
{
	struct kp_tune_env env;
	int rc;

	kp_tune_env_init(&env);
	kp_tune_env_add_local_hw(&env);
	if (task && (rc = kp_tune_env_add_task(&env, task, err)))
		return rc;
	return kp_tune_bind(s, &env, err);
}

/* The space of req->source, bound; KP_EMISSING (a note for the caller) when there is nothing to try. */
static int read_space(const struct kp_search_tune_req *req, struct kp_tune_space **out, struct kp_error *err)
{
	char what[48];
	int lang = kp__search_tune_lang(req->lang), rc;
	uint64_t feasible = 0;

	*out = NULL;
	snprintf(what, sizeof(what), "version #%ld", req->node_id);
	if (lang < 0)
		return kp_error_set(err, KP_EUNSUPPORTED, "%s: %s candidates have no knobs kernelpro reads",
		                    what, req->lang ? req->lang : "?");
	if ((rc = kp_tune_parse(out, what, req->source, strlen(req->source), (enum kp_tune_lang)lang,
	                        req->derive, err)))
		return rc;
	if (!kp_tune_nknobs(*out))
		return kp_error_set(err, KP_EMISSING, "%s has no knobs to tune", what);
	if ((rc = bind_space(*out, req->task, err)))
		return rc;
	if (kp_tune_count_feasible(*out, &feasible, NULL) == 0 && feasible < 2)
		return kp_error_set(err, KP_EMISSING,
		                    "%s: its knobs' values and constraints leave only the untuned point",
		                    what);
	return 0;
}

int kp_search_tune_each(const struct kp_search_tune_req *req,
                        int (*each)(void *ctx, const char *source, struct kp_search_eval *out,
                                    struct kp_error *err),
                        void *ctx, struct kp_search_tuning *out, struct kp_error *err)
{
	struct each_ctx c = {.req = req, .each = each, .ctx = ctx, .gpu_s = NAN};
	struct kp_tune_evaluator ev = {each_evaluate, &c};
	struct kp_tune_opts o = req->tune;
	struct kp_tune_space *s = NULL;
	struct kp_tune_result r;
	struct kp_error sub = KP_ERROR_INIT;
	double t0 = kp_now();
	int rc;

	kp_tune_result_init(&r);
	snprintf(out->gpu, sizeof(out->gpu), "%s", o.gpu ? o.gpu : "unknown");
	if ((rc = read_space(req, &s, &sub))) {
		if (!kp_search_tune_note_error(rc))
			goto fail;
		out->note = kp_xstrdup(kp_error_msg(&sub));
		rc = 0;
		goto out;
	}
	if (!o.batch)
		o.batch = 1;
	o.gpu = out->gpu;
	rc = kp_tune_run(s, &o, &ev, req->cache, &r, &sub);
	if (rc == KP_EBUDGET) { /* exhaustive with more points than the budget: a note, with nothing tried */
		out->note = kp_xstrdup(kp_error_msg(&sub));
		rc = 0;
	}
	if (!out->note) {
		int frc = kp_search_tuning_fill(s, &r, req->children, out, rc ? NULL : &sub);
		if (!rc)
			rc = frc;
	}
	if (rc)
		goto fail;
	goto out;
fail:
	kp_error_set(err, rc, "%s", kp_error_msg(&sub));
out:
	out->evaluated = c.evaluated;
	out->gpu_s = c.gpu_s;
	out->wall_s = kp_now() - t0;
	kp_tune_result_release(&r);
	kp_tune_space_free(s);
	return rc;
}
