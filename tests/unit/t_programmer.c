/* Unit tests: prompt templates, log trimming, bounded prompts, code extraction (golden replies), tool rounds. */
#include "base/setup.h"

#include <dirent.h>
#include <math.h>
#include <unistd.h>

#include "kp_llm_server.h"
#include "kp_test.h"
#include "kernelpro/fs.h"
#include "kernelpro/log.h"
#include "kernelpro/programmer.h"
#include "kernelpro/str.h"
#include "programmer/prog_int.h"

#define KEY "sk-test-prog-7a6b5c4d3e2f1a0bKEY"

static struct kp_test_server srv;

static int setup(void **state)
{
	/* The bundled prompts/ of this tree, wherever the test binary was built (build/, build/san/). */
	setenv("KERNELPRO_HOME", kp_test_path("."), 1);
	if (kp_test_server_start(&srv, KEY, NULL))
		return -1;
	setenv("OPENAI_API_KEY", KEY, 1);
	return 0;
}

static int teardown(void **state)
{
	kp_test_server_stop(&srv);
	return 0;
}

static void write_text(const char *path, const char *s)
{
	struct kp_error err = KP_ERROR_INIT;
	KP_ASSERT_OK(kp_write_file_atomic(path, s, strlen(s), &err), &err);
}

static const char *ref_code = "__global__ void vec_add(const float *a, const float *b, float *c, int64_t n)\n"
			      "{ int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; if (i < n) c[i] = a[i] + b[i]; }\n";

static void base_ctx(struct kp_prog_ctx *c, enum kp_prog_mode mode)
{
	kp_prog_ctx_init(c);
	c->mode = mode;
	c->task_name = "vec_add";
	c->task_text = "c = a + b over 2^26 floats.";
	c->reference_code = ref_code;
	c->parent_code = mode == KP_PROG_INITIAL ? NULL : ref_code;
}

/* --- Templates ------------------------------------------------------------------------------------- */

static int parse(const char *text, struct kp_tmpl *t, struct kp_error *err)
{
	return kp_tmpl_parse(t, "t.txt", kp_xstrdup(text), err);
}

static void render(const char *text, const char *const *vals, struct kp_buf *out)
{
	struct kp_tmpl t;
	struct kp_error err = KP_ERROR_INIT;
	KP_ASSERT_OK(parse(text, &t, &err), &err);
	kp_tmpl_render(&t, vals, out);
	kp_tmpl_release(&t);
}

static void test_template(void **state)
{
	const char *vals[KP_NSLOTS] = {0};
	struct kp_buf b = KP_BUF_INIT;
	struct kp_tmpl t;
	struct kp_error err = KP_ERROR_INIT;

	vals[KP_SLOT_task_name] = "relu";
	vals[KP_SLOT_memory] = "tried x\n\n\nkeep";
	render("{{! comment line }}\n# Task: {{task_name}}\n\n{{#memory}}\n## Notes\n\n{{memory}}\n\n{{/memory}}\n"
	       "{{#stage1}}\n## Stage 1\n{{stage1}}\n\n{{/stage1}}\n\n\n{{^stage1}}\nno stage 1\n{{/stage1}}\nend\n",
	       vals, &b);
	/* Standalone tags take their lines; a value keeps its own blank lines; template blank runs collapse. */
	assert_string_equal(b.buf, "# Task: relu\n\n## Notes\n\ntried x\n\n\nkeep\n\nno stage 1\nend");
	kp_buf_release(&b);

	assert_int_equal(parse("a {{task_nme}} b", &t, &err), KP_EPARSE);
	assert_string_equal(err.msg, "t.txt:1: unknown slot 'task_nme' (docs/prompts.md lists the slots)");
	kp_error_clear(&err);
	assert_int_equal(parse("x\n{{#memory}}\nfoo\n", &t, &err), KP_EPARSE);
	assert_non_null(strstr(err.msg, "'{{#memory}}' is never closed"));
	kp_error_clear(&err);
	assert_int_equal(parse("{{#memory}}{{/stage1}}", &t, &err), KP_EPARSE);
	assert_non_null(strstr(err.msg, "closes no open section; open: memory"));
	kp_error_clear(&err);
	assert_int_equal(parse("x {{task", &t, &err), KP_EPARSE);
	assert_non_null(strstr(err.msg, "without '}}'"));
}

