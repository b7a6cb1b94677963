/* The kp_llm handle: opening a backend, budgets, retries' backoff, dispatch of requests, totals. */
#include "base/setup.h"

#include <math.h>
#include <unistd.h>

#include "kernelpro/child.h"
#include "kernelpro/fs.h"
#include "kernelpro/hash.h"
#include "kernelpro/log.h"
#include "kernelpro/str.h"
#include "llm/llm_int.h"

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

/* The next number after the highest NNNNNN.json already in the recording directory. */
static long next_record_seq(const char *dir)
{
	long next = 1;
	struct kp_buf p = KP_BUF_INIT;
	for (long lo = 1, hi = 1;; hi *= 2) {
		/* Exponential then binary search over existing files: recordings are dense from 1. */
		kp_buf_reset(&p);
		kp_buf_addf(&p, "%s/%06ld.json", dir, hi);
		if (kp_path_exists(p.buf)) {
			lo = hi;
			continue;
		}
		while (lo < hi) {
			long mid = lo + (hi - lo) / 2;
			kp_buf_reset(&p);
			kp_buf_addf(&p, "%s/%06ld.json", dir, mid);
			if (kp_path_exists(p.buf))
				lo = mid + 1;
			else
				hi = mid;
		}
		next = lo;
		break;
	}
	kp_buf_release(&p);
	return next;
}

static int open_http(struct kp_llm *llm, struct kp_error *err)
{
	struct kp_llm_config *c = &llm->cfg;
	int openai = c->provider == KP_LLM_OPENAI;
	const char *key_env = c->api_key_env ? c->api_key_env : openai ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY";
	const char *url_env = openai ? "OPENAI_BASE_URL" : "ANTHROPIC_BASE_URL";
	const char *base = c->base_url ? c->base_url : getenv(url_env);
	const char *key = getenv(key_env);
	struct kp_buf u = KP_BUF_INIT;

	if (!c->model || !*c->model)
		return kp_error_set(err, KP_EINVAL, "llm: %s needs a model: --llm %s:MODEL", kp_llm_provider_name(c->provider),
				    kp_llm_provider_name(c->provider));
	if (!base || !*base)
		base = openai ? "https://api.openai.com/v1" : "https://api.anthropic.com";
	if (strncmp(base, "http://", 7) && strncmp(base, "https://", 8))
		return kp_error_set(err, KP_EINVAL, "llm: base URL '%s' must start with http:// or https://", base);
	kp_buf_adds(&u, base);
	while (u.len && u.buf[u.len - 1] == '/')
		kp_buf_setlen(&u, u.len - 1);
	kp_buf_adds(&u, openai ? "/chat/completions" : "/v1/messages");
	llm->url = kp_buf_detach(&u, NULL);

	kp_redactor_add_env(&llm->redact, key_env);
	if (openai && c->no_key)
		key = NULL;
	else if (!key || !*key)
		return kp_error_set(err, KP_EAUTH,
				    "llm: %s is not set; export it with your %s key%s (kernelpro never falls back to "
				    "another provider)",
				    key_env, kp_llm_provider_name(c->provider),
				    openai ? ", or set \"no_key\": true in the config file for a local server that needs none"
					   : "");
	if (key) {
		for (const char *p = key; *p; p++)
			if (*p == '\r' || *p == '\n')
				return kp_error_set(err, KP_EAUTH, "llm: %s holds a line break; it must be the key alone",
						    key_env);
		llm->auth_header = openai ? kp_xasprintf("Authorization: Bearer %s", key)
					  : kp_xasprintf("x-api-key: %s", key);
	}
	if (!openai)
		llm->version_header = kp_xasprintf("anthropic-version: %s",
						   c->anthropic_version ? c->anthropic_version : KP_LLM_ANTHROPIC_VERSION);
	return kp_llm_http_setup(llm, err);
}

static int open_exec(struct kp_llm *llm, struct kp_error *err)
{
	char *path;
	if (!llm->cfg.exec_argv.n)
		return kp_error_set(err, KP_EINVAL, "llm: exec needs a program: --llm exec:PROGRAM");
	path = kp_which(llm->cfg.exec_argv.v[0]);
	if (!path)
		return kp_error_set(err, KP_ENOTOOL, "llm: exec program '%s' not found on PATH", llm->cfg.exec_argv.v[0]);
	free(path);
	return 0;
}

