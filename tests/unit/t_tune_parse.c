/*
 * Unit tests: reading knobs (golden: the sources in tests/golden/tune/ against expected/, and the error
 * cases of errors.txt), variants (unchanged at the default, re-readable with the chosen values as defaults),
 * the space's hash, points in text, and the header kp_tune.h under the C preprocessor.
 */
#include "base/setup.h"

#include "kp_test.h"
#include "kernelpro/child.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/tune.h"

#define DIR "tests/golden/tune/"

/* Golden sources, relative to the repository; expected/<basename>.txt beside DIR. A Python candidate
 * without a KP_TUNE dict is the kernelbench example itself (its knobs are derived). */
static const char *const cases[] = {DIR "declared.cu",
                                    DIR "launch_literal.cu",
                                    DIR "named.cu",
                                    DIR "dim3.cu",
                                    DIR "tricky.cu",
                                    DIR "python_dict.py",
                                    "examples/kernelbench/swish_scale_fast.py"};

static enum kp_tune_lang lang_of(const char *name)
{
	size_t n = strlen(name);
	return n > 3 && !strcmp(name + n - 3, ".py") ? KP_TUNE_PYTHON : KP_TUNE_CUDA;
}

/* The H200's limits and the shapes the golden sources' constraints name. */
static void test_env(struct kp_tune_env *e)
{
	kp_tune_env_init(e);
	kp_tune_env_add_hw(e, kp_hw_spec_find("h200-sxm"));
	kp_tune_env_set(e, "x_0", 1 << 20, NULL);
}

/* Every knob at its next value (wrapping): a point other than the default on every knob that has one. */
static void next_point(const struct kp_tune_space *s, struct kp_tune_point *p)
{
	kp_tune_default_point(s, p);
	for (size_t k = 0; k < kp_tune_nknobs(s); k++)
		p->v[k] = (uint16_t)((p->v[k] + 1) % kp_tune_knob_at(s, k)->nvalues);
}

static uint64_t count_feasible(const struct kp_tune_space *s)
{
	struct kp_tune_point p;
	uint64_t n = 0, size = kp_tune_space_size(s);
	assert_true(size <= 1u << 22);
	for (uint64_t c = 0; c < size; c++) {
		uint64_t x = c;
		memset(&p, 0, sizeof(p));
		for (size_t k = kp_tune_nknobs(s); k-- > 0;) {
			p.v[k] = (uint16_t)(x % kp_tune_knob_at(s, k)->nvalues);
			x /= kp_tune_knob_at(s, k)->nvalues;
		}
		n += (uint64_t)kp_tune_feasible(s, &p);
	}
	return n;
}

/* The lines of b that differ from a (both have the same number of lines), as "NNN| text". */
static void line_diff(const char *a, const char *b, struct kp_buf *out)
{
	int line = 1;
	while (*a || *b) {
		size_t na = strcspn(a, "\n"), nb = strcspn(b, "\n");
		if (na != nb || memcmp(a, b, na))
			kp_buf_addf(out, "%4d| %.*s\n", line, (int)nb, b);
		a += na + (a[na] == '\n');
		b += nb + (b[nb] == '\n');
		line++;
	}
}

