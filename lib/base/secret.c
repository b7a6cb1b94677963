/* kp_secret: the environment's secrets held in memory of our own, and the scrub of every output. */
#include "base/setup.h"

#include <pthread.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "kernelpro/secret.h"

extern char **environ;

#define REDACTED       "[redacted]"
#define MAX_HELD       32
#define MAX_SECRETS    32
#define MIN_SECRET     8
#define MIN_HELD_SCRUB 16 /* held values shorter than this are flags and paths more often than keys */

static const char *const secret_words[] = {"KEY",    "TOKEN",      "SECRET", "PASSWORD",
                                           "PASSWD", "CREDENTIAL", "AUTH",   "JWT"};

static char *held[MAX_HELD + 1]; /* "NAME=value", heap; written once before threads, then read only */
static size_t n_held;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char *secrets[MAX_SECRETS];
static size_t n_secrets;

int kp_secret_name(const char *name, size_t n)
{
	for (size_t w = 0; w < KP_ARRAY_SIZE(secret_words); w++) {
		size_t k = strlen(secret_words[w]);
		for (size_t i = 0; i + k <= n; i++)
			if (!strncasecmp(name + i, secret_words[w], k))
				return 1;
	}
	return 0;
}

void kp_secret_add(const char *value)
{
	if (!value || strlen(value) < MIN_SECRET)
		return;
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < n_secrets; i++)
		if (!strcmp(secrets[i], value))
			goto out;
	if (n_secrets < MAX_SECRETS)
		secrets[n_secrets++] = kp_xstrdup(value);
out:
	pthread_mutex_unlock(&lock);
}

void kp_secret_hold_env(void)
{
	size_t i = 0;
	while (environ && environ[i] && n_held < MAX_HELD) {
		char *e = environ[i], *eq = strchr(e, '=');
		char name[256];
		size_t n = eq ? (size_t)(eq - e) : 0;
		if (!eq || n == 0 || n >= sizeof(name) || !kp_secret_name(e, n)) {
			i++;
			continue;
		}
		held[n_held++] = kp_xstrdup(e);
		if (strlen(eq + 1) >= MIN_HELD_SCRUB)
			kp_secret_add(eq + 1);
		/* The kernel's copy, at the top of the stack, is what /proc/PID/environ reads. */
		memset(eq + 1, 0, strlen(eq + 1));
		memcpy(name, e, n);
		name[n] = '\0';
		unsetenv(name); /* environ[i] now holds the next entry: do not advance */
	}
#if defined(__linux__) && !defined(__SANITIZE_ADDRESS__)
	/*
	 * Not dumpable while a secret is held: /proc/PID/mem, and our heap with it, is then closed to
	 * other processes of the same user (root without CAP_SYS_PTRACE included). Children are dumpable
	 * again after their exec. (Not in the sanitizer build: LeakSanitizer's exit check ptraces the
	 * process, which a non-dumpable one refuses without CAP_SYS_PTRACE.)
	 */
	if (n_held)
		prctl(PR_SET_DUMPABLE, 0);
#endif
}

const char *kp_secret_getenv(const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < n_held; i++)
		if (!strncmp(held[i], name, n) && held[i][n] == '=')
			return held[i] + n + 1;
	return getenv(name);
}

const char *const *kp_secret_held(void)
{
	return (const char *const *)held;
}

/* Where the earliest registered secret starts at or after p, and which (NULL: none). */
static const char *next_secret(const char *p, const char *end, size_t *which)
{
	const char *best = NULL;
	for (size_t i = 0; i < n_secrets; i++) {
		size_t k = strlen(secrets[i]);
		const char *hit = (size_t)(end - p) >= k ? memmem(p, (size_t)(end - p), secrets[i], k) : NULL;
		if (hit && (!best || hit < best || (hit == best && k > strlen(secrets[*which])))) {
			best = hit;
			*which = i;
		}
	}
	return best;
}

char *kp_secret_scrub(const void *data, size_t len, size_t *out_len)
{
	const char *p = data, *end = p + len, *hit;
	struct kp_buf b = KP_BUF_INIT;
	size_t which = 0;
	pthread_mutex_lock(&lock);
	if (!n_secrets || !len || !(hit = next_secret(p, end, &which))) {
		pthread_mutex_unlock(&lock);
		return NULL;
	}
	do {
		kp_buf_add(&b, p, (size_t)(hit - p));
		kp_buf_adds(&b, REDACTED);
		p = hit + strlen(secrets[which]);
	} while ((hit = next_secret(p, end, &which)));
	pthread_mutex_unlock(&lock);
	kp_buf_add(&b, p, (size_t)(end - p));
	return kp_buf_detach(&b, out_len);
}

int kp_secret_scrub_buf(struct kp_buf *b)
{
	size_t len;
	char *s = kp_secret_scrub(b->buf, b->len, &len);
	if (!s)
		return 0;
	kp_buf_reset(b);
	if (kp_buf_add(b, s, len))
		kp_buf_reset(b); /* past the buffer's cap: nothing rather than a key */
	free(s);
	return 1;
}
