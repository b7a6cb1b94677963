/* Unit tests: task loading (KernelBench .py, native task.json + reference.cu), errors, tolerances. */
#include "base/setup.h"

#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../harness/include/kp_native.h"
#include "kp_test.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/str.h"
#include "kernelpro/task.h"
#include "kernelpro/task_kind.h"

static int parse(struct kp_task *t, const char *json, struct kp_error *err)
{
	kp_error_clear(err);
	return kp_task_parse_native(t, json, strlen(json), "/tmp/x", err);
}

static void expect_error(const char *json, const char *fragment)
{
	struct kp_task t;
	struct kp_error err = KP_ERROR_INIT;
	kp_task_init(&t);
	if (parse(&t, json, &err) != KP_EPARSE)
		fail_msg("accepted: %s", json);
	if (!strstr(kp_error_msg(&err), fragment))
		fail_msg("error '%s' lacks '%s'", kp_error_msg(&err), fragment);
	kp_task_release(&t);
}

static void test_abi_numbers_match(void **state)
{
	/* enum kp_dtype must stay equal to the ABI's numbers: the spec passes them to the harness. */
	assert_int_equal(KP_DTYPE_F32, KP_ABI_F32);
	assert_int_equal(KP_DTYPE_F16, KP_ABI_F16);
	assert_int_equal(KP_DTYPE_BF16, KP_ABI_BF16);
	assert_int_equal(KP_DTYPE_F64, KP_ABI_F64);
	assert_int_equal(KP_DTYPE_I32, KP_ABI_I32);
	assert_int_equal(KP_DTYPE_I64, KP_ABI_I64);
	assert_int_equal(KP_DTYPE_I8, KP_ABI_I8);
	assert_int_equal(KP_DTYPE_U8, KP_ABI_U8);
	assert_int_equal(KP_MAX_DIMS, KP_ABI_MAX_DIMS);
}

static void test_dtypes(void **state)
{
	enum kp_dtype t;
	assert_int_equal(kp_dtype_parse("float32", &t), 0);
	assert_int_equal(t, KP_DTYPE_F32);
	assert_int_equal(kp_dtype_parse("BF16", &t), 0);
	assert_int_equal(t, KP_DTYPE_BF16);
	assert_int_equal(kp_dtype_parse("bool", &t), 0);
	assert_int_equal(t, KP_DTYPE_U8);
	assert_int_equal(kp_dtype_parse("f8", &t), KP_EINVAL);
	assert_string_equal(kp_dtype_name(KP_DTYPE_I64), "i64");
	assert_int_equal(kp_dtype_size(KP_DTYPE_F64), 8);
	assert_true(kp_dtype_default_tol(KP_DTYPE_F32) == 1e-4);
	assert_true(kp_dtype_default_tol(KP_DTYPE_F16) == 1e-2);
	assert_true(kp_dtype_default_tol(KP_DTYPE_I32) == 0);
}

static void test_parse_full(void **state)
{
	struct kp_task t;
	struct kp_error err = KP_ERROR_INIT;
	double atol, rtol;
	const char *json =
		"{\"name\": \"mm\", \"description\": \"d\", \"_comment\": \"ignored\","
		" \"inputs\": [{\"name\": \"a\", \"dtype\": \"f16\", \"shape\": [2, 3], \"fill\": \"normal\"},"
		"              {\"name\": \"idx\", \"dtype\": \"i64\", \"shape\": [], \"fill\": {\"kind\": \"randint\", \"low\": 0, \"high\": 5}}],"
		" \"outputs\": [{\"name\": \"c\", \"dtype\": \"f16\", \"shape\": [2, 2], \"rtol\": 0.05},"
		"               {\"name\": \"d\", \"dtype\": \"f32\", \"shape\": [4]}],"
		" \"atol\": 0.001, \"flops\": 24}";
	kp_task_init(&t);
	KP_ASSERT_OK(parse(&t, json, &err), &err);
	assert_int_equal(t.kind, KP_TASK_NATIVE);
	assert_string_equal(t.name, "mm");
	assert_int_equal(t.ninputs, 2);
	assert_int_equal(t.noutputs, 2);
	assert_int_equal(t.inputs[0].fill.kind, KP_FILL_NORMAL);
	assert_true(t.inputs[0].fill.a == 0 && t.inputs[0].fill.b == 1);
	assert_int_equal(t.inputs[1].ndim, 0);
	assert_int_equal(kp_tensor_spec_numel(&t.inputs[1]), 1);
	assert_int_equal(t.inputs[1].fill.kind, KP_FILL_RANDINT);
	assert_int_equal(t.precision, KP_DTYPE_F16);
	/* min_bytes defaults to every tensor's size: 2*3*2 + 8 + 2*2*2 + 4*4. */
	assert_true(t.min_bytes == 12 + 8 + 8 + 16);
	assert_true(t.flops == 24);
	kp_task_tolerance(&t, 0, &atol, &rtol);
	assert_true(atol == 0.001 && rtol == 0.05);
	kp_task_tolerance(&t, 1, &atol, &rtol);
	assert_true(atol == 0.001 && rtol == 1e-4);
	kp_task_release(&t);
	kp_task_release(&t);
}

