/* Unit tests: the HTTP LLM backends against the loopback server (both wire formats and their failures,
 * threads, cancel, cost), recording and replaying what they said. Config and the backends that need no
 * server: t_llm_local.c. */
#include "base/setup.h"

#include <math.h>
#include <pthread.h>
#include <unistd.h>

#include "kp_llm_server.h"
#include "kp_test.h"
#include "kernelpro/child.h"
#include "kernelpro/fs.h"
#include "kernelpro/llm.h"
#include "kernelpro/log.h"
#include "kernelpro/str.h"

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

static void cfg_for(struct kp_llm_config *c, enum kp_llm_provider p, const char *scenario)
{
	kp_test_server_config(&srv, c, p, scenario);
}

static struct kp_llm_msg hello_msg = {KP_LLM_USER, "Write a kernel that doubles a vector."};
static const struct kp_llm_request hello = {"You write CUDA.", &hello_msg, 1, "t"};

static int ask(struct kp_llm_config *c, struct kp_llm_reply *r, struct kp_error *err)
{
	return kp_test_llm_ask(c, &hello, r, err);
}

static void write_text(const char *path, const char *s)
{
	struct kp_error err = KP_ERROR_INIT;
	KP_ASSERT_OK(kp_write_file_atomic(path, s, strlen(s), &err), &err);
}

static void test_missing_key(void **state)
{
	struct kp_llm_config c;
	struct kp_llm *llm = NULL;
	struct kp_error err = KP_ERROR_INIT;

	unsetenv("OPENAI_API_KEY");
	cfg_for(&c, KP_LLM_OPENAI, "s=ok");
	assert_int_equal(kp_llm_open(&llm, &c, &err), KP_EAUTH);
	assert_null(llm);
	assert_non_null(strstr(err.msg, "OPENAI_API_KEY is not set"));
	assert_non_null(strstr(err.msg, "never falls back"));
	kp_llm_config_release(&c);
	setenv("OPENAI_API_KEY", KEY, 1);

	/* A custom variable is the one named. */
	kp_error_clear(&err);
	cfg_for(&c, KP_LLM_ANTHROPIC, "s=ok");
	c.api_key_env = kp_xstrdup("KP_TEST_NO_SUCH_KEY");
	assert_int_equal(kp_llm_open(&llm, &c, &err), KP_EAUTH);
	assert_non_null(strstr(err.msg, "KP_TEST_NO_SUCH_KEY is not set"));
	kp_llm_config_release(&c);

	/* A local server without a key: explicit no_key. */
	kp_error_clear(&err);
	unsetenv("OPENAI_API_KEY");
	cfg_for(&c, KP_LLM_OPENAI, "s=ok");
	c.no_key = 1;
	KP_ASSERT_OK(kp_llm_open(&llm, &c, &err), &err);
	kp_llm_free(llm);
	kp_llm_config_release(&c);
	setenv("OPENAI_API_KEY", KEY, 1);
}

static void test_openai_ok(void **state)
{
	struct kp_llm_config c;
	struct kp_llm_reply r;
	struct kp_error err = KP_ERROR_INIT;
	cfg_for(&c, KP_LLM_OPENAI, "s=ok,id=oa1");
	c.temperature = 0.5;
	c.max_tokens = 1234;
	KP_ASSERT_OK(ask(&c, &r, &err), &err);
	assert_non_null(strstr(r.text, "__global__ void scale_kernel"));
	assert_string_equal(r.finish_reason, "stop");
	assert_false(r.truncated);
	assert_string_equal(r.model, "gpt-4o");
	assert_true(r.usage.input_tokens > 0 && r.usage.output_tokens > 0);
	assert_true(r.usage.cost_known && r.usage.cost_usd > 0);
	assert_int_equal(r.usage.attempts, 1);
	assert_int_equal(strlen(r.prompt_hash), 64);
	/* What went over the wire: max_tokens (not api.openai.com), temperature, a system message, no Expect. */
	assert_int_equal(kp_test_server_count(&srv, "\"max_tokens\": 1234"), 1);
	assert_int_equal(kp_test_server_count(&srv, "\"temperature\": 0.5"), 1);
	assert_true(kp_test_server_count(&srv, "{\"content\": \"You write CUDA.\", \"role\": \"system\"}") >= 1);
	assert_int_equal(kp_test_server_count(&srv, "\"expect\": \"100-continue\""), 0);
	kp_llm_reply_release(&r);
}