static int count_lines(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/*
 * A variant read again: each knob that is still there (derived knobs can merge when two literals come
 * to be equal) defaults to the value the variant chose; declared knobs are all still there, with the
 * same lists, so the variant shares the space's hash (and its cached results).
 */
static void check_reread(const struct kp_tune_space *s, const struct kp_tune_point *p, const struct kp_buf *v,
                         const char *name)
{
	struct kp_tune_space *s2;
	struct kp_error err = KP_ERROR_INIT;
	int declared_only = 1;
	size_t matched = 0;
	KP_ASSERT_OK(kp_tune_parse(&s2, name, v->buf, v->len, lang_of(name), KP_TUNE_DERIVE_AUTO, &err),
	             &err);
	for (size_t k = 0; k < kp_tune_nknobs(s); k++) {
		const struct kp_tune_knob *a = kp_tune_knob_at(s, k);
		declared_only &= a->origin == KP_TUNE_DECLARED;
		for (size_t k2 = 0; k2 < kp_tune_nknobs(s2); k2++) {
			const struct kp_tune_knob *b = kp_tune_knob_at(s2, k2);
			if (strcmp(a->name, b->name))
				continue;
			assert_true(b->values[b->def] == a->values[p->v[k]]);
			matched++;
		}
	}
	assert_true(matched > 0 || kp_tune_nknobs(s) == 0);
	if (declared_only) {
		assert_int_equal(matched, kp_tune_nknobs(s));
		assert_int_equal(kp_tune_nknobs(s2), kp_tune_nknobs(s));
		assert_string_equal(kp_tune_space_hash(s2), kp_tune_space_hash(s));
	}
	kp_tune_space_free(s2);
}

static void golden_one(const char *name)
{
	char expected[256];
	const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	struct kp_buf src = KP_BUF_INIT, out = KP_BUF_INIT, v = KP_BUF_INIT, text = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_tune_space *s;
	struct kp_tune_env env;
	struct kp_tune_point p;
	json_t *j;

	snprintf(expected, sizeof(expected), DIR "expected/%s.txt", base);
	kp_test_read(name, &src);
	KP_ASSERT_OK(kp_tune_parse(&s, base, src.buf, src.len, lang_of(name), KP_TUNE_DERIVE_AUTO, &err),
	             &err);
	test_env(&env);
	KP_ASSERT_OK(kp_tune_bind(s, &env, &err), &err);
	kp_tune_space_describe(s, &out);
	{
		uint64_t n;
		KP_ASSERT_OK(kp_tune_count_feasible(s, &n, &err), &err);
		assert_true(n == count_feasible(s));
		kp_buf_addf(&out, "feasible: %llu\n", (unsigned long long)n);
	}
	j = kp_tune_space_to_json(s);
	for (size_t i = 0; i < json_array_size(json_object_get(j, "constraints")); i++)
		kp_buf_addf(&out, "python: %s\n",
		            kp_json_str(json_array_get(json_object_get(j, "constraints"), i), "python", "?"));
	json_decref(j);

	/* the default point gives the source back, byte for byte */
	kp_tune_default_point(s, &p);
	assert_int_equal(kp_tune_feasible(s, &p), 1);
	KP_ASSERT_OK(kp_tune_variant(s, &p, &v, &err), &err);
	assert_int_equal(v.len, src.len);
	assert_memory_equal(v.buf, src.buf, src.len);

	next_point(s, &p);
	kp_tune_point_format(s, &p, &text);
	kp_buf_addf(&out, "variant %s:\n", text.buf);
	kp_buf_reset(&v);
	KP_ASSERT_OK(kp_tune_variant(s, &p, &v, &err), &err);
	if (count_lines(v.buf) == count_lines(src.buf))
		line_diff(src.buf, v.buf, &out);
	else
		kp_buf_add(&out, v.buf, v.len);
	check_reread(s, &p, &v, base);
	kp_test_golden(expected, out.buf);

	kp_tune_space_free(s);
	kp_buf_release(&text);
	kp_buf_release(&v);
	kp_buf_release(&out);
	kp_buf_release(&src);
}

static void test_golden(void **state)
{
	for (size_t i = 0; i < KP_ARRAY_SIZE(cases); i++)
		golden_one(cases[i]);
}

static void test_errors(void **state)
{
	struct kp_buf all = KP_BUF_INIT, out = KP_BUF_INIT;
	char *p;
	int n = 0;
	kp_test_read(DIR "errors.txt", &all);
	p = strstr(all.buf, "\n=== ");
	while (p) {
		char name[64];
		const char *body, *next;
		struct kp_tune_space *s = NULL;
		struct kp_tune_env env;
		struct kp_error err = KP_ERROR_INIT;
		int rc;
		p += 5;
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(p, "\n"), p);
		body = p + strcspn(p, "\n") + 1;
		next = strstr(body, "\n=== ");
		rc = kp_tune_parse(&s, name, body, next ? (size_t)(next - body + 1) : strlen(body),
		                   lang_of(name), KP_TUNE_DERIVE_AUTO, &err);
		if (rc == 0) {
			test_env(&env);
			rc = kp_tune_bind(s, &env, &err);
			kp_tune_space_free(s);
		}
		if (rc == 0)
			fail_msg("%s: no error", name);
		assert_true(rc == KP_EPARSE || rc == KP_ETOOBIG);
		kp_buf_addf(&out, "%s\n", kp_error_msg(&err));
		p = next ? (char *)next : NULL;
		n++;
	}
	assert_true(n >= 20);
	kp_test_golden(DIR "expected/errors.txt", out.buf);
	kp_buf_release(&out);
	kp_buf_release(&all);
}

