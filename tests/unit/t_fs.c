/* Unit tests: mkdir -p, atomic writes (old file survives a failed write), capped reads, temp dirs. */
#include "base/setup.h"

#include <dirent.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kp_test.h"
#include "kernelpro/fs.h"

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;
	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	if (d)
		closedir(d);
	return n;
}

/* kp_dir_setting: the option, else the variable when set and not empty, else the default. */
static void test_dir_setting(void **state)
{
	(void)state;
	unsetenv("KP_TEST_DIR_SETTING");
	assert_string_equal(kp_dir_setting(NULL, "KP_TEST_DIR_SETTING", "dflt"), "dflt");
	setenv("KP_TEST_DIR_SETTING", "", 1);
	assert_string_equal(kp_dir_setting(NULL, "KP_TEST_DIR_SETTING", "dflt"), "dflt");
	setenv("KP_TEST_DIR_SETTING", "from-env", 1);
	assert_string_equal(kp_dir_setting(NULL, "KP_TEST_DIR_SETTING", "dflt"), "from-env");
	assert_string_equal(kp_dir_setting("given", "KP_TEST_DIR_SETTING", "dflt"), "given");
	unsetenv("KP_TEST_DIR_SETTING");
}

static void test_mkdir_p(void **state)
{
	char *dir = kp_test_tmpdir();
	struct kp_buf p = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	kp_buf_addf(&p, "%s/a/b/c", dir);
	KP_ASSERT_OK(kp_mkdir_p(p.buf, 0755, &err), &err);
	assert_true(kp_path_is_dir(p.buf));
	KP_ASSERT_OK(kp_mkdir_p(p.buf, 0755, &err), &err); /* existing is fine */
	kp_buf_adds(&p, "/f");
	KP_ASSERT_OK(kp_write_file_atomic(p.buf, "x", 1, &err), &err);
	assert_int_equal(kp_mkdir_p(p.buf, 0755, &err), KP_EIO); /* a file in the way */
	kp_buf_release(&p);
	kp_test_tmpdir_remove(dir);
}

static void test_atomic_write_and_read(void **state)
{
	char *dir = kp_test_tmpdir();
	struct kp_buf p = KP_BUF_INIT, b = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	kp_buf_addf(&p, "%s/file.txt", dir);
	KP_ASSERT_OK(kp_write_file_atomic(p.buf, "first", 5, &err), &err);
	KP_ASSERT_OK(kp_write_file_atomic(p.buf, "second", 6, &err), &err);
	KP_ASSERT_OK(kp_read_file(p.buf, 0, &b, &err), &err);
	assert_string_equal(b.buf, "second");
	assert_int_equal(count_entries(dir), 1); /* no temp files left */

	kp_buf_reset(&b);
	assert_int_equal(kp_read_file(p.buf, 3, &b, &err), KP_ETOOBIG);
	assert_non_null(strstr(kp_error_msg(&err), "file.txt"));
	assert_int_equal(b.len, 0);
	kp_error_clear(&err);
	assert_int_equal(kp_read_file("/nonexistent/x", 0, &b, &err), KP_ENOENT);
	kp_buf_release(&p);
	kp_buf_release(&b);
	kp_test_tmpdir_remove(dir);
}

/* A write that fails half-way (file-size limit) must leave the old file and no temporary behind. */
static void test_atomic_write_failure_keeps_old(void **state)
{
	char *dir = kp_test_tmpdir();
	struct kp_buf p = KP_BUF_INIT, b = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	int status = 0;
	pid_t pid;
	kp_buf_addf(&p, "%s/keep.json", dir);
	KP_ASSERT_OK(kp_write_file_atomic(p.buf, "{\"old\":1}", 9, &err), &err);

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit rl = {4096, 4096};
		size_t n = 1 << 20;
		char *big = calloc(1, n);
		signal(SIGXFSZ, SIG_IGN);
		setrlimit(RLIMIT_FSIZE, &rl);
		_exit(kp_write_file_atomic(p.buf, big, n, NULL) == KP_EIO ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	KP_ASSERT_OK(kp_read_file(p.buf, 0, &b, &err), &err);
	assert_string_equal(b.buf, "{\"old\":1}");
	assert_int_equal(count_entries(dir), 1);

	/* A directory we cannot write to: the error names the file. */
	if (geteuid() != 0) {
		struct kp_buf q = KP_BUF_INIT;
		kp_buf_addf(&q, "%s/ro", dir);
		mkdir(q.buf, 0555);
		kp_buf_adds(&q, "/f");
		assert_int_equal(kp_write_file_atomic(q.buf, "x", 1, &err), KP_EIO);
		kp_buf_release(&q);
	}
	kp_buf_release(&p);
	kp_buf_release(&b);
	kp_test_tmpdir_remove(dir);
}

static void test_rm_rf_and_paths(void **state)
{
	char *dir = kp_test_tmpdir();
	struct kp_buf p = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	kp_buf_addf(&p, "%s/x/y", dir);
	KP_ASSERT_OK(kp_mkdir_p(p.buf, 0755, &err), &err);
	kp_buf_adds(&p, "/z");
	KP_ASSERT_OK(kp_write_file_atomic(p.buf, "1", 1, &err), &err);
	kp_buf_reset(&p);
	kp_buf_addf(&p, "%s/link", dir);
	assert_int_equal(symlink("/etc", p.buf), 0); /* must be unlinked, not followed */
	KP_ASSERT_OK(kp_rm_rf(dir, &err), &err);
	assert_false(kp_path_exists(dir));
	assert_true(kp_path_is_dir("/etc"));
	KP_ASSERT_OK(kp_rm_rf(dir, &err), &err); /* missing is fine */

	kp_buf_reset(&p);
	kp_path_join(&p, "a/", "/b");
	assert_string_equal(p.buf, "a/b");
	kp_buf_reset(&p);
	kp_path_join(&p, "/", "b");
	assert_string_equal(p.buf, "/b");
	kp_buf_reset(&p);
	setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
	KP_ASSERT_OK(kp_cache_dir(&p, &err), &err);
	assert_string_equal(p.buf, "/tmp/xdg/kernelpro");
	kp_buf_release(&p);
	free(dir);
}

static void test_find_data(void **state)
{
	char *p;
	setenv("KERNELPRO_HOME", getenv("KP_ROOT") ? getenv("KP_ROOT") : ".", 1);
	p = kp_find_data("Makefile");
	assert_non_null(p);
	free(p);
	assert_null(kp_find_data("no/such/file.txt"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dir_setting),
		cmocka_unit_test(test_mkdir_p),
		cmocka_unit_test(test_atomic_write_and_read),
		cmocka_unit_test(test_atomic_write_failure_keeps_old),
		cmocka_unit_test(test_rm_rf_and_paths),
		cmocka_unit_test(test_find_data),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