/* Prompts carry compiler logs and model output: control characters, quotes and stray bytes travel as valid JSON. */
static void test_odd_bytes(void **state)
{
	struct kp_llm_config c;
	struct kp_llm *llm = NULL;
	struct kp_llm_reply r;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_llm_msg m = {KP_LLM_USER, "tab\there \"quoted\" back\\slash \x01 bell\x07 bad\xff\xfe end \xc3\xa9 "
					  "overlong\xc0\xaf surrogate\xed\xa0\x80 del\x7f"};
	struct kp_llm_request q = {"sys\r\n", &m, 1, NULL};
	cfg_for(&c, KP_LLM_OPENAI, "s=ok,id=odd1");
	KP_ASSERT_OK(kp_llm_open(&llm, &c, &err), &err);
	KP_ASSERT_OK(kp_llm_complete(llm, &q, &r, &err), &err);
	kp_llm_reply_release(&r);
	kp_llm_free(llm);
	kp_llm_config_release(&c);
	/* The server parsed it (json.loads) and logged it back as JSON: escapes survive, bad bytes are U+FFFD. */
	assert_int_equal(kp_test_server_count(&srv, "tab\\there \\\"quoted\\\" back\\\\slash \\u0001 bell\\u0007 "
						    "bad\\ufffd\\ufffd end \\u00e9 overlong\\ufffd\\ufffd "
						    "surrogate\\ufffd\\ufffd\\ufffd del\\u007f"),
			 1);
}

static void test_anthropic_ok(void **state)
{
	struct kp_llm_config c;
	struct kp_llm_reply r;
	struct kp_error err = KP_ERROR_INIT;
	cfg_for(&c, KP_LLM_ANTHROPIC, "s=ok,id=an1");
	KP_ASSERT_OK(ask(&c, &r, &err), &err);
	assert_non_null(strstr(r.text, "KP_EXPORT int kp_run"));
	assert_string_equal(r.finish_reason, "end_turn");
	assert_true(r.usage.cost_known);
	assert_int_equal(kp_test_server_count(&srv, "\"anthropic_version\": \"2023-06-01\""), 1);
	assert_int_equal(kp_test_server_count(&srv, "\"system\": \"You write CUDA.\""), 1);
	kp_llm_reply_release(&r);
}

static void test_retry_after(void **state)
{
	struct kp_llm_config c;
	struct kp_llm_reply r;
	struct kp_error err = KP_ERROR_INIT;
	double t0 = kp_now();
	/* Two 429s asking for 1 s each: the client waits them out, then succeeds. */
	cfg_for(&c, KP_LLM_OPENAI, "s=e429,n=2,ra=1,id=ra1");
	KP_ASSERT_OK(ask(&c, &r, &err), &err);
	assert_int_equal(r.usage.attempts, 3);
	assert_true(kp_now() - t0 >= 2.0);
	assert_true(r.usage.elapsed_s >= 2.0);
	kp_llm_reply_release(&r);

	/* The HTTP-date form, on anthropic. */
	t0 = kp_now();
	cfg_for(&c, KP_LLM_ANTHROPIC, "s=date429,n=1,ra=2,id=ra2");
	KP_ASSERT_OK(ask(&c, &r, &err), &err);
	assert_int_equal(r.usage.attempts, 2);
	assert_true(kp_now() - t0 >= 0.9); /* dates have 1 s resolution */
	kp_llm_reply_release(&r);

	/* Longer than the longest allowed wait: fail now, saying so. */
	cfg_for(&c, KP_LLM_OPENAI, "s=e429,ra=100,id=ra3");
	assert_int_equal(ask(&c, &r, &err), KP_EHTTP);
	assert_non_null(strstr(err.msg, "asks to wait 100 s"));
}

