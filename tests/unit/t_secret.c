/* Unit tests: kp_secret holds keys out of the environment and /proc/self/environ, and scrubs output. */
#include "base/setup.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kp_test.h"
#include "kernelpro/child.h"
#include "kernelpro/fs.h"
#include "kernelpro/secret.h"

#define KEY "sk-unit-held-0f1e2d3c4b5a69788HELD"

/* /proc/self/environ, NULs as newlines. */
static void read_proc_environ(struct kp_buf *b)
{
	int fd = open("/proc/self/environ", O_RDONLY | O_CLOEXEC);
	char chunk[4096];
	ssize_t n;
	assert_true(fd >= 0);
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		kp_buf_add(b, chunk, (size_t)n);
	close(fd);
	for (size_t i = 0; i < b->len; i++)
		if (!b->buf[i])
			b->buf[i] = '\n';
}

/*
 * Run in a fresh process started with the key in its initial environment (the kernel's copy, the one
 * /proc shows): it must be gone from /proc/self/environ and getenv, kept for kp_secret_getenv and for a
 * child inheriting everything, withheld from any other child, and scrubbed from a written file.
 */
static int held_checks(const char *dir)
{
	struct kp_buf b = KP_BUF_INIT;
	struct kp_child c = KP_CHILD_INIT, all = KP_CHILD_INIT;
	char *path = kp_xasprintf("%s/out.txt", dir);
	const char *text = "before " KEY " after";
	int bad = 0;

	kp_secret_hold_env();
	read_proc_environ(&b);
	bad |= strstr(b.buf, KEY) != NULL;              /* 1: /proc/self/environ */
	bad |= (getenv("OPENAI_API_KEY") != NULL) << 1; /* 2: getenv */
	bad |= (!kp_secret_getenv("OPENAI_API_KEY") || strcmp(kp_secret_getenv("OPENAI_API_KEY"), KEY)) << 2;
	kp_strvec_pushl(&c.args, "sh", "-c", "echo \"[$OPENAI_API_KEY]\"", NULL);
	kp_child_run(&c, NULL);
	bad |= (strcmp(c.out.buf, "[]\n") != 0) << 3; /* 8: a child never sees it */
	kp_strvec_pushl(&all.args, "sh", "-c", "echo \"[$OPENAI_API_KEY]\"", NULL);
	all.inherit_env = 1;
	kp_child_run(&all, NULL);
	bad |= (strcmp(all.out.buf, "[" KEY "]\n") != 0) << 4; /* 16: the user's own command does */
	kp_write_file_atomic(path, text, strlen(text), NULL);
	kp_buf_reset(&b);
	kp_read_file(path, 0, &b, NULL);
	bad |= (strcmp(b.buf, "before [redacted] after") != 0) << 5; /* 32: no key in a file */
	kp_child_release(&c);
	kp_child_release(&all);
	kp_buf_release(&b);
	free(path);
	return bad;
}

static void test_hold_env(void **state)
{
#ifdef __linux__
	char *dir = kp_test_tmpdir();
	int status = 0;
	pid_t pid;
	(void)state;
	if (getenv("KP_SECRET_CHILD")) {
		_exit(held_checks(getenv("KP_SECRET_CHILD")));
	}
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* A new image, so the key is in the kernel's copy of the environment as at any program start.
		 */
		char self[4096];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		char *env_dir = kp_xasprintf("KP_SECRET_CHILD=%s", dir);
		char *const argv[] = {self, NULL};
		char *const envp[] = {"OPENAI_API_KEY=" KEY, env_dir, "PATH=/usr/bin:/bin", NULL};
		if (n <= 0)
			_exit(100);
		self[n] = '\0';
		execve(self, argv, envp);
		_exit(101);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	kp_test_tmpdir_remove(dir);
#else
	skip();
#endif
}

static void test_scrub(void **state)
{
	size_t len = 0;
	char *s;
	(void)state;
	kp_secret_add("short"); /* too short to be a key: ignored */
	assert_null(kp_secret_scrub("a short word", 12, NULL));
	kp_secret_add("sk-unit-scrub-112233445566");
	assert_null(kp_secret_scrub("nothing here", 12, NULL));
	s = kp_secret_scrub("x sk-unit-scrub-112233445566 y sk-unit-scrub-112233445566", 57, &len);
	assert_non_null(s);
	assert_string_equal(s, "x [redacted] y [redacted]");
	assert_int_equal(len, strlen(s));
	free(s);
	assert_true(kp_secret_name("OPENAI_API_KEY", 14));
	assert_true(kp_secret_name("hf_token", 8));
	assert_false(kp_secret_name("PATH", 4));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hold_env),
	    cmocka_unit_test(test_scrub),
	};
	if (getenv("KP_SECRET_CHILD"))
		test_hold_env(NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
