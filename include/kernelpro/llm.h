/* LLM backends behind one interface: openai, anthropic, exec and replay, with retries, usage and recording. */
#ifndef KERNELPRO_LLM_H
#define KERNELPRO_LLM_H

#include <signal.h>
#include <stddef.h>

#include "kernelpro/buf.h"
#include "kernelpro/error.h"
#include "kernelpro/strvec.h"

/*
 * Use:
 *   struct kp_llm_config cfg;
 *   kp_llm_config_init(&cfg);
 *   kp_llm_config_load(&cfg, &sources, &err);                 (or _parse_spec, _load_file)
 *   kp_llm_open(&llm, &cfg, &err);                           (checks the key, the price table)
 *   kp_llm_complete(llm, &req, &reply, &err);                 (or _complete_many: in parallel)
 *   kp_llm_reply_release(&reply); kp_llm_free(llm); kp_llm_config_release(&cfg);
 *
 * Keys: only read from the environment variable the config names (never from
 * a file or the command line); they never appear in logs, error messages,
 * recordings, or anything kp_llm writes. A missing key is KP_EAUTH naming the
 * variable; there is never a fallback to another provider.
 *
 * Limits: kp_llm counts every exchange's tokens and cost (kp_llm_totals(), each
 * reply's usage) but enforces no token or cost limit: the caller that owns the
 * budget does (a run's --tokens / --cost, lib/search). kp_llm_check_priced()
 * tells it whether a cost limit can be counted at all.
 *
 * Threads: a kp_llm may be used from several threads at once; each call
 * runs its own transfers and they share one connection pool and the totals.
 * Within one thread, kp_llm_complete_many() keeps up to `parallel`
 * requests in flight. The observer runs in the thread that made the call.
 */

/* The backends; lib/llm/backends.c holds their table (docs/internals/adding.md). */
enum kp_llm_provider {
	KP_LLM_NONE = 0,
	KP_LLM_OPENAI,    /* Chat Completions: OpenAI, vLLM, llama.cpp, Ollama, LiteLLM, OpenRouter */
	KP_LLM_ANTHROPIC, /* Messages API */
	KP_LLM_EXEC,      /* a command: prompt on stdin, reply on stdout */
	KP_LLM_REPLAY,    /* a directory of recorded replies */
};

/* "openai", "anthropic", "exec", "replay"; "none". */
const char *kp_llm_provider_name(enum kp_llm_provider p);

enum kp_llm_replay_mode {
	KP_LLM_REPLAY_ORDER = 0, /* the n-th request gets the n-th recorded reply */
	KP_LLM_REPLAY_HASH,      /* the reply recorded for the same prompt hash (in order among equal hashes) */
};

/* Prices in US dollars per million tokens. */
struct kp_llm_price {
	double input;
	double output;
};

/*
 * Everything that selects and tunes a backend. Strings are owned (allocated)
 * and freed by kp_llm_config_release(). Numbers < 0 (or NAN for
 * temperature) mean "not set": the provider's or kernelpro's default applies.
 */
struct kp_llm_config {
	enum kp_llm_provider provider;
	char *model;          /* required for openai and anthropic */
	char *base_url;       /* NULL: $OPENAI_BASE_URL / $ANTHROPIC_BASE_URL, else the public API */
	char *api_key_env;    /* NULL: OPENAI_API_KEY / ANTHROPIC_API_KEY. A variable NAME, never a key */
	int no_key;           /* openai: the server needs no key (local servers); send none */
	char *max_tokens_field; /* openai: NULL: "max_completion_tokens" on api.openai.com, else "max_tokens" */
	struct kp_strvec exec_argv;          /* exec: the program and its arguments (no shell) */
	char *replay_dir;                    /* replay: the directory to answer from */
	enum kp_llm_replay_mode replay_mode;
	long replay_skip;     /* replay in order: start after this many replies (a resumed run's used ones) */
	char *record_dir;     /* any provider: write every exchange here (NULL: don't) */
	char *anthropic_version; /* NULL: KP_LLM_ANTHROPIC_VERSION */

	double temperature;   /* NAN: provider default */
	long max_tokens;      /* reply tokens per request; <= 0: KP_LLM_DEFAULT_MAX_TOKENS */
	double timeout_s;     /* per attempt; <= 0: KP_LLM_DEFAULT_TIMEOUT_S */
	int retries;          /* extra attempts on 429/5xx/timeouts/cut replies; < 0: 4 */
	double backoff_s;     /* first backoff; doubled each retry, with jitter; < 0: 1.0 */
	double backoff_max_s; /* longest single wait, Retry-After included; < 0: 60 */
	int parallel;         /* requests in flight in complete_many; <= 0: 4 */

