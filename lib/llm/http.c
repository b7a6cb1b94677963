/*
 * The openai and anthropic backends: one HTTP transport (curl multi, several requests in flight,
 * retries, Retry-After) over the two wire formats of wire.c.
 */
#include "base/setup.h"

#include <ctype.h>
#include <curl/curl.h>
#include <math.h>
#include <pthread.h>

#include "kernelpro/fault.h"
#include "kernelpro/log.h"
#include "kernelpro/secret.h"
#include "kernelpro/str.h"
#include "llm/backend.h"
#include "llm/wire.h"

#ifndef KP_VERSION /* builds outside the Makefile's flags (the fuzz targets) */
#define KP_VERSION "unknown"
#endif

/* The backend's state (llm->be_data), fixed after setup. */
struct http {
	const struct kp_llm_wire *wire;
	char *url;           /* the endpoint */
	char *auth_header;   /* "Authorization: Bearer ..." or "x-api-key: ...": never logged, zeroed when freed */
	char *extra_header;  /* "anthropic-version: ..." */
	CURLSH *share;       /* connections, DNS and TLS sessions shared by every call's multi handle */
	pthread_mutex_t share_locks[8]; /* one per curl_lock_data */
	int locks_ready;
};

/* One job's transfer state during a batch. */
struct xfer {
	struct kp_llm_job *job;
	CURLM *multi;        /* the batch's */
	CURL *easy;          /* while an attempt runs */
	struct curl_slist *headers;
	char *body;          /* the request JSON, built once */
	struct kp_buf resp;
	double retry_after;  /* seconds from the last reply's Retry-After, or -1 */
	double not_before;   /* earliest time of the next attempt */
	int over_cap;        /* the body passed KP_LLM_REPLY_CAP: final, never retried */
	char last[256];      /* what went wrong with the last attempt, for the final message */
};

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static CURLcode global_rc;

