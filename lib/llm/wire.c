/* The providers' wire formats: Chat Completions and Messages request bodies, replies and error bodies. */
#include "base/setup.h"

#include <limits.h>
#include <math.h>

#include "kernelpro/json.h"
#include "kernelpro/str.h"
#include "kernelpro/buf.h"
#include "llm/core.h"
#include "llm/wire.h"

static long max_tokens(const struct kp_llm_config *cfg)
{
	return cfg->max_tokens > 0 ? cfg->max_tokens : KP_LLM_DEFAULT_MAX_TOKENS;
}

/*
 * Appends s as a JSON string literal. Prompts are large (tens of KB) and sent
 * on every request, so this runs in bulk rather than through jansson's
 * per-character encoder (which cost ~0.8 ms per 30 KB prompt). Stray bytes
 * that are not UTF-8 (compiler logs, model output) become U+FFFD, since a
 * JSON text must be UTF-8.
 */
static void json_quote(struct kp_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	const unsigned char *run = p;

	kp_buf_addch(b, '"');
	while (*p) {
		unsigned c = *p;
		size_t n = 1;
		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			p++;
			continue;
		}
		if (c >= 0x80) {
			size_t want = (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
			while (want && n < want && (p[n] & 0xC0) == 0x80)
				n++;
			/* Overlong forms and surrogates are rejected by strict decoders: replace them too. */
			if (want && n == want && !(c == 0xC0 || c == 0xC1) && !(c == 0xE0 && p[1] < 0xA0) &&
			    !(c == 0xED && p[1] >= 0xA0) && !(c == 0xF0 && p[1] < 0x90) && !(c >= 0xF5) &&
			    !(c == 0xF4 && p[1] >= 0x90)) {
				p += n;
				continue;
			}
			n = 1;
		}
		kp_buf_add(b, run, (size_t)(p - run));
		switch (c) {
		case '"':
			kp_buf_adds(b, "\\\"");
			break;
		case '\\':
			kp_buf_adds(b, "\\\\");
			break;
		case '\n':
			kp_buf_adds(b, "\\n");
			break;
		case '\r':
			kp_buf_adds(b, "\\r");
			break;
		case '\t':
			kp_buf_adds(b, "\\t");
			break;
		default:
			if (c >= 0x80)
				kp_buf_adds(b, "\xEF\xBF\xBD");
			else
				kp_buf_addf(b, "\\u%04x", c);
		}
		p += n;
		run = p;
	}
	kp_buf_add(b, run, (size_t)(p - run));
	kp_buf_addch(b, '"');
}

static const char *role_name(enum kp_llm_role r)
{
	return r == KP_LLM_ASSISTANT ? "assistant" : "user";
}

static void add_message(struct kp_buf *b, const char *role, const char *content, int first)
{
	kp_buf_adds(b, first ? "{\"role\":" : ",{\"role\":");
	json_quote(b, role);
	kp_buf_adds(b, ",\"content\":");
	json_quote(b, content);
	kp_buf_addch(b, '}');
}

static void add_messages(struct kp_buf *b, const struct kp_llm_request *req, int with_system)
{
	int first = 1;
	kp_buf_adds(b, "\"messages\":[");
	if (with_system && req->system && *req->system) {
		add_message(b, "system", req->system, 1);
		first = 0;
	}
	for (size_t i = 0; i < req->nmsgs; i++, first = 0)
		add_message(b, role_name(req->msgs[i].role), req->msgs[i].content, first);
	kp_buf_addch(b, ']');
}

/* "temperature" is sent only when set: reasoning models refuse it, and servers have their own defaults. */
static void add_common(struct kp_buf *b, const struct kp_llm_config *cfg, const char *max_field)
{
	kp_buf_addf(b, ",\"%s\":%ld", max_field, max_tokens(cfg));
	if (!isnan(cfg->temperature))
		kp_buf_addf(b, ",\"temperature\":%.6g", cfg->temperature);
}

