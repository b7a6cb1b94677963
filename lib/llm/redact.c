/* Scrubs API keys out of every text kp_llm may log, return in an error, or write to disk. */
#include "base/setup.h"

#include <ctype.h>

#include "kernelpro/secret.h"
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
	kp_secret_add(secret); /* every writer's scrub (kp_secret_scrub) knows it too */
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->secret[i], secret))
			return;
	r->secret[r->n++] = kp_xstrdup(secret);
}

void kp_redactor_add_env(struct kp_redactor *r, const char *name)
{
	kp_redactor_add(r, kp_secret_getenv(name));
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

/* A shown piece of a masked key: "sk-TES" in "sk-TES...fXYZ" is 6; fewer reveal nothing worth hiding. */
#define MIN_PIECE 3

static int key_char(int c)
{
	return isalnum(c) || c == '-' || c == '_';
}

/*
 * The length of a masking run at s[i] (0: none): asterisks, bullets (U+2022), an ellipsis (U+2026)
 * or two or more dots. One '.' is a sentence's end, not a mask.
 */
static size_t mask_at(const char *s, size_t len, size_t i)
{
	size_t j = i, dots = 0;
	for (;;) {
		if (j < len && s[j] == '*') {
			j++;
		} else if (j < len && s[j] == '.') {
			j++;
			dots++;
		} else if (j + 2 < len && (unsigned char)s[j] == 0xE2 && (unsigned char)s[j + 1] == 0x80 &&
			   ((unsigned char)s[j + 2] == 0xA6 || (unsigned char)s[j + 2] == 0xA2)) {
			j += 3;
		} else {
			break;
		}
	}
	return j - i == 1 && dots == 1 ? 0 : j - i;
}

static size_t word_at(const char *s, size_t len, size_t i)
{
	size_t j = i;
	while (j < len && key_char((unsigned char)s[j]))
		j++;
	return j - i;
}

/*
 * Providers and proxies echo keys in error replies masked: "sk-proj-abc*****wxyz", "sk-TES...fXYZ",
 * "sk-TES…fXYZ", "****fXYZ". The shown parts are still pieces of the key. At s[i], a masked form
 * of `secret`: its first p characters, a mask, its last q characters, with p or q at least
 * MIN_PIECE. Returns the length to scrub, 0 when there is none.
 */
static size_t masked_secret_at(const char *s, size_t len, size_t i, const char *secret)
{
	size_t n = strlen(secret), p = 0, m, q;
	while (i + p < len && p < n && s[i + p] == secret[p])
		p++;
	if (p == n || (p > 0 && p < MIN_PIECE) || (p > 0 && i > 0 && key_char((unsigned char)s[i - 1])))
		return 0; /* the whole key (matched elsewhere), too little of it, or not at a word's start */
	m = mask_at(s, len, i + p);
	if (!m)
		return 0;
	q = word_at(s, len, i + p + m);
	if (!(q > 0 && q < n && !memcmp(s + i + p + m, secret + n - q, q)))
		q = 0; /* what follows the mask is not the key's end: leave it */
	return p >= MIN_PIECE || q >= MIN_PIECE ? p + m + q : 0;
}

/*
 * Any word starting "sk-" (OpenAI, Anthropic, OpenRouter keys all do) is scrubbed whole, masks and
 * all, when it is long enough to be a key or carries a mask: the key in use is not always the one
 * echoed.
 */
static size_t keyish_at(const char *s, size_t len, size_t i)
{
	size_t n = 3, masked = 0;
	if ((i > 0 && key_char((unsigned char)s[i - 1])) || len - i < 3 || strncmp(s + i, "sk-", 3))
		return 0;
	for (;;) {
		size_t w = word_at(s, len, i + n), m;
		n += w;
		m = mask_at(s, len, i + n);
		if (!m)
			break;
		n += m;
		masked = 1;
	}
	return n >= MIN_KEYISH || masked ? n : 0;
}

void kp_redact_buf(const struct kp_redactor *r, struct kp_buf *b, int keyish)
{
	struct kp_buf out = KP_BUF_INIT;
	size_t i = 0;
	int changed = 0;

	while (i < b->len) {
		size_t hit = 0;
		for (size_t k = 0; r && k < r->n && !hit; k++) {
			size_t n = strlen(r->secret[k]);
			if (n <= b->len - i && !memcmp(b->buf + i, r->secret[k], n))
				hit = n;
			else
				hit = masked_secret_at(b->buf, b->len, i, r->secret[k]);
		}
		if (!hit && keyish)
			hit = keyish_at(b->buf, b->len, i);
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
