/*
 * Unit tests: reactive orchestration's answerer — a tool request run on a saved profile directory
 * (one real H200 launch of a stride-33 copy), and the errors a model or a missing profile can cause,
 * phrased for the model.
 */
#include "base/setup.h"

#include <math.h>

#include "kp_test.h"
#include "kernelpro/fs.h"
#include "kernelpro/search_backends.h"

#define PROFILE_DIR "tests/integration/search/profile-strided"

struct fixture {
	struct kp_task task;
	struct kp_toolset *ts;
	struct kp_reactive *r;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct kp_toolset_opts to = {0};
	struct kp_reactive_opts ro = {0};
	struct kp_error err = KP_ERROR_INIT;

	kp_task_init(&f->task);
	f->task.min_bytes = NAN;
	f->task.flops = NAN;
	KP_ASSERT_OK(kp_toolset_open(&f->ts, &to, &err), &err);
	ro.toolset = f->ts;
	ro.task = &f->task;
	KP_ASSERT_OK(kp_reactive_new(&f->r, &ro, &err), &err);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	kp_reactive_free(f->r);
	kp_toolset_free(f->ts);
	kp_task_release(&f->task);
	free(f);
	return 0;
}

/* The profile summary an evaluation saves, pointing at `dir` (repo-relative). */
static void profile_json(const char *dir, struct kp_buf *out)
{
	kp_buf_reset(out);
	kp_buf_addf(out, "{\"dir\":\"%s\",\"launch\":{}}", kp_test_path(dir));
}

static void test_menu_lists_every_tool(void **state)
{
	struct fixture *f = *state;
	const char *m = kp_reactive_menu(f->r);
	assert_non_null(strstr(m, "- coalescing: "));
	assert_non_null(strstr(m, "- sol_gap: "));
	assert_non_null(strstr(m, "- launch_overhead: "));
	assert_int_not_equal(m[strlen(m) - 1], '\n');
}

static void test_tool_runs_on_saved_profile(void **state)
{
	struct fixture *f = *state;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf pj = KP_BUF_INIT, out = KP_BUF_INIT;

	profile_json(PROFILE_DIR, &pj);
	KP_ASSERT_OK(kp_reactive_call(f->r, pj.buf, "coalescing", &out, &err), &err);
	assert_non_null(strstr(out.buf, "Tool coalescing: fired"));
	assert_non_null(strstr(out.buf, "# Feedback for copy_strided"));
	assert_non_null(strstr(out.buf, "Uncoalesced global loads and stores"));
	/* Only the tool asked for ran. */
	assert_null(strstr(out.buf, "(vector_width)"));

	/* A tool with nothing to say says so. */
	kp_buf_reset(&out);
	KP_ASSERT_OK(kp_reactive_call(f->r, pj.buf, "atomics", &out, &err), &err);
	assert_non_null(strstr(out.buf, "Tool atomics: "));
	assert_null(strstr(out.buf, "Uncoalesced"));
	kp_buf_release(&pj);
	kp_buf_release(&out);
}

static void test_errors_are_phrased_for_the_model(void **state)
{
	struct fixture *f = *state;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf pj = KP_BUF_INIT, out = KP_BUF_INIT;
	char *tmp = kp_test_tmpdir();

	profile_json(PROFILE_DIR, &pj);
	assert_int_equal(kp_reactive_call(f->r, pj.buf, "no_such", &out, &err), KP_ENOENT);
	assert_non_null(strstr(kp_error_msg(&err), "no tool named 'no_such'"));

	kp_error_clear(&err);
	assert_int_equal(kp_reactive_call(f->r, NULL, "coalescing", &out, &err), KP_EMISSING);
	assert_non_null(strstr(kp_error_msg(&err), "this version has no saved profile"));

	kp_error_clear(&err);
	assert_int_equal(kp_reactive_call(f->r, "{\"dir\":\"p\",\"skipped\":\"no tools\"}", "coalescing", &out, &err),
			 KP_EMISSING);
	assert_non_null(strstr(kp_error_msg(&err), "was not profiled (no tools)"));

	kp_error_clear(&err);
	assert_int_equal(kp_reactive_call(f->r, "{\"launch\":{}}", "coalescing", &out, &err), KP_EMISSING);
	assert_non_null(strstr(kp_error_msg(&err), "names no directory"));

	kp_error_clear(&err);
	assert_int_equal(kp_reactive_call(f->r, "{not json", "coalescing", &out, &err), KP_EPARSE);

	kp_error_clear(&err);
	kp_buf_reset(&pj);
	kp_buf_addf(&pj, "{\"dir\":\"%s\"}", tmp);
	assert_int_equal(kp_reactive_call(f->r, pj.buf, "coalescing", &out, &err), KP_EMISSING);
	assert_non_null(strstr(kp_error_msg(&err), "holds no ncu_raw.csv"));
	assert_int_equal(out.len, 0);

	kp_test_tmpdir_remove(tmp);
	kp_buf_release(&pj);
	kp_buf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_menu_lists_every_tool),
		cmocka_unit_test(test_tool_runs_on_saved_profile),
		cmocka_unit_test(test_errors_are_phrased_for_the_model),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
