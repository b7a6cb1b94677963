/* HTTP transport for openai and anthropic: curl multi with several requests in flight, retries, Retry-After. */
#include "base/setup.h"

#include <ctype.h>
#include <curl/curl.h>
#include <math.h>
#include <pthread.h>

#include "kernelpro/fault.h"
#include "kernelpro/log.h"
#include "kernelpro/str.h"
#include "llm/llm_int.h"

#ifndef KP_VERSION /* builds outside the Makefile's flags (the fuzz targets) */
#define KP_VERSION "unknown"
#endif

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static CURLcode global_rc;

static void global_init(void)
{
	global_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

static void share_lock(CURL *h, curl_lock_data data, curl_lock_access access, void *ud)
{
	struct kp_llm *llm = ud;
	pthread_mutex_lock(&llm->share_locks[(unsigned)data % KP_ARRAY_SIZE(llm->share_locks)]);
}

static void share_unlock(CURL *h, curl_lock_data data, void *ud)
{
	struct kp_llm *llm = ud;
	pthread_mutex_unlock(&llm->share_locks[(unsigned)data % KP_ARRAY_SIZE(llm->share_locks)]);
}

/*
 * Every kp_llm_complete_many() call runs its own multi handle, so calls from
 * several threads never touch each other's transfers; they still reuse one
 * pool of connections (and DNS and TLS sessions) through this share handle.
 */
int kp_llm_http_setup(struct kp_llm *llm, struct kp_error *err)
{
	CURLSH *sh;
	pthread_once(&global_once, global_init);
	if (global_rc != CURLE_OK)
		return kp_error_set(err, KP_EHTTP, "llm: libcurl failed to initialise: %s", curl_easy_strerror(global_rc));
	sh = curl_share_init();
	if (!sh)
		return kp_error_set(err, KP_EHTTP, "llm: libcurl could not create a share handle");
	for (size_t i = 0; i < KP_ARRAY_SIZE(llm->share_locks); i++)
		pthread_mutex_init(&llm->share_locks[i], NULL);
	curl_share_setopt(sh, CURLSHOPT_LOCKFUNC, share_lock);
	curl_share_setopt(sh, CURLSHOPT_UNLOCKFUNC, share_unlock);
	curl_share_setopt(sh, CURLSHOPT_USERDATA, llm);
	curl_share_setopt(sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
	curl_share_setopt(sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
	curl_share_setopt(sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
	llm->share = sh;
	return 0;
}

void kp_llm_http_cleanup(struct kp_llm *llm)
{
	if (!llm->share)
		return;
	curl_share_cleanup(llm->share);
	llm->share = NULL;
	for (size_t i = 0; i < KP_ARRAY_SIZE(llm->share_locks); i++)
		pthread_mutex_destroy(&llm->share_locks[i]);
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *ud)
{
	struct kp_llm_job *job = ud;
	size_t n = size * nmemb;
	/* Returning less than n aborts the transfer with CURLE_WRITE_ERROR: the body passed its cap. */
	return kp_buf_add(&job->resp, data, n) ? 0 : n;
}

/* Retry-After is seconds or an HTTP date; OpenAI also sends retry-after-ms. */
static size_t on_header(char *data, size_t size, size_t nmemb, void *ud)
{
	struct kp_llm_job *job = ud;
	size_t n = size * nmemb;
	char line[256];
	char *v;
	double d;

	if (n >= sizeof(line))
		return n;
	memcpy(line, data, n);
	line[n] = '\0';
	v = strchr(line, ':');
	if (!v)
		return n;
	*v++ = '\0';
	v = kp_str_trim(v);
	if (kp_str_ieq(line, "retry-after-ms")) {
		if (!kp_parse_double(v, &d) && d >= 0)
			job->retry_after = d / 1000.0;
	} else if (kp_str_ieq(line, "retry-after") && job->retry_after < 0) {
		if (!kp_parse_double(v, &d) && d >= 0) {
			job->retry_after = d;
		} else {
			time_t t = curl_getdate(v, NULL);
			if (t != -1)
				job->retry_after = fmax(0.0, (double)t - kp_wall_time());
		}
	}
	return n;
}

/* libcurl's verbose trace, at log level trace, with key headers blanked before anything is logged. */
static int on_debug(CURL *easy, curl_infotype type, char *data, size_t size, void *ud)
{
	struct kp_llm *llm = ud;
	struct kp_buf b = KP_BUF_INIT;
	const char *dir = type == CURLINFO_HEADER_OUT ? "> " : type == CURLINFO_HEADER_IN ? "< " : "* ";

	if (type == CURLINFO_DATA_OUT || type == CURLINFO_DATA_IN) {
		kp_log(KP_LOG_TRACE, "llm: curl: %s %zu bytes of body", type == CURLINFO_DATA_OUT ? "sent" : "received", size);
		return 0;
	}
	if (type != CURLINFO_TEXT && type != CURLINFO_HEADER_OUT && type != CURLINFO_HEADER_IN)
		return 0;
	for (size_t i = 0; i < size;) {
		size_t e = i;
		while (e < size && data[e] != '\n')
			e++;
		size_t len = e - i;
		while (len && (data[i + len - 1] == '\r'))
			len--;
		if (len) {
			const char *line = data + i;
			kp_buf_adds(&b, dir);
			if ((len >= 14 && !strncasecmp(line, "authorization:", 14)) ||
			    (len >= 10 && !strncasecmp(line, "x-api-key:", 10)) ||
			    (len >= 8 && !strncasecmp(line, "api-key:", 8))) {
				kp_buf_add(&b, line, (size_t)(strchr(line, ':') - line));
				kp_buf_adds(&b, ": [redacted]");
			} else {
				kp_buf_add(&b, line, len);
			}
			kp_redact_buf(&llm->redact, &b, 1);
			kp_log(KP_LOG_TRACE, "llm: curl: %s", b.buf);
			kp_buf_reset(&b);
		}
		i = e + 1;
	}
	kp_buf_release(&b);
	return 0;
}

static const char *provider(const struct kp_llm *llm)
{
	return kp_llm_provider_name(llm->cfg.provider);
}

static int start_attempt(struct kp_llm *llm, struct kp_llm_job *job)
{
	CURL *e = curl_easy_init();
	struct curl_slist *h = NULL;
	long timeout_ms = (long)(llm->cfg.timeout_s * 1000.0);

	if (!e)
		return kp_llm_fail(llm, job, KP_EHTTP, "llm: libcurl could not create a request");
	if (!job->body)
		job->body = llm->cfg.provider == KP_LLM_ANTHROPIC ? kp_llm_anthropic_body(llm, job->req)
								  : kp_llm_openai_body(llm, job->req);
	h = curl_slist_append(h, "Content-Type: application/json");
	/* No "Expect: 100-continue": it costs a round trip (or a 1 s stall) on every large prompt. */
	h = curl_slist_append(h, "Expect:");
	if (llm->auth_header)
		h = curl_slist_append(h, llm->auth_header);
	if (llm->version_header)
		h = curl_slist_append(h, llm->version_header);
	kp_buf_reset(&job->resp);
	job->retry_after = -1;
	job->attempts++;
	if (!job->t_start)
		job->t_start = kp_now();

	curl_easy_setopt(e, CURLOPT_URL, llm->url);
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(e, CURLOPT_POSTFIELDS, job->body);
	curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(job->body));
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, job);
	curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(e, CURLOPT_HEADERDATA, job);
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms < 30000 ? timeout_ms : 30000L);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(e, CURLOPT_USERAGENT, "kernelpro/" KP_VERSION);
	curl_easy_setopt(e, CURLOPT_PRIVATE, job);
	curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
	curl_easy_setopt(e, CURLOPT_SHARE, llm->share);
	if (kp_log_enabled(KP_LOG_TRACE)) {
		curl_easy_setopt(e, CURLOPT_DEBUGFUNCTION, on_debug);
		curl_easy_setopt(e, CURLOPT_DEBUGDATA, llm);
		curl_easy_setopt(e, CURLOPT_VERBOSE, 1L);
	}
	job->easy = e;
	job->headers = h;
	if (curl_multi_add_handle(job->multi, e) != CURLM_OK) {
		curl_easy_cleanup(e);
		curl_slist_free_all(h);
		job->easy = job->headers = NULL;
		return kp_llm_fail(llm, job, KP_EHTTP, "llm: libcurl could not start a request");
	}
	return 0;
}

/* A failure worth another attempt: wait and retry, or give up after the last one. */
static void transient(struct kp_llm *llm, struct kp_llm_job *job, int timeout, const char *what)
{
	double wait;
	kp_strlcpy(job->last, what, sizeof(job->last));
	kp_redact_str(&llm->redact, job->last, sizeof(job->last));
	if (job->attempts > llm->cfg.retries) {
		kp_llm_fail(llm, job, timeout ? KP_ETIMEOUT : KP_EHTTP, "llm: %s: gave up after %d attempt%s: %s",
			    provider(llm), job->attempts, job->attempts == 1 ? "" : "s", job->last);
		return;
	}
	if (job->retry_after > llm->cfg.backoff_max_s) {
		kp_llm_fail(llm, job, KP_EHTTP,
			    "llm: %s: %s; the server asks to wait %.0f s, longer than backoff_max_s (%.0f s): "
			    "raise it or try later",
			    provider(llm), job->last, job->retry_after, llm->cfg.backoff_max_s);
		return;
	}
	wait = kp_llm_backoff(llm, job->attempts + 1, job->retry_after);
	job->not_before = kp_now() + wait;
	kp_debug("llm: %s%s%s: %s; attempt %d in %.1f s", provider(llm), job->req->tag ? " " : "",
		 job->req->tag ? job->req->tag : "", job->last, job->attempts + 1, wait);
}

static void finish_attempt(struct kp_llm *llm, struct kp_llm_job *job, CURLcode res)
{
	long status = 0;
	char msg[300], detail[220];

	if (kp_fault_hit(KP_FAULT_HTTP))
		res = CURLE_COULDNT_CONNECT; /* KP_FAULT: this attempt fails as a lost connection would */
	curl_easy_getinfo(job->easy, CURLINFO_RESPONSE_CODE, &status);
	curl_multi_remove_handle(job->multi, job->easy);
	curl_easy_cleanup(job->easy);
	curl_slist_free_all(job->headers);
	job->easy = job->headers = NULL;

	if (res == CURLE_OPERATION_TIMEDOUT) {
		snprintf(msg, sizeof(msg), "no reply within %.0f s (timeout_s)", llm->cfg.timeout_s);
		transient(llm, job, 1, msg);
		return;
	}
	if (res == CURLE_WRITE_ERROR && job->resp.len + 1 >= KP_LLM_REPLY_CAP) {
		kp_llm_fail(llm, job, KP_ETOOBIG, "llm: %s: reply larger than %u MiB", provider(llm),
			    KP_LLM_REPLY_CAP >> 20);
		return;
	}
	if (res == CURLE_COULDNT_RESOLVE_HOST || res == CURLE_URL_MALFORMAT || res == CURLE_UNSUPPORTED_PROTOCOL) {
		kp_llm_fail(llm, job, KP_EHTTP, "llm: %s: %s (%s); check the base URL", provider(llm),
			    curl_easy_strerror(res), llm->url);
		return;
	}
	if (res != CURLE_OK) {
		snprintf(msg, sizeof(msg), "%s (%s)", curl_easy_strerror(res), llm->url);
		transient(llm, job, 0, msg);
		return;
	}
	if (status >= 200 && status < 300) {
		struct kp_error perr = KP_ERROR_INIT;
		if (kp_llm_parse_reply(llm->cfg.provider, job->resp.buf, job->resp.len, job->reply, &perr)) {
			snprintf(msg, sizeof(msg), "HTTP %ld but the reply is unreadable (cut short?): %s", status,
				 kp_error_msg(&perr));
			transient(llm, job, 0, msg);
			return;
		}
		job->reply->usage.attempts = job->attempts;
		job->reply->usage.elapsed_s = kp_now() - job->t_start;
		kp_llm_account(llm, &job->reply->usage);
		job->done = 1;
		job->rc = 0;
		return;
	}
	kp_llm_parse_error(job->resp.buf, job->resp.len, detail, sizeof(detail));
	snprintf(msg, sizeof(msg), "HTTP %ld%s%s", status, *detail ? ": " : "", detail);
	if (status == 429 || status == 408 || status == 409 || status >= 500) {
		transient(llm, job, 0, msg);
	} else if (status == 401 || status == 403) {
		const char *var = llm->cfg.api_key_env ? llm->cfg.api_key_env
			      : llm->cfg.provider == KP_LLM_OPENAI ? "OPENAI_API_KEY"
								 : "ANTHROPIC_API_KEY";
		kp_llm_fail(llm, job, KP_EAUTH, "llm: %s refused the key in %s (%s); check the key and its access to '%s'",
			    provider(llm), var, msg, llm->cfg.model);
	} else {
		kp_llm_fail(llm, job, KP_ELLM, "llm: %s refused the request (%s)", provider(llm), msg);
	}
}

/* Ends every job of this call now: kp_llm_cancel() was called. */
static void cancel_all(struct kp_llm *llm, struct kp_llm_job *jobs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct kp_llm_job *j = &jobs[i];
		if (j->done)
			continue;
		if (j->easy) {
			curl_multi_remove_handle(j->multi, j->easy);
			curl_easy_cleanup(j->easy);
			curl_slist_free_all(j->headers);
			j->easy = j->headers = NULL;
		}
		kp_llm_fail(llm, j, KP_ECANCELED, "llm: %s: request canceled", provider(llm));
	}
}

