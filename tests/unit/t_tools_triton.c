/*
 * Unit tests: the tools on Triton kernels. Triton's cache metadata (a hand-written cache in
 * tests/golden/triton: collected, loaded, joined to a launch by name and block size), the Triton
 * phrasing table (every row names a recommendation its tool really writes; numbers carried over;
 * rows without a Triton counterpart dropped), and the feedback rendered for a Triton kernel.
 */
#include "base/setup.h"

#include <math.h>

#include "kp_test.h"
#include "kernelpro/feedback.h"
#include "kernelpro/fs.h"
#include "kernelpro/profile.h"
#include "kernelpro/str.h"

static void test_collect_and_join(void **state)
{
	char *dir = kp_test_tmpdir();
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf path = KP_BUF_INIT, text = KP_BUF_INIT;
	struct kp_triton_meta m;
	struct kp_launch l;
	const struct kp_triton_kernel *k;
	size_t n = 0;

	KP_ASSERT_OK(kp_triton_collect(kp_test_path("tests/golden/triton/cache"), dir, NULL, &n, &err), &err);
	assert_int_equal(n, 2); /* the group index and the stray file are not kernels */
	kp_path_join(&path, dir, "triton.json");
	KP_ASSERT_OK(kp_read_file(path.buf, 1 << 20, &text, &err), &err);
	KP_ASSERT_OK(kp_triton_meta_load(&m, path.buf, text.buf, text.len, &err), &err);
	assert_int_equal(m.n, 2);
	assert_string_equal(m.kernels[0].name, "linear_relu_kernel");
	assert_int_equal(m.kernels[0].num_warps, 4);
	assert_int_equal(m.kernels[0].num_stages, 3);
	assert_int_equal(m.kernels[0].shared, 49152);
	assert_int_equal(m.kernels[0].maxnreg, -1);
	assert_string_equal(m.kernels[0].dot_precision, "ieee");
	assert_int_equal(m.kernels[1].maxnreg, 128);

	memset(&l, 0, sizeof(l));
	l.function = "linear_relu_kernel";
	l.block[0] = 256;
	l.block[1] = l.block[2] = 1;
	k = kp_triton_meta_find_launch(&m, &l);
	assert_non_null(k);
	assert_int_equal(k->num_warps, 8); /* the autotuned config the launch ran */
	l.block[0] = 128;
	assert_int_equal(kp_triton_meta_find_launch(&m, &l)->num_warps, 4);
	l.function = "other_kernel";
	assert_null(kp_triton_meta_find_launch(&m, &l));

	kp_buf_reset(&text);
	kp_triton_describe(&m.kernels[1], &text);
	assert_string_equal(text.buf, "Triton kernel linear_relu_kernel: num_warps 8 (256 threads per program), "
				      "num_stages 4, 98304 bytes of shared memory per program, maxnreg 128, fp32 "
				      "tl.dot default ieee (Triton's cache metadata)");
	kp_triton_meta_release(&m);

	/* No cache, or a cache without kernels: nothing, and no file. */
	KP_ASSERT_OK(kp_triton_collect("/nonexistent/kp-triton-cache", dir, NULL, &n, &err), &err);
	assert_int_equal(n, 0);
	kp_buf_release(&path);
	kp_buf_release(&text);
	kp_test_tmpdir_remove(dir);
}

static void test_meta_errors(void **state)
{
	static const char *const bad[] = {
		"[]", "{\"num_warps\": 4, \"shared\": 0}", "{\"name\": \"k\", \"shared\": 0}",
		"{\"name\": \"k\", \"num_warps\": -4, \"shared\": 0}", "{\"name\": \"k\", \"num_warps\": 4, \"shared\": \"x\"}",
		"{\"name\": \"k\", \"num_warps\": 4", "{\"kernels\": 1}",
	};
	for (size_t i = 0; i < KP_ARRAY_SIZE(bad); i++) {
		struct kp_triton_kernel k;
		struct kp_triton_meta m;
		struct kp_error err = KP_ERROR_INIT;
		if (!kp_triton_meta_parse(&k, "x.json", bad[i], strlen(bad[i]), &err))
			fail_msg("accepted: %s", bad[i]);
		kp_error_clear(&err);
		if (!kp_triton_meta_load(&m, "triton.json", bad[i], strlen(bad[i]), &err))
			fail_msg("loaded: %s", bad[i]);
	}
}

/* The C string literals of a source, adjacent ones joined ("a" "b" -> ab), each ended by '\n'. */
static void literals(const char *src, struct kp_buf *out)
{
	int joined = 0;
	for (const char *p = src; *p; p++) {
		if (*p == '/' && p[1] == '*') {
			const char *e = strstr(p + 2, "*/");
			if (!e)
				break;
			p = e + 1;
			continue;
		}
		if (*p == '"') {
			for (p++; *p && *p != '"'; p++) {
				if (*p == '\\' && p[1]) {
					p++;
					kp_buf_addch(out, *p == 'n' ? '\n' : *p);
					continue;
				}
				kp_buf_addch(out, *p);
			}
			joined = 1;
			if (!*p)
				break;
			continue;
		}
		if (joined && !strchr(" \t\r\n", *p)) {
			kp_buf_addch(out, '\n');
			joined = 0;
		}
	}
}