static void test_prompts_dir(void **state)
{
	char *dir = kp_test_tmpdir();
	char *p = kp_xasprintf("%s/initial.txt", dir);
	struct kp_programmer_opts o = {0};
	struct kp_programmer *pg = NULL;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_prog_ctx c;
	struct kp_buf sys = KP_BUF_INIT, user = KP_BUF_INIT;

	/* A user's directory replaces only the files it has. */
	write_text(p, "MY PROMPT for {{task_name}} in {{language}}\n");
	o.prompts_dir = dir;
	KP_ASSERT_OK(kp_programmer_new(&pg, NULL, &o, &err), &err);
	base_ctx(&c, KP_PROG_INITIAL);
	KP_ASSERT_OK(kp_programmer_prompt(pg, &c, &sys, &user, &err), &err);
	assert_string_equal(user.buf, "MY PROMPT for vec_add in CUDA C++");
	assert_non_null(strstr(sys.buf, "expert GPU performance engineer"));
	kp_programmer_free(pg);

	/* A broken override is named with its line. */
	write_text(p, "ok\n{{feedbak}}\n");
	assert_int_equal(kp_programmer_new(&pg, NULL, &o, &err), KP_EPARSE);
	assert_non_null(strstr(err.msg, "initial.txt:2: unknown slot 'feedbak'"));
	kp_error_clear(&err);
	o.prompts_dir = "/nonexistent/kp-prompts";
	assert_int_equal(kp_programmer_new(&pg, NULL, &o, &err), KP_ENOENT);

	kp_buf_release(&sys);
	kp_buf_release(&user);
	free(p);
	kp_test_tmpdir_remove(dir);
}

/* --- Prompts --------------------------------------------------------------------------------------- */

static void test_deterministic_and_modes(void **state)
{
	struct kp_programmer *pg = NULL;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_prog_ctx c;
	struct kp_buf s1 = KP_BUF_INIT, u1 = KP_BUF_INIT, s2 = KP_BUF_INIT, u2 = KP_BUF_INIT;

	KP_ASSERT_OK(kp_programmer_new(&pg, NULL, NULL, &err), &err);
	base_ctx(&c, KP_PROG_OPTIMIZE);
	c.feedback_text = "1. [high] vector_width: 32-bit loads.";
	c.reference_time_s = 233e-6;
	c.parent_time_s = 182.4e-6;
	KP_ASSERT_OK(kp_programmer_prompt(pg, &c, &s1, &u1, &err), &err);
	KP_ASSERT_OK(kp_programmer_prompt(pg, &c, &s2, &u2, &err), &err);
	assert_string_equal(u1.buf, u2.buf);
	assert_string_equal(s1.buf, s2.buf);
	assert_non_null(strstr(u1.buf, "0.1824 ms per call (1.28x the reference's speed)"));
	assert_non_null(strstr(u1.buf, "## Profiling diagnosis of this version\n\n1. [high] vector_width"));
	assert_null(strstr(u1.buf, "best version so far")); /* not given: left out */
	assert_null(strstr(u1.buf, "{{"));

	/* Each mode checks what it needs. */
	kp_buf_reset(&u1);
	c.parent_code = NULL;
	assert_int_equal(kp_programmer_prompt(pg, &c, &s1, &u1, &err), KP_EINVAL);
	assert_non_null(strstr(err.msg, "optimize mode needs the parent code"));
	kp_error_clear(&err);
	base_ctx(&c, KP_PROG_DEBUG);
	c.failure = KP_PROG_FAIL_WRONG_OUTPUT;
	c.wrong.max_abs_err = 0.5;
	c.wrong.atol = c.wrong.rtol = 1e-4;
	c.wrong.mismatched = 10;
	c.wrong.total = 1000;
	c.wrong.where = "output 0 at [7]: got 1, expected 0.5";
	kp_buf_reset(&u1);
	KP_ASSERT_OK(kp_programmer_prompt(pg, &c, &s1, &u1, &err), &err);
	assert_non_null(strstr(u1.buf, "It runs, but computes the wrong result."));
	assert_non_null(strstr(u1.buf, "10 of 1000 elements (1.00%) are outside the tolerance."));
	assert_non_null(strstr(u1.buf, "Largest error: absolute 0.5.\nTolerance: atol 0.0001, rtol 0.0001"));
	assert_non_null(strstr(u1.buf, "Where: output 0 at [7]: got 1, expected 0.5"));

	kp_programmer_free(pg);
	kp_buf_release(&s1);
	kp_buf_release(&u1);
	kp_buf_release(&s2);
	kp_buf_release(&u2);
}

