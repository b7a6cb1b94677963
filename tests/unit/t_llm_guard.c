/*
 * Unit tests: what kp_llm refuses or corrects in what a provider sends back (the 16 MiB reply cap,
 * NUL bytes, absurd token counts, keys echoed in masked forms), against the loopback server, exec
 * and replay.
 */
#include "base/setup.h"

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "kp_llm_server.h"
#include "kp_test.h"
#include "kernelpro/fs.h"
#include "kernelpro/llm.h"
#include "kernelpro/str.h"
#include "llm/redact.h"

#define KEY "sk-test-9f8e7d6c5b4a3210SECRETKEY"

static struct kp_test_server srv;

static int setup(void **state)
{
	return kp_test_server_setup(&srv, KEY);
}

static int teardown(void **state)
{
	kp_test_server_stop(&srv);
	return 0;
}

/* The loopback config with quicker retries (three of them) and room for a 17 MiB reply. */
static void cfg_for(struct kp_llm_config *c, enum kp_llm_provider p, const char *scenario)
{
	kp_test_server_config(&srv, c, p, scenario);
	c->backoff_s = 0.01;
	c->backoff_max_s = 1;
	c->timeout_s = 20;
	c->retries = 3;
}

static struct kp_llm_msg hello_msg = {KP_LLM_USER, "Write a kernel that doubles a vector."};
static const struct kp_llm_request hello = {"You write CUDA.", &hello_msg, 1, "t"};

static int ask(struct kp_llm_config *c, struct kp_llm_reply *r, struct kp_error *err)
{
	return kp_test_llm_ask(c, &hello, r, err);
}

static void exec_cfg(struct kp_llm_config *c, const char *script)
{
	kp_llm_config_init(c);
	c->provider = KP_LLM_EXEC;
	kp_strvec_pushl(&c->exec_argv, "sh", "-c", script, NULL);
	c->retries = 2;
	c->backoff_s = 0.01;
}

/* Lines in a file (how many times an exec command ran). */
static int count_lines(const char *path)
{
	struct kp_buf b = KP_BUF_INIT;
	int n = 0;
	if (kp_read_file(path, 0, &b, NULL) == 0)
		for (size_t i = 0; i < b.len; i++)
			n += b.buf[i] == '\n';
	kp_buf_release(&b);
	return n;
}

/* A reply past the 16 MiB cap is final: never downloaded again (it would be as big the next time). */
static void test_reply_cap_is_final(void **state)
{
	struct kp_llm_config c;
	struct kp_llm_reply r;
	struct kp_error err = KP_ERROR_INIT;
	char *dir = kp_test_tmpdir();
	char *runs = kp_xasprintf("%s/runs", dir);
	char *script;

	cfg_for(&c, KP_LLM_OPENAI, "s=big,id=cap1");
	assert_int_equal(ask(&c, &r, &err), KP_ETOOBIG);
	assert_non_null(strstr(err.msg, "16 MiB"));
	assert_int_equal(kp_test_server_count(&srv, "id=cap1/"), 1);

	kp_error_clear(&err);
	script = kp_xasprintf("cat >/dev/null; echo run >>'%s'; head -c 17000000 /dev/zero | tr '\\000' x",
			      runs);
	exec_cfg(&c, script);
	assert_int_equal(ask(&c, &r, &err), KP_ETOOBIG);
	assert_non_null(strstr(err.msg, "16 MiB"));
	assert_int_equal(count_lines(runs), 1);
	free(script);
	free(runs);
	kp_test_tmpdir_remove(dir);
}

/* Replaying the one reply in dir is refused for its NUL byte. */
static void assert_replay_refused(const char *dir)
{
	struct kp_llm_config c;
	struct kp_llm_reply r;
	struct kp_error err = KP_ERROR_INIT;
	kp_llm_config_init(&c);
	c.provider = KP_LLM_REPLAY;
	c.replay_dir = kp_xstrdup(dir);
	assert_int_equal(ask(&c, &r, &err), KP_ELLM);
	assert_non_null(strstr(err.msg, "NUL byte"));
}