/* Every row of the table names the start of a recommendation its tool writes today. */
static void test_table_matches_tools(void **state)
{
	for (size_t i = 0; i < kp_phrase_count(); i++) {
		struct kp_buf path = KP_BUF_INIT, src = KP_BUF_INIT, lits = KP_BUF_INIT, want = KP_BUF_INIT;
		kp_buf_addf(&path, "lib/tools/tool_%s.c", kp_phrase_table_tool(i));
		kp_test_read(path.buf, &src);
		kp_buf_addch(&lits, '\n');
		literals(src.buf, &lits);
		kp_buf_addf(&want, "\n%s", kp_phrase_table_cuda(i));
		if (!strstr(lits.buf, want.buf))
			fail_msg("phrasing row %zu: %s writes no recommendation starting '%s'", i, path.buf,
				 kp_phrase_table_cuda(i));
		kp_buf_release(&path);
		kp_buf_release(&src);
		kp_buf_release(&lits);
		kp_buf_release(&want);
	}
	assert_true(kp_phrase_count() >= 40);
}

static void test_phrase(void **state)
{
	struct kp_buf tmp = KP_BUF_INIT;
	const char *cap = "Cap registers at 64 per thread to fit 3 blocks per SM: __launch_bounds__(256, 3) on the kernel";
	const char *other = "Something no table row names";
	const char *r;

	assert_ptr_equal(kp_phrase_rec(KP_LANG_CUDA, "occupancy", cap, &tmp), cap);
	r = kp_phrase_rec(KP_LANG_TRITON, "occupancy", cap, &tmp);
	assert_non_null(strstr(r, "to about 64 so 3 programs fit per SM"));
	assert_non_null(strstr(r, "maxnreg=64"));
	assert_null(strstr(r, "__launch_bounds__"));
	assert_ptr_equal(kp_phrase_rec(KP_LANG_TRITON, "occupancy", other, &tmp), other);
	assert_null(kp_phrase_rec(KP_LANG_TRITON, "vector_width",
				  "Declare read-only inputs const float* __restrict__ so the compiler may emit", &tmp));
	r = kp_phrase_rec(KP_LANG_TRITON, "coalescing", "Map threadIdx.x to the contiguous (fastest-varying) index", &tmp);
	assert_non_null(strstr(r, "contiguous (stride-1) axis"));
	kp_buf_release(&tmp);
}

/* A coalescing finding rendered for a Triton kernel: its launch line, the Triton "Do" lines. */
static void test_feedback_for_triton(void **state)
{
	struct kp_triton_kernel k = {.name = "scale_kernel", .num_warps = 4, .num_stages = -1, .num_ctas = -1,
				     .shared = 0, .maxnreg = -1};
	struct kp_launch launch;
	struct kp_kernel_profile prof = {.launch = &launch, .triton = &k};
	struct kp_tool_input in = {.profile = &prof};
	struct kp_diagnosis d = KP_DIAGNOSIS_INIT;
	struct kp_feedback fb;
	struct kp_feedback_opts o = {.mode = KP_FEEDBACK_TOOLS};
	struct kp_finding *f;
	struct kp_buf text = KP_BUF_INIT;
	json_t *j;

	memset(&launch, 0, sizeof(launch));
	f = kp_finding_new(&d.findings, KP_SEV_HIGH, "Uncoalesced global loads and stores");
	f->tool = kp_xstrdup("coalescing");
	kp_finding_rec(f, "Map threadIdx.x to the contiguous (fastest-varying) index of every global array");
	kp_finding_rec(f, "For arrays of structs, switch to a struct of arrays");
	f = kp_finding_new(&d.findings, KP_SEV_LOW, "No vector loads");
	f->tool = kp_xstrdup("vector_width");
	kp_finding_rec(f, "Declare read-only inputs const float* __restrict__");
	kp_finding_rec(f, "Give each thread several independent elements");
	kp_feedback_build(&fb, NULL, NULL, &in, &d, &o);
	kp_feedback_text(&fb, &text);
	assert_non_null(strstr(text.buf, "Triton kernel scale_kernel: num_warps 4 (128 threads per program)"));
	assert_non_null(strstr(text.buf, "1. Make the contiguous (stride-1) axis"));
	assert_non_null(strstr(text.buf, "2. Give each program more elements"));
	assert_null(strstr(text.buf, "threadIdx"));
	assert_null(strstr(text.buf, "__restrict__"));
	j = kp_feedback_json(&fb);
	assert_string_equal(json_string_value(json_object_get(j, "language")), "triton");
	assert_int_equal(json_array_size(json_object_get(json_array_get(json_object_get(j, "findings"), 1),
							 "recommendations")),
			 1);
	json_decref(j);
	kp_feedback_release(&fb);

	/* The same finding on a CUDA kernel: as the tool wrote it. */
	prof.triton = NULL;
	kp_buf_reset(&text);
	kp_feedback_build(&fb, NULL, NULL, &in, &d, &o);
	kp_feedback_text(&fb, &text);
	assert_non_null(strstr(text.buf, "Map threadIdx.x"));
	assert_null(strstr(text.buf, "Triton"));
	kp_feedback_release(&fb);
	kp_diagnosis_release(&d);
	kp_buf_release(&text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_collect_and_join),   cmocka_unit_test(test_meta_errors),
		cmocka_unit_test(test_table_matches_tools), cmocka_unit_test(test_phrase),
		cmocka_unit_test(test_feedback_for_triton),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