static char *openai_body(const struct kp_llm_config *cfg, const char *url, const struct kp_llm_request *req)
{
	struct kp_buf b = KP_BUF_INIT;
	const char *field = cfg->max_tokens_field;
	if (!field)
		field = url && strstr(url, "://api.openai.com/") ? "max_completion_tokens" : "max_tokens";
	kp_buf_adds(&b, "{\"model\":");
	json_quote(&b, cfg->model);
	kp_buf_addch(&b, ',');
	add_messages(&b, req, 1);
	add_common(&b, cfg, field);
	kp_buf_adds(&b, ",\"stream\":false}");
	return kp_buf_detach(&b, NULL);
}

static char *anthropic_body(const struct kp_llm_config *cfg, const char *url, const struct kp_llm_request *req)
{
	struct kp_buf b = KP_BUF_INIT;
	kp_buf_adds(&b, "{\"model\":");
	json_quote(&b, cfg->model);
	if (req->system && *req->system) {
		kp_buf_adds(&b, ",\"system\":");
		json_quote(&b, req->system);
	}
	kp_buf_addch(&b, ',');
	add_messages(&b, req, 0);
	add_common(&b, cfg, "max_tokens");
	kp_buf_addch(&b, '}');
	return kp_buf_detach(&b, NULL);
}

/*
 * A token count as the provider reported it: -1 when missing, not a number, or negative (the core
 * estimates it then), else the value, LONG_MAX at most (the core clamps it; llm.h).
 */
static long tokens(const json_t *usage, const char *key)
{
	const json_t *v = json_is_object(usage) ? json_object_get(usage, key) : NULL;
	double d = json_is_number(v) ? json_number_value(v) : NAN;
	if (!(d >= 0))
		return -1;
	return d >= (double)LONG_MAX ? LONG_MAX : (long)d;
}

/* The text as received, NUL bytes included: kp_llm_check_text refuses such a reply with a clear message. */
static void set_text(struct kp_llm_reply *out, const char *s, size_t n)
{
	free(out->text);
	out->text = kp_xmemdupz(s, n);
	out->len = n;
}

static int parse_openai(const json_t *root, struct kp_llm_reply *out, struct kp_error *err)
{
	const json_t *choices = json_object_get(root, "choices");
	const json_t *c0 = json_array_get(choices, 0);
	const json_t *msg = json_object_get(c0, "message");
	const json_t *content = json_object_get(msg, "content");
	const json_t *usage = json_object_get(root, "usage");
	const char *finish;

	if (!json_is_object(msg))
		return kp_error_set(err, KP_EPARSE, "openai reply has no choices[0].message");
	if (json_is_string(content))
		set_text(out, json_string_value(content), json_string_length(content));
	else if (json_is_null(content) || !content)
		set_text(out, "", 0); /* a refusal or a tool call: no text */
	else
		return kp_error_set(err, KP_EPARSE, "openai reply: choices[0].message.content is not a string");
	finish = kp_json_str(c0, "finish_reason", "");
	kp_strlcpy(out->finish_reason, finish, sizeof(out->finish_reason));
	out->truncated = !strcmp(finish, "length");
	out->usage.input_tokens = tokens(usage, "prompt_tokens");
	out->usage.output_tokens = tokens(usage, "completion_tokens");
	return 0;
}

static int parse_anthropic(const json_t *root, struct kp_llm_reply *out, struct kp_error *err)
{
	const json_t *content = json_object_get(root, "content");
	const json_t *usage = json_object_get(root, "usage");
	const json_t *blk;
	struct kp_buf text = KP_BUF_INIT;
	const char *stop;
	size_t i;

	if (!json_is_array(content))
		return kp_error_set(err, KP_EPARSE, "anthropic reply has no 'content' list");
	/* Text blocks in order; thinking and tool-use blocks carry no answer text. */
	json_array_foreach(content, i, blk) {
		const json_t *t = json_object_get(blk, "text");
		if (!strcmp(kp_json_str(blk, "type", ""), "text") && json_is_string(t))
			kp_buf_add(&text, json_string_value(t), json_string_length(t));
	}
	set_text(out, text.buf, text.len);
	kp_buf_release(&text);
	stop = kp_json_str(root, "stop_reason", "");
	kp_strlcpy(out->finish_reason, stop, sizeof(out->finish_reason));
	out->truncated = !strcmp(stop, "max_tokens");
	out->usage.input_tokens = tokens(usage, "input_tokens");
	if (out->usage.input_tokens >= 0) {
		/* Prompt caching splits the input count; all of it was sent. */
		long *in = &out->usage.input_tokens;
		*in = kp_llm_add_tokens(*in, tokens(usage, "cache_read_input_tokens"));
		*in = kp_llm_add_tokens(*in, tokens(usage, "cache_creation_input_tokens"));
	}
	out->usage.output_tokens = tokens(usage, "output_tokens");
	return 0;
}

