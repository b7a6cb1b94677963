/* Unit tests: LLM configuration (specs, files, sources, resume, prices) and the backends that need no
 * server: replay from text files, exec, the observer. The HTTP backends: t_llm.c. */
#include "base/setup.h"

#include <math.h>

#include "kp_test.h"
#include "kernelpro/fs.h"
#include "kernelpro/llm.h"
#include "kernelpro/log.h"
#include "kernelpro/str.h"

static struct kp_llm_msg hello_msg = {KP_LLM_USER, "Write a kernel that doubles a vector."};
static const struct kp_llm_request hello = {"You write CUDA.", &hello_msg, 1, "t"};

static void test_spec(void **state)
{
	struct kp_llm_config c;
	struct kp_error err = KP_ERROR_INIT;
	kp_llm_config_init(&c);
	KP_ASSERT_OK(kp_llm_config_parse_spec(&c, "openai:gpt-4o-mini", &err), &err);
	assert_int_equal(c.provider, KP_LLM_OPENAI);
	assert_string_equal(c.model, "gpt-4o-mini");
	KP_ASSERT_OK(kp_llm_config_parse_spec(&c, "anthropic:claude-opus-4-5", &err), &err);
	assert_int_equal(c.provider, KP_LLM_ANTHROPIC);
	KP_ASSERT_OK(kp_llm_config_parse_spec(&c, "exec:my-cli  -p --fast", &err), &err);
	assert_int_equal(c.exec_argv.n, 3);
	assert_string_equal(c.exec_argv.v[2], "--fast");
	KP_ASSERT_OK(kp_llm_config_parse_spec(&c, "replay-hash:/tmp/x", &err), &err);
	assert_int_equal(c.replay_mode, KP_LLM_REPLAY_HASH);
	assert_int_equal(kp_llm_config_parse_spec(&c, "gemini:pro", &err), KP_EINVAL);
	assert_non_null(strstr(err.msg, "unknown provider 'gemini'"));
	kp_error_clear(&err);
	assert_int_equal(kp_llm_config_parse_spec(&c, "openai", &err), KP_EINVAL);
	assert_int_equal(kp_llm_config_parse_spec(&c, "exec:  ", &err), KP_EINVAL);
	kp_llm_config_release(&c);
	kp_llm_config_release(&c);
}

/* Other tools' model names (docs/llm.md, "Model names"): bare family names and provider/model. */
static void test_model_names(void **state)
{
	static const struct {
		const char *given, *provider_model;
	} ok[] = {
		{"gpt-4o", "openai:gpt-4o"},
		{"openai/gpt-4o", "openai:gpt-4o"},
		{"o3-mini", "openai:o3-mini"},
		{"o1", "openai:o1"},
		{"chatgpt-4o-latest", "openai:chatgpt-4o-latest"},
		{"claude-sonnet-4-5", "anthropic:claude-sonnet-4-5"},
		{"anthropic/claude-opus-4-5", "anthropic:claude-opus-4-5"},
		{"openai:qwen/qwen-2.5-coder-32b", "openai:qwen/qwen-2.5-coder-32b"}, /* OpenRouter's vendor/name */
		{"exec:/usr/bin/my-llm --x", "exec:/usr/bin/my-llm --x"},
		{"replay:runs/a/b", "replay:runs/a/b"},
	};
	static const char *const refused[] = {"qwen/qwen-2.5-coder", "openai/", "gemini-pro", "openai", "gpt-", "o"};
	struct kp_buf b = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_llm_config c;

	for (size_t i = 0; i < KP_ARRAY_SIZE(ok); i++) {
		KP_ASSERT_OK(kp_llm_spec_resolve(ok[i].given, &b, &err), &err);
		assert_string_equal(b.buf, ok[i].provider_model);
	}
	for (size_t i = 0; i < KP_ARRAY_SIZE(refused); i++) {
		assert_int_equal(kp_llm_spec_resolve(refused[i], &b, &err), KP_EINVAL);
		assert_non_null(strstr(err.msg, "openai:")); /* says how to write it */
		kp_error_clear(&err);
	}
	kp_llm_config_init(&c);
	KP_ASSERT_OK(kp_llm_config_parse_spec(&c, "gpt-4o", &err), &err);
	assert_int_equal(c.provider, KP_LLM_OPENAI);
	assert_string_equal(c.model, "gpt-4o");
	KP_ASSERT_OK(kp_llm_config_parse_spec(&c, "anthropic/claude-haiku-4-5", &err), &err);
	assert_int_equal(c.provider, KP_LLM_ANTHROPIC);
	assert_string_equal(c.model, "claude-haiku-4-5");
	kp_llm_config_release(&c);
	kp_buf_release(&b);
}