static void test_parse_errors(void **state)
{
	expect_error("[]", "top level must be an object");
	expect_error("{\"inputs\": [], \"outputs\": []}", "at least one tensor");
	expect_error("{\"inputs\": [], \"outputs\": [{\"name\": \"y\", \"shape\": [4]}], \"shpae\": 1}", "unknown key 'shpae'");
	expect_error("{\"inputs\": [], \"outputs\": [{\"name\": \"y\", \"shape\": [0]}]}", "shape[0] must be a positive");
	expect_error("{\"inputs\": [], \"outputs\": [{\"name\": \"y\", \"shape\": [1,1,1,1,1,1,1,1,1]}]}", "at most 8");
	expect_error("{\"inputs\": [], \"outputs\": [{\"name\": \"y\", \"shape\": [4], \"dtype\": \"f8\"}]}", "unknown dtype 'f8'");
	expect_error("{\"inputs\": [], \"outputs\": [{\"name\": \"9y\", \"shape\": [4]}]}", "must be 1-63 letters");
	expect_error("{\"inputs\": [{\"name\": \"y\", \"shape\": [4]}], \"outputs\": [{\"name\": \"y\", \"shape\": [4]}]}",
		     "'y' is used twice");
	expect_error("{\"inputs\": [{\"name\": \"x\", \"shape\": [4], \"fill\": \"zipf\"}], \"outputs\": [{\"name\": \"y\", \"shape\": [4]}]}",
		     "unknown fill kind 'zipf'");
	expect_error("{\"inputs\": [{\"name\": \"x\", \"shape\": [4], \"fill\": {\"kind\": \"uniform\", \"low\": 2, \"high\": 1}}],"
		     " \"outputs\": [{\"name\": \"y\", \"shape\": [4]}]}",
		     "low < high");
	expect_error("{\"inputs\": [], \"outputs\": [{\"name\": \"y\", \"shape\": [4294967296, 4294967296]}]}", "too large");
	expect_error("{\"inputs\": [], \"outputs\": [{\"name\": \"y\", \"shape\": [4]}], \"atol\": -1}", "must not be negative");
	expect_error("{\"inputs\": [], \"outputs\": [{\"name\": \"y\", \"shape\": [4]}], \"flops\": \"many\"}", "'flops' must be a number");
	expect_error("{\"inputs\": 3, \"outputs\": []}", "\"inputs\" must be an array");
	expect_error("{\"inputs\": [], \"outputs\": [{\"name\": \"y\", \"shape\": [4]}]", "line 1");
	/* Issue 21: a key given twice, a NUL inside a name, negative counts. */
	expect_error("{\"inputs\": [], \"outputs\": [{\"name\": \"y\", \"shape\": [4]}], \"atol\": 1, \"atol\": 2}",
		     "duplicate object key");
	expect_error("{\"inputs\": [], \"outputs\": [{\"name\": \"y\", \"shape\": [4], \"shape\": [8]}]}",
		     "duplicate object key");
	expect_error("{\"inputs\": [], \"outputs\": [{\"name\": \"y\\u0000z\", \"shape\": [4]}]}",
		     "a string holds \\u0000 (NUL)");
	expect_error("{\"name\": \"t\\u0000\", \"inputs\": [], \"outputs\": [{\"name\": \"y\", \"shape\": [4]}]}",
		     "a string holds \\u0000 (NUL)");
	expect_error("{\"inputs\": [], \"outputs\": [{\"name\": \"y\", \"shape\": [4]}], \"flops\": -1}",
		     "'flops' must not be negative");
	expect_error("{\"inputs\": [], \"outputs\": [{\"name\": \"y\", \"shape\": [4]}], \"min_bytes\": -1e9}",
		     "'min_bytes' must not be negative");
}