/* A long, real-looking nvcc log: many copies of one error, one different error deep inside, a summary. */
static void long_log(struct kp_buf *b)
{
	for (int i = 0; i < 400; i++) {
		kp_buf_addf(b, "kernel.cu(%d): warning #177-D: variable \"unused%d\" was declared but never referenced\n", 10 + i, i);
		if (i == 3 || i == 50 || i == 51)
			kp_buf_addf(b, "kernel.cu(%d): error: identifier \"blockDimx\" is undefined\n    int i = blockDimx * 2;\n"
				       "            ^\n\n",
				    10 + i);
		if (i == 300)
			kp_buf_adds(b, "kernel.cu(310): error: no instance of overloaded function \"atomicAdd\" matches the argument list\n");
	}
	kp_buf_adds(b, "4 errors detected in the compilation of \"kernel.cu\".\n");
}

static void test_trim_log(void **state)
{
	struct kp_buf log = KP_BUF_INIT, out = KP_BUF_INIT;
	long_log(&log);
	kp_prog_trim_log(log.buf, 2000, &out);
	assert_true(out.len <= 2000);
	/* The first error with its caret lines, the different one, the summary; the repeats go. */
	assert_non_null(strstr(out.buf, "kernel.cu(13): error: identifier \"blockDimx\" is undefined\n    int i = blockDimx * 2;"));
	assert_null(strstr(out.buf, "kernel.cu(60): error"));
	assert_non_null(strstr(out.buf, "kernel.cu(310): error: no instance of overloaded function"));
	assert_non_null(strstr(out.buf, "4 errors detected in the compilation"));
	assert_non_null(strstr(out.buf, "lines left out ...]"));
	/* Short logs pass unchanged; very long lines are cut. */
	kp_buf_reset(&out);
	kp_prog_trim_log("one\ntwo\n", 2000, &out);
	assert_string_equal(out.buf, "one\ntwo\n");
	kp_buf_reset(&log);
	for (int i = 0; i < 1000; i++)
		kp_buf_addch(&log, 'x');
	kp_buf_reset(&out);
	kp_prog_trim_log(log.buf, 5000, &out);
	assert_int_equal(out.len, 300 + 5);
	kp_buf_release(&log);
	kp_buf_release(&out);
}

static void test_bounded(void **state)
{
	struct kp_programmer_opts o = {0};
	struct kp_programmer *pg = NULL;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_prog_ctx c;
	struct kp_buf log = KP_BUF_INIT, big = KP_BUF_INIT, sys = KP_BUF_INIT, user = KP_BUF_INIT;

	long_log(&log);
	for (int i = 0; i < 3000; i++)
		kp_buf_addf(&big, "// search hit %d: cutlass/include/cute/atom/copy_traits_sm90_tma.hpp\n", i);
	o.max_prompt_chars = 12000;
	KP_ASSERT_OK(kp_programmer_new(&pg, NULL, &o, &err), &err);
	base_ctx(&c, KP_PROG_DEBUG);
	c.failure = KP_PROG_FAIL_COMPILE;
	c.compile_log = log.buf;
	c.codesearch_text = big.buf;
	c.memory_text = big.buf;
	KP_ASSERT_OK(kp_programmer_prompt(pg, &c, &sys, &user, &err), &err);
	assert_true(user.len <= 12000);
	assert_non_null(strstr(user.buf, "identifier \"blockDimx\" is undefined"));
	assert_non_null(strstr(user.buf, ref_code)); /* the failing code is whole */

	/* Past what can be cut: an error that says so. */
	kp_buf_reset(&user);
	c.parent_code = big.buf;
	kp_programmer_free(pg);
	o.max_prompt_chars = 3000;
	KP_ASSERT_OK(kp_programmer_new(&pg, NULL, &o, &err), &err);
	assert_int_equal(kp_programmer_prompt(pg, &c, &sys, &user, &err), KP_ETOOBIG);
	assert_non_null(strstr(err.msg, "over max_prompt_chars (3000)"));
	kp_programmer_free(pg);
	kp_buf_release(&log);
	kp_buf_release(&big);
	kp_buf_release(&sys);
	kp_buf_release(&user);
}