int kp_llm_open(struct kp_llm **out, const struct kp_llm_config *cfg, struct kp_error *err)
{
	struct kp_llm *llm = kp_xcalloc(1, sizeof(*llm));
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

	switch (llm->cfg.provider) {
	case KP_LLM_OPENAI:
	case KP_LLM_ANTHROPIC:
		rc = open_http(llm, err);
		break;
	case KP_LLM_EXEC:
		rc = open_exec(llm, err);
		break;
	case KP_LLM_REPLAY:
		if (!llm->cfg.replay_dir)
			rc = kp_error_set(err, KP_EINVAL, "llm: replay needs a directory: --llm replay:DIR");
		else
			rc = kp_replay_load(&llm->replay, llm->cfg.replay_dir, llm->cfg.replay_mode, err);
		if (!rc && llm->cfg.replay_mode == KP_LLM_REPLAY_ORDER && llm->cfg.replay_skip > 0)
			llm->replay.next = (size_t)llm->cfg.replay_skip; /* past the end: the next request says so */
		break;
	case KP_LLM_NONE:
		rc = kp_error_set(err, KP_EINVAL,
				  "llm: no backend chosen; pass --llm PROVIDER:MODEL (openai:MODEL, anthropic:MODEL, "
				  "exec:PROGRAM, replay:DIR), set KERNELPRO_LLM, or use --llm-config FILE");
		break;
	}
	if (rc)
		goto out;

	if (llm->cfg.price.input >= 0 && llm->cfg.price.output >= 0) {
		llm->price = llm->cfg.price;
		llm->price_known = 1;
	} else {
		llm->price_known = kp_llm_price_lookup(llm->cfg.model, &llm->price);
	}
	/* Replays cost nothing; every other backend needs a price for a cost cap to mean anything. */
	if (llm->cfg.max_cost_usd > 0 && !llm->price_known && llm->cfg.provider != KP_LLM_REPLAY) {
		rc = kp_error_set(err, KP_EINVAL,
				  "llm: a cost cap needs a price, and none is known for model '%s'; set \"price\": "
				  "{\"input\": USD, \"output\": USD} (per million tokens) in the config file",
				  llm->cfg.model ? llm->cfg.model : kp_llm_provider_name(llm->cfg.provider));
		goto out;
	}
	if (llm->cfg.record_dir) {
		rc = kp_mkdir_p(llm->cfg.record_dir, 0755, err);
		if (rc)
			goto out;
		llm->record_seq = next_record_seq(llm->cfg.record_dir);
	}
out:
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
	kp_llm_http_cleanup(llm);
	if (llm->auth_header) {
		memset(llm->auth_header, 0, strlen(llm->auth_header));
		free(llm->auth_header);
	}
	free(llm->version_header);
	free(llm->url);
	kp_replay_release(&llm->replay);
	kp_redactor_release(&llm->redact);
	kp_llm_config_release(&llm->cfg);
	pthread_mutex_destroy(&llm->lock);
	free(llm);
}

void kp_llm_reply_release(struct kp_llm_reply *r)
{
	free(r->text);
	memset(r, 0, sizeof(*r));
}

