/*
 * Unit tests: the file cache of tuning results (lib/tune/fcache.c): its reader against a golden file of
 * good and broken lines, results written by one cache seen by the next with the same context and GPU
 * only, the last result for a key winning, the space hash checked before it becomes a file name, an
 * oversized file refused with what to do, and a tuning run answered wholly from the cache the second time.
 * Also the knob overrides (kp_tune_set_values) that give a space other values.
 */
#include "base/setup.h"

#include <fcntl.h>
#include <math.h>
#include <unistd.h>

#include "kp_test.h"
#include "kernelpro/fs.h"
#include "kernelpro/tune.h"

static void print_line(void *ctx, const struct kp_tune_fcache_line *l)
{
	struct kp_buf *b = ctx;
	kp_buf_addf(b, "ctx=%s gpu=%s point=%s status=%s seconds=%g\n", l->context, l->gpu, l->point,
	            kp_tune_status_name(l->m.status), l->m.seconds);
}

static void test_parse_golden(void **state)
{
	struct kp_buf text = KP_BUF_INIT, out = KP_BUF_INIT;
	size_t bad;
	kp_test_read("tests/golden/tune/cache.jsonl", &text);
	bad = kp_tune_fcache_parse(text.buf, text.len, print_line, &out);
	kp_buf_addf(&out, "skipped: %zu\n", bad);
	kp_test_golden("tests/golden/tune/expected/cache.txt", out.buf);
	kp_buf_release(&text);
	kp_buf_release(&out);
}

static const char hash_a[] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

static int get(struct kp_tune_fcache *c, const char *gpu, const char *point, struct kp_tune_measure *m)
{
	struct kp_tune_cache iface = kp_tune_fcache_iface(c);
	struct kp_tune_key k = {.source = hash_a, .point = point, .gpu = gpu};
	struct kp_error err = KP_ERROR_INIT;
	int rc = iface.get(iface.ctx, &k, m, &err);
	assert_true(rc >= 0);
	return rc;
}

static void put(struct kp_tune_fcache *c, const char *gpu, const char *point, enum kp_tune_status st,
                double s)
{
	struct kp_tune_cache iface = kp_tune_fcache_iface(c);
	struct kp_tune_key k = {.source = hash_a, .point = point, .gpu = gpu};
	struct kp_tune_measure m = {st, s};
	struct kp_error err = KP_ERROR_INIT;
	KP_ASSERT_OK(iface.put(iface.ctx, &k, &m, &err), &err);
}

static void test_round_trip(void **state)
{
	char *dir = kp_test_tmpdir();
	struct kp_buf sub = KP_BUF_INIT;
	struct kp_tune_fcache *a, *b, *other;
	struct kp_tune_measure m;
	struct kp_error err = KP_ERROR_INIT;

	kp_buf_addf(&sub, "%s/not/yet", dir);
	KP_ASSERT_OK(kp_tune_fcache_open(&a, sub.buf, "ctx-1", &err), &err);
	assert_int_equal(get(a, "NVIDIA H200", "B=1", &m), 0); /* no directory yet: a miss */
	put(a, "NVIDIA H200", "B=1", KP_TUNE_OK, 2e-5);
	put(a, "NVIDIA H200", "B=2", KP_TUNE_WRONG, 0);
	put(a, "NVIDIA H100", "B=1", KP_TUNE_OK, 3e-5);
	put(a, "NVIDIA H200", "B=1", KP_TUNE_OK, 1.5e-5); /* a later result for the same key wins */
	assert_int_equal(get(a, "NVIDIA H200", "B=1", &m), 1);
	assert_true(m.status == KP_TUNE_OK && m.seconds == 1.5e-5);

	KP_ASSERT_OK(kp_tune_fcache_open(&b, sub.buf, "ctx-1", &err), &err);
	KP_ASSERT_OK(kp_tune_fcache_open(&other, sub.buf, "ctx-2", &err), &err);
	assert_int_equal(get(b, "NVIDIA H200", "B=1", &m), 1);
	assert_true(m.status == KP_TUNE_OK && m.seconds == 1.5e-5);
	assert_int_equal(get(b, "NVIDIA H200", "B=2", &m), 1);
	assert_int_equal(m.status, KP_TUNE_WRONG);
	assert_int_equal(get(b, "NVIDIA H100", "B=1", &m), 1);
	assert_true(m.seconds == 3e-5);
	assert_int_equal(get(b, "NVIDIA H100", "B=2", &m), 0);
	assert_int_equal(get(other, "NVIDIA H200", "B=1", &m), 0); /* another protocol or task */

	/* Many keys: the table grows. */
	for (int i = 0; i < 300; i++) {
		char p[32];
		snprintf(p, sizeof(p), "B=%d", 1000 + i);
		put(b, "NVIDIA H200", p, KP_TUNE_OK, 1e-6 * (i + 1));
	}
	assert_int_equal(get(b, "NVIDIA H200", "B=1299", &m), 1);
	assert_true(m.seconds == 1e-6 * 300);

	kp_tune_fcache_free(a);
	kp_tune_fcache_free(b);
	kp_tune_fcache_free(other);
	kp_buf_release(&sub);
	kp_test_tmpdir_remove(dir);
}