/* --- Extraction: tests/golden/replies/<format>-<case>.{md,txt} -> <same>.out ----------------------- */

static void extract_case(const char *dir, const char *name, int regen)
{
	struct kp_buf in = KP_BUF_INIT, got = KP_BUF_INIT, code = KP_BUF_INIT, want = KP_BUF_INIT, p = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	enum kp_cand_format f = kp_starts_with(name, "torch-") ? KP_CAND_TORCH : KP_CAND_CUDA;
	char reason[512];
	size_t stem = strrchr(name, '.') - name;

	kp_buf_addf(&p, "%s/%s", dir, name);
	KP_ASSERT_OK(kp_read_file(p.buf, 0, &in, &err), &err);
	if (kp_prog_extract(in.buf, in.len, f, NULL, 0, &code, reason, sizeof(reason)) == 0)
		kp_buf_addf(&got, "code:\n%s", code.buf);
	else
		kp_buf_addf(&got, "reject: %s\n", reason);
	kp_buf_reset(&p);
	kp_buf_addf(&p, "%s/%.*s.out", dir, (int)stem, name);
	if (regen) {
		KP_ASSERT_OK(kp_write_file_atomic(p.buf, got.buf, got.len, &err), &err);
	} else {
		KP_ASSERT_OK(kp_read_file(p.buf, 0, &want, &err), &err);
		if (strcmp(want.buf, got.buf))
			fail_msg("%s: got\n%s\nexpected\n%s", name, got.buf, want.buf);
	}
	kp_buf_release(&in);
	kp_buf_release(&got);
	kp_buf_release(&code);
	kp_buf_release(&want);
	kp_buf_release(&p);
}

static void test_extract_golden(void **state)
{
	char dir[4096];
	DIR *d;
	struct dirent *de;
	int n = 0, regen = getenv("KP_REGEN_GOLDEN") && !strcmp(getenv("KP_REGEN_GOLDEN"), "1");
	snprintf(dir, sizeof(dir), "%s", kp_test_path("tests/golden/replies"));
	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d)))
		if (kp_ends_with(de->d_name, ".md") || kp_ends_with(de->d_name, ".txt")) {
			extract_case(dir, de->d_name, regen);
			n++;
		}
	closedir(d);
	assert_true(n >= 15);
}

static void test_extract_details(void **state)
{
	struct kp_buf code = KP_BUF_INIT;
	char reason[512];
	const char *entries[] = {"kp_init", "kp_run", NULL};
	const char *two = "```cuda\nKP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t s) { return 0; }\n```\n"
			  "```cuda\nKP_EXPORT int kp_init(const kp_tensor *in, int nin, const kp_tensor *out, int nout) { return 0; }\n"
			  "KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t s) { return 0; }\n```\n";

	/* Caller-given entry points: the block defining both wins although it comes last... */
	assert_int_equal(kp_prog_extract(two, strlen(two), KP_CAND_CUDA, entries, 0, &code, reason, sizeof(reason)), 0);
	assert_non_null(strstr(code.buf, "kp_init"));
	/* ...and a call is not a definition. */
	kp_buf_reset(&code);
	const char *call = "```cuda\nint main() { return kp_run(0, 0, 0, 0, 0); }\n```\n";
	assert_int_equal(kp_prog_extract(call, strlen(call), KP_CAND_CUDA, NULL, 0, &code, reason, sizeof(reason)),
			 KP_ELLM);
	assert_non_null(strstr(reason, "does not define 'kp_run'"));
	/* The provider's truncation flag shows in the reason. */
	assert_int_equal(kp_prog_extract("", 0, KP_CAND_CUDA, NULL, 1, &code, reason, sizeof(reason)), KP_ELLM);
	assert_string_equal(reason, "the reply was empty (stopped at the token limit)");
	kp_buf_release(&code);
}