static void write_text(const char *path, const char *s)
{
	struct kp_error err = KP_ERROR_INIT;
	KP_ASSERT_OK(kp_write_file_atomic(path, s, strlen(s), &err), &err);
}

static void test_config_file(void **state)
{
	char *dir = kp_test_tmpdir();
	char *p = kp_xasprintf("%s/llm.json", dir);
	struct kp_llm_config c;
	struct kp_error err = KP_ERROR_INIT;

	write_text(p, "{\"llm\": \"anthropic:claude-sonnet-4-5\", \"temperature\": 0.3, \"max_tokens\": 4000,"
		      " \"retries\": 2, \"api_key_env\": \"MY_KEY\", \"price\": {\"input\": 1, \"output\": 2},"
		      " \"parallel\": 8, \"record\": \"rec\"}");
	kp_llm_config_init(&c);
	KP_ASSERT_OK(kp_llm_config_load_file(&c, p, &err), &err);
	assert_int_equal(c.provider, KP_LLM_ANTHROPIC);
	assert_true(fabs(c.temperature - 0.3) < 1e-12);
	assert_int_equal(c.max_tokens, 4000);
	assert_int_equal(c.retries, 2);
	assert_int_equal(c.parallel, 8);
	assert_string_equal(c.api_key_env, "MY_KEY");
	assert_string_equal(c.record_dir, "rec");
	assert_true(c.price.output == 2);
	kp_llm_config_release(&c);

	/* A key in a file is refused, with what to do instead. */
	write_text(p, "{\"llm\": \"openai:gpt-4o\", \"api_key\": \"sk-abc\"}");
	kp_llm_config_init(&c);
	assert_int_equal(kp_llm_config_load_file(&c, p, &err), KP_EINVAL);
	assert_non_null(strstr(err.msg, "api_key_env"));
	assert_null(strstr(err.msg, "sk-abc"));
	kp_llm_config_release(&c);
	kp_error_clear(&err);

	write_text(p, "{\"temprature\": 0.3}");
	kp_llm_config_init(&c);
	assert_int_equal(kp_llm_config_load_file(&c, p, &err), KP_EINVAL);
	assert_non_null(strstr(err.msg, "unknown key 'temprature'"));
	kp_llm_config_release(&c);

	free(p);
	kp_test_tmpdir_remove(dir);
}

/* Each backend writes back the spec that selects it again: what a resumed run is started with. */
static void test_spec_round_trip(void **state)
{
	static const char *const specs[] = {"openai:gpt-4o-mini", "anthropic:claude-sonnet-4-5",
					    "exec:my-cli -p --fast", "replay:/", "replay-hash:/"};
	struct kp_error err = KP_ERROR_INIT;
	for (size_t i = 0; i < KP_ARRAY_SIZE(specs); i++) {
		struct kp_llm_config c, d;
		struct kp_buf b = KP_BUF_INIT, b2 = KP_BUF_INIT;
		kp_llm_config_init(&c);
		kp_llm_config_init(&d);
		KP_ASSERT_OK(kp_llm_config_parse_spec(&c, specs[i], &err), &err);
		kp_llm_config_format_spec(&c, &b);
		assert_string_equal(b.buf, specs[i]);
		KP_ASSERT_OK(kp_llm_config_parse_spec(&d, b.buf, &err), &err);
		assert_int_equal(d.provider, c.provider);
		kp_llm_config_format_spec(&d, &b2);
		assert_string_equal(b2.buf, b.buf);
		kp_buf_release(&b);
		kp_buf_release(&b2);
		kp_llm_config_release(&c);
		kp_llm_config_release(&d);
	}
}

