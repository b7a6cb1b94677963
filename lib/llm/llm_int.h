/* Internals shared by the lib/llm files: the handle, one job per request, the wire formats, redaction. */
#ifndef KP_LLM_INT_H
#define KP_LLM_INT_H

#include <pthread.h>

#include "kernelpro/buf.h"
#include "kernelpro/llm.h"

#define KP_LLM_REPLY_CAP (16u << 20)  /* bytes of one HTTP body or child output */
#define KP_LLM_MAX_SECRETS 8

/* Strings that must never be written anywhere: the key in use and other well-known key variables. */
struct kp_redactor {
	char *secret[KP_LLM_MAX_SECRETS];
	size_t n;
};

void kp_redactor_init(struct kp_redactor *r);
/* Adds the value of env var `name` when it is set and long enough to be a key. */
void kp_redactor_add_env(struct kp_redactor *r, const char *name);
void kp_redactor_add(struct kp_redactor *r, const char *secret);
void kp_redactor_release(struct kp_redactor *r);
/*
 * Replaces every secret with "[redacted]", in place. With `keyish`, also every
 * word that looks like a provider key ("sk-...", including masked echoes such
 * as "sk-abc***xyz"): for server messages and logs, not for prompts and code.
 */
void kp_redact_buf(const struct kp_redactor *r, struct kp_buf *b, int keyish);
/* The same, keyish words included, into a fixed buffer (a kp_error message). */
void kp_redact_str(const struct kp_redactor *r, char *s, size_t size);

/* A replay directory loaded at open. */
struct kp_replay_entry {
	char *file;          /* base name, for messages */
	char hash[65];       /* "" for plain-text replies */
	char *text;
	size_t len;
	char finish_reason[32];
	int truncated;
	char model[128];
	long input_tokens, output_tokens; /* -1: not recorded */
	int used;
};

struct kp_replay {
	struct kp_replay_entry *e;
	size_t n, alloc;
	size_t next;         /* order mode: the next entry to hand out */
};

int kp_replay_load(struct kp_replay *rp, const char *dir, enum kp_llm_replay_mode mode, struct kp_error *err);
void kp_replay_release(struct kp_replay *rp);

/* One request in flight: shared by the HTTP, exec and replay paths. */
struct kp_llm_job {
	const struct kp_llm_request *req;
	struct kp_llm_reply *reply;
	struct kp_error *err;
	char hash[65];
	long seq;            /* recording sequence number, reserved at submission */
	void *multi;         /* HTTP: the CURLM * of the call this job belongs to */
	int attempts;
	int done;
	int rc;
	double t_start;
	double not_before;   /* earliest time of the next attempt */
	/* HTTP */
	void *easy;          /* CURL * while an attempt runs */
	void *headers;       /* struct curl_slist * */
	char *body;          /* the request JSON */
	struct kp_buf resp;
	double retry_after;  /* seconds from the last reply's Retry-After, or -1 */
	char last[256];      /* what went wrong with the last attempt, for the final message */
};

struct kp_llm {
	struct kp_llm_config cfg;
	char *url;           /* HTTP endpoint */
	char *auth_header;   /* "Authorization: Bearer ..." or "x-api-key: ...": never logged */
	char *version_header;
	struct kp_redactor redact;
	struct kp_replay replay;
	struct kp_llm_price price;
	int price_known;
	void *share;         /* CURLSH *: connections, DNS and TLS sessions shared by every call's multi handle */
	pthread_mutex_t share_locks[8]; /* one per curl_lock_data */
	volatile int canceled; /* kp_llm_cancel() was called */
	unsigned long long rng;
	long record_seq;     /* the next recording number */
	pthread_mutex_t lock; /* totals, budget, jitter, recording numbers, replay position: calls may run in parallel */
	struct kp_llm_usage totals;
	kp_llm_observer_fn observer;
	void *observer_ud;
};

/* The wire formats. Both build a JSON request body and read a reply or an error body. */
char *kp_llm_openai_body(const struct kp_llm *llm, const struct kp_llm_request *req);
char *kp_llm_anthropic_body(const struct kp_llm *llm, const struct kp_llm_request *req);

/*
 * Parses a successful reply body of `provider` into out (text, finish
 * reason, truncated, model, tokens). KP_EPARSE when the body is not the
 * provider's reply shape (cut short, HTML from a proxy ...).
 */
int kp_llm_parse_reply(enum kp_llm_provider provider, const char *body, size_t len, struct kp_llm_reply *out,
		       struct kp_error *err);
/* The human message inside an error body ({"error": {"message": ...}}), into out (at most n bytes). */
void kp_llm_parse_error(const char *body, size_t len, char *out, size_t n);

/* Backends. Each runs the jobs to completion, filling reply/err/rc of each. */
void kp_llm_http_run(struct kp_llm *llm, struct kp_llm_job *jobs, size_t n);
void kp_llm_exec_run(struct kp_llm *llm, struct kp_llm_job *jobs, size_t n);
void kp_llm_replay_run(struct kp_llm *llm, struct kp_llm_job *jobs, size_t n);
int kp_llm_http_setup(struct kp_llm *llm, struct kp_error *err);
void kp_llm_http_cleanup(struct kp_llm *llm);

/* Shared by the backends. */
/* 0 when the token and cost caps leave room for another request, else KP_EBUDGET in job->err. Locks. */
int kp_llm_budget_check(struct kp_llm *llm, struct kp_llm_job *job);
/* Fills usage cost from the price table and adds it to the totals. Locks. */
void kp_llm_account(struct kp_llm *llm, struct kp_llm_usage *u);
/* Seconds to wait before attempt `attempt` (2, 3, ...): exponential with jitter, at least retry_after. */
double kp_llm_backoff(struct kp_llm *llm, int attempt, double retry_after);
/* The text of a request as one prompt (exec's stdin, token estimates). */
void kp_llm_render_plain(const struct kp_llm_request *req, struct kp_buf *out);
/* Sets the error with the secrets scrubbed from the message. */
int kp_llm_fail(struct kp_llm *llm, struct kp_llm_job *job, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Writes one exchange as DIR/NNNNNN.json (atomic). */
int kp_llm_record(struct kp_llm *llm, const struct kp_llm_job *job, struct kp_error *err);

#endif