/* A NUL byte inside a reply is refused by name, never a silent cut of the code at that byte. */
static void test_extract_nul(void **state)
{
	static const char reply[] = "```cuda\n#include \"kp_native.h\"\n// a\0b\nKP_EXPORT int kp_run(const kp_tensor *in, "
				    "int nin, kp_tensor *out, int nout, kp_stream_t s) { return 0; }\n```\n";
	struct kp_buf code = KP_BUF_INIT;
	char reason[512];
	assert_int_equal(kp_prog_extract(reply, sizeof(reply) - 1, KP_CAND_CUDA, NULL, 0, &code, reason, sizeof(reason)),
			 KP_ELLM);
	assert_non_null(strstr(reason, "NUL byte"));
	assert_int_equal(code.len, 0);
	kp_buf_release(&code);
}

static void test_requests(void **state)
{
	struct kp_prog_request r[KP_PROG_MAX_REQUESTS];
	const char *reply = "I need two things first.\n\n- search: cute tma copy example \n**tool:** occupancy --verbose\n"
			    "```cuda\nsearch: not a request inside code\n```\nSEARCH: `wgmma fp32 accumulate`\n"
			    "search:\ntool: warp_stalls\nsearch: five\n";
	size_t n = kp_prog_parse_requests(reply, strlen(reply), r, KP_PROG_MAX_REQUESTS);
	assert_int_equal(n, 4);
	assert_false(r[0].is_tool);
	assert_string_equal(r[0].text, "cute tma copy example");
	assert_true(r[1].is_tool);
	assert_string_equal(r[1].name, "occupancy");
	assert_string_equal(r[1].text, "--verbose");
	assert_string_equal(r[2].text, "wgmma fp32 accumulate");
	assert_string_equal(r[3].name, "warp_stalls");
}

/* --- Generation -------------------------------------------------------------------------------------- */

struct hook_log {
	int searches, tools, exchanges, failed_exchanges;
	char last_query[128];
};

static int search_hook(void *ud, const struct kp_prog_ctx *ctx, const char *query, struct kp_buf *out,
		       struct kp_error *err)
{
	struct hook_log *h = ud;
	h->searches++;
	snprintf(h->last_query, sizeof(h->last_query), "%s", query);
	kp_buf_adds(out, "cutlass/epilogue/thread/linear_combination.h: LinearCombination<...>\n");
	return 0;
}

static int tool_hook(void *ud, const struct kp_prog_ctx *ctx, const char *name, const char *args, struct kp_buf *out,
		     struct kp_error *err)
{
	struct hook_log *h = ud;
	h->tools++;
	if (strcmp(name, "occupancy"))
		return kp_error_set(err, KP_ENOENT, "no tool named '%s'", name);
	kp_buf_adds(out, "[medium] occupancy: 50% achieved of 100% theoretical\n");
	return 0;
}

static void exchange_hook(void *ud, const struct kp_prog_exchange *ex)
{
	struct hook_log *h = ud;
	h->exchanges++;
	if (!ex->reply)
		h->failed_exchanges++;
	assert_int_equal(ex->nmsgs, (size_t)(2 * ex->round + 1));
}

static struct kp_llm *open_llm(const char *spec_or_scenario, struct kp_llm_config *c)
{
	struct kp_llm *llm = NULL;
	struct kp_error err = KP_ERROR_INIT;
	kp_llm_config_init(c);
	if (strchr(spec_or_scenario, ':')) {
		KP_ASSERT_OK(kp_llm_config_parse_spec(c, spec_or_scenario, &err), &err);
	} else {
		c->provider = KP_LLM_OPENAI;
		c->model = kp_xstrdup("gpt-4o");
		c->base_url = kp_xstrdup(kp_test_server_url(&srv, spec_or_scenario, 1));
	}
	c->backoff_s = 0.01;
	KP_ASSERT_OK(kp_llm_open(&llm, c, &err), &err);
	return llm;
}

