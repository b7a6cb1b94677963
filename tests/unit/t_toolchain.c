/* Unit tests: kp_cuda_tool finds a CUDA program in $CUDA_HOME/bin first, then /usr/local/cuda/bin, then PATH. */
#include "base/setup.h"

#include <sys/stat.h>
#include <unistd.h>

#include "kp_test.h"
#include "kernelpro/fs.h"
#include "kernelpro/toolchain.h"

/* An executable script at dir/bin/name; returns its path (allocated). */
static char *make_tool(const char *dir, const char *name)
{
	struct kp_buf p = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	kp_buf_addf(&p, "%s/bin", dir);
	KP_ASSERT_OK(kp_mkdir_p(p.buf, 0755, &err), &err);
	kp_buf_addf(&p, "/%s", name);
	KP_ASSERT_OK(kp_write_file_atomic(p.buf, "#!/bin/sh\n", 10, &err), &err);
	assert_int_equal(chmod(p.buf, 0755), 0);
	return kp_buf_detach(&p, NULL);
}

static void test_cuda_home_first(void **state)
{
	char *dir = kp_test_tmpdir(), *tool = make_tool(dir, "kp-test-nvcc"), *got;
	char *old_home = getenv("CUDA_HOME") ? kp_xstrdup(getenv("CUDA_HOME")) : NULL;
	char *old_path = kp_xstrdup(getenv("PATH") ? getenv("PATH") : "");
	struct kp_buf path = KP_BUF_INIT;

	/* On PATH and in $CUDA_HOME/bin: CUDA_HOME wins, as it does in the build. */
	kp_buf_addf(&path, "%s/bin:%s", dir, old_path);
	setenv("PATH", path.buf, 1);
	setenv("CUDA_HOME", dir, 1);
	got = kp_cuda_tool("kp-test-nvcc");
	assert_non_null(got);
	assert_string_equal(got, tool);
	free(got);

	/* A CUDA_HOME without the program falls through to PATH (the name is not in /usr/local/cuda). */
	setenv("CUDA_HOME", "/nonexistent-cuda", 1);
	got = kp_cuda_tool("kp-test-nvcc");
	assert_non_null(got);
	assert_string_equal(got, tool);
	free(got);

	/* Nowhere: NULL, not a guess. */
	setenv("PATH", "/nonexistent-bin", 1);
	assert_null(kp_cuda_tool("kp-test-nvcc"));

	setenv("PATH", old_path, 1);
	if (old_home)
		setenv("CUDA_HOME", old_home, 1);
	else
		unsetenv("CUDA_HOME");
	free(old_home);
	free(old_path);
	free(tool);
	kp_buf_release(&path);
	kp_test_tmpdir_remove(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cuda_home_first),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
