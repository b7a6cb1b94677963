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

void kp_test_golden(const char *rel, const char *actual)
{
	struct kp_buf want = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	const char *regen = getenv("KP_REGEN_GOLDEN");
	const char *a, *w;
	int line = 1;
	if (regen && *regen == '1') {
		KP_ASSERT_OK(kp_write_file_atomic(kp_test_path(rel), actual, strlen(actual), &err), &err);
		return;
	}
	if (kp_read_file(kp_test_path(rel), 0, &want, &err))
		fail_msg("golden file %s: %s (create it with KP_REGEN_GOLDEN=1)", rel, kp_error_msg(&err));
	for (a = actual, w = want.buf; *a && *a == *w; a++, w++)
		if (*a == '\n')
			line++;
	if (*a || *w) {
		const char *ae = strchr(a, '\n'), *we = strchr(w, '\n');
		while (a > actual && a[-1] != '\n')
			a--;
		while (w > want.buf && w[-1] != '\n')
			w--;
		fail_msg("%s:%d differs (regenerate with KP_REGEN_GOLDEN=1 and review the diff)\n  want: %.*s\n  got:  %.*s",
			 rel, line, we ? (int)(we - w) : (int)strlen(w), w, ae ? (int)(ae - a) : (int)strlen(a), a);
	}
	kp_buf_release(&want);
}

int kp_test_pid_alive(long pid)
{
	struct kp_buf b = KP_BUF_INIT;
	char path[64];
	const char *p;
	int live = 0;
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (kp_read_file(path, 0, &b, NULL) == 0) {
		p = strrchr(b.buf, ')');
		live = p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
	}
	kp_buf_release(&b);
	return live;
}