static void test_tool_rounds(void **state)
{
	struct kp_llm_config cfg;
	struct kp_llm *llm = open_llm("s=ok,reply=tool,id=tr1", &cfg);
	struct hook_log h = {0};
	struct kp_programmer_opts o = {0};
	struct kp_programmer *pg = NULL;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_prog_ctx c;
	struct kp_prog_result r;

	o.max_tool_rounds = 2;
	o.hooks = (struct kp_prog_hooks){search_hook, tool_hook, exchange_hook, &h};
	KP_ASSERT_OK(kp_programmer_new(&pg, llm, &o, &err), &err);
	base_ctx(&c, KP_PROG_OPTIMIZE);
	c.tools_text = "occupancy: achieved vs theoretical occupancy and its limiter";
	KP_ASSERT_OK(kp_programmer_generate(pg, &c, &r, &err), &err);
	assert_false(r.rejected);
	assert_non_null(r.code);
	assert_non_null(strstr(r.code, "scale_kernel"));
	assert_int_equal(r.rounds, 1);
	assert_int_equal(r.tool_calls, 2);
	assert_int_equal(h.searches, 1);
	assert_int_equal(h.tools, 1);
	assert_string_equal(h.last_query, "cutlass epilogue fusion example");
	assert_int_equal(h.exchanges, 2);
	assert_int_equal(r.usage.requests, 2);
	assert_non_null(strstr(r.prompt, "`search: <what to look for>`"));
	assert_non_null(strstr(r.prompt, "occupancy: achieved vs theoretical"));
	/* The second request carried the answers. */
	assert_int_equal(kp_test_server_count(&srv, "Answers to your requests:"), 1);
	assert_int_equal(kp_test_server_count(&srv, "50% achieved of 100% theoretical"), 1);
	kp_prog_result_release(&r);
	kp_programmer_free(pg);
	kp_llm_free(llm);
	kp_llm_config_release(&cfg);
}

static void test_round_cap_and_reject(void **state)
{
	char *dir = kp_test_tmpdir();
	char spec[4200];
	struct kp_llm_config cfg;
	struct kp_llm *llm;
	struct hook_log h = {0};
	struct kp_programmer_opts o = {0};
	struct kp_programmer *pg = NULL;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_prog_ctx c;
	struct kp_prog_result r;

	for (int i = 1; i <= 3; i++) {
		char *p = kp_xasprintf("%s/%02d.md", dir, i);
		write_text(p, "search: more please\n");
		free(p);
	}
	{
		char *p = kp_xasprintf("%s/04.md", dir);
		write_text(p, "I would rather explain the idea than write code.");
		free(p);
	}
	snprintf(spec, sizeof(spec), "replay:%s", dir);
	llm = open_llm(spec, &cfg);
	o.max_tool_rounds = 2;
	o.hooks = (struct kp_prog_hooks){search_hook, NULL, exchange_hook, &h};
	KP_ASSERT_OK(kp_programmer_new(&pg, llm, &o, &err), &err);
	base_ctx(&c, KP_PROG_INITIAL);
	KP_ASSERT_OK(kp_programmer_generate(pg, &c, &r, &err), &err);
	assert_true(r.rejected);
	assert_null(r.code);
	assert_non_null(strstr(r.reason, "after the last of 2 rounds"));
	assert_int_equal(r.rounds, 2);
	assert_int_equal(h.searches, 2);
	kp_prog_result_release(&r);

	/* The fourth reply holds no code: rejected with a reason for the next prompt. */
	KP_ASSERT_OK(kp_programmer_generate(pg, &c, &r, &err), &err);
	assert_true(r.rejected);
	assert_non_null(strstr(r.reason, "no code block"));
	kp_prog_result_release(&r);

	/* Replies exhausted: an error, not a rejection. */
	assert_int_equal(kp_programmer_generate(pg, &c, &r, &err), KP_ENOENT);
	assert_int_equal(h.failed_exchanges, 1);
	kp_prog_result_release(&r);
	kp_programmer_free(pg);
	kp_llm_free(llm);
	kp_llm_config_release(&cfg);
	kp_test_tmpdir_remove(dir);
}