/* Only replay in order depends on request order; it then starts after the replies already used. */
static void test_resume(void **state)
{
	struct kp_llm_config c;
	struct kp_error err = KP_ERROR_INIT;
	kp_llm_config_init(&c);
	assert_int_equal(kp_llm_config_resume(&c, 3), 0);
	KP_ASSERT_OK(kp_llm_config_parse_spec(&c, "openai:gpt-4o", &err), &err);
	assert_int_equal(kp_llm_config_resume(&c, 3), 0);
	KP_ASSERT_OK(kp_llm_config_parse_spec(&c, "replay-hash:/tmp", &err), &err);
	assert_int_equal(kp_llm_config_resume(&c, 3), 0);
	assert_true(c.replay_skip <= 0);
	KP_ASSERT_OK(kp_llm_config_parse_spec(&c, "replay:/tmp", &err), &err);
	assert_int_equal(kp_llm_config_resume(&c, 3), 1);
	assert_int_equal(c.replay_skip, 3);
	kp_llm_config_release(&c);
}

/* File, then $KERNELPRO_LLM (unless a spec is given), then the spec; a run's spec only when none chose. */
static void test_config_sources(void **state)
{
	char *dir = kp_test_tmpdir();
	char *p = kp_xasprintf("%s/llm.json", dir);
	struct kp_llm_config c;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_llm_sources src = {p, NULL, "exec:from-run"};

	unsetenv("KERNELPRO_LLM");
	write_text(p, "{\"llm\": \"openai:from-file\", \"temperature\": 0.5}");
	kp_llm_config_init(&c);
	KP_ASSERT_OK(kp_llm_config_load(&c, &src, &err), &err);
	assert_string_equal(c.model, "from-file");
	kp_llm_config_release(&c);

	setenv("KERNELPRO_LLM", "anthropic:from-env", 1);
	kp_llm_config_init(&c);
	KP_ASSERT_OK(kp_llm_config_load(&c, &src, &err), &err);
	assert_int_equal(c.provider, KP_LLM_ANTHROPIC);
	assert_string_equal(c.model, "from-env");
	assert_true(fabs(c.temperature - 0.5) < 1e-12); /* the file's other settings stay */
	kp_llm_config_release(&c);

	src.spec = "openai:from-spec";
	kp_llm_config_init(&c);
	KP_ASSERT_OK(kp_llm_config_load(&c, &src, &err), &err);
	assert_string_equal(c.model, "from-spec");
	kp_llm_config_release(&c);

	/* Nothing chosen anywhere: the resumed run's spec. */
	unsetenv("KERNELPRO_LLM");
	write_text(p, "{\"temperature\": 0.5}");
	src.spec = NULL;
	kp_llm_config_init(&c);
	KP_ASSERT_OK(kp_llm_config_load(&c, &src, &err), &err);
	assert_int_equal(c.provider, KP_LLM_EXEC);
	assert_string_equal(c.exec_argv.v[0], "from-run");
	kp_llm_config_release(&c);

	/* A bad $KERNELPRO_LLM is named once, before the parser's message. */
	setenv("KERNELPRO_LLM", "gemini:pro", 1);
	kp_llm_config_init(&c);
	assert_int_equal(kp_llm_config_load(&c, &src, &err), KP_EINVAL);
	assert_true(kp_starts_with(err.msg, "KERNELPRO_LLM: llm: unknown provider 'gemini'"));
	kp_llm_config_release(&c);
	unsetenv("KERNELPRO_LLM");

	/* The limits that moved to the run are refused with where they went, not as secrets. */
	kp_error_clear(&err);
	write_text(p, "{\"max_total_tokens\": 1000}");
	kp_llm_config_init(&c);
	assert_int_equal(kp_llm_config_load(&c, &src, &err), KP_EINVAL);
	assert_non_null(strstr(err.msg, "'max_total_tokens' is no longer an LLM setting"));
	assert_non_null(strstr(err.msg, "--tokens"));
	kp_llm_config_release(&c);
	kp_error_clear(&err);
	write_text(p, "{\"max_cost_usd\": 5}");
	kp_llm_config_init(&c);
	assert_int_equal(kp_llm_config_load(&c, &src, &err), KP_EINVAL);
	assert_non_null(strstr(err.msg, "--cost"));
	kp_llm_config_release(&c);

	/* A bad "llm" in a file names the file once. */
	kp_error_clear(&err);
	write_text(p, "{\"llm\": \"gemini:pro\"}");
	kp_llm_config_init(&c);
	assert_int_equal(kp_llm_config_load(&c, &src, &err), KP_EINVAL);
	assert_true(kp_starts_with(err.msg, p));
	assert_non_null(strstr(err.msg, "llm.json: llm: unknown provider"));
	kp_llm_config_release(&c);

	free(p);
	kp_test_tmpdir_remove(dir);
}

