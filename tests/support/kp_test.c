/* Helpers shared by the unit tests. */
#include "base/setup.h"

#include "kp_test.h"
#include "kernelpro/fs.h"

const char *kp_test_path(const char *rel)
{
	static char path[4096];
	const char *root = getenv("KP_ROOT");
	snprintf(path, sizeof(path), "%s/%s", root && *root ? root : ".", rel);
	return path;
}

char *kp_test_tmpdir(void)
{
	struct kp_buf b = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	KP_ASSERT_OK(kp_mkdtemp("kp-test", &b, &err), &err);
	return kp_buf_detach(&b, NULL);
}

void kp_test_tmpdir_remove(char *dir)
{
	if (dir)
		kp_rm_rf(dir, NULL);
	free(dir);
}

void kp_test_read(const char *rel, struct kp_buf *b)
{
	struct kp_error err = KP_ERROR_INIT;
	KP_ASSERT_OK(kp_read_file(kp_test_path(rel), 0, b, &err), &err);
}
