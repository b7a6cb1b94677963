/* Unit tests: the reference's evaluation cached across runs (lib/adapters/refcache.c): no key without
 * the task's identity and GPU, a key for everything that changes the measurement, a whole entry kept
 * and read back into another run's profile directory, a miss for another key; the key's lock held by one
 * process at a time. */
#include "base/setup.h"

#include <math.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kp_test.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "adapters/refcache.h"

static void opts(struct kp_harness_opts *o)
{
	memset(o, 0, sizeof(*o));
	kp_eval_opts_init(&o->eval);
	o->task_sha256 = "0f0f";
	o->gpu_name = "NVIDIA H200";
}

static void test_key(void **state)
{
	struct kp_harness_opts o;
	struct kp_strvec m = KP_STRVEC_INIT;
	char a[65], b[65];

	opts(&o);
	o.task_sha256 = NULL;
	kp_refcache_key(&o, NULL, a);
	assert_string_equal(a, ""); /* no identity: not cached */
	opts(&o);
	o.gpu_name = "";
	kp_refcache_key(&o, NULL, a);
	assert_string_equal(a, "");
	opts(&o);
	kp_refcache_key(&o, NULL, a);
	assert_int_equal(strlen(a), 64);
	kp_refcache_key(&o, NULL, b);
	assert_string_equal(a, b); /* by content: the same again */
	o.gpu_name = "NVIDIA H100";
	kp_refcache_key(&o, NULL, b);
	assert_string_not_equal(a, b);
	opts(&o);
	o.task_sha256 = "0f0e";
	kp_refcache_key(&o, NULL, b);
	assert_string_not_equal(a, b);
	opts(&o);
	o.eval.timing_trials = 7;
	kp_refcache_key(&o, NULL, b);
	assert_string_not_equal(a, b);
	opts(&o);
	kp_strvec_push(&m, "dram__bytes.sum");
	kp_refcache_key(&o, &m, b);
	assert_string_not_equal(a, b); /* another collection set: another profile */
	kp_strvec_release(&m);
}

static void test_store_and_load(void **state)
{
	char *cache = kp_test_tmpdir(), *run1 = kp_test_tmpdir(), *run2 = kp_test_tmpdir();
	struct kp_harness_opts o;
	struct kp_search_eval res, got;
	struct kp_buf p = KP_BUF_INIT, text = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	json_t *pj;
	char key[65];
	double floor_s = NAN;

	setenv("XDG_CACHE_HOME", cache, 1);
	opts(&o);
	kp_refcache_key(&o, NULL, key);
	kp_search_eval_init(&got);
	assert_int_equal(kp_refcache_load(key, run2, &got, &floor_s), KP_EMISSING);
	kp_buf_addf(&p, "%s/reference", run1);
	KP_ASSERT_OK(kp_mkdir_p(p.buf, 0755, &err), &err);
	kp_buf_adds(&p, "/raw.csv");
	KP_ASSERT_OK(kp_write_file_atomic(p.buf, "\"ID\",\"Kernel Name\"\n", 19, &err), &err);
	kp_search_eval_init(&res);
	res.outcome = KP_OUTCOME_CORRECT;
	res.time_ms = 3.25;
	res.time_std_ms = 0.01;
	res.ref_time_ms = 3.25;
	res.stage1 = kp_xstrdup("memory-bound");
	res.feedback = kp_xstrdup("coalescing: fine");
	res.profile_json = kp_xasprintf("{\"dir\": \"%s/reference\", \"floor_time_s\": 0.0021}", run1);
	kp_refcache_store(key, run1, &res, 0.0021);

	assert_int_equal(kp_refcache_load(key, run2, &got, &floor_s), 0);
	assert_int_equal(got.outcome, KP_OUTCOME_CORRECT);
	assert_true(got.time_ms == 3.25 && got.speedup == 1.0 && floor_s == 0.0021);
	assert_string_equal(got.stage1, "memory-bound");
	assert_string_equal(got.feedback, "coalescing: fine");
	KP_ASSERT_OK(kp_json_load_mem("profile", got.profile_json, strlen(got.profile_json), &pj, &err), &err);
	kp_buf_reset(&p);
	kp_buf_addf(&p, "%s/reference", run2);
	assert_string_equal(kp_json_str(pj, "dir", ""), p.buf); /* the new run's copy */
	json_decref(pj);
	kp_buf_adds(&p, "/raw.csv");
	KP_ASSERT_OK(kp_read_file(p.buf, 1 << 20, &text, &err), &err);
	assert_string_equal(text.buf, "\"ID\",\"Kernel Name\"\n");

	/* Another key misses; an incorrect result is never kept. */
	o.eval.seed = 7;
	kp_refcache_key(&o, NULL, key);
	kp_search_eval_release(&got);
	kp_search_eval_init(&got);
	assert_int_equal(kp_refcache_load(key, run2, &got, &floor_s), KP_EMISSING);
	res.outcome = KP_OUTCOME_WRONG_OUTPUT;
	kp_refcache_store(key, run1, &res, 0.0021);
	assert_int_equal(kp_refcache_load(key, run2, &got, &floor_s), KP_EMISSING);

	kp_search_eval_release(&res);
	kp_search_eval_release(&got);
	kp_buf_release(&p);
	kp_buf_release(&text);
	unsetenv("XDG_CACHE_HOME");
	kp_test_tmpdir_remove(cache);
	kp_test_tmpdir_remove(run1);
	kp_test_tmpdir_remove(run2);
}

/* A child holds the key's lock until the parent writes to it; the parent's try fails meanwhile and its
 * blocking lock succeeds once the child has let go. No key, no lock. */
static void test_lock(void **state)
{
	char *cache = kp_test_tmpdir();
	int go[2], ready[2], fd, probe;
	char c = 0, key[] = "00ff";
	pid_t pid;
	struct kp_buf path = KP_BUF_INIT;

	(void)state;
	setenv("XDG_CACHE_HOME", cache, 1);
	assert_int_equal(kp_refcache_lock(""), -1);
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(ready), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int held = kp_refcache_lock(key);
		if (held < 0 || write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(1);
		kp_refcache_unlock(held);
		_exit(0);
	}
	assert_int_equal(read(ready[0], &c, 1), 1);
	kp_buf_addf(&path, "%s/kernelpro/references/%s.lock", cache, key);
	probe = open(path.buf, O_RDWR);
	assert_true(probe >= 0);
	assert_int_equal(flock(probe, LOCK_EX | LOCK_NB), -1); /* the child holds it */
	assert_int_equal(write(go[1], "g", 1), 1);
	fd = kp_refcache_lock(key); /* blocks until the child has let go */
	assert_true(fd >= 0);
	kp_refcache_unlock(fd);
	{
		int status = 0;
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	close(probe);
	close(go[0]);
	close(go[1]);
	close(ready[0]);
	close(ready[1]);
	kp_buf_release(&path);
	unsetenv("XDG_CACHE_HOME");
	kp_test_tmpdir_remove(cache);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key),
		cmocka_unit_test(test_store_and_load),
		cmocka_unit_test(test_lock),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