/* A NUL byte inside a reply is refused with a message saying so, not cut off there or retried as noise. */
static void test_nul_in_reply(void **state)
{
	struct kp_llm_config c;
	struct kp_llm_reply r;
	struct kp_error err = KP_ERROR_INIT;
	char *dir = kp_test_tmpdir();
	char *p;

	cfg_for(&c, KP_LLM_OPENAI, "s=nul,id=nul1");
	assert_int_equal(ask(&c, &r, &err), KP_ELLM);
	assert_non_null(strstr(err.msg, "NUL byte"));
	assert_int_equal(kp_test_server_count(&srv, "id=nul1/"), 1);

	kp_error_clear(&err);
	cfg_for(&c, KP_LLM_ANTHROPIC, "s=nul,id=nul2");
	assert_int_equal(ask(&c, &r, &err), KP_ELLM);
	assert_non_null(strstr(err.msg, "NUL byte"));

	kp_error_clear(&err);
	exec_cfg(&c, "cat >/dev/null; printf '```cuda\\n__glo\\000bal__ void k() {}\\n```\\n'");
	assert_int_equal(ask(&c, &r, &err), KP_ELLM);
	assert_non_null(strstr(err.msg, "NUL byte"));
	assert_non_null(strstr(err.msg, "offset 13"));

	/* A recording holding one (\u0000 in its JSON), and a plain-text reply file holding one. */
	kp_error_clear(&err);
	p = kp_xasprintf("%s/000001.json", dir);
	{
		const char *rec = "{\"reply\": {\"text\": \"ab\\u0000cd\"}}";
		KP_ASSERT_OK(kp_write_file_atomic(p, rec, strlen(rec), &err), &err);
	}
	assert_replay_refused(dir);
	unlink(p);
	free(p);
	kp_error_clear(&err);
	p = kp_xasprintf("%s/01-reply.md", dir);
	KP_ASSERT_OK(kp_write_file_atomic(p, "ab\0cd", 5, &err), &err);
	assert_replay_refused(dir);
	free(p);
	kp_test_tmpdir_remove(dir);
}

/*
 * Token counts from the provider are checked: a negative, missing or non-numeric count is
 * estimated from the text (never 0, which would let a token budget be bypassed), a huge one is
 * clamped to the ceiling (which ends any budget), never wrapped or dropped.
 */
static void test_absurd_usage(void **state)
{
	static const char *const low[] = {"usage=neg", "usage=junk", "usage=none"};
	struct kp_llm_config c;
	struct kp_llm_reply r;
	struct kp_error err = KP_ERROR_INIT;

	for (size_t i = 0; i < KP_ARRAY_SIZE(low); i++) {
		for (int p = KP_LLM_OPENAI; p <= KP_LLM_ANTHROPIC; p++) {
			char sc[64];
			snprintf(sc, sizeof(sc), "s=ok,%s,id=u%zu%d", low[i], i, p);
			cfg_for(&c, (enum kp_llm_provider)p, sc);
			c.price.input = c.price.output = 1;
			KP_ASSERT_OK(ask(&c, &r, &err), &err);
			assert_true(r.usage.input_tokens > 0);
			assert_true(r.usage.output_tokens > 0);
			assert_true(r.usage.estimated);
			assert_true(r.usage.cost_known && r.usage.cost_usd > 0);
			kp_llm_reply_release(&r);
		}
	}
	for (int k = 0; k < 2; k++) {
		cfg_for(&c, KP_LLM_OPENAI, k ? "s=ok,usage=hugef,id=uh2" : "s=ok,usage=huge,id=uh1");
		KP_ASSERT_OK(ask(&c, &r, &err), &err);
		assert_int_equal(r.usage.input_tokens, KP_LLM_USAGE_MAX);
		assert_int_equal(r.usage.output_tokens, KP_LLM_USAGE_MAX);
		assert_int_equal(kp_test_server_count(&srv, k ? "id=uh2/" : "id=uh1/"), 1);
		kp_llm_reply_release(&r);
	}
}

