/* The providers' wire formats: Chat Completions and Messages request bodies, replies and error bodies. */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/json.h"
#include "kernelpro/str.h"
#include "llm/llm_int.h"

static long max_tokens(const struct kp_llm_config *cfg)
{
	return cfg->max_tokens > 0 ? cfg->max_tokens : KP_LLM_DEFAULT_MAX_TOKENS;
}

static json_t *message(const char *role, const char *content)
{
	json_t *m = json_object();
	kp_json_set(m, "role", json_string(role));
	kp_json_set(m, "content", json_string(content ? content : ""));
	return m;
}

static char *dump(json_t *body)
{
	char *s = json_dumps(body, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(body);
	if (!s)
		KP_BUG("llm: request body does not serialise (invalid UTF-8 is replaced before this)");
	return s;
}

static const char *role_name(enum kp_llm_role r)
{
	return r == KP_LLM_ASSISTANT ? "assistant" : "user";
}

/*
 * jansson refuses strings that are not UTF-8; prompts carry compiler logs
 * and model output, which may hold stray bytes. Those become U+FFFD.
 */
static json_t *utf8_string(const char *s)
{
	json_t *v = json_string(s ? s : "");
	struct kp_buf b = KP_BUF_INIT;
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	if (v)
		return v;
	while (*p) {
		size_t n = *p < 0x80 ? 1 : (*p >> 5) == 6 ? 2 : (*p >> 4) == 14 ? 3 : (*p >> 3) == 30 ? 4 : 0;
		size_t k = 1;
		while (n > 1 && k < n && (p[k] & 0xC0) == 0x80)
			k++;
		if (n && k == n) {
			kp_buf_add(&b, p, n);
			p += n;
		} else {
			kp_buf_adds(&b, "\xEF\xBF\xBD");
			p++;
		}
	}
	v = json_stringn(b.buf, b.len);
	kp_buf_release(&b);
	return v ? v : json_string("");
}

static json_t *messages(const struct kp_llm_request *req, const char *system_role)
{
	json_t *a = json_array();
	if (system_role && req->system && *req->system) {
		json_t *m = message(system_role, "");
		kp_json_set(m, "content", utf8_string(req->system));
		json_array_append_new(a, m);
	}
	for (size_t i = 0; i < req->nmsgs; i++) {
		json_t *m = message(role_name(req->msgs[i].role), "");
		kp_json_set(m, "content", utf8_string(req->msgs[i].content));
		json_array_append_new(a, m);
	}
	return a;
}

char *kp_llm_openai_body(const struct kp_llm *llm, const struct kp_llm_request *req)
{
	const struct kp_llm_config *cfg = &llm->cfg;
	json_t *body = json_object();
	const char *field = cfg->max_tokens_field;
	if (!field)
		field = llm->url && strstr(llm->url, "://api.openai.com/") ? "max_completion_tokens" : "max_tokens";
	kp_json_set(body, "model", json_string(cfg->model));
	kp_json_set(body, "messages", messages(req, "system"));
	kp_json_set(body, field, json_integer(max_tokens(cfg)));
	if (!isnan(cfg->temperature))
		kp_json_set(body, "temperature", json_real(cfg->temperature));
	kp_json_set(body, "stream", json_false());
	return dump(body);
}

char *kp_llm_anthropic_body(const struct kp_llm *llm, const struct kp_llm_request *req)
{
	const struct kp_llm_config *cfg = &llm->cfg;
	json_t *body = json_object();
	kp_json_set(body, "model", json_string(cfg->model));
	if (req->system && *req->system)
		kp_json_set(body, "system", utf8_string(req->system));
	kp_json_set(body, "messages", messages(req, NULL));
	kp_json_set(body, "max_tokens", json_integer(max_tokens(cfg)));
	if (!isnan(cfg->temperature))
		kp_json_set(body, "temperature", json_real(cfg->temperature));
	return dump(body);
}

static long tokens(const json_t *usage, const char *key)
{
	long long v = kp_json_int(usage, key, -1);
	return v < 0 || v > 1000000000000LL ? -1 : (long)v;
}

static void set_text(struct kp_llm_reply *out, const char *s, size_t n)
{
	free(out->text);
	out->text = kp_xstrndup(s, n);
	out->len = strlen(out->text); /* a NUL inside the reply ends it: the rest is not text */
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
		long c = tokens(usage, "cache_read_input_tokens"), w = tokens(usage, "cache_creation_input_tokens");
		out->usage.input_tokens += (c > 0 ? c : 0) + (w > 0 ? w : 0);
	}
	out->usage.output_tokens = tokens(usage, "output_tokens");
	return 0;
}

int kp_llm_parse_reply(enum kp_llm_provider provider, const char *body, size_t len, struct kp_llm_reply *out,
		       struct kp_error *err)
{
	json_t *root = NULL;
	json_error_t je;
	int rc;

	root = json_loadb(body, len, 0, &je);
	if (!root)
		return kp_error_set(err, KP_EPARSE, "reply is not JSON (line %d, column %d: %s)%s", je.line,
				    je.column, je.text, len ? "" : ": empty body");
	if (!json_is_object(root)) {
		rc = kp_error_set(err, KP_EPARSE, "reply is JSON but not an object");
		goto out;
	}
	if (provider == KP_LLM_ANTHROPIC)
		rc = parse_anthropic(root, out, err);
	else
		rc = parse_openai(root, out, err);
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
