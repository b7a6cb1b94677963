/* The kp_llm handle: opening a backend through its table entry, dispatch of requests, totals, observer. */
#include "base/setup.h"

#include <unistd.h>

#include "kernelpro/fs.h"
#include "kernelpro/hash.h"
#include "kernelpro/log.h"
#include "kernelpro/str.h"
#include "llm/backend.h"

/* Every variable that may hold a key: scrubbed from output whichever provider is in use. */
static const char *const key_vars[] = {"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY",
				       "LITELLM_API_KEY", "KERNELPRO_API_KEY"};

static void copy_config(struct kp_llm_config *dst, const struct kp_llm_config *src)
{
	*dst = *src;
	dst->model = src->model ? kp_xstrdup(src->model) : NULL;
	dst->base_url = src->base_url ? kp_xstrdup(src->base_url) : NULL;
	dst->api_key_env = src->api_key_env ? kp_xstrdup(src->api_key_env) : NULL;
	dst->max_tokens_field = src->max_tokens_field ? kp_xstrdup(src->max_tokens_field) : NULL;
	dst->replay_dir = src->replay_dir ? kp_xstrdup(src->replay_dir) : NULL;
	dst->record_dir = src->record_dir ? kp_xstrdup(src->record_dir) : NULL;
	dst->anthropic_version = src->anthropic_version ? kp_xstrdup(src->anthropic_version) : NULL;
	kp_strvec_init(&dst->exec_argv);
	kp_strvec_pushv(&dst->exec_argv, (const char *const *)src->exec_argv.v);
}

static void apply_defaults(struct kp_llm_config *c)
{
	if (c->max_tokens <= 0)
		c->max_tokens = KP_LLM_DEFAULT_MAX_TOKENS;
	if (c->timeout_s <= 0)
		c->timeout_s = KP_LLM_DEFAULT_TIMEOUT_S;
	if (c->retries < 0)
		c->retries = 4;
	if (c->backoff_s < 0)
		c->backoff_s = 1.0;
	if (c->backoff_max_s < 0)
		c->backoff_max_s = 60.0;
	if (c->parallel <= 0)
		c->parallel = 4;
}

/* The price: the config's, else the table's by model name. A backend that costs nothing has none. */
static void set_price(struct kp_llm *llm)
{
	if (llm->be->free_of_charge)
		llm->price_known = 0;
	else if (llm->cfg.price.input >= 0 && llm->cfg.price.output >= 0) {
		llm->price = llm->cfg.price;
		llm->price_known = 1;
	} else {
		llm->price_known = kp_llm_price_lookup(llm->cfg.model, &llm->price);
	}
}

int kp_llm_open(struct kp_llm **out, const struct kp_llm_config *cfg, struct kp_error *err)
{
	struct kp_llm *llm = kp_xcalloc(1, sizeof(*llm));
	struct kp_buf list = KP_BUF_INIT;
	int rc = 0;

	*out = NULL;
	copy_config(&llm->cfg, cfg);
	apply_defaults(&llm->cfg);
	kp_redactor_init(&llm->redact);
	for (size_t i = 0; i < KP_ARRAY_SIZE(key_vars); i++)
		kp_redactor_add_env(&llm->redact, key_vars[i]);
	pthread_mutex_init(&llm->lock, NULL);
	llm->rng = (unsigned long long)(kp_wall_time() * 1e6) ^ ((unsigned long long)getpid() << 32) ^
		   (unsigned long long)(uintptr_t)llm;

	llm->be = kp_llm_backend_get(llm->cfg.provider);
	if (!llm->be) {
		kp_llm_backend_list(&list, 1);
		rc = kp_error_set(err, KP_EINVAL,
				  "llm: no backend chosen; pass --llm PROVIDER:MODEL (%s), set KERNELPRO_LLM, or use "
				  "--llm-config FILE",
				  list.buf);
		goto out;
	}
	if ((rc = llm->be->setup(llm, err)))
		goto out;
	set_price(llm);
	if (llm->cfg.record_dir) {
		rc = kp_mkdir_p(llm->cfg.record_dir, 0755, err);
		if (rc)
			goto out;
		llm->record_seq = kp_llm_record_next_seq(llm->cfg.record_dir);
	}
out:
	kp_buf_release(&list);
	if (rc) {
		if (err)
			kp_redact_str(&llm->redact, err->msg, sizeof(err->msg));
		kp_llm_free(llm);
		return rc;
	}
	*out = llm;
	return 0;
}

void kp_llm_free(struct kp_llm *llm)
{
	if (!llm)
		return;
	if (llm->be && llm->be->cleanup)
		llm->be->cleanup(llm);
	kp_redactor_release(&llm->redact);
	kp_llm_config_release(&llm->cfg);
	pthread_mutex_destroy(&llm->lock);
	free(llm);
}

