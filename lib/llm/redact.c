/* Scrubs API keys out of every text kp_llm may log, return in an error, or write to disk. */
#include "base/setup.h"

#include <ctype.h>

#include "llm/redact.h"

#define REDACTED "[redacted]"
/* Shorter values are not keys (and replacing them would mangle ordinary text). */
#define MIN_SECRET 8
/* "sk-" words shorter than this are ordinary text ("sk-learn"), not keys or their masked echoes. */
#define MIN_KEYISH 12

void kp_redactor_init(struct kp_redactor *r)
{
	memset(r, 0, sizeof(*r));
}

void kp_redactor_add(struct kp_redactor *r, const char *secret)
{
	if (!secret || strlen(secret) < MIN_SECRET || r->n >= KP_LLM_MAX_SECRETS)
		return;
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->secret[i], secret))
			return;
	r->secret[r->n++] = kp_xstrdup(secret);
}

void kp_redactor_add_env(struct kp_redactor *r, const char *name)
{
	kp_redactor_add(r, getenv(name));
}

void kp_redactor_release(struct kp_redactor *r)
{
	for (size_t i = 0; i < r->n; i++) {
		/* Don't leave the key lying in freed heap memory either. */
		memset(r->secret[i], 0, strlen(r->secret[i]));
		free(r->secret[i]);
	}
	r->n = 0;
}

static int key_char(int c)
{
	return isalnum(c) || c == '-' || c == '_' || c == '*';
}

/*
 * Providers echo keys in their error replies, often masked
 * ("Incorrect API key provided: sk-proj-abc*****wxyz"): the visible parts are
 * still pieces of the key. Any word starting "sk-" (OpenAI, Anthropic,
 * OpenRouter keys all do) is scrubbed whole.
 */
static int keyish_at(const char *s, size_t i)
{
	return (i == 0 || !key_char((unsigned char)s[i - 1])) && !strncmp(s + i, "sk-", 3);
}

void kp_redact_buf(const struct kp_redactor *r, struct kp_buf *b, int keyish)
{
	struct kp_buf out = KP_BUF_INIT;
	size_t i = 0;
	int changed = 0;

	while (i < b->len) {
		size_t hit = 0;
		for (size_t k = 0; r && k < r->n; k++) {
			size_t n = strlen(r->secret[k]);
			if (n <= b->len - i && !memcmp(b->buf + i, r->secret[k], n)) {
				hit = n;
				break;
			}
		}
		if (!hit && keyish && keyish_at(b->buf, i)) {
			size_t n = 3;
			while (i + n < b->len && key_char((unsigned char)b->buf[i + n]))
				n++;
			if (n >= MIN_KEYISH)
				hit = n;
		}
		if (hit) {
			kp_buf_adds(&out, REDACTED);
			i += hit;
			changed = 1;
		} else {
			kp_buf_addch(&out, b->buf[i++]);
		}
	}
	if (changed) {
		size_t cap = b->cap;
		kp_buf_release(b);
		*b = out;
		b->cap = cap && cap < out.len ? out.len : cap;
		return;
	}
	kp_buf_release(&out);
}

void kp_redact_str(const struct kp_redactor *r, char *s, size_t size)
{
	struct kp_buf b = KP_BUF_INIT;
	kp_buf_adds(&b, s);
	kp_redact_buf(r, &b, 1);
	snprintf(s, size, "%s", b.buf);
	kp_buf_release(&b);
}