static void test_load_examples(void **state)
{
	static const char *const dirs[] = {"examples/native/gelu", "examples/native/row_sum", "examples/native/matmul"};
	struct kp_task t;
	struct kp_error err = KP_ERROR_INIT;
	kp_task_init(&t);
	for (size_t i = 0; i < KP_ARRAY_SIZE(dirs); i++) {
		KP_ASSERT_OK(kp_task_load(&t, kp_test_path(dirs[i]), &err), &err);
		assert_int_equal(t.kind, KP_TASK_NATIVE);
		assert_non_null(strstr(t.source, "kp_run"));
		assert_true(kp_ends_with(t.reference, "/reference.cu"));
		assert_true(t.noutputs >= 1);
	}
	/* The task.json path works as well as its directory. */
	KP_ASSERT_OK(kp_task_load(&t, kp_test_path("examples/native/matmul/task.json"), &err), &err);
	assert_string_equal(t.name, "matmul");
	assert_int_equal(t.ninputs, 2);
	assert_true(t.flops == 8589934592.0);
	assert_true(t.min_bytes == (2048.0 * 1024 + 1024 * 2048 + 2048 * 2048) * 4);
	kp_task_release(&t);
}

static void test_load_kernelbench(void **state)
{
	struct kp_task t;
	struct kp_error err = KP_ERROR_INIT;
	double atol, rtol;
	kp_task_init(&t);
	KP_ASSERT_OK(kp_task_load(&t, kp_test_path("examples/kernelbench/swish_scale.py"), &err), &err);
	assert_int_equal(t.kind, KP_TASK_KERNELBENCH);
	assert_string_equal(t.name, "swish_scale");
	assert_string_equal(t.description, "Scaled Swish: y = scale * x * sigmoid(x).");
	assert_int_equal(t.precision, KP_DTYPE_F32);
	assert_int_equal(t.ninputs, 0);
	kp_task_tolerance(&t, 0, &atol, &rtol);
	assert_true(atol == 1e-4 && rtol == 1e-4);
	assert_true(isnan(t.min_bytes));
	kp_task_release(&t);
}

static void test_load_errors(void **state)
{
	struct kp_task t;
	struct kp_error err = KP_ERROR_INIT;
	char *dir = kp_test_tmpdir();
	struct kp_buf p = KP_BUF_INIT;
	kp_task_init(&t);

	assert_int_equal(kp_task_load(&t, "/nonexistent/task", &err), KP_ENOENT);
	kp_error_clear(&err);
	/* A candidate is not a task: no class Model. */
	assert_int_equal(kp_task_load(&t, kp_test_path("examples/kernelbench/swish_scale_fast.py"), &err), KP_EPARSE);
	assert_non_null(strstr(kp_error_msg(&err), "not a KernelBench task"));
	kp_error_clear(&err);
	/* A directory without task.json. */
	assert_int_equal(kp_task_load(&t, dir, &err), KP_ENOENT);
	assert_non_null(strstr(kp_error_msg(&err), "no task.json"));
	kp_error_clear(&err);
	/* task.json without reference.cu. */
	kp_path_join(&p, dir, "task.json");
	{
		const char *tj = "{\"inputs\": [], \"outputs\": [{\"name\": \"y\", \"shape\": [4]}]}";
		KP_ASSERT_OK(kp_write_file_atomic(p.buf, tj, strlen(tj), &err), &err);
	}
	assert_int_equal(kp_task_load(&t, dir, &err), KP_ENOENT);
	assert_non_null(strstr(kp_error_msg(&err), "needs reference.cu"));
	kp_error_clear(&err);
	/* reference.cu without kp_run. */
	kp_buf_reset(&p);
	kp_path_join(&p, dir, "reference.cu");
	KP_ASSERT_OK(kp_write_file_atomic(p.buf, "int main(void) { return 0; }\n", 29, &err), &err);
	assert_int_equal(kp_task_load(&t, dir, &err), KP_EPARSE);
	assert_non_null(strstr(kp_error_msg(&err), "does not define kp_run"));
	kp_error_clear(&err);
	/* Neither a .py nor a directory. */
	assert_int_equal(kp_task_load(&t, p.buf, &err), KP_EINVAL);
	kp_error_clear(&err);
	/* A FIFO (no writer) as a task, or as its task.json: an error at once, not a wait (issue 21). The
	 * alarm fails the test instead of hanging it. */
	kp_buf_reset(&p);
	kp_path_join(&p, dir, "fifo.py");
	assert_int_equal(mkfifo(p.buf, 0600), 0);
	alarm(20);
	assert_int_equal(kp_task_load(&t, p.buf, &err), KP_EINVAL);
	assert_non_null(strstr(kp_error_msg(&err), "is not a regular file"));
	kp_error_clear(&err);
	kp_buf_reset(&p);
	kp_path_join(&p, dir, "task.json");
	unlink(p.buf);
	assert_int_equal(mkfifo(p.buf, 0600), 0);
	assert_int_equal(kp_task_load(&t, dir, &err), KP_EINVAL);
	assert_non_null(strstr(kp_error_msg(&err), "is not a regular file"));
	alarm(0);
	kp_buf_release(&p);
	kp_task_release(&t);
	kp_test_tmpdir_remove(dir);
}