/* The usage sum of many exchanges never wraps, whatever a provider claims. */
static void test_usage_sum_saturates(void **state)
{
	struct kp_llm_usage sum = {0};
	struct kp_llm_usage u = {.input_tokens = LONG_MAX, .output_tokens = LONG_MAX, .requests = 1};
	kp_llm_usage_add(&sum, &u);
	kp_llm_usage_add(&sum, &u);
	assert_true(sum.input_tokens > 0);
	assert_true(sum.output_tokens > 0);
}

/* A wrong key echoed back masked, in each shape servers use: no visible piece of it may survive. */
static void test_masked_key_echo(void **state)
{
	static const char *const shapes[] = {"stars", "dots", "ellipsis", "tail"};
	const char *wrong = "sk-TESwrong-0123456789abcdef-fXYZ";

	setenv("OPENAI_API_KEY", wrong, 1);
	for (size_t i = 0; i < KP_ARRAY_SIZE(shapes); i++) {
		struct kp_llm_config c;
		struct kp_llm_reply r;
		struct kp_error err = KP_ERROR_INIT;
		char sc[64];
		snprintf(sc, sizeof(sc), "s=ok,mask=%s,id=m%zu", shapes[i], i);
		cfg_for(&c, KP_LLM_OPENAI, sc);
		assert_int_equal(ask(&c, &r, &err), KP_EAUTH);
		assert_non_null(strstr(err.msg, "Incorrect API key provided"));
		if (strstr(err.msg, "sk-TES") || strstr(err.msg, "fXYZ"))
			fail_msg("mask=%s: a piece of the key survived: %s", shapes[i], err.msg);
		assert_non_null(strstr(err.msg, "[redacted]"));
	}
	setenv("OPENAI_API_KEY", KEY, 1);
}

struct canceler {
	volatile sig_atomic_t *flag;
	double after_s;
};

static void *set_flag_later(void *ud)
{
	struct canceler *k = ud;
	usleep((useconds_t)(k->after_s * 1e6));
	*k->flag = 1;
	return NULL;
}

/* Sends `hello` on llm while another thread sets *flag after `after_s`; returns the rc. */
static int ask_until_flag(struct kp_llm *llm, volatile sig_atomic_t *flag, double after_s,
			  struct kp_error *err)
{
	struct canceler k = {flag, after_s};
	struct kp_llm_reply r;
	pthread_t t;
	int rc;
	*flag = 0;
	assert_int_equal(pthread_create(&t, NULL, set_flag_later, &k), 0);
	rc = kp_llm_complete(llm, &hello, &r, err);
	pthread_join(t, NULL);
	if (!rc)
		kp_llm_reply_release(&r);
	return rc;
}

/*
 * The caller's cancel flag (what a Ctrl-C handler sets) ends a request in flight, a wait between
 * retries and an exec child, with KP_ECANCELED and no further attempt; later requests fail at once.
 */
static void test_cancel_flag(void **state)
{
	static volatile sig_atomic_t flag;
	struct kp_llm_config c;
	struct kp_llm *llm = NULL;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_llm_reply r;
	char *dir = kp_test_tmpdir();
	char *runs = kp_xasprintf("%s/runs", dir), *script;

	/* In flight: the server would answer after 60 s. */
	cfg_for(&c, KP_LLM_OPENAI, "s=slow,ms=60000,id=cf1");
	KP_ASSERT_OK(kp_llm_open(&llm, &c, &err), &err);
	kp_llm_set_cancel_flag(llm, &flag);
	assert_int_equal(ask_until_flag(llm, &flag, 0.3, &err), KP_ECANCELED);
	assert_int_equal(kp_test_server_count(&srv, "id=cf1/"), 1);
	kp_error_clear(&err);
	assert_int_equal(kp_llm_complete(llm, &hello, &r, &err), KP_ECANCELED);
	kp_llm_free(llm);
	kp_llm_config_release(&c);

	/* Between retries: the 500 is retried after a 30 s wait, which the flag cuts short. */
	kp_error_clear(&err);
	cfg_for(&c, KP_LLM_OPENAI, "s=e500,id=cf2");
	c.backoff_s = 30;
	c.backoff_max_s = 60;
	KP_ASSERT_OK(kp_llm_open(&llm, &c, &err), &err);
	kp_llm_set_cancel_flag(llm, &flag);
	assert_int_equal(ask_until_flag(llm, &flag, 0.5, &err), KP_ECANCELED);
	assert_int_equal(kp_test_server_count(&srv, "id=cf2/"), 1);
	kp_llm_free(llm);
	kp_llm_config_release(&c);

	/* An exec child that ignores SIGTERM is killed, and not run again. */
	kp_error_clear(&err);
	script = kp_xasprintf("echo run >>'%s'; trap '' TERM; sleep 60", runs);
	exec_cfg(&c, script);
	c.timeout_s = 120;
	KP_ASSERT_OK(kp_llm_open(&llm, &c, &err), &err);
	kp_llm_set_cancel_flag(llm, &flag);
	assert_int_equal(ask_until_flag(llm, &flag, 0.5, &err), KP_ECANCELED);
	assert_int_equal(count_lines(runs), 1);
	kp_llm_free(llm);
	kp_llm_config_release(&c);
	free(script);
	free(runs);
	kp_test_tmpdir_remove(dir);
}