	struct kp_llm_price price; /* < 0: from the built-in table by model name */
};

#define KP_LLM_DEFAULT_MAX_TOKENS 8192
#define KP_LLM_DEFAULT_TIMEOUT_S 300.0
#define KP_LLM_ANTHROPIC_VERSION "2023-06-01"

void kp_llm_config_init(struct kp_llm_config *cfg);
void kp_llm_config_release(struct kp_llm_config *cfg);

/*
 * Where a configuration comes from; NULL: not given. kp_llm_config_load()
 * applies, in rising precedence: the config file, $KERNELPRO_LLM (only when
 * spec is NULL), spec; then fallback_spec when none of those chose a backend.
 */
struct kp_llm_sources {
	const char *file;          /* NULL: $KERNELPRO_LLM_CONFIG, else $XDG_CONFIG_HOME/kernelpro/llm.json
				      (~/.config/kernelpro/llm.json) when it exists */
	const char *spec;          /* "PROVIDER:MODEL" (the command line's --llm) */
	const char *fallback_spec; /* what a resumed run was started with (kp_llm_config_format_spec) */
};

/* Fills cfg (initialised by the caller) from the sources; options set after it override it. */
int kp_llm_config_load(struct kp_llm_config *cfg, const struct kp_llm_sources *src, struct kp_error *err);

/*
 * "PROVIDER:MODEL": "openai:gpt-4o", "anthropic:claude-sonnet-4-5",
 * "exec:PROGRAM ARG..." (split on spaces, no shell, no quoting),
 * "replay:DIR" (in order) or "replay-hash:DIR" (by prompt hash).
 * Fills provider and the provider's field; leaves the rest alone.
 */
int kp_llm_config_parse_spec(struct kp_llm_config *cfg, const char *spec, struct kp_error *err);

/*
 * Other tools' model names as PROVIDER:MODEL, into out (reset first): "gpt-4o", "o3-mini",
 * "chatgpt-*", "codex-*" -> openai:NAME; "claude-*" -> anthropic:NAME; "openai/NAME" and
 * "anthropic/NAME" (litellm) -> PROVIDER:NAME; a spec with its provider is copied. Any other
 * "vendor/name" or bare name is KP_EINVAL, with the spelling to use. kp_llm_config_parse_spec
 * applies it first. docs/llm.md, "Model names".
 */
int kp_llm_spec_resolve(const char *spec, struct kp_buf *out, struct kp_error *err);

/*
 * Appends the spec that selects cfg's backend again, as parse_spec reads it
 * (a replay directory made absolute; never a key). Nothing when none is chosen.
 */
void kp_llm_config_format_spec(const struct kp_llm_config *cfg, struct kp_buf *out);

/*
 * For a run that made `done` exchanges in earlier sessions. Returns 1 when the
 * backend answers requests by their order (replay in order): it then starts
 * after those `done` replies, and the caller must send requests one at a time.
 * Returns 0 (and changes nothing) for every other backend.
 */
int kp_llm_config_resume(struct kp_llm_config *cfg, long done);

/*
 * A JSON config file (docs/llm.md): {"llm": "openai:gpt-4o", "base_url": ...,
 * "api_key_env": ..., "temperature": ..., "price": {"input": .., "output": ..}, ...}. Values set in
 * the file replace those in cfg, so load the file first and apply command-line
 * options after. A file holding a key ("api_key") is refused.
 */
int kp_llm_config_load_file(struct kp_llm_config *cfg, const char *path, struct kp_error *err);

/* The price for `model` from the built-in table (longest matching prefix); 0 when unknown. */
int kp_llm_price_lookup(const char *model, struct kp_llm_price *out);

/* Lifecycle of a backend handle. */
struct kp_llm;

/*
 * Checks the configuration (key present, exec program found, replay
 * directory readable) and sets the backend up. The handle keeps its own copy
 * of cfg.
 */
int kp_llm_open(struct kp_llm **out, const struct kp_llm_config *cfg, struct kp_error *err);
void kp_llm_free(struct kp_llm *llm);

/*
 * 0 when the handle knows what its exchanges cost (a price for the model, or
 * a backend that costs nothing, as replay); else KP_EINVAL saying how to give
 * a price. For a caller that limits cost: without a price its cost stays 0.
 */
int kp_llm_check_priced(const struct kp_llm *llm, struct kp_error *err);

/* One conversation turn. */
enum kp_llm_role { KP_LLM_USER = 0, KP_LLM_ASSISTANT };

struct kp_llm_msg {
	enum kp_llm_role role;
	const char *content;
};