void kp_llm_usage_add(struct kp_llm_usage *sum, const struct kp_llm_usage *u)
{
	int first = sum->requests == 0;
	sum->input_tokens += u->input_tokens > 0 ? u->input_tokens : 0;
	sum->output_tokens += u->output_tokens > 0 ? u->output_tokens : 0;
	sum->cost_usd += u->cost_usd;
	sum->cost_known = first ? u->cost_known : sum->cost_known && u->cost_known;
	sum->estimated |= u->estimated;
	sum->attempts += u->attempts;
	sum->requests += u->requests ? u->requests : 1;
	sum->elapsed_s += u->elapsed_s;
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

void kp_llm_render_plain(const struct kp_llm_request *req, struct kp_buf *out)
{
	if (req->system && *req->system) {
		kp_buf_adds(out, req->system);
		kp_buf_adds(out, "\n\n");
	}
	for (size_t i = 0; i < req->nmsgs; i++) {
		/* One user message is the prompt itself; a conversation marks its turns. */
		if (req->nmsgs > 1)
			kp_buf_addf(out, "=== %s ===\n", req->msgs[i].role == KP_LLM_ASSISTANT ? "assistant" : "user");
		kp_buf_adds(out, req->msgs[i].content ? req->msgs[i].content : "");
		if (i + 1 < req->nmsgs)
			kp_buf_adds(out, "\n\n");
	}
}

int kp_llm_fail(struct kp_llm *llm, struct kp_llm_job *job, int code, const char *fmt, ...)
{
	va_list ap;
	char msg[KP_ERROR_SIZE];
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	kp_redact_str(&llm->redact, msg, sizeof(msg));
	job->rc = kp_error_set(job->err, code, "%s", msg);
	job->done = 1;
	return job->rc;
}

/* --- Budget and backoff ------------------------------------------------------------------------- */

int kp_llm_budget_check(struct kp_llm *llm, struct kp_llm_job *job)
{
	const struct kp_llm_config *c = &llm->cfg;
	int rc = 0;
	if (llm->canceled)
		return kp_llm_fail(llm, job, KP_ECANCELED, "llm: request canceled");
	pthread_mutex_lock(&llm->lock);
	long used = llm->totals.input_tokens + llm->totals.output_tokens;
	double cost = llm->totals.cost_usd;
	pthread_mutex_unlock(&llm->lock);
	if (c->max_total_tokens > 0 && used >= c->max_total_tokens)
		rc = kp_llm_fail(llm, job, KP_EBUDGET,
				 "llm: token cap reached (%ld of %ld tokens used); raise max_total_tokens to go on", used,
				 c->max_total_tokens);
	else if (c->max_cost_usd > 0 && cost >= c->max_cost_usd)
		rc = kp_llm_fail(llm, job, KP_EBUDGET, "llm: cost cap reached ($%.4f of $%.2f spent); raise max_cost_usd to go on",
				 cost, c->max_cost_usd);
	return rc;
}

void kp_llm_account(struct kp_llm *llm, struct kp_llm_usage *u)
{
	if (llm->price_known && u->input_tokens >= 0 && u->output_tokens >= 0 && llm->cfg.provider != KP_LLM_REPLAY) {
		u->cost_usd = (u->input_tokens * llm->price.input + u->output_tokens * llm->price.output) / 1e6;
		u->cost_known = 1;
	}
	u->requests = 1;
	pthread_mutex_lock(&llm->lock);
	kp_llm_usage_add(&llm->totals, u);
	pthread_mutex_unlock(&llm->lock);
}

static double rand01(struct kp_llm *llm)
{
	/* xorshift64*: jitter only needs to decorrelate clients, not be unpredictable. */
	unsigned long long x;
	pthread_mutex_lock(&llm->lock);
	x = llm->rng ? llm->rng : 0x9E3779B97F4A7C15ull;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	llm->rng = x;
	pthread_mutex_unlock(&llm->lock);
	return (double)((x * 0x2545F4914F6CDD1Dull) >> 11) / 9007199254740992.0;
}

double kp_llm_backoff(struct kp_llm *llm, int attempt, double retry_after)
{
	const struct kp_llm_config *c = &llm->cfg;
	double base = c->backoff_s * pow(2.0, attempt > 2 ? attempt - 2 : 0);
	double wait;
	if (base > c->backoff_max_s)
		base = c->backoff_max_s;
	/* Equal jitter: half fixed, half random, so retries from parallel requests spread out. */
	wait = base / 2 + base / 2 * rand01(llm);
	if (retry_after > wait)
		wait = retry_after + 0.1 * c->backoff_s * rand01(llm);
	return wait;
}

/* --- Requests ----------------------------------------------------------------------------------- */

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
		struct kp_llm_job *j = &jobs[i];
		j->req = &reqs[i];
		j->reply = &replies[i];
		j->err = errs ? &errs[i] : &own[i];
		j->retry_after = -1;
		memset(j->reply, 0, sizeof(*j->reply));
		kp_buf_init(&j->resp, KP_LLM_REPLY_CAP);
		kp_llm_request_hash(j->req, j->hash);
		if (llm->cfg.record_dir) {
			pthread_mutex_lock(&llm->lock);
			j->seq = llm->record_seq++;
			pthread_mutex_unlock(&llm->lock);
		}
		if (!reqs[i].nmsgs || !reqs[i].msgs)
			kp_llm_fail(llm, j, KP_EINVAL, "llm: a request needs at least one message");
	}
	switch (llm->cfg.provider) {
	case KP_LLM_OPENAI:
	case KP_LLM_ANTHROPIC:
		kp_llm_http_run(llm, jobs, n);
		break;
	case KP_LLM_EXEC:
		kp_llm_exec_run(llm, jobs, n);
		break;
	case KP_LLM_REPLAY:
		kp_llm_replay_run(llm, jobs, n);
		break;
	case KP_LLM_NONE:
		KP_BUG("llm: an open handle has no provider");
	}
	for (size_t i = 0; i < n; i++) {
		finish_job(llm, &jobs[i]);
		if (jobs[i].rc) {
			kp_llm_reply_release(&replies[i]);
			if (!first)
				first = jobs[i].rc;
		}
		kp_buf_release(&jobs[i].resp);
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