static void test_generate_many(void **state)
{
	char *dir = kp_test_tmpdir();
	char *reply = kp_xasprintf("%s/reply.md", dir);
	struct kp_llm_config cfg;
	struct kp_llm *llm = NULL;
	struct kp_programmer *pg = NULL;
	struct kp_error err = KP_ERROR_INIT, errs[3];
	struct kp_prog_ctx c[3];
	const struct kp_prog_ctx *cp[3] = {&c[0], &c[1], &c[2]};
	struct kp_prog_result r[3];
	char *script;
	double t0;

	write_text(reply, "```cuda\nKP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, "
			  "kp_stream_t s) { return 0; }\n```\n");
	script = kp_xasprintf("cat >/dev/null; sleep 0.4; cat '%s'", reply);
	kp_llm_config_init(&cfg);
	cfg.provider = KP_LLM_EXEC;
	cfg.parallel = 3;
	kp_strvec_pushl(&cfg.exec_argv, "sh", "-c", script, NULL);
	KP_ASSERT_OK(kp_llm_open(&llm, &cfg, &err), &err);
	KP_ASSERT_OK(kp_programmer_new(&pg, llm, NULL, &err), &err);
	for (int i = 0; i < 3; i++)
		base_ctx(&c[i], i == 0 ? KP_PROG_INITIAL : KP_PROG_OPTIMIZE);
	c[2].parent_code = NULL; /* an invalid context fails alone */
	memset(errs, 0, sizeof(errs));
	t0 = kp_now();
	assert_int_equal(kp_programmer_generate_many(pg, cp, 3, r, errs), KP_EINVAL);
	assert_true(kp_now() - t0 < 1.2); /* two 0.4 s children in parallel */
	assert_non_null(r[0].code);
	assert_non_null(r[1].code);
	assert_null(r[2].code);
	assert_int_equal(errs[2].code, KP_EINVAL);
	for (int i = 0; i < 3; i++)
		kp_prog_result_release(&r[i]);
	kp_programmer_free(pg);
	kp_llm_free(llm);
	kp_llm_config_release(&cfg);
	free(script);
	free(reply);
	kp_test_tmpdir_remove(dir);
}

/* The mode names (kernelpro/mode.h) are persisted in run databases: fixed, and parsed back. */
static void test_mode_names(void **state)
{
	static const char *const want[KP_PROG_NMODES] = {"initial", "debug", "optimize"};
	enum kp_prog_mode m = KP_PROG_INITIAL;
	for (int i = 0; i < KP_PROG_NMODES; i++) {
		assert_string_equal(kp_prog_mode_name((enum kp_prog_mode)i), want[i]);
		assert_int_equal(kp_prog_mode_parse(want[i], &m), 0);
		assert_int_equal(m, i);
	}
	assert_string_equal(kp_prog_mode_name((enum kp_prog_mode)KP_PROG_NMODES), "?");
	assert_string_equal(kp_prog_mode_name((enum kp_prog_mode)-1), "?");
	assert_int_equal(kp_prog_mode_parse("repair", &m), KP_EINVAL);
	assert_int_equal(kp_prog_mode_parse(NULL, &m), KP_EINVAL);
	assert_int_equal(m, KP_PROG_OPTIMIZE); /* untouched on failure */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mode_names),
		cmocka_unit_test(test_template),
		cmocka_unit_test(test_prompts_dir),
		cmocka_unit_test(test_deterministic_and_modes),
		cmocka_unit_test(test_trim_log),
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_extract_golden),
		cmocka_unit_test(test_extract_details),
		cmocka_unit_test(test_requests),
		cmocka_unit_test(test_tool_rounds),
		cmocka_unit_test(test_round_cap_and_reject),
		cmocka_unit_test(test_generate_many),
		cmocka_unit_test(test_extract_nul),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
