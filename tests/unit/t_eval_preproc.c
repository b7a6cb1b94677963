/* Unit tests: native candidates' includes, the static checks after nvcc -E, and build logs cut to the
 * candidate's own files (lib/eval/preproc.c; issue 30, N3 and N10). */
#include "base/setup.h"

#include "eval/build.h"
#include "eval/preproc.h"
#include "kp_test.h"
#include "kernelpro/eval.h"
#include "kernelpro/task.h"

static struct kp_task gelu;
static struct kp_eval_opts opts;

static int setup(void **state)
{
	struct kp_error err = KP_ERROR_INIT;
	(void)state;
	kp_task_init(&gelu);
	KP_ASSERT_OK(kp_task_load(&gelu, kp_test_path("examples/native/gelu"), &err), &err);
	kp_eval_opts_init(&opts);
	opts.arch = "sm_90a";
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	kp_task_release(&gelu);
	return 0;
}

#define HEAD "#include <cuda_runtime.h>\n#include \"kp_native.h\"\n"
#define BODY                                                                                                 \
	"__global__ void k(const float *x, float *y, long n) { long i = blockIdx.x * 256L + threadIdx.x; "   \
	"if (i < n) y[i] = x[i]; }\n"                                                                        \
	"KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)\n" \
	"{ k<<<1, 256, 0, (cudaStream_t)stream>>>((const float *)in[0].data, (float *)out[0].data, 1); "     \
	"return 0; }\n"

/* The verdict for `src`; `with_nvcc` resolves the toolchain first (skipped when there is none). */
static void check(const char *src, int with_nvcc, struct kp_verdict *v)
{
	struct kp_eval_ctx x;
	struct kp_error err = KP_ERROR_INIT;
	char *inc = kp_xstrdup(kp_test_path("harness/include"));
	memset(&x, 0, sizeof(x));
	x.task = &gelu;
	x.o = &opts;
	kp_verdict_init(v);
	if (with_nvcc && kp_toolchain_resolve(&x.tc, &opts, -1, &err) != 0) {
		free(inc);
		skip();
	}
	KP_ASSERT_OK(kp_preproc_check(&x, src, strlen(src), inc, v, &err), &err);
	kp_toolchain_release(&x.tc);
	free(inc);
}

static void expect(const char *src, int with_nvcc, const char *check_id, const char *evidence)
{
	struct kp_verdict v;
	check(src, with_nvcc, &v);
	if (!check_id) {
		assert_int_not_equal(v.status, KP_STATUS_CHEAT_SUSPECTED);
	} else {
		const struct kp_flag *f = kp_verdict_find_flag(&v, check_id);
		if (v.status != KP_STATUS_CHEAT_SUSPECTED)
			fail_msg("not refused (%s):\n%s", v.message ? v.message : "-", src);
		assert_non_null(f);
		if (!strstr(f->message, evidence))
			fail_msg("'%s' lacks '%s'", f->message, evidence);
		assert_string_equal(v.phase, "static");
	}
	kp_verdict_release(&v);
}

/* N3: the audit's `#include "/any/readable/file"`, and its relatives, refused as written. */
static void test_written_includes(void **state)
{
	(void)state;
	expect(HEAD "#include \"/etc/hostname\"\n" BODY, 0, "foreign_include",
	       "line 3: includes '/etc/hostname'");
	expect(HEAD "#  include </etc/passwd>\n" BODY, 0, "foreign_include", "'/etc/passwd'");
	expect(HEAD "#include \"../../run.db\"\n" BODY, 0, "foreign_include", "'../../run.db'");
	expect(HEAD "#include <cute/../../x.h>\n" BODY, 0, "foreign_include", "'cute/../../x.h'");
	expect(HEAD "#include \"my..name.h\"\n" BODY, 0, NULL, NULL); /* ".." inside a name is no parent */
	expect(HEAD BODY, 0, NULL, NULL);
}

/* N3 and N10: what only the preprocessor shows. */
static void test_after_preprocessing(void **state)
{
	(void)state;
	expect(HEAD BODY, 1, NULL, NULL);
	expect(HEAD "#define F \"/etc/hostname\"\n#include F\n" BODY, 1, "foreign_include",
	       "the preprocessor opened '/etc/hostname'");
	expect(HEAD BODY "void f() { sy\\\nstem(\"ls\"); }\n", 1, "threads", "after preprocessing (nvcc -E)");
	expect(HEAD BODY "#define CAT(a, b) a##b\nvoid f() { CAT(sys, tem)(\"ls\"); }\n", 1, "threads",
	       "starts a process (`system(`)");
	expect(HEAD BODY "void f() { asm volatile(\"sys\" \"call\"); }\n", 1, "threads",
	       "a system call in inline assembly ('syscall')");
	expect(HEAD BODY "void f() { __asm__(\"mov $59, %%eax\\n\\tsyscall\"); }\n", 1, "threads",
	       "'syscall'");
	/* PTX in device code is no system call. */
	expect(HEAD BODY
	       "__device__ int lane() { int l; asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(l)); return l; }\n",
	       1, NULL, NULL);
}

/* A build log's diagnostics about other files keep their place but not their text. */
static void test_own_log(void **state)
{
	struct kp_eval_ctx x;
	struct kp_buf out = KP_BUF_INIT;
	char *inc = kp_xstrdup(kp_test_path("harness/include"));
	char *log = kp_xasprintf("In file included from cand.cu:3:\n"
	                         "/etc/passwd(1): error: unrecognized token\n"
	                         "  root:x:0:0:SECRET-LINE:/root:/bin/bash\n"
	                         "  ^\n"
	                         "cand.cu(7): error: identifier \"vec4\" is undefined\n"
	                         "      vec4 v = x[i];\n"
	                         "      ^\n"
	                         "%s/kp_native.h(12): error: something about the ABI header\n"
	                         "  typedef struct kp_tensor kp_tensor;\n"
	                         "/etc/shadow:1:1: error: expected ';' before 'SECRET-TOKEN'\n"
	                         "    1 | SECRET-TOKEN\n"
	                         "3 errors detected in the compilation of \"cand.cu\".\n",
	                         inc);
	(void)state;
	memset(&x, 0, sizeof(x));
	x.task = &gelu;
	x.o = &opts;
	kp_preproc_own_log(&x, inc, log, &out);
	if (strstr(out.buf, "SECRET"))
		fail_msg("an included file's text reached the log:\n%s", out.buf);
	assert_non_null(strstr(out.buf, "/etc/passwd: [what the compiler said about this file is withheld"));
	assert_non_null(strstr(out.buf, "/etc/shadow: [what the compiler said"));
	assert_non_null(
	    strstr(out.buf, "cand.cu(7): error: identifier \"vec4\" is undefined\n      vec4 v = x[i];\n"));
	assert_non_null(strstr(out.buf, "typedef struct kp_tensor kp_tensor;")); /* the toolkit's own: kept */
	assert_non_null(strstr(out.buf, "In file included from cand.cu:3:"));
	assert_non_null(strstr(out.buf, "3 errors detected"));
	kp_buf_release(&out);
	free(log);
	free(inc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_written_includes),
	    cmocka_unit_test(test_after_preprocessing),
	    cmocka_unit_test(test_own_log),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