static void test_server_errors(void **state)
{
	struct kp_llm_config c;
	struct kp_llm_reply r;
	struct kp_error err = KP_ERROR_INIT;

	cfg_for(&c, KP_LLM_ANTHROPIC, "s=e500,n=2,id=e1"); /* 529 overloaded, twice */
	KP_ASSERT_OK(ask(&c, &r, &err), &err);
	assert_int_equal(r.usage.attempts, 3);
	kp_llm_reply_release(&r);

	cfg_for(&c, KP_LLM_OPENAI, "s=e500,id=e2");
	c.retries = 2;
	assert_int_equal(ask(&c, &r, &err), KP_EHTTP);
	assert_non_null(strstr(err.msg, "gave up after 3 attempts"));
	assert_non_null(strstr(err.msg, "HTTP 500: The server had an error"));
	assert_int_equal(kp_test_server_count(&srv, "id=e2/"), 3);

	/* A proxy's HTML error page: one line of it in the message. */
	kp_error_clear(&err);
	cfg_for(&c, KP_LLM_OPENAI, "s=html502,id=e3");
	c.retries = 1;
	assert_int_equal(ask(&c, &r, &err), KP_EHTTP);
	assert_non_null(strstr(err.msg, "HTTP 502: <html>"));

	/* A request the provider refuses is not retried. */
	kp_error_clear(&err);
	cfg_for(&c, KP_LLM_OPENAI, "s=e400,id=e4");
	assert_int_equal(ask(&c, &r, &err), KP_ELLM);
	assert_non_null(strstr(err.msg, "maximum context length"));
	assert_int_equal(kp_test_server_count(&srv, "id=e4/"), 1);
}

static void test_cut_replies(void **state)
{
	struct kp_llm_config c;
	struct kp_llm_reply r;
	struct kp_error err = KP_ERROR_INIT;

	/* The connection drops mid-body once, then the reply comes whole. */
	cfg_for(&c, KP_LLM_OPENAI, "s=cut,n=1,id=c1");
	KP_ASSERT_OK(ask(&c, &r, &err), &err);
	assert_int_equal(r.usage.attempts, 2);
	kp_llm_reply_release(&r);

	/* A complete HTTP reply whose JSON stops halfway, every time. */
	cfg_for(&c, KP_LLM_ANTHROPIC, "s=cutjson,id=c2");
	c.retries = 1;
	assert_int_equal(ask(&c, &r, &err), KP_EHTTP);
	assert_non_null(strstr(err.msg, "unreadable (cut short?)"));
	assert_int_equal(kp_test_server_count(&srv, "id=c2/"), 2);

	/* Stopped by the token limit: marked truncated. */
	cfg_for(&c, KP_LLM_ANTHROPIC, "s=length,id=c3");
	KP_ASSERT_OK(ask(&c, &r, &err), &err);
	assert_true(r.truncated);
	assert_string_equal(r.finish_reason, "max_tokens");
	kp_llm_reply_release(&r);
}

static void test_timeout(void **state)
{
	struct kp_llm_config c;
	struct kp_llm_reply r;
	struct kp_error err = KP_ERROR_INIT;
	double t0 = kp_now();
	cfg_for(&c, KP_LLM_OPENAI, "s=slow,ms=3000,id=t1");
	c.timeout_s = 0.4;
	c.retries = 1;
	assert_int_equal(ask(&c, &r, &err), KP_ETIMEOUT);
	assert_non_null(strstr(err.msg, "no reply within"));
	assert_true(kp_now() - t0 < 2.5);

	/* Slow once, then fast: the retry gets it. */
	cfg_for(&c, KP_LLM_OPENAI, "s=slow,ms=1500,n=1,id=t2");
	c.timeout_s = 0.5;
	KP_ASSERT_OK(ask(&c, &r, &err), &err);
	assert_int_equal(r.usage.attempts, 2);
	kp_llm_reply_release(&r);
}

struct thread_arg {
	struct kp_llm *llm;
	int rc;
	struct kp_error err;
};

static void *ask_thread(void *ud)
{
	struct thread_arg *a = ud;
	struct kp_llm_reply r;
	a->rc = kp_llm_complete(a->llm, &hello, &r, &a->err);
	if (!a->rc)
		kp_llm_reply_release(&r);
	return NULL;
}

