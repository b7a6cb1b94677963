/*
 * What every lib/llm file shares: the handle, one job per request, and the services a backend
 * uses (failing a job, accounting, backoff, the prompt as plain text). Knows no backend.
 */
#ifndef KP_LLM_CORE_H
#define KP_LLM_CORE_H

#include <pthread.h>
#include <signal.h>

#include "kernelpro/buf.h"
#include "kernelpro/llm.h"
#include "llm/redact.h"

#define KP_LLM_REPLY_CAP (16u << 20) /* bytes of one HTTP body, child output or recorded reply */

struct kp_llm_backend;

/* One request of a batch, from kp_llm_complete_many() to the backend and back. */
struct kp_llm_job {
	const struct kp_llm_request *req;
	struct kp_llm_reply *reply;
	struct kp_error *err;
	char hash[65];
	long seq;            /* recording sequence number, reserved at submission */
	int attempts;        /* HTTP attempts or child runs so far */
	int done;            /* reply or err is final */
	int rc;
	double t_start;      /* kp_now() at the first attempt */
};

struct kp_llm {
	struct kp_llm_config cfg;
	const struct kp_llm_backend *be;
	void *be_data;       /* the backend's own state: made by its setup, freed by its cleanup */
	struct kp_redactor redact;
	struct kp_llm_price price;
	int price_known;
	volatile sig_atomic_t canceled;            /* kp_llm_cancel() was called */
	const volatile sig_atomic_t *cancel_flag; /* the caller's (kp_llm_set_cancel_flag), or NULL */
	unsigned long long rng;
	long record_seq;     /* the next recording number */
	pthread_mutex_t lock; /* totals, jitter, recording numbers, backend positions: calls may run in parallel */
	struct kp_llm_usage totals;
	kp_llm_observer_fn observer;
	void *observer_ud;
};

/* Ends the job with an error whose message has the secrets scrubbed. Returns the code. */
int kp_llm_fail(struct kp_llm *llm, struct kp_llm_job *job, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* True once kp_llm_cancel() was called or the caller's cancel flag is set. */
int kp_llm_canceled(const struct kp_llm *llm);
/* 0, or KP_ECANCELED set on the job once kp_llm_canceled(): check before each request. */
int kp_llm_job_canceled(struct kp_llm *llm, struct kp_llm_job *job);
/*
 * Refuses (KP_ELLM, job ended) a reply whose text holds a NUL byte before reply->len: a reply is
 * text, and everything downstream reads it as a C string, so code after the NUL would silently
 * vanish. Backends keep len as received and call this once the text is in. Returns 0 or the code.
 */
int kp_llm_check_text(struct kp_llm *llm, struct kp_llm_job *job);
/*
 * Ends the job with its reply: checks the token counts (a negative or missing one is estimated from
 * the text, one above KP_LLM_USAGE_MAX is clamped to it), prices them, adds them to the totals (locks).
 */
void kp_llm_job_done(struct kp_llm *llm, struct kp_llm_job *job);
/* Seconds to wait before attempt `attempt` (2, 3, ...): exponential with jitter, at least retry_after. */
double kp_llm_backoff(struct kp_llm *llm, int attempt, double retry_after);
/* The text of a request as one prompt (exec's stdin, token estimates). */
void kp_llm_render_plain(const struct kp_llm_request *req, struct kp_buf *out);
/* a + b for token counts (b < 0: unknown, adds nothing), stopping at LONG_MAX instead of wrapping. */
long kp_llm_add_tokens(long a, long b);
/* Token estimate for backends that report none: ~4 characters per token. */
long kp_llm_estimate_tokens(size_t chars);

/* Recordings (record.c): the first free number in dir, and one exchange written as DIR/NNNNNN.json. */
long kp_llm_record_next_seq(const char *dir);
int kp_llm_record(struct kp_llm *llm, const struct kp_llm_job *job, struct kp_error *err);

#endif