static void test_points(void **state)
{
	const char *src = "constexpr int a = KP_TUNE(BLOCK, 256, 128, 512);\n"
	                  "constexpr int b = KP_TUNE(ITEMS, 4, -1, 2);\n";
	struct kp_tune_space *s;
	struct kp_tune_point p;
	struct kp_buf b = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;

	KP_ASSERT_OK(kp_tune_parse(&s, "p.cu", src, strlen(src), KP_TUNE_CUDA, KP_TUNE_DERIVE_AUTO, &err),
	             &err);
	assert_int_equal(kp_tune_nknobs(s), 2);
	assert_int_equal(kp_tune_space_size(s), 9);
	assert_true(kp_tune_knob_at(s, 1)->values[0] == -1);
	assert_null(kp_tune_knob_at(s, 2));
	KP_ASSERT_OK(kp_tune_point_parse(s, "ITEMS=2, BLOCK=512", &p, &err), &err);
	kp_tune_point_format(s, &p, &b);
	assert_string_equal(b.buf, "BLOCK=512 ITEMS=2");
	KP_ASSERT_OK(kp_tune_point_parse(s, " ITEMS=-1 ", &p, &err), &err);
	kp_buf_reset(&b);
	kp_tune_point_format(s, &p, &b);
	assert_string_equal(b.buf, "BLOCK=256 ITEMS=-1");
	assert_int_equal(kp_tune_point_parse(s, "BLOCK=300", &p, &err), KP_EINVAL);
	kp_error_clear(&err);
	assert_int_equal(kp_tune_point_parse(s, "TILE=3", &p, &err), KP_ENOENT);
	kp_error_clear(&err);
	assert_int_equal(kp_tune_point_parse(s, "BLOCK", &p, &err), KP_EPARSE);
	kp_error_clear(&err);
	assert_int_equal(kp_tune_point_parse(s, "BLOCK=12x", &p, &err), KP_EPARSE);
	kp_error_clear(&err);
	/* not bound yet: nothing is feasible */
	kp_tune_default_point(s, &p);
	assert_int_equal(kp_tune_feasible(s, &p), 0);
	kp_tune_space_free(s);
	kp_buf_release(&b);
}

/* The hash ignores the knobs' current values and order but not the rest of the source. */
static void test_hash(void **state)
{
	const char *a = "int x = KP_TUNE(B, 1, 2, 3);\n";
	const char *b = "int x = KP_TUNE(B, 3,1,2);\n";
	const char *c = "int y = KP_TUNE(B, 1, 2, 3);\n";
	const char *d = "int x = KP_TUNE(B, 1, 2, 3, 4);\n";
	struct kp_tune_space *sa, *sb, *sc, *sd;
	struct kp_error err = KP_ERROR_INIT;
	KP_ASSERT_OK(kp_tune_parse(&sa, "a", a, strlen(a), KP_TUNE_CUDA, KP_TUNE_DERIVE_AUTO, &err), &err);
	KP_ASSERT_OK(kp_tune_parse(&sb, "b", b, strlen(b), KP_TUNE_CUDA, KP_TUNE_DERIVE_AUTO, &err), &err);
	KP_ASSERT_OK(kp_tune_parse(&sc, "c", c, strlen(c), KP_TUNE_CUDA, KP_TUNE_DERIVE_AUTO, &err), &err);
	KP_ASSERT_OK(kp_tune_parse(&sd, "d", d, strlen(d), KP_TUNE_CUDA, KP_TUNE_DERIVE_AUTO, &err), &err);
	assert_string_equal(kp_tune_space_hash(sa), kp_tune_space_hash(sb));
	assert_string_not_equal(kp_tune_space_hash(sa), kp_tune_space_hash(sc));
	assert_string_not_equal(kp_tune_space_hash(sa), kp_tune_space_hash(sd));
	assert_int_equal(strlen(kp_tune_space_hash(sa)), 64);
	kp_tune_space_free(sa);
	kp_tune_space_free(sb);
	kp_tune_space_free(sc);
	kp_tune_space_free(sd);
}