static void test_errors(void **state)
{
	char *dir = kp_test_tmpdir();
	struct kp_tune_fcache *c;
	struct kp_tune_cache iface;
	struct kp_tune_measure m;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf path = KP_BUF_INIT;
	struct kp_tune_key bad = {.source = "../../etc/passwd", .point = "B=1", .gpu = "g"};
	struct kp_tune_key big = {.source = hash_a, .point = "B=1", .gpu = "g"};
	int fd;

	assert_int_equal(kp_tune_fcache_open(&c, "", "x", &err), KP_EINVAL);
	kp_error_clear(&err);
	KP_ASSERT_OK(kp_tune_fcache_open(&c, dir, "x", &err), &err);
	iface = kp_tune_fcache_iface(c);
	assert_int_equal(iface.get(iface.ctx, &bad, &m, &err), KP_EINVAL);
	assert_non_null(strstr(kp_error_msg(&err), "is not a space hash"));

	kp_buf_addf(&path, "%s/%s.jsonl", dir, hash_a);
	fd = open(path.buf, O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)KP_TUNE_FCACHE_FILE_MAX + 1), 0); /* sparse: no disk used */
	close(fd);
	kp_error_clear(&err);
	assert_int_equal(iface.get(iface.ctx, &big, &m, &err), KP_ETOOBIG);
	assert_non_null(strstr(kp_error_msg(&err), "MiB: delete it"));

	kp_tune_fcache_free(c);
	kp_buf_release(&path);
	kp_test_tmpdir_remove(dir);
}

/* A run through the cache, then the same run answered from it without one evaluation. */
static int count_eval(void *ctx, const struct kp_tune_space *s, const struct kp_tune_point *p, size_t n,
                      struct kp_tune_measure *out, struct kp_error *err)
{
	long *calls = ctx;
	for (size_t i = 0; i < n; i++) {
		long long b = kp_tune_knob_at(s, 0)->values[p[i].v[0]];
		out[i] = (struct kp_tune_measure){b == 64 ? KP_TUNE_REFUSED : KP_TUNE_OK,
		                                  b == 64 ? 0 : 1e-6 * (double)b};
		(*calls)++;
	}
	return 0;
}

static struct kp_tune_space *space_of(const char *src)
{
	struct kp_tune_space *s;
	struct kp_tune_env env;
	struct kp_error err = KP_ERROR_INIT;
	KP_ASSERT_OK(kp_tune_parse(&s, "c.cu", src, strlen(src), KP_TUNE_CUDA, KP_TUNE_DERIVE_AUTO, &err),
	             &err);
	kp_tune_env_init(&env);
	kp_tune_env_add_hw(&env, kp_hw_spec_find("h200-sxm"));
	KP_ASSERT_OK(kp_tune_bind(s, &env, &err), &err);
	return s;
}

static void test_run_from_cache(void **state)
{
	static const char src[] = "int b = KP_TUNE(BLOCK, 256, 64, 128, 512);\n";
	char *dir = kp_test_tmpdir();
	struct kp_tune_space *s = space_of(src);
	struct kp_tune_fcache *c;
	struct kp_tune_cache iface;
	struct kp_tune_opts o;
	struct kp_tune_result r;
	struct kp_error err = KP_ERROR_INIT;
	long calls = 0;
	struct kp_tune_evaluator ev = {count_eval, &calls};

	kp_tune_opts_init(&o);
	o.gpu = "NVIDIA H200";
	for (int round = 0; round < 2; round++) {
		KP_ASSERT_OK(kp_tune_fcache_open(&c, dir, "ctx", &err), &err);
		iface = kp_tune_fcache_iface(c);
		KP_ASSERT_OK(kp_tune_run(s, &o, &ev, &iface, &r, &err), &err);
		assert_int_equal(r.ntrials, 4);
		assert_int_equal(r.cache_hits, round ? 4 : 0);
		assert_int_equal(r.trials[r.best].point.v[0], 1); /* BLOCK=64 was refused: 128 is the best */
		assert_int_equal(r.trials[1].m.status, KP_TUNE_REFUSED);
		kp_tune_result_release(&r);
		kp_tune_fcache_free(c);
	}
	assert_int_equal(calls, 4);
	kp_tune_space_free(s);
	kp_test_tmpdir_remove(dir);
}