static void test_prices(void **state)
{
	struct kp_llm_price p;
	assert_true(kp_llm_price_lookup("gpt-4o-mini-2024-07-18", &p));
	assert_true(p.input == 0.15);
	assert_true(kp_llm_price_lookup("gpt-4o-2024-08-06", &p));
	assert_true(p.input == 2.5);
	assert_true(kp_llm_price_lookup("anthropic/claude-sonnet-4", &p));
	assert_true(p.output == 15);
	assert_false(kp_llm_price_lookup("llama-3-70b", &p));
}

static void test_replay_text(void **state)
{
	char *dir = kp_test_tmpdir();
	char *p = kp_xasprintf("%s/01-first.md", dir);
	struct kp_llm_config c;
	struct kp_llm *llm = NULL;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_llm_reply r;

	write_text(p, "first reply");
	free(p);
	p = kp_xasprintf("%s/02-second.txt", dir);
	write_text(p, "second reply");
	kp_llm_config_init(&c);
	c.provider = KP_LLM_REPLAY;
	c.replay_dir = kp_xstrdup(dir);
	KP_ASSERT_OK(kp_llm_open(&llm, &c, &err), &err);
	KP_ASSERT_OK(kp_llm_complete(llm, &hello, &r, &err), &err);
	assert_string_equal(r.text, "first reply");
	assert_true(r.usage.estimated);
	kp_llm_reply_release(&r);
	KP_ASSERT_OK(kp_llm_complete(llm, &hello, &r, &err), &err);
	assert_string_equal(r.text, "second reply");
	kp_llm_reply_release(&r);
	kp_llm_free(llm);

	c.replay_mode = KP_LLM_REPLAY_HASH;
	assert_int_equal(kp_llm_open(&llm, &c, &err), KP_EINVAL);
	assert_non_null(strstr(err.msg, "no prompt hash"));
	kp_llm_config_release(&c);
	free(p);
	kp_test_tmpdir_remove(dir);
}