/* One handle, four threads, each with its own blocking call: they overlap and the totals add up. */
static void test_threads(void **state)
{
	struct kp_llm_config c;
	struct kp_llm *llm = NULL;
	struct kp_error err = KP_ERROR_INIT;
	struct thread_arg a[4];
	pthread_t t[4];
	struct kp_llm_usage tot;
	double t0;

	cfg_for(&c, KP_LLM_OPENAI, "s=slow,ms=400,id=th1");
	KP_ASSERT_OK(kp_llm_open(&llm, &c, &err), &err);
	t0 = kp_now();
	for (int i = 0; i < 4; i++) {
		memset(&a[i], 0, sizeof(a[i]));
		a[i].llm = llm;
		assert_int_equal(pthread_create(&t[i], NULL, ask_thread, &a[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		KP_ASSERT_OK(a[i].rc, &a[i].err);
	}
	assert_true(kp_now() - t0 < 1.2);
	kp_llm_totals(llm, &tot);
	assert_int_equal(tot.requests, 4);
	kp_llm_free(llm);
	kp_llm_config_release(&c);
}

/* Cancel from another thread: the request in flight ends soon, later ones at once. */
static void test_cancel(void **state)
{
	struct kp_llm_config c;
	struct kp_llm *llm = NULL;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_llm_reply r;
	struct thread_arg a = {0};
	pthread_t t;
	double t0;

	cfg_for(&c, KP_LLM_OPENAI, "s=slow,ms=5000,id=cx1");
	KP_ASSERT_OK(kp_llm_open(&llm, &c, &err), &err);
	a.llm = llm;
	t0 = kp_now();
	assert_int_equal(pthread_create(&t, NULL, ask_thread, &a), 0);
	usleep(300000);
	kp_llm_cancel(llm);
	pthread_join(t, NULL);
	assert_int_equal(a.rc, KP_ECANCELED);
	assert_true(kp_now() - t0 < 1.5);
	assert_int_equal(kp_llm_complete(llm, &hello, &r, &err), KP_ECANCELED);
	kp_llm_free(llm);
	kp_llm_config_release(&c);
}

static int sink_saw_key;
static int sink_saw_redacted;
static void scan_sink(enum kp_log_level level, const char *msg, void *ud)
{
	if (strstr(msg, KEY) || strstr(msg, "9f8e7d6c"))
		sink_saw_key = 1;
	if (strstr(msg, "Authorization: [redacted]"))
		sink_saw_redacted = 1;
}

static void test_bad_key_redacted(void **state)
{
	struct kp_llm_config c;
	struct kp_llm_reply r;
	struct kp_error err = KP_ERROR_INIT;
	const char *wrong = "sk-wrong-0123456789abcdefWRONG";

	/* The server echoes the key it got, masked: no piece of it may reach the message. */
	setenv("OPENAI_API_KEY", wrong, 1);
	kp_log_set_sink(scan_sink, NULL);
	kp_log_set_level(KP_LOG_TRACE);
	cfg_for(&c, KP_LLM_OPENAI, "s=ok,id=k1");
	assert_int_equal(ask(&c, &r, &err), KP_EAUTH);
	kp_log_set_level(KP_LOG_WARN);
	kp_log_set_sink(NULL, NULL);
	setenv("OPENAI_API_KEY", KEY, 1);
	assert_non_null(strstr(err.msg, "refused the key in OPENAI_API_KEY"));
	assert_non_null(strstr(err.msg, "HTTP 401"));
	assert_null(strstr(err.msg, "sk-wro"));
	assert_null(strstr(err.msg, "WRONG"));
	assert_non_null(strstr(err.msg, "[redacted]"));
	assert_false(sink_saw_key);
	assert_true(sink_saw_redacted); /* the verbose trace ran, and blanked the header */
}

static void test_parallel(void **state)
{
	struct kp_llm_config c;
	struct kp_llm *llm = NULL;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_llm_request reqs[4];
	struct kp_llm_reply reps[4];
	struct kp_error errs[4];
	double t0;

	cfg_for(&c, KP_LLM_OPENAI, "s=slow,ms=400,id=p1");
	c.parallel = 4;
	KP_ASSERT_OK(kp_llm_open(&llm, &c, &err), &err);
	for (int i = 0; i < 4; i++)
		reqs[i] = hello;
	memset(errs, 0, sizeof(errs));
	t0 = kp_now();
	KP_ASSERT_OK(kp_llm_complete_many(llm, reqs, 4, reps, errs), &errs[0]);
	/* Four 0.4 s answers in flight together take about 0.4 s, not 1.6 s. */
	assert_true(kp_now() - t0 < 1.2);
	for (int i = 0; i < 4; i++) {
		assert_non_null(strstr(reps[i].text, "scale_kernel"));
		kp_llm_reply_release(&reps[i]);
	}
	kp_llm_free(llm);
	kp_llm_config_release(&c);

	/* parallel = 1: one after another. */
	cfg_for(&c, KP_LLM_OPENAI, "s=slow,ms=200,id=p2");
	c.parallel = 1;
	KP_ASSERT_OK(kp_llm_open(&llm, &c, &err), &err);
	t0 = kp_now();
	KP_ASSERT_OK(kp_llm_complete_many(llm, reqs, 3, reps, NULL), &err);
	assert_true(kp_now() - t0 >= 0.6);
	for (int i = 0; i < 3; i++)
		kp_llm_reply_release(&reps[i]);
	kp_llm_free(llm);
	kp_llm_config_release(&c);
}

/*
 * kp_llm counts usage and enforces no token or cost limit (the run's budget is the one limit,
 * docs/internals/llm.md): every request goes out, and the totals hold each one's tokens and cost.
 */
static void test_usage_counted_not_capped(void **state)
{
	struct kp_llm_config c;
	struct kp_llm *llm = NULL;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_llm_reply r;
	struct kp_llm_usage tot, sum = {0};

	cfg_for(&c, KP_LLM_OPENAI, "s=ok,id=b1");
	c.price.input = 1;
	c.price.output = 1000000; /* $1 per output token */
	KP_ASSERT_OK(kp_llm_open(&llm, &c, &err), &err);
	for (int i = 0; i < 3; i++) {
		KP_ASSERT_OK(kp_llm_complete(llm, &hello, &r, &err), &err);
		assert_true(r.usage.cost_known);
		assert_true(r.usage.cost_usd > 1);
		kp_llm_usage_add(&sum, &r.usage);
		kp_llm_reply_release(&r);
	}
	kp_llm_totals(llm, &tot);
	assert_int_equal(tot.requests, 3);
	assert_int_equal(tot.input_tokens, sum.input_tokens);
	assert_int_equal(tot.output_tokens, sum.output_tokens);
	assert_true(fabs(tot.cost_usd - sum.cost_usd) < 1e-9);
	assert_int_equal(kp_test_server_count(&srv, "id=b1/"), 3);
	KP_ASSERT_OK(kp_llm_check_priced(llm, &err), &err);
	kp_llm_free(llm);
	kp_llm_config_release(&c);
}

/* A caller that limits cost learns at open whether cost can be counted at all. */
static void test_check_priced(void **state)
{
	struct kp_llm_config c;
	struct kp_llm *llm = NULL;
	struct kp_error err = KP_ERROR_INIT;
	char *dir = kp_test_tmpdir();
	char *p = kp_xasprintf("%s/001.txt", dir);

	cfg_for(&c, KP_LLM_OPENAI, "s=ok");
	free(c.model);
	c.model = kp_xstrdup("my-local-model");
	KP_ASSERT_OK(kp_llm_open(&llm, &c, &err), &err);
	assert_int_equal(kp_llm_check_priced(llm, &err), KP_EINVAL);
	assert_non_null(strstr(err.msg, "none is known for model 'my-local-model'"));
	assert_non_null(strstr(err.msg, "\"price\""));
	kp_llm_free(llm);
	kp_llm_config_release(&c);

	/* A command's estimated tokens are priced only when a price is given. */
	kp_error_clear(&err);
	kp_llm_config_init(&c);
	KP_ASSERT_OK(kp_llm_config_parse_spec(&c, "exec:cat", &err), &err);
	KP_ASSERT_OK(kp_llm_open(&llm, &c, &err), &err);
	assert_int_equal(kp_llm_check_priced(llm, &err), KP_EINVAL);
	assert_non_null(strstr(err.msg, "none is known for model 'exec'"));
	kp_llm_free(llm);
	c.price.input = c.price.output = 0.5;
	KP_ASSERT_OK(kp_llm_open(&llm, &c, &err), &err);
	KP_ASSERT_OK(kp_llm_check_priced(llm, &err), &err);
	kp_llm_free(llm);
	kp_llm_config_release(&c);

	/* Replays cost nothing: no price needed. */
	write_text(p, "a reply");
	kp_llm_config_init(&c);
	c.provider = KP_LLM_REPLAY;
	c.replay_dir = kp_xstrdup(dir);
	KP_ASSERT_OK(kp_llm_open(&llm, &c, &err), &err);
	KP_ASSERT_OK(kp_llm_check_priced(llm, &err), &err);
	kp_llm_free(llm);
	kp_llm_config_release(&c);
	free(p);
	kp_test_tmpdir_remove(dir);
}

/* Every file under dir, read whole, must not hold the key or its telltale middle. */
static void assert_dir_clean(const char *dir)
{
	struct kp_child c = KP_CHILD_INIT;
	struct kp_error err = KP_ERROR_INIT;
	kp_strvec_pushl(&c.args, "grep", "-rl", "-e", KEY, "-e", "9f8e7d6c", dir, NULL);
	KP_ASSERT_OK(kp_child_run(&c, &err), &err);
	if (c.exit_code != 1)
		fail_msg("key found in: %s", c.out.buf);
	kp_child_release(&c);
}

static void test_record_replay(void **state)
{
	char *dir = kp_test_tmpdir();
	char *rec = kp_xasprintf("%s/rec", dir);
	struct kp_llm_config c;
	struct kp_llm *llm = NULL;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_llm_msg m2 = {KP_LLM_USER, "Now make it faster."};
	struct kp_llm_request reqs[2] = {hello, {"You write CUDA.", &m2, 1, "second"}};
	struct kp_llm_reply reps[2], r;
	char h0[65], h1[65];

	cfg_for(&c, KP_LLM_OPENAI, "s=ok,id=r1");
	c.record_dir = kp_xstrdup(rec);
	KP_ASSERT_OK(kp_llm_open(&llm, &c, &err), &err);
	KP_ASSERT_OK(kp_llm_complete_many(llm, reqs, 2, reps, NULL), &err);
	memcpy(h0, reps[0].prompt_hash, 65);
	memcpy(h1, reps[1].prompt_hash, 65);
	assert_string_not_equal(h0, h1);
	kp_llm_reply_release(&reps[0]);
	kp_llm_reply_release(&reps[1]);
	kp_llm_free(llm);
	kp_llm_config_release(&c);
	assert_true(kp_path_exists(rec) && kp_path_is_dir(rec));
	assert_dir_clean(dir);

	/* In order. */
	kp_llm_config_init(&c);
	KP_ASSERT_OK(kp_llm_config_parse_spec(&c, "replay:x", &err), &err);
	free(c.replay_dir);
	c.replay_dir = kp_xstrdup(rec);
	KP_ASSERT_OK(kp_llm_open(&llm, &c, &err), &err);
	KP_ASSERT_OK(kp_llm_complete(llm, &reqs[1], &r, &err), &err); /* order ignores the prompt */
	assert_non_null(strstr(r.text, "scale_kernel"));
	assert_true(r.usage.input_tokens > 0);
	assert_int_equal(r.usage.cost_usd, 0);
	kp_llm_reply_release(&r);
	KP_ASSERT_OK(kp_llm_complete(llm, &reqs[0], &r, &err), &err);
	kp_llm_reply_release(&r);
	assert_int_equal(kp_llm_complete(llm, &reqs[0], &r, &err), KP_ENOENT);
	assert_non_null(strstr(err.msg, "all 2 replies"));
	kp_llm_free(llm);

	/* By hash: the second prompt first still gets its own reply; an unknown prompt gets none. */
	kp_error_clear(&err);
	c.replay_mode = KP_LLM_REPLAY_HASH;
	KP_ASSERT_OK(kp_llm_open(&llm, &c, &err), &err);
	KP_ASSERT_OK(kp_llm_complete(llm, &reqs[1], &r, &err), &err);
	assert_string_equal(r.prompt_hash, h1);
	kp_llm_reply_release(&r);
	assert_int_equal(kp_llm_complete(llm, &reqs[1], &r, &err), KP_ENOENT);
	assert_non_null(strstr(err.msg, "no unused reply"));
	kp_llm_free(llm);
	kp_llm_config_release(&c);

	/* Recording continues numbering in an existing directory. */
	cfg_for(&c, KP_LLM_OPENAI, "s=ok,id=r2");
	c.record_dir = kp_xstrdup(rec);
	KP_ASSERT_OK(kp_llm_open(&llm, &c, &err), &err);
	KP_ASSERT_OK(kp_llm_complete(llm, &hello, &r, &err), &err);
	kp_llm_reply_release(&r);
	kp_llm_free(llm);
	kp_llm_config_release(&c);
	free(rec);
	rec = kp_xasprintf("%s/rec/000003.json", dir);
	assert_true(kp_path_exists(rec));
	assert_dir_clean(dir);

	free(rec);
	kp_test_tmpdir_remove(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_missing_key),
		cmocka_unit_test(test_openai_ok),
		cmocka_unit_test(test_odd_bytes),
		cmocka_unit_test(test_anthropic_ok),
		cmocka_unit_test(test_retry_after),
		cmocka_unit_test(test_server_errors),
		cmocka_unit_test(test_cut_replies),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_bad_key_redacted),
		cmocka_unit_test(test_parallel),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_usage_counted_not_capped),
		cmocka_unit_test(test_check_priced),
		cmocka_unit_test(test_record_replay),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