static void test_to_json_golden(void **state)
{
	struct kp_task t;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf got = KP_BUF_INIT, want = KP_BUF_INIT;
	json_t *j;
	kp_task_init(&t);
	KP_ASSERT_OK(kp_task_load(&t, kp_test_path("examples/native/matmul"), &err), &err);
	j = kp_task_to_json(&t);
	/* Paths depend on the checkout: compare the rest. */
	json_object_del(j, "path");
	json_object_del(j, "reference");
	kp_json_dump_buf(j, &got, 0);
	kp_buf_addch(&got, '\n');
	if (getenv("KP_REGEN_GOLDEN"))
		kp_write_file_atomic(kp_test_path("tests/golden/task/matmul.json"), got.buf, got.len, NULL);
	kp_test_read("tests/golden/task/matmul.json", &want);
	assert_string_equal(got.buf, want.buf);
	json_decref(j);
	kp_buf_release(&got);
	kp_buf_release(&want);
	kp_task_release(&t);
}

/* The decisions that code outside lib/task once made by comparing kinds, now read from the rows:
 * each kind must keep deciding them as it did (tests/integration/t0006 refuses the comparisons). */
static void test_kind_rows(void **state)
{
	const struct kp_task_kind_info *kb = kp_task_kind_info(KP_TASK_KERNELBENCH),
	                               *nat = kp_task_kind_info(KP_TASK_NATIVE), *tr = kp_task_kind_info(KP_TASK_TRITON);
	/* the warm worker: KernelBench only (Triton evaluates cold unless asked) */
	assert_int_equal(kb->warm_worker, 1);
	assert_int_equal(nat->warm_worker, 0);
	assert_int_equal(tr->warm_worker, 0);
	/* torch.compile in a suite's baseline: KernelBench only */
	assert_int_equal(kb->compile_baseline, 1);
	assert_int_equal(nat->compile_baseline + tr->compile_baseline, 0);
	/* a native task's task.json is part of its identity and declares its tensors, FLOPs and bytes */
	assert_string_equal(nat->spec_file, "task.json");
	assert_null(kb->spec_file);
	assert_null(tr->spec_file);
	assert_int_equal(nat->spec_tensors, 1);
	assert_int_equal(kb->spec_tensors + tr->spec_tensors, 0);
	/* a native candidate must define kp_run before it is built */
	assert_string_equal(nat->entry_point, "kp_run");
	assert_non_null(strstr(nat->entry_missing, "kp_run"));
	assert_null(kb->entry_point);
	assert_null(tr->entry_point);
	/* energy: native only; KernelBench ids from the path: KernelBench only */
	assert_int_equal(nat->energy, 1);
	assert_int_equal(kb->energy + tr->energy, 0);
	assert_int_equal(kb->kernelbench_ids, 1);
	assert_int_equal(nat->kernelbench_ids + tr->kernelbench_ids, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_abi_numbers_match), cmocka_unit_test(test_dtypes),
		cmocka_unit_test(test_parse_full),	    cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_load_examples),	    cmocka_unit_test(test_load_kernelbench),
		cmocka_unit_test(test_load_errors),	    cmocka_unit_test(test_to_json_golden),
		cmocka_unit_test(test_kind_rows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