/* A request borrows its strings; nothing is kept after the call returns. */
struct kp_llm_request {
	const char *system;            /* may be NULL */
	const struct kp_llm_msg *msgs; /* at least one; the last is the user's */
	size_t nmsgs;
	const char *tag;               /* names the exchange in recordings ("node-12"); may be NULL */
};

/*
 * Token usage and cost of one exchange (or a sum of them). Counts a provider
 * reports are checked before they are counted, always in the direction that
 * keeps a token budget honest: a negative, missing or non-numeric count is
 * estimated from the text (~4 characters a token; `estimated` set), never
 * taken as 0; a count above KP_LLM_USAGE_MAX is clamped to it (which ends any
 * budget). Sums saturate at LONG_MAX instead of wrapping.
 */
#define KP_LLM_USAGE_MAX 100000000L /* tokens one exchange may count for (both directions) */

struct kp_llm_usage {
	long input_tokens;
	long output_tokens;
	double cost_usd;    /* 0 when the price is unknown (cost_known == 0) */
	int cost_known;
	int estimated;      /* tokens estimated from characters (exec, replay, no or absurd usage) */
	int attempts;       /* HTTP attempts or child runs, retries included */
	int requests;       /* exchanges summed here */
	double elapsed_s;   /* wall time, waits between retries included */
};

void kp_llm_usage_add(struct kp_llm_usage *sum, const struct kp_llm_usage *u);

struct kp_llm_reply {
	char *text;              /* the reply (allocated, NUL-terminated, never one inside); "" when empty */
	size_t len;
	char finish_reason[32];  /* the provider's word: "stop", "length", "end_turn", "max_tokens" ... */
	int truncated;           /* stopped by the token limit: the text is incomplete */
	char model[128];         /* as the provider reported it */
	char prompt_hash[65];    /* SHA-256 of system + messages (kp_llm_request_hash) */
	struct kp_llm_usage usage;
};

void kp_llm_reply_release(struct kp_llm_reply *r);

/*
 * Sends one request and waits for the reply (retries included). Errors:
 * KP_EAUTH (key refused), KP_ECANCELED (kp_llm_cancel() was called or the
 * cancel flag is set), KP_ETIMEOUT and KP_EHTTP (after the last retry),
 * KP_ELLM (the provider refused the request, or its reply was unreadable or
 * held a NUL byte), KP_ETOOBIG (the reply passed 16 MiB: never retried),
 * KP_ENOENT (replay: no reply recorded for it). Messages never contain a key.
 */
int kp_llm_complete(struct kp_llm *llm, const struct kp_llm_request *req, struct kp_llm_reply *out,
		    struct kp_error *err);

/*
 * Sends n requests with up to cfg.parallel in flight (curl multi for HTTP,
 * one child each for exec). replies[i] and errs[i] belong to reqs[i]; each
 * request succeeds or fails on its own. Returns 0 when every one succeeded,
 * else the code of the first failure (by index). errs may be NULL.
 */
int kp_llm_complete_many(struct kp_llm *llm, const struct kp_llm_request *reqs, size_t n,
			 struct kp_llm_reply *replies, struct kp_error *errs);

/*
 * Makes requests in flight give up soon (within ~0.2 s for HTTP, waits
 * between retries cut short; an exec child gets SIGTERM, then SIGKILL after
 * a second) and every later request fail at once, with KP_ECANCELED. Safe to
 * call from any thread.
 */
void kp_llm_cancel(struct kp_llm *llm);

/*
 * The same, driven by the caller's flag: once *flag is nonzero the handle
 * acts as if kp_llm_cancel() had been called. For a program whose SIGINT or
 * SIGTERM handler sets one flag for everything it runs, so the handler needs
 * no handle. NULL: none. Set it before requests start; the flag must outlive
 * the handle.
 */
void kp_llm_set_cancel_flag(struct kp_llm *llm, const volatile sig_atomic_t *flag);

/* Usage summed over every exchange the handle made. */
void kp_llm_totals(const struct kp_llm *llm, struct kp_llm_usage *out);

/* The configuration the handle uses (its own copy). */
const struct kp_llm_config *kp_llm_get_config(const struct kp_llm *llm);

/* The hex SHA-256 of the request's system text and messages (role and content), model excluded. */
void kp_llm_request_hash(const struct kp_llm_request *req, char hex[65]);

/*
 * Called once per finished exchange (success or failure), in the calling
 * thread, so a run can save every prompt and reply. `reply` is NULL on
 * failure, `err` NULL on success. Nothing in either holds a key.
 */
typedef void (*kp_llm_observer_fn)(void *ud, const struct kp_llm_request *req, const struct kp_llm_reply *reply,
				   const struct kp_error *err);
void kp_llm_set_observer(struct kp_llm *llm, kp_llm_observer_fn fn, void *ud);

#endif