static void global_init(void)
{
	global_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

static void share_lock(CURL *h, curl_lock_data data, curl_lock_access access, void *ud)
{
	struct http *st = ud;
	pthread_mutex_lock(&st->share_locks[(unsigned)data % KP_ARRAY_SIZE(st->share_locks)]);
}

static void share_unlock(CURL *h, curl_lock_data data, void *ud)
{
	struct http *st = ud;
	pthread_mutex_unlock(&st->share_locks[(unsigned)data % KP_ARRAY_SIZE(st->share_locks)]);
}

/*
 * Every kp_llm_complete_many() call runs its own multi handle, so calls from
 * several threads never touch each other's transfers; they still reuse one
 * pool of connections (and DNS and TLS sessions) through this share handle.
 */
static int make_share(struct http *st, struct kp_error *err)
{
	CURLSH *sh;
	pthread_once(&global_once, global_init);
	if (global_rc != CURLE_OK)
		return kp_error_set(err, KP_EHTTP, "llm: libcurl failed to initialise: %s", curl_easy_strerror(global_rc));
	sh = curl_share_init();
	if (!sh)
		return kp_error_set(err, KP_EHTTP, "llm: libcurl could not create a share handle");
	for (size_t i = 0; i < KP_ARRAY_SIZE(st->share_locks); i++)
		pthread_mutex_init(&st->share_locks[i], NULL);
	st->locks_ready = 1;
	curl_share_setopt(sh, CURLSHOPT_LOCKFUNC, share_lock);
	curl_share_setopt(sh, CURLSHOPT_UNLOCKFUNC, share_unlock);
	curl_share_setopt(sh, CURLSHOPT_USERDATA, st);
	curl_share_setopt(sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
	curl_share_setopt(sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
	curl_share_setopt(sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
	st->share = sh;
	return 0;
}

/* The endpoint: the configured base URL, else the wire's variable, else the public API. */
static int make_url(struct http *st, const struct kp_llm_config *c, struct kp_error *err)
{
	const char *base = c->base_url ? c->base_url : getenv(st->wire->url_env);
	struct kp_buf u = KP_BUF_INIT;
	if (!base || !*base)
		base = st->wire->default_base;
	if (strncmp(base, "http://", 7) && strncmp(base, "https://", 8))
		return kp_error_set(err, KP_EINVAL, "llm: base URL '%s' must start with http:// or https://", base);
	kp_buf_adds(&u, base);
	while (u.len && u.buf[u.len - 1] == '/')
		kp_buf_setlen(&u, u.len - 1);
	kp_buf_adds(&u, st->wire->path);
	st->url = kp_buf_detach(&u, NULL);
	return 0;
}

static const char *key_var(const struct kp_llm *llm)
{
	const struct http *st = llm->be_data;
	return llm->cfg.api_key_env ? llm->cfg.api_key_env : st->wire->key_env;
}

/* The key from its variable (never from anywhere else), registered with the redactor first. */
static int make_auth(struct kp_llm *llm, struct http *st, struct kp_error *err)
{
	const struct kp_llm_config *c = &llm->cfg;
	const char *var = key_var(llm);
	const char *key = kp_secret_getenv(var);
	const char *name = llm->be->name;

	kp_redactor_add_env(&llm->redact, var);
	if (st->wire->key_optional && c->no_key)
		return 0;
	if (!key || !*key)
		return kp_error_set(err, KP_EAUTH,
				    "llm: %s is not set; export it with your %s key%s (kernelpro never falls back to "
				    "another provider)",
				    var, name,
				    st->wire->key_optional
					    ? ", or set \"no_key\": true in the config file for a local server that needs none"
					    : "");
	for (const char *p = key; *p; p++)
		if (*p == '\r' || *p == '\n')
			return kp_error_set(err, KP_EAUTH, "llm: %s holds a line break; it must be the key alone", var);
	st->auth_header = kp_xasprintf("%s%s", st->wire->auth_prefix, key);
	return 0;
}

static int http_setup(struct kp_llm *llm, const struct kp_llm_wire *wire, struct kp_error *err)
{
	const struct kp_llm_config *c = &llm->cfg;
	struct http *st = kp_xcalloc(1, sizeof(*st));
	int rc;

	st->wire = wire;
	llm->be_data = st;
	if (!c->model || !*c->model)
		return kp_error_set(err, KP_EINVAL, "llm: %s needs a model: --llm %s:MODEL", llm->be->name, llm->be->name);
	if ((rc = make_url(st, c, err)) || (rc = make_auth(llm, st, err)))
		return rc;
	if (wire->extra_header)
		st->extra_header = wire->extra_header(c);
	return make_share(st, err);
}

static int openai_setup(struct kp_llm *llm, struct kp_error *err)
{
	return http_setup(llm, &kp_llm_wire_openai, err);
}

static int anthropic_setup(struct kp_llm *llm, struct kp_error *err)
{
	return http_setup(llm, &kp_llm_wire_anthropic, err);
}

static void http_cleanup(struct kp_llm *llm)
{
	struct http *st = llm->be_data;
	if (!st)
		return;
	if (st->share)
		curl_share_cleanup(st->share);
	if (st->locks_ready)
		for (size_t i = 0; i < KP_ARRAY_SIZE(st->share_locks); i++)
			pthread_mutex_destroy(&st->share_locks[i]);
	if (st->auth_header) {
		memset(st->auth_header, 0, strlen(st->auth_header));
		free(st->auth_header);
	}
	free(st->extra_header);
	free(st->url);
	free(st);
	llm->be_data = NULL;
}

/* --- One attempt -------------------------------------------------------------------------------- */

static size_t on_body(char *data, size_t size, size_t nmemb, void *ud)
{
	struct xfer *x = ud;
	size_t n = size * nmemb;
	/* Returning less than n aborts the transfer with CURLE_WRITE_ERROR: the body passed its cap. */
	if (kp_buf_add(&x->resp, data, n)) {
		x->over_cap = 1;
		return 0;
	}
	return n;
}

/* Retry-After is seconds or an HTTP date; OpenAI also sends retry-after-ms. */
static size_t on_header(char *data, size_t size, size_t nmemb, void *ud)
{
	struct xfer *x = ud;
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
			x->retry_after = d / 1000.0;
	} else if (kp_str_ieq(line, "retry-after") && x->retry_after < 0) {
		if (!kp_parse_double(v, &d) && d >= 0) {
			x->retry_after = d;
		} else {
			time_t t = curl_getdate(v, NULL);
			if (t != -1)
				x->retry_after = fmax(0.0, (double)t - kp_wall_time());
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
	return llm->be->name;
}

static void drop_easy(struct xfer *x)
{
	if (!x->easy)
		return;
	curl_multi_remove_handle(x->multi, x->easy);
	curl_easy_cleanup(x->easy);
	curl_slist_free_all(x->headers);
	x->easy = NULL;
	x->headers = NULL;
}

static void set_options(struct kp_llm *llm, struct xfer *x, CURL *e)
{
	const struct http *st = llm->be_data;
	long timeout_ms = (long)(llm->cfg.timeout_s * 1000.0);

	curl_easy_setopt(e, CURLOPT_URL, st->url);
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, x->headers);
	curl_easy_setopt(e, CURLOPT_POSTFIELDS, x->body);
	curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(x->body));
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(e, CURLOPT_HEADERDATA, x);
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms < 30000 ? timeout_ms : 30000L);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(e, CURLOPT_USERAGENT, "kernelpro/" KP_VERSION);
	curl_easy_setopt(e, CURLOPT_PRIVATE, x);
	curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
	curl_easy_setopt(e, CURLOPT_SHARE, st->share);
	if (kp_log_enabled(KP_LOG_TRACE)) {
		curl_easy_setopt(e, CURLOPT_DEBUGFUNCTION, on_debug);
		curl_easy_setopt(e, CURLOPT_DEBUGDATA, llm);
		curl_easy_setopt(e, CURLOPT_VERBOSE, 1L);
	}
}

static int start_attempt(struct kp_llm *llm, struct xfer *x)
{
	const struct http *st = llm->be_data;
	struct kp_llm_job *job = x->job;
	CURL *e = curl_easy_init();

	if (!e)
		return kp_llm_fail(llm, job, KP_EHTTP, "llm: libcurl could not create a request");
	if (!x->body)
		x->body = st->wire->body(&llm->cfg, st->url, job->req);
	x->headers = curl_slist_append(NULL, "Content-Type: application/json");
	/* No "Expect: 100-continue": it costs a round trip (or a 1 s stall) on every large prompt. */
	x->headers = curl_slist_append(x->headers, "Expect:");
	if (st->auth_header)
		x->headers = curl_slist_append(x->headers, st->auth_header);
	if (st->extra_header)
		x->headers = curl_slist_append(x->headers, st->extra_header);
	kp_buf_reset(&x->resp);
	x->over_cap = 0;
	x->retry_after = -1;
	job->attempts++;
	if (!job->t_start)
		job->t_start = kp_now();
	set_options(llm, x, e);
	x->easy = e;
	if (curl_multi_add_handle(x->multi, e) != CURLM_OK) {
		curl_easy_cleanup(e);
		curl_slist_free_all(x->headers);
		x->easy = NULL;
		x->headers = NULL;
		return kp_llm_fail(llm, job, KP_EHTTP, "llm: libcurl could not start a request");
	}
	return 0;
}

/* A failure worth another attempt: wait and retry, or give up after the last one. */
static void transient(struct kp_llm *llm, struct xfer *x, int timeout, const char *what)
{
	struct kp_llm_job *job = x->job;
	double wait;
	kp_strlcpy(x->last, what, sizeof(x->last));
	kp_redact_str(&llm->redact, x->last, sizeof(x->last));
	if (job->attempts > llm->cfg.retries) {
		kp_llm_fail(llm, job, timeout ? KP_ETIMEOUT : KP_EHTTP, "llm: %s: gave up after %d attempt%s: %s",
			    provider(llm), job->attempts, job->attempts == 1 ? "" : "s", x->last);
		return;
	}
	if (x->retry_after > llm->cfg.backoff_max_s) {
		kp_llm_fail(llm, job, KP_EHTTP,
			    "llm: %s: %s; the server asks to wait %.0f s, longer than backoff_max_s (%.0f s): "
			    "raise it or try later",
			    provider(llm), x->last, x->retry_after, llm->cfg.backoff_max_s);
		return;
	}
	wait = kp_llm_backoff(llm, job->attempts + 1, x->retry_after);
	x->not_before = kp_now() + wait;
	kp_debug("llm: %s%s%s: %s; attempt %d in %.1f s", provider(llm), job->req->tag ? " " : "",
		 job->req->tag ? job->req->tag : "", x->last, job->attempts + 1, wait);
}

/* A complete HTTP exchange: a reply, a refusal, or something worth retrying. */
static void finish_status(struct kp_llm *llm, struct xfer *x, long status)
{
	const struct http *st = llm->be_data;
	struct kp_llm_job *job = x->job;
	char msg[300], detail[220];

	if (status >= 200 && status < 300) {
		struct kp_error perr = KP_ERROR_INIT;
		if (kp_llm_wire_parse_reply(st->wire, x->resp.buf, x->resp.len, job->reply, &perr)) {
			snprintf(msg, sizeof(msg), "HTTP %ld but the reply is unreadable (cut short?): %s", status,
				 kp_error_msg(&perr));
			transient(llm, x, 0, msg);
			return;
		}
		if (kp_llm_check_text(llm, job))
			return; /* a whole reply from the model: asking again would cost as much */
		job->reply->usage.attempts = job->attempts;
		job->reply->usage.elapsed_s = kp_now() - job->t_start;
		kp_llm_job_done(llm, job);
		return;
	}
	kp_llm_parse_error(x->resp.buf, x->resp.len, detail, sizeof(detail));
	snprintf(msg, sizeof(msg), "HTTP %ld%s%s", status, *detail ? ": " : "", detail);
	if (status == 429 || status == 408 || status == 409 || status >= 500)
		transient(llm, x, 0, msg);
	else if (status == 401 || status == 403)
		kp_llm_fail(llm, job, KP_EAUTH, "llm: %s refused the key in %s (%s); check the key and its access to '%s'",
			    provider(llm), key_var(llm), msg, llm->cfg.model);
	else
		kp_llm_fail(llm, job, KP_ELLM, "llm: %s refused the request (%s)", provider(llm), msg);
}

static void finish_attempt(struct kp_llm *llm, struct xfer *x, CURLcode res)
{
	const struct http *st = llm->be_data;
	long status = 0;
	char msg[300];

	if (kp_fault_hit(KP_FAULT_HTTP))
		res = CURLE_COULDNT_CONNECT; /* KP_FAULT: this attempt fails as a lost connection would */
	curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
	drop_easy(x);
	if (res == CURLE_OPERATION_TIMEDOUT) {
		snprintf(msg, sizeof(msg), "no reply within %.0f s (timeout_s)", llm->cfg.timeout_s);
		transient(llm, x, 1, msg);
	} else if (x->over_cap) {
		/* Final: the same request would bring the same flood again (up to five times). */
		kp_llm_fail(llm, x->job, KP_ETOOBIG,
			    "llm: %s: reply larger than %u MiB (not retried); lower max_tokens or check the "
			    "server",
			    provider(llm), KP_LLM_REPLY_CAP >> 20);
	} else if (res == CURLE_COULDNT_RESOLVE_HOST || res == CURLE_URL_MALFORMAT || res == CURLE_UNSUPPORTED_PROTOCOL) {
		kp_llm_fail(llm, x->job, KP_EHTTP, "llm: %s: %s (%s); check the base URL", provider(llm),
			    curl_easy_strerror(res), st->url);
	} else if (res != CURLE_OK) {
		snprintf(msg, sizeof(msg), "%s (%s)", curl_easy_strerror(res), st->url);
		transient(llm, x, 0, msg);
	} else {
		finish_status(llm, x, status);
	}
}

/* --- A batch ------------------------------------------------------------------------------------- */

struct batch {
	struct xfer *x;
	size_t n;
	size_t left;         /* jobs not done */
	int running;         /* transfers in flight */
	CURLM *multi;
};

/* Ends every job of this batch now: kp_llm_cancel() was called or the caller's cancel flag is set. */
static void cancel_all(struct kp_llm *llm, struct batch *b)
{
	for (size_t i = 0; i < b->n; i++) {
		if (b->x[i].job->done)
			continue;
		drop_easy(&b->x[i]);
		kp_llm_fail(llm, b->x[i].job, KP_ECANCELED, "llm: %s: request canceled", provider(llm));
	}
	b->left = 0;
}

/* Starts every job whose time has come, up to `parallel` in flight. Returns the next wake-up time. */
static double start_due(struct kp_llm *llm, struct batch *b)
{
	double now = kp_now(), wake = INFINITY;
	for (size_t i = 0; i < b->n; i++) {
		struct xfer *x = &b->x[i];
		if (x->job->done || x->easy)
			continue;
		if (x->not_before > now) {
			wake = fmin(wake, x->not_before);
			continue;
		}
		if (b->running >= llm->cfg.parallel)
			continue;
		if ((x->job->attempts == 0 && kp_llm_job_canceled(llm, x->job)) || start_attempt(llm, x)) {
			b->left--;
			continue;
		}
		b->running++;
	}
	return wake;
}

/* Reads the transfers that ended. Returns 1 when one did (a slot came free). */
static int collect_done(struct kp_llm *llm, struct batch *b)
{
	int still = 0, finished = 0;
	CURLMsg *m;
	curl_multi_perform(b->multi, &still);
	while ((m = curl_multi_info_read(b->multi, &still))) {
		struct xfer *x = NULL;
		if (m->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&x);
		finish_attempt(llm, x, m->data.result);
		b->running--;
		finished = 1;
		if (x->job->done)
			b->left--;
	}
	return finished;
}

static void http_run(struct kp_llm *llm, struct kp_llm_job *jobs, size_t n)
{
	struct batch b = {.x = kp_xcalloc(n ? n : 1, sizeof(*b.x)), .n = n, .multi = curl_multi_init()};

	for (size_t i = 0; i < n; i++) {
		b.x[i].job = &jobs[i];
		b.x[i].multi = b.multi;
		b.x[i].retry_after = -1;
		kp_buf_init(&b.x[i].resp, KP_LLM_REPLY_CAP);
		if (!b.multi && !jobs[i].done)
			kp_llm_fail(llm, &jobs[i], KP_EHTTP, "llm: libcurl could not create a multi handle");
		b.left += !jobs[i].done;
	}
	while (b.left) {
		double wake, ms;
		if (kp_llm_canceled(llm)) {
			cancel_all(llm, &b);
			break;
		}
		wake = start_due(llm, &b);
		if (!b.left)
			break;
		if (collect_done(llm, &b))
			continue; /* a slot came free: start the next request before sleeping */
		if (!b.left)
			break;
		/* Sleep until a socket is ready, a retry is due, or 0.2 s pass (to notice a cancel). */
		ms = isfinite(wake) ? ceil((wake - kp_now()) * 1000.0) : 200.0;
		if (ms > 200.0)
			ms = 200.0;
		if (ms > 0)
			curl_multi_poll(b.multi, NULL, 0, (int)ms, NULL);
	}
	for (size_t i = 0; i < n; i++) {
		free(b.x[i].body);
		kp_buf_release(&b.x[i].resp);
	}
	free(b.x);
	if (b.multi)
		curl_multi_cleanup(b.multi);
}

/* --- Spec and the two backends --------------------------------------------------------------------- */

static int model_parse_spec(struct kp_llm_config *cfg, const char *word, const char *rest, struct kp_error *err)
{
	free(cfg->model);
	cfg->model = kp_xstrdup(rest);
	return 0;
}

static void openai_format_spec(const struct kp_llm_config *cfg, struct kp_buf *out)
{
	kp_buf_addf(out, "openai:%s", cfg->model ? cfg->model : "");
}

static void anthropic_format_spec(const struct kp_llm_config *cfg, struct kp_buf *out)
{
	kp_buf_addf(out, "anthropic:%s", cfg->model ? cfg->model : "");
}

static const char *const openai_words[] = {"openai", NULL};
static const char *const anthropic_words[] = {"anthropic", NULL};

const struct kp_llm_backend kp_llm_backend_openai = {
	.id = KP_LLM_OPENAI,
	.name = "openai",
	.words = openai_words,
	.arg = "MODEL",
	.parse_spec = model_parse_spec,
	.format_spec = openai_format_spec,
	.setup = openai_setup,
	.run = http_run,
	.cleanup = http_cleanup,
};

const struct kp_llm_backend kp_llm_backend_anthropic = {
	.id = KP_LLM_ANTHROPIC,
	.name = "anthropic",
	.words = anthropic_words,
	.arg = "MODEL",
	.parse_spec = model_parse_spec,
	.format_spec = anthropic_format_spec,
	.setup = anthropic_setup,
	.run = http_run,
	.cleanup = http_cleanup,
};