static char *anthropic_version(const struct kp_llm_config *cfg)
{
	return kp_xasprintf("anthropic-version: %s", cfg->anthropic_version ? cfg->anthropic_version
									  : KP_LLM_ANTHROPIC_VERSION);
}

const struct kp_llm_wire kp_llm_wire_openai = {
	.key_env = "OPENAI_API_KEY",
	.url_env = "OPENAI_BASE_URL",
	.default_base = "https://api.openai.com/v1",
	.path = "/chat/completions",
	.auth_prefix = "Authorization: Bearer ",
	.key_optional = 1,
	.body = openai_body,
	.parse = parse_openai,
};

const struct kp_llm_wire kp_llm_wire_anthropic = {
	.key_env = "ANTHROPIC_API_KEY",
	.url_env = "ANTHROPIC_BASE_URL",
	.default_base = "https://api.anthropic.com",
	.path = "/v1/messages",
	.auth_prefix = "x-api-key: ",
	.extra_header = anthropic_version,
	.body = anthropic_body,
	.parse = parse_anthropic,
};

int kp_llm_wire_parse_reply(const struct kp_llm_wire *w, const char *body, size_t len, struct kp_llm_reply *out,
			    struct kp_error *err)
{
	json_t *root = NULL;
	json_error_t je;
	int rc;

	/*
	 * NUL bytes (\u0000) are decoded, for kp_llm_check_text to refuse by name, rather than failing
	 * the parse as if the body were cut short (which would be retried). Integers decode as reals so
	 * an absurd token count is read and clamped, not a parse failure.
	 */
	root = json_loadb(body, len, JSON_ALLOW_NUL | JSON_DECODE_INT_AS_REAL, &je);
	if (!root)
		return kp_error_set(err, KP_EPARSE, "reply is not JSON (line %d, column %d: %s)%s", je.line,
				    je.column, je.text, len ? "" : ": empty body");
	if (!json_is_object(root)) {
		rc = kp_error_set(err, KP_EPARSE, "reply is JSON but not an object");
		goto out;
	}
	rc = w->parse(root, out, err);
	if (!rc)
		kp_strlcpy(out->model, kp_json_str(root, "model", ""), sizeof(out->model));
out:
	json_decref(root);
	return rc;
}

void kp_llm_parse_error(const char *body, size_t len, char *out, size_t n)
{
	json_t *root = json_loadb(body, len, 0, NULL);
	const json_t *e = json_object_get(root, "error");
	const char *msg = NULL;

	if (json_is_object(e))
		msg = kp_json_str(e, "message", NULL); /* both providers: {"error": {"message": ...}} */
	else if (json_is_string(e))
		msg = json_string_value(e);            /* Ollama, llama.cpp: {"error": "..."} */
	if (!msg)
		msg = kp_json_str(root, "message", NULL);
	if (msg) {
		snprintf(out, n, "%s", msg);
	} else {
		/* Not JSON (a proxy's HTML page): the first line, so the message stays one line. */
		size_t k = 0;
		while (k < len && k + 1 < n && body[k] != '\n' && body[k] != '\r')
			k++;
		snprintf(out, n, "%.*s", (int)k, body);
	}
	for (char *p = out; *p; p++)
		if (*p == '\n' || *p == '\r' || (unsigned char)*p < 0x20)
			*p = ' ';
	json_decref(root);
}