static void test_exec(void **state)
{
	struct kp_llm_config c;
	struct kp_llm *llm = NULL;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_llm_reply r, reps[4];
	struct kp_llm_request reqs[4] = {hello, hello, hello, hello};
	double t0;

	/* cat: the reply is the prompt, system text first. */
	kp_llm_config_init(&c);
	KP_ASSERT_OK(kp_llm_config_parse_spec(&c, "exec:cat", &err), &err);
	KP_ASSERT_OK(kp_llm_open(&llm, &c, &err), &err);
	KP_ASSERT_OK(kp_llm_complete(llm, &hello, &r, &err), &err);
	assert_string_equal(r.text, "You write CUDA.\n\nWrite a kernel that doubles a vector.");
	assert_true(r.usage.estimated && r.usage.input_tokens > 0);
	kp_llm_reply_release(&r);
	kp_llm_free(llm);
	kp_llm_config_release(&c);

	/* Four slow children in parallel. */
	kp_llm_config_init(&c);
	c.provider = KP_LLM_EXEC;
	kp_strvec_pushl(&c.exec_argv, "sh", "-c", "sleep 0.4; cat >/dev/null; echo done", NULL);
	c.parallel = 4;
	KP_ASSERT_OK(kp_llm_open(&llm, &c, &err), &err);
	t0 = kp_now();
	KP_ASSERT_OK(kp_llm_complete_many(llm, reqs, 4, reps, NULL), &err);
	assert_true(kp_now() - t0 < 1.2);
	for (int i = 0; i < 4; i++) {
		assert_string_equal(reps[i].text, "done\n");
		kp_llm_reply_release(&reps[i]);
	}
	kp_llm_free(llm);
	kp_llm_config_release(&c);

	/* A failing command: retried, then its stderr in the message. */
	kp_llm_config_init(&c);
	c.provider = KP_LLM_EXEC;
	kp_strvec_pushl(&c.exec_argv, "sh", "-c", "cat >/dev/null; echo 'quota exceeded' >&2; exit 3", NULL);
	c.retries = 1;
	c.backoff_s = 0.01;
	KP_ASSERT_OK(kp_llm_open(&llm, &c, &err), &err);
	assert_int_equal(kp_llm_complete(llm, &hello, &r, &err), KP_ELLM);
	assert_non_null(strstr(err.msg, "gave up after 2 attempts"));
	assert_non_null(strstr(err.msg, "exited with status 3: quota exceeded"));
	kp_llm_free(llm);
	kp_llm_config_release(&c);

	/* A hanging command: killed at the time limit. */
	kp_error_clear(&err);
	kp_llm_config_init(&c);
	c.provider = KP_LLM_EXEC;
	kp_strvec_pushl(&c.exec_argv, "sleep", "30", NULL);
	c.retries = 0;
	c.timeout_s = 0.3;
	KP_ASSERT_OK(kp_llm_open(&llm, &c, &err), &err);
	t0 = kp_now();
	assert_int_equal(kp_llm_complete(llm, &hello, &r, &err), KP_ETIMEOUT);
	assert_true(kp_now() - t0 < 5);
	kp_llm_free(llm);
	kp_llm_config_release(&c);

	kp_error_clear(&err);
	kp_llm_config_init(&c);
	KP_ASSERT_OK(kp_llm_config_parse_spec(&c, "exec:kp-no-such-program-x", &err), &err);
	assert_int_equal(kp_llm_open(&llm, &c, &err), KP_ENOTOOL);
	assert_non_null(strstr(err.msg, "not found on PATH"));
	kp_llm_config_release(&c);
}

static int observed;
static void observer(void *ud, const struct kp_llm_request *req, const struct kp_llm_reply *reply,
		     const struct kp_error *err)
{
	observed += reply ? 1 : 100;
}

static void test_observer(void **state)
{
	struct kp_llm_config c;
	struct kp_llm *llm = NULL;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_llm_reply r;
	struct kp_llm_usage tot;
	kp_llm_config_init(&c);
	KP_ASSERT_OK(kp_llm_config_parse_spec(&c, "exec:cat", &err), &err);
	KP_ASSERT_OK(kp_llm_open(&llm, &c, &err), &err);
	kp_llm_set_observer(llm, observer, NULL);
	KP_ASSERT_OK(kp_llm_complete(llm, &hello, &r, &err), &err);
	kp_llm_reply_release(&r);
	KP_ASSERT_OK(kp_llm_complete(llm, &hello, &r, &err), &err);
	kp_llm_reply_release(&r);
	assert_int_equal(observed, 2);
	kp_llm_totals(llm, &tot);
	assert_int_equal(tot.requests, 2);
	assert_int_equal(tot.attempts, 2);
	kp_llm_free(llm);
	kp_llm_config_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spec),
		cmocka_unit_test(test_model_names),
		cmocka_unit_test(test_config_file),
		cmocka_unit_test(test_spec_round_trip),
		cmocka_unit_test(test_resume),
		cmocka_unit_test(test_config_sources),
		cmocka_unit_test(test_prices),
		cmocka_unit_test(test_replay_text),
		cmocka_unit_test(test_exec),
		cmocka_unit_test(test_observer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
