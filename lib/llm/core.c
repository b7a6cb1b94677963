/* The services every backend uses: failing and finishing a job, accounting, backoff, plain-text prompts. */
#include "base/setup.h"

#include <limits.h>
#include <math.h>

#include "kernelpro/log.h"
#include "kernelpro/secret.h"
#include "llm/core.h"

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

int kp_llm_canceled(const struct kp_llm *llm)
{
	return llm->canceled || (llm->cancel_flag && *llm->cancel_flag);
}

int kp_llm_job_canceled(struct kp_llm *llm, struct kp_llm_job *job)
{
	return kp_llm_canceled(llm) ? kp_llm_fail(llm, job, KP_ECANCELED, "llm: request canceled") : 0;
}

int kp_llm_check_text(struct kp_llm *llm, struct kp_llm_job *job)
{
	const char *text = job->reply->text;
	const char *nul = text ? memchr(text, '\0', job->reply->len) : NULL;
	size_t at;
	if (!nul)
		return 0;
	at = (size_t)(nul - text);
	free(job->reply->text);
	job->reply->text = NULL;
	job->reply->len = 0;
	return kp_llm_fail(llm, job, KP_ELLM,
			   "llm: %s: the reply holds a NUL byte at offset %zu; a reply must be text, and the "
			   "code after it would be lost, so it is refused",
			   kp_llm_provider_name(llm->cfg.provider), at);
}

long kp_llm_add_tokens(long a, long b)
{
	if (b <= 0)
		return a;
	return a > LONG_MAX - b ? LONG_MAX : a + b;
}

void kp_llm_usage_add(struct kp_llm_usage *sum, const struct kp_llm_usage *u)
{
	int first = sum->requests == 0;
	sum->input_tokens = kp_llm_add_tokens(sum->input_tokens, u->input_tokens);
	sum->output_tokens = kp_llm_add_tokens(sum->output_tokens, u->output_tokens);
	sum->cost_usd += u->cost_usd;
	sum->cost_known = first ? u->cost_known : sum->cost_known && u->cost_known;
	sum->estimated |= u->estimated;
	sum->attempts += u->attempts;
	sum->requests += u->requests ? u->requests : 1;
	sum->elapsed_s += u->elapsed_s;
}

/* Characters of a request's text: what an input estimate is made from. */
static size_t request_chars(const struct kp_llm_request *req)
{
	size_t n = req->system ? strlen(req->system) : 0;
	for (size_t i = 0; i < req->nmsgs; i++)
		n += req->msgs[i].content ? strlen(req->msgs[i].content) : 0;
	return n;
}

/* One reported count made safe to add to a budget (llm.h): estimated when unknown, clamped when huge. */
static long checked_tokens(const struct kp_llm *llm, long n, size_t chars, const char *what, int *estimated)
{
	if (n < 0) {
		*estimated = 1;
		return kp_llm_estimate_tokens(chars);
	}
	if (n > KP_LLM_USAGE_MAX) {
		kp_warn("llm: %s reported %ld %s tokens for one exchange; counted as %ld",
			kp_llm_provider_name(llm->cfg.provider), n, what, KP_LLM_USAGE_MAX);
		return KP_LLM_USAGE_MAX;
	}
	return n;
}

void kp_llm_job_done(struct kp_llm *llm, struct kp_llm_job *job)
{
	struct kp_llm_usage *u = &job->reply->usage;
	size_t len;
	/* A reply holding the key (echoed, or asked for) would carry it into every file: scrubbed here, where
	 * it enters, and again by each writer. */
	char *scrubbed = job->reply->text ? kp_secret_scrub(job->reply->text, job->reply->len, &len) : NULL;
	if (scrubbed) {
		free(job->reply->text);
		job->reply->text = scrubbed;
		job->reply->len = len;
	}
	u->input_tokens =
		checked_tokens(llm, u->input_tokens, request_chars(job->req), "input", &u->estimated);
	u->output_tokens = checked_tokens(llm, u->output_tokens, job->reply->len, "output", &u->estimated);
	if (llm->price_known) {
		u->cost_usd = (u->input_tokens * llm->price.input + u->output_tokens * llm->price.output) / 1e6;
		u->cost_known = 1;
	}
	u->requests = 1;
	pthread_mutex_lock(&llm->lock);
	kp_llm_usage_add(&llm->totals, u);
	pthread_mutex_unlock(&llm->lock);
	job->done = 1;
	job->rc = 0;
}

long kp_llm_estimate_tokens(size_t chars)
{
	return (long)(chars + 3) / 4;
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