/* ---- overrides --------------------------------------------------------------------------------------- */

static void test_set_values(void **state)
{
	static const char src[] =
	    "int b = KP_TUNE(BLOCK, 256, 128, 512);\nint i = KP_TUNE(ITEMS, 4, 1, 2);\n";
	static const char derived[] = "k<<<(n + 255) / 256, 256>>>(x, n);\n";
	struct kp_tune_space *s, *d;
	struct kp_tune_point p;
	struct kp_buf v = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	const long long vals[] = {1024, 64, 1024, 64};
	char before[65];

	KP_ASSERT_OK(kp_tune_parse(&s, "c.cu", src, sizeof(src) - 1, KP_TUNE_CUDA, KP_TUNE_DERIVE_AUTO, &err),
	             &err);
	snprintf(before, sizeof(before), "%s", kp_tune_space_hash(s));
	KP_ASSERT_OK(kp_tune_set_values(s, "BLOCK", vals, 4, &err), &err);
	/* sorted, without repeats, the source's own value kept and still the default */
	assert_int_equal(kp_tune_knob_at(s, 0)->nvalues, 3);
	assert_true(kp_tune_knob_at(s, 0)->values[0] == 64 && kp_tune_knob_at(s, 0)->values[2] == 1024);
	assert_int_equal(kp_tune_knob_at(s, 0)->values[kp_tune_knob_at(s, 0)->def], 256);
	assert_string_not_equal(kp_tune_space_hash(s), before);
	KP_ASSERT_OK(kp_tune_set_values_text(s, "ITEMS= 8, 2", &err), &err);
	assert_int_equal(kp_tune_space_size(s), 9);
	/* a value the marker did not list goes first, the written ones after it */
	KP_ASSERT_OK(kp_tune_point_parse(s, "BLOCK=1024 ITEMS=8", &p, &err), &err);
	KP_ASSERT_OK(kp_tune_variant(s, &p, &v, &err), &err);
	assert_string_equal(
	    v.buf, "int b = KP_TUNE(BLOCK, 1024, 256, 128, 512);\nint i = KP_TUNE(ITEMS, 8, 4, 1, 2);\n");

	assert_int_equal(kp_tune_set_values_text(s, "WARPS=2", &err), KP_ENOENT);
	assert_string_equal(kp_error_msg(&err), "c.cu has no knob 'WARPS'; its knobs: BLOCK, ITEMS");
	kp_error_clear(&err);
	assert_int_equal(kp_tune_set_values_text(s, "BLOCK=1,x", &err), KP_EPARSE);
	assert_string_equal(kp_error_msg(&err), "knob override 'BLOCK=1,x': 'x' is not an integer");
	kp_error_clear(&err);
	assert_int_equal(kp_tune_set_values_text(s, "BLOCK=1,,2", &err), KP_EPARSE);
	kp_error_clear(&err);
	assert_int_equal(kp_tune_set_values_text(s, "=1", &err), KP_EPARSE);
	kp_error_clear(&err);
	assert_int_equal(kp_tune_set_values(s, "BLOCK", vals, 0, &err), KP_EINVAL);
	kp_error_clear(&err);

	KP_ASSERT_OK(
	    kp_tune_parse(&d, "d.cu", derived, sizeof(derived) - 1, KP_TUNE_CUDA, KP_TUNE_DERIVE_AUTO, &err),
	    &err);
	assert_int_equal(kp_tune_set_values_text(d, "block_k=0,128", &err), KP_EINVAL);
	assert_string_equal(kp_error_msg(&err), "knob 'block_k' (block) takes positive values, not 0");
	kp_error_clear(&err);
	KP_ASSERT_OK(kp_tune_set_values_text(d, "block_k=128", &err), &err);
	KP_ASSERT_OK(kp_tune_point_parse(d, "block_k=128", &p, &err), &err);
	kp_buf_reset(&v);
	KP_ASSERT_OK(kp_tune_variant(d, &p, &v, &err), &err);
	assert_string_equal(v.buf, "k<<<(n + 127) / 128, 128>>>(x, n);\n");
	{
		struct kp_tune_env env;
		kp_tune_env_init(&env);
		KP_ASSERT_OK(kp_tune_bind(d, &env, &err), &err);
		assert_int_equal(kp_tune_set_values_text(d, "block_k=64", &err),
		                 KP_EINVAL); /* bound already */
	}
	kp_tune_space_free(d);
	kp_tune_space_free(s);
	kp_buf_release(&v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_golden), cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_errors),       cmocka_unit_test(test_run_from_cache),
	    cmocka_unit_test(test_set_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