/* The exec model is the user's own command, acting for the user: the whole environment, keys included. */
static void test_exec_environment(void **state)
{
	struct kp_llm_config c;
	struct kp_llm_reply r;
	struct kp_error err = KP_ERROR_INIT;
	setenv("KP_TEST_SERVICE_TOKEN", "t0ken", 1);
	exec_cfg(&c, "cat >/dev/null; echo \"${OPENAI_API_KEY:+key} ${KP_TEST_SERVICE_TOKEN:-none}\"");
	KP_ASSERT_OK(ask(&c, &r, &err), &err);
	assert_string_equal(r.text, "key t0ken\n");
	kp_llm_reply_release(&r);
	unsetenv("KP_TEST_SERVICE_TOKEN");
}

/* The scrubber on its own: each masked shape of a known key goes, ordinary text stays. */
static void test_redact_shapes(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{"key sk-TESTabcdef0123456789fXYZ here", "key [redacted] here"},
		{"provided: sk-TES...fXYZ. You can", "provided: [redacted]. You can"},
		{"provided: sk-TES\xe2\x80\xa6" "fXYZ.", "provided: [redacted]."},
		{"provided: sk-TES**********fXYZ.", "provided: [redacted]."},
		{"provided: sk-TES\xe2\x80\xa2\xe2\x80\xa2\xe2\x80\xa2" "fXYZ!", "provided: [redacted]!"},
		{"key ending ****fXYZ, retry", "key ending [redacted], retry"},
		{"key ...789fXYZ", "key [redacted]"},
		{"key sk-TES...", "key [redacted]"},
		{"another sk-other...wxyz", "another [redacted]"},
		{"sk-proj-abc*****wxyz", "[redacted]"},
		/* Ordinary text: not a key, not a mask. */
		{"we use sk-learn. Then wait...done.", "we use sk-learn. Then wait...done."},
		{"version 1.2.3 of fXYZ...", "version 1.2.3 of fXYZ..."},
		{"tasks...TES", "tasks...TES"},
	};
	struct kp_redactor r;
	kp_redactor_init(&r);
	kp_redactor_add(&r, "sk-TESTabcdef0123456789fXYZ");
	for (size_t i = 0; i < KP_ARRAY_SIZE(cases); i++) {
		struct kp_buf b = KP_BUF_INIT;
		kp_buf_adds(&b, cases[i].in);
		kp_redact_buf(&r, &b, 1);
		if (strcmp(b.buf, cases[i].out))
			fail_msg("'%s' became '%s', expected '%s'", cases[i].in, b.buf, cases[i].out);
		kp_buf_release(&b);
	}
	kp_redactor_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reply_cap_is_final),
		cmocka_unit_test(test_nul_in_reply),
		cmocka_unit_test(test_absurd_usage),
		cmocka_unit_test(test_usage_sum_saturates),
		cmocka_unit_test(test_masked_key_echo),
		cmocka_unit_test(test_redact_shapes),
		cmocka_unit_test(test_cancel_flag),
		cmocka_unit_test(test_exec_environment),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