/* Derivation modes: AUTO derives only without declared knobs; NEVER and ALWAYS do what they say. */
static void test_derive_modes(void **state)
{
	const char *src = "constexpr int k = KP_TUNE(ITEMS, 2, 4);\n"
	                  "void f(int n) { kern<<<(n + 255) / 256, 256>>>(n); }\n";
	const char *plain = "void f(int n) { kern<<<(n + 255) / 256, 256>>>(n); }\n";
	struct kp_tune_space *s;
	struct kp_error err = KP_ERROR_INIT;
	KP_ASSERT_OK(kp_tune_parse(&s, "a", src, strlen(src), KP_TUNE_CUDA, KP_TUNE_DERIVE_AUTO, &err), &err);
	assert_int_equal(kp_tune_nknobs(s), 1);
	kp_tune_space_free(s);
	KP_ASSERT_OK(kp_tune_parse(&s, "a", src, strlen(src), KP_TUNE_CUDA, KP_TUNE_DERIVE_ALWAYS, &err),
	             &err);
	assert_int_equal(kp_tune_nknobs(s), 2);
	assert_string_equal(kp_tune_knob_at(s, 1)->name, "block_kern");
	assert_int_equal(kp_tune_knob_at(s, 1)->nsites, 3);
	kp_tune_space_free(s);
	KP_ASSERT_OK(kp_tune_parse(&s, "a", plain, strlen(plain), KP_TUNE_CUDA, KP_TUNE_DERIVE_NEVER, &err),
	             &err);
	assert_int_equal(kp_tune_nknobs(s), 0);
	assert_int_equal(kp_tune_space_size(s), 1);
	kp_tune_space_free(s);
}

/* A source with more launches than knobs fit: the first 24 are kept, and that is not an error. */
static void test_derived_cap(void **state)
{
	struct kp_buf src = KP_BUF_INIT;
	struct kp_tune_space *s;
	struct kp_error err = KP_ERROR_INIT;
	for (int i = 0; i < 40; i++)
		kp_buf_addf(&src, "void f%d(int n) { k%d<<<(n + 127) / 128, 128>>>(n); }\n", i, i);
	KP_ASSERT_OK(kp_tune_parse(&s, "many.cu", src.buf, src.len, KP_TUNE_CUDA, KP_TUNE_DERIVE_AUTO, &err),
	             &err);
	assert_int_equal(kp_tune_nknobs(s), KP_TUNE_MAX_KNOBS);
	assert_string_equal(kp_tune_knob_at(s, 0)->name, "block_k0");
	kp_tune_space_free(s);
	kp_buf_release(&src);
}

static void test_limits(void **state)
{
	struct kp_tune_space *s;
	struct kp_error err = KP_ERROR_INIT;
	char *big = kp_xcalloc(KP_TUNE_MAX_SOURCE + 2, 1);
	memset(big, ' ', KP_TUNE_MAX_SOURCE + 1);
	assert_int_equal(
	    kp_tune_parse(&s, "big.cu", big, KP_TUNE_MAX_SOURCE + 1, KP_TUNE_CUDA, KP_TUNE_DERIVE_AUTO, &err),
	    KP_ETOOBIG);
	assert_null(s);
	free(big);
}

/* NUL bytes inside a source are text like any other (found by fuzz_tune: the copy stopped at them). */
static void test_nul_bytes(void **state)
{
	static const char src[] =
	    "// a\0b\nconstexpr int x = KP_TUNE(BLOCK, 128, 256);\0\nKP_TUNE_CONSTRAINT(BLOCK \0 < 2);\n";
	struct kp_tune_space *s;
	struct kp_error err = KP_ERROR_INIT;
	assert_int_equal(
	    kp_tune_parse(&s, "nul.cu", src, sizeof(src) - 1, KP_TUNE_CUDA, KP_TUNE_DERIVE_AUTO, &err),
	    KP_EPARSE);
	assert_non_null(strstr(kp_error_msg(&err), "NUL"));
	KP_ASSERT_OK(kp_tune_parse(&s, "nul.cu", src, 60, KP_TUNE_CUDA, KP_TUNE_DERIVE_AUTO, &err), &err);
	assert_int_equal(kp_tune_nknobs(s), 1);
	kp_tune_space_free(s);
}

