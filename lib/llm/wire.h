/*
 * The HTTP providers' wire formats (Chat Completions, Messages): what differs between the openai
 * and anthropic backends, which share one transport (http.c).
 */
#ifndef KP_LLM_WIRE_H
#define KP_LLM_WIRE_H

#include "kernelpro/json.h"
#include "kernelpro/llm.h"

struct kp_llm_wire {
	const char *key_env;      /* the key's variable unless the config names another */
	const char *url_env;      /* the base URL's variable */
	const char *default_base; /* the public API */
	const char *path;         /* appended to the base URL */
	const char *auth_prefix;  /* the header line carrying the key, up to the key */
	int key_optional;         /* "no_key": local servers that need none (openai) */
	/* Another header line every request carries (allocated), or NULL. May be NULL. */
	char *(*extra_header)(const struct kp_llm_config *cfg);
	/* The request body (allocated JSON) for cfg's model and settings, sent to url. */
	char *(*body)(const struct kp_llm_config *cfg, const char *url, const struct kp_llm_request *req);
	/* A successful reply's JSON object into out: text, finish reason, truncated, tokens. */
	int (*parse)(const json_t *root, struct kp_llm_reply *out, struct kp_error *err);
};

extern const struct kp_llm_wire kp_llm_wire_openai;
extern const struct kp_llm_wire kp_llm_wire_anthropic;

/*
 * Parses a successful reply body into out (text, finish reason, truncated,
 * model, tokens). KP_EPARSE when the body is not the provider's reply shape
 * (cut short, HTML from a proxy ...).
 */
int kp_llm_wire_parse_reply(const struct kp_llm_wire *w, const char *body, size_t len, struct kp_llm_reply *out,
			    struct kp_error *err);
/* The human message inside an error body ({"error": {"message": ...}}), into out (at most n bytes). */
void kp_llm_parse_error(const char *body, size_t len, char *out, size_t n);

#endif