void kp_llm_http_run(struct kp_llm *llm, struct kp_llm_job *jobs, size_t n)
{
	CURLM *multi = curl_multi_init();
	size_t left = 0;
	int running = 0;

	for (size_t i = 0; i < n; i++) {
		jobs[i].multi = multi;
		if (!multi && !jobs[i].done)
			kp_llm_fail(llm, &jobs[i], KP_EHTTP, "llm: libcurl could not create a multi handle");
		left += !jobs[i].done;
	}
	while (left) {
		double now = kp_now(), wake = INFINITY;
		int still = 0, finished = 0;
		CURLMsg *m;

		if (llm->canceled) {
			cancel_all(llm, jobs, n);
			break;
		}
		for (size_t i = 0; i < n; i++) {
			struct kp_llm_job *j = &jobs[i];
			if (j->done || j->easy)
				continue;
			if (j->not_before > now) {
				wake = fmin(wake, j->not_before);
				continue;
			}
			if (running >= llm->cfg.parallel)
				continue;
			if ((j->attempts == 0 && kp_llm_budget_check(llm, j)) || start_attempt(llm, j)) {
				left--;
				continue;
			}
			running++;
		}
		if (!left)
			break;
		curl_multi_perform(multi, &still);
		while ((m = curl_multi_info_read(multi, &still))) {
			struct kp_llm_job *j = NULL;
			if (m->msg != CURLMSG_DONE)
				continue;
			curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&j);
			finish_attempt(llm, j, m->data.result);
			running--;
			finished = 1;
			if (j->done)
				left--;
		}
		if (!left)
			break;
		if (finished)
			continue; /* a slot came free: start the next request before sleeping */
		/* Sleep until a socket is ready, a retry is due, or 0.2 s pass (to notice a cancel). */
		double ms = isfinite(wake) ? ceil((wake - kp_now()) * 1000.0) : 200.0;
		if (ms > 200.0)
			ms = 200.0;
		if (ms > 0)
			curl_multi_poll(multi, NULL, 0, (int)ms, NULL);
	}
	for (size_t i = 0; i < n; i++) {
		free(jobs[i].body);
		jobs[i].body = NULL;
		jobs[i].multi = NULL;
	}
	if (multi)
		curl_multi_cleanup(multi);
}
