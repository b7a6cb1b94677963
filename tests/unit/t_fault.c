/*
 * Unit tests: fault injection — the plan's syntax and errors, the Nth (and N+) operation failing,
 * and the hooks at the boundaries: a file write, a child spawn, a run-database write and commit.
 */
#include "base/setup.h"

#include "kp_test.h"
#include "kernelpro/child.h"
#include "kernelpro/fault.h"
#include "kernelpro/fs.h"
#include "kernelpro/store.h"

static int teardown(void **state)
{
	struct kp_error err = KP_ERROR_INIT;
	KP_ASSERT_OK(kp_fault_plan(NULL, &err), &err); /* no faults for the next test */
	return 0;
}

static void test_plan_syntax(void **state)
{
	struct kp_error err = KP_ERROR_INIT;

	KP_ASSERT_OK(kp_fault_plan("spawn:3,http:1+,,sqlite-write:5,file-write:2", &err), &err);
	KP_ASSERT_OK(kp_fault_plan("", &err), &err);
	assert_int_equal(kp_fault_plan("spawn", &err), KP_EINVAL);
	assert_non_null(strstr(kp_error_msg(&err), "KIND:N"));
	kp_error_clear(&err);
	assert_int_equal(kp_fault_plan("disk:1", &err), KP_EINVAL);
	assert_non_null(strstr(kp_error_msg(&err), "unknown kind 'disk'"));
	kp_error_clear(&err);
	assert_int_equal(kp_fault_plan("http:0", &err), KP_EINVAL);
	kp_error_clear(&err);
	assert_int_equal(kp_fault_plan("http:x+", &err), KP_EINVAL);
	assert_string_equal(kp_fault_kind_name(KP_FAULT_SQLITE_WRITE), "sqlite-write");
}

static void test_nth_and_after(void **state)
{
	struct kp_error err = KP_ERROR_INIT;
	int hits[6];

	KP_ASSERT_OK(kp_fault_plan("spawn:3,http:2+", &err), &err);
	for (int i = 0; i < 6; i++)
		hits[i] = kp_fault_hit(KP_FAULT_SPAWN);
	assert_true(!hits[0] && !hits[1] && hits[2] && !hits[3] && !hits[4] && !hits[5]);
	for (int i = 0; i < 6; i++)
		hits[i] = kp_fault_hit(KP_FAULT_HTTP);
	assert_true(!hits[0] && hits[1] && hits[2] && hits[3] && hits[4] && hits[5]);
	/* Kinds the plan leaves out never fail; a new plan starts the counts again. */
	assert_int_equal(kp_fault(KP_FAULT_FILE_WRITE, "x", &err), 0);
	KP_ASSERT_OK(kp_fault_plan("file-write:1", &err), &err);
	assert_int_equal(kp_fault(KP_FAULT_FILE_WRITE, "out.json", &err), KP_EIO);
	assert_non_null(strstr(kp_error_msg(&err), "injected fault: file-write #1 (KP_FAULT): out.json"));
}

static void test_hooks(void **state)
{
	char *dir = kp_test_tmpdir();
	char path[600];
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf old = KP_BUF_INIT;
	struct kp_child c = KP_CHILD_INIT;
	struct kp_store *s = NULL;

	/* The second write fails before touching anything: the first file's content stays. */
	snprintf(path, sizeof(path), "%s/f.txt", dir);
	KP_ASSERT_OK(kp_fault_plan("file-write:2", &err), &err);
	KP_ASSERT_OK(kp_write_file_atomic(path, "one", 3, &err), &err);
	assert_int_equal(kp_write_file_atomic(path, "two", 3, &err), KP_EIO);
	KP_ASSERT_OK(kp_read_file(path, 0, &old, &err), &err);
	assert_string_equal(old.buf, "one");
	/* A spawn fails as a child that could not start. */
	kp_error_clear(&err);
	KP_ASSERT_OK(kp_fault_plan("spawn:1", &err), &err);
	kp_strvec_push(&c.args, "true");
	assert_int_equal(kp_child_run(&c, &err), KP_ECHILD);
	assert_non_null(strstr(kp_error_msg(&err), "spawn #1"));
	kp_error_clear(&err);
	KP_ASSERT_OK(kp_child_run(&c, &err), &err);
	/* A write inside a transaction fails and rolls back; the commit itself can fail too. */
	snprintf(path, sizeof(path), "%s/run.db", dir);
	KP_ASSERT_OK(kp_store_open(&s, path, KP_STORE_CREATE, &err), &err);
	KP_ASSERT_OK(kp_fault_plan("sqlite-write:2", &err), &err);
	KP_ASSERT_OK(kp_store_begin(s, &err), &err);
	KP_ASSERT_OK(kp_store_meta_set(s, "a", "1", &err), &err);
	assert_int_equal(kp_store_meta_set(s, "b", "2", &err), KP_EDB);
	kp_store_rollback(s);
	kp_buf_reset(&old);
	kp_error_clear(&err);
	assert_int_equal(kp_store_meta_get(s, "a", &old, &err), KP_ENOENT);
	kp_error_clear(&err);
	KP_ASSERT_OK(kp_fault_plan("sqlite-write:2", &err), &err);
	KP_ASSERT_OK(kp_store_begin(s, &err), &err);
	KP_ASSERT_OK(kp_store_meta_set(s, "a", "1", &err), &err);
	assert_int_equal(kp_store_commit(s, &err), KP_EDB);
	kp_error_clear(&err);
	assert_int_equal(kp_store_meta_get(s, "a", &old, &err), KP_ENOENT);
	KP_ASSERT_OK(kp_store_check(s, &err), &err);
	kp_store_close(s);
	kp_child_release(&c);
	kp_buf_release(&old);
	kp_test_tmpdir_remove(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_plan_syntax, teardown),
	    cmocka_unit_test_teardown(test_nth_and_after, teardown),
	    cmocka_unit_test_teardown(test_hooks, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