static void test_launch_fits(void **state)
{
	const struct kp_hw_spec *h = kp_hw_spec_find("h200-sxm");
	char why[128];
	assert_int_equal(kp_tune_launch_fits(h, 256, 64, 48 * 1024, why, sizeof(why)), 1);
	assert_int_equal(kp_tune_launch_fits(h, 1024, 64, 0, why, sizeof(why)), 1);
	/* 1024 threads x 65 registers: 32 warps x 2304 = 73728 > 65536 */
	assert_int_equal(kp_tune_launch_fits(h, 1024, 65, 0, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "registers"));
	assert_int_equal(kp_tune_launch_fits(h, 2048, 16, 0, why, sizeof(why)), 0);
	assert_int_equal(kp_tune_launch_fits(h, 128, 32, 227 * 1024, NULL, 0), 1);
	assert_int_equal(kp_tune_launch_fits(h, 128, 32, 227 * 1024 + 1, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "shared memory"));
}

static void test_env_task(void **state)
{
	struct kp_task t;
	struct kp_tune_env e;
	struct kp_error err = KP_ERROR_INIT;
	const char *json = "{\"inputs\": [{\"name\": \"A\", \"shape\": [2048, 1024]}],"
	                   " \"outputs\": [{\"name\": \"C\", \"shape\": [2048]}]}";
	kp_task_init(&t);
	KP_ASSERT_OK(kp_task_parse_native(&t, json, strlen(json), ".", &err), &err);
	kp_tune_env_init(&e);
	KP_ASSERT_OK(kp_tune_env_add_task(&e, &t, &err), &err);
	assert_int_equal(e.n, 3);
	assert_string_equal(e.v[1].name, "A_1");
	assert_true(e.v[1].value == 1024);
	assert_string_equal(e.v[2].name, "C_0");
	assert_int_equal(kp_tune_env_set(&e, "2bad", 1, &err), KP_EINVAL);
	kp_task_release(&t);
}

/* kp_tune.h: the first value untuned, -DKP_TUNE_NAME=(v) when given; KP_UNROLL becomes a pragma. */
static void test_header(void **state)
{
	const char *text = "#include \"kp_tune.h\"\n"
	                   "int a = KP_TUNE(BLOCK, 256, 128);\n"
	                   "int b = KP_TUNE(ITEMS, 4, 8);\n"
	                   "KP_UNROLL(U, 2, 4)\n"
	                   "KP_TUNE_CONSTRAINT(BLOCK * ITEMS <= 4096);\n";
	char *dir = kp_test_tmpdir(), inc[4096];
	struct kp_buf path = KP_BUF_INIT;
	struct kp_child c = KP_CHILD_INIT;
	struct kp_error err = KP_ERROR_INIT;
	kp_buf_addf(&path, "%s/h.c", dir);
	KP_ASSERT_OK(kp_write_file_atomic(path.buf, text, strlen(text), &err), &err);
	snprintf(inc, sizeof(inc), "-I%s", kp_test_path("harness/include"));
	kp_strvec_pushl(&c.args, "cc", "-E", "-P", inc, "-DKP_TUNE_ITEMS=(8)", path.buf, NULL);
	c.timeout_ms = 30000;
	c.out_cap = 1 << 20;
	KP_ASSERT_OK(kp_child_run(&c, &err), &err);
	assert_true(kp_child_ok(&c));
	assert_non_null(strstr(c.out.buf, "int a = (256);"));
	assert_non_null(strstr(c.out.buf, "int b = (8);"));
	assert_non_null(strstr(c.out.buf, "#pragma unroll (2)"));
	assert_non_null(strstr(c.out.buf, "_Static_assert(1,"));
	kp_child_release(&c);
	kp_buf_release(&path);
	kp_test_tmpdir_remove(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_golden),       cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_points),       cmocka_unit_test(test_hash),
	    cmocka_unit_test(test_derive_modes), cmocka_unit_test(test_derived_cap),
	    cmocka_unit_test(test_limits),       cmocka_unit_test(test_launch_fits),
	    cmocka_unit_test(test_env_task),     cmocka_unit_test(test_header),
	    cmocka_unit_test(test_nul_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