int kp_llm_check_priced(const struct kp_llm *llm, struct kp_error *err)
{
	if (llm->price_known || llm->be->free_of_charge)
		return 0;
	return kp_error_set(err, KP_EINVAL,
			    "llm: a cost limit needs a price, and none is known for model '%s'; set \"price\": "
			    "{\"input\": USD, \"output\": USD} (per million tokens) in the config file",
			    llm->cfg.model ? llm->cfg.model : llm->be->name);
}

void kp_llm_reply_release(struct kp_llm_reply *r)
{
	free(r->text);
	memset(r, 0, sizeof(*r));
}

void kp_llm_totals(const struct kp_llm *llm, struct kp_llm_usage *out)
{
	pthread_mutex_lock((pthread_mutex_t *)&llm->lock);
	*out = llm->totals;
	pthread_mutex_unlock((pthread_mutex_t *)&llm->lock);
}

const struct kp_llm_config *kp_llm_get_config(const struct kp_llm *llm)
{
	return &llm->cfg;
}

void kp_llm_cancel(struct kp_llm *llm)
{
	llm->canceled = 1;
}

void kp_llm_set_cancel_flag(struct kp_llm *llm, const volatile sig_atomic_t *flag)
{
	llm->cancel_flag = flag;
}

void kp_llm_set_observer(struct kp_llm *llm, kp_llm_observer_fn fn, void *ud)
{
	llm->observer = fn;
	llm->observer_ud = ud;
}

void kp_llm_request_hash(const struct kp_llm_request *req, char hex[65])
{
	struct kp_sha256 h;
	kp_sha256_init(&h);
	kp_sha256_update_str(&h, "kernelpro-llm-1");
	kp_sha256_update_str(&h, req->system ? req->system : "");
	for (size_t i = 0; i < req->nmsgs; i++) {
		kp_sha256_update_str(&h, req->msgs[i].role == KP_LLM_ASSISTANT ? "assistant" : "user");
		kp_sha256_update_str(&h, req->msgs[i].content ? req->msgs[i].content : "");
	}
	kp_sha256_final(&h, hex);
}

/* --- Requests ----------------------------------------------------------------------------------- */

static void start_job(struct kp_llm *llm, struct kp_llm_job *j)
{
	memset(j->reply, 0, sizeof(*j->reply));
	kp_llm_request_hash(j->req, j->hash);
	if (llm->cfg.record_dir) {
		/* Numbers in request order, so a replay in order lines up with a parallel run. */
		pthread_mutex_lock(&llm->lock);
		j->seq = llm->record_seq++;
		pthread_mutex_unlock(&llm->lock);
	}
	if (!j->req->nmsgs || !j->req->msgs)
		kp_llm_fail(llm, j, KP_EINVAL, "llm: a request needs at least one message");
}

static void finish_job(struct kp_llm *llm, struct kp_llm_job *job)
{
	struct kp_error rerr = KP_ERROR_INIT;
	if (!job->rc) {
		memcpy(job->reply->prompt_hash, job->hash, sizeof(job->hash));
		if (!job->reply->text)
			job->reply->text = kp_xstrdup("");
		if (llm->cfg.record_dir && kp_llm_record(llm, job, &rerr))
			kp_warn("llm: could not record the exchange: %s", kp_error_msg(&rerr));
	}
	if (llm->observer)
		llm->observer(llm->observer_ud, job->req, job->rc ? NULL : job->reply, job->rc ? job->err : NULL);
}

int kp_llm_complete_many(struct kp_llm *llm, const struct kp_llm_request *reqs, size_t n,
			 struct kp_llm_reply *replies, struct kp_error *errs)
{
	struct kp_llm_job *jobs = kp_xcalloc(n ? n : 1, sizeof(*jobs));
	struct kp_error *own = errs ? NULL : kp_xcalloc(n ? n : 1, sizeof(*own));
	int first = 0;

	for (size_t i = 0; i < n; i++) {
		jobs[i].req = &reqs[i];
		jobs[i].reply = &replies[i];
		jobs[i].err = errs ? &errs[i] : &own[i];
		start_job(llm, &jobs[i]);
	}
	llm->be->run(llm, jobs, n);
	for (size_t i = 0; i < n; i++) {
		finish_job(llm, &jobs[i]);
		if (jobs[i].rc) {
			kp_llm_reply_release(&replies[i]);
			if (!first)
				first = jobs[i].rc;
		}
	}
	free(jobs);
	free(own);
	return first;
}

int kp_llm_complete(struct kp_llm *llm, const struct kp_llm_request *req, struct kp_llm_reply *out,
		    struct kp_error *err)
{
	struct kp_error e = KP_ERROR_INIT;
	int rc = kp_llm_complete_many(llm, req, 1, out, &e);
	if (rc)
		kp_error_set(err, rc, "%s", e.msg);
	return rc;
}
