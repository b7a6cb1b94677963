/*
 * Unit tests: the SASS loop shape (lib/tools/sass_shape.c) on real dumps: dot products (GEMMs,
 * SpMV; FP16 on HFMA2, FP16/BF16 widened to FFMA) against FMA chains that are not products (Horner, register recurrences, a stencil with
 * constant weights), the same kernel in the three SASS formats, and odd input; and the
 * tensor_cores tool following the shape rather than the FLOPs per byte.
 */
#include "base/setup.h"

#include <math.h>

#include "kp_test.h"
#include "kernelpro/fs.h"
#include "kernelpro/tools.h"

static void read_text(const char *path, struct kp_buf *b)
{
	struct kp_error err = KP_ERROR_INIT;
	KP_ASSERT_OK(kp_read_file(kp_test_path(path), KP_PROFILE_MAX_FILE, b, &err), &err);
}

static void shape(const struct kp_buf *b, const char *fn, struct kp_sass_shape *s)
{
	if (!kp_sass_shape_read(s, b->buf, b->len, fn))
		fail_msg("function '%s' not found", fn);
}

static void test_dev_kernels(void **state)
{
	struct kp_buf b = KP_BUF_INIT;
	struct kp_sass_shape s;
	read_text("tests/golden/tools/sass_shapes.txt", &b);
	/* a register-tiled batched GEMM: 32 FFMAs of the K loop all accumulate a_i * b_j, each value used twice */
	shape(&b, "_Z13bmm_fp32_smemPKfS0_Pfi", &s);
	assert_true(s.in_loop);
	assert_int_equal(s.ffma, 32);
	assert_int_equal(s.dot_ffma, 32);
	assert_true(fabs(s.reuse - 2.0) < 1e-9);
	assert_true(kp_sass_shape_is_product(&s));
	/* Horner at 8 points: the FFMAs multiply the running value (acc * x + c), never two loaded values */
	shape(&b, "_Z11horner_bankPKfS0_Pfi", &s);
	assert_true(s.in_loop);
	assert_int_equal(s.ffma, 128);
	assert_int_equal(s.dot_ffma, 0);
	assert_int_equal(s.accumulating, 0);
	assert_false(kp_sass_shape_is_product(&s));
	/* eight independent register chains, no load in the loop */
	shape(&b, "_Z12fma_ilp_regsPKfPfii", &s);
	assert_true(s.in_loop && s.ffma == 32 && s.loads == 0 && s.dot_ffma == 0);
	assert_false(kp_sass_shape_is_product(&s));
	/* a 7x7 box filter: a running sum, but of a loaded value times a constant weight */
	shape(&b, "_Z15smem_stencil_2dPKfPfii", &s);
	assert_int_equal(s.ffma, 49);
	assert_true(s.accumulating >= 48);
	assert_int_equal(s.dot_ffma, 0);
	assert_false(kp_sass_shape_is_product(&s));
	/* SpMV, CSR scalar: a dot product (val[j] * x[col[j]]), each value used once: shaped like a product */
	shape(&b, "_Z15spmv_csr_scalarPKiS0_PKfS2_Pfi", &s);
	assert_true(kp_sass_shape_is_product(&s));
	assert_true(fabs(s.reuse - 1.0) < 1e-9);
	/* fully unrolled (no loop): the whole function, u = u * k + c chains */
	shape(&b, "_Z14ridge_mixed_f2PK6float2S1_PS_i", &s);
	assert_false(s.in_loop);
	assert_true(s.ffma >= 172 && s.dot_ffma == 0);
	kp_buf_release(&b);
}

/* Issue 31: FP16 and BF16 products on the CUDA cores (HFMA2; halves or bf16 widened to FP32 before
   the FFMA) are products; an HFMA2 polynomial, a constant-weight HFMA2 stencil and half row dot
   products without a running FMA sum are not (bench/corpus-dev31, ptxas 13.0, sm_90). */
static void test_half_kernels(void **state)
{
	struct kp_buf b = KP_BUF_INIT;
	struct kp_sass_shape s;
	read_text("tests/golden/tools/sass_shapes_fp16.txt", &b);
	/* acc = __hfma2(__half2half2(a[k]), b[k], acc), unrolled 16 ways: every HFMA2 a dot FMA of two LDGs */
	shape(&b, "_Z14hgemm_naive_h2PK6__halfPK7__half2PS2_iii", &s);
	assert_true(s.in_loop);
	assert_true(s.ffma >= 16 && s.hfma2 == s.ffma);
	assert_int_equal(s.dot_ffma, s.ffma);
	assert_int_equal(s.widened, 0);
	assert_true(s.ldg > 0 && s.lds == 0);
	assert_true(kp_sass_shape_is_product(&s));
	/* acc += __half2float(a) * __half2float(b): each FFMA reads two HADD2.F32 conversions of LDG.U16s */
	shape(&b, "_Z18hgemm_naive_f32accPK6__halfS1_Pfiii", &s);
	assert_true(s.in_loop && s.hfma2 == 0 && s.ffma >= 16);
	assert_int_equal(s.dot_ffma, s.ffma);
	assert_int_equal(s.widened, s.dot_ffma);
	assert_true(kp_sass_shape_is_product(&s));
	/* a direct bf16 convolution: SHF.L.U32 x, 0x10 and IMAD.U32 x, 0x10000 widen both operands */
	shape(&b, "_Z19bf16_conv3x3_directPK13__nv_bfloat16S1_Pfiiiii", &s);
	assert_true(s.dot_ffma > 0 && s.widened == s.dot_ffma);
	assert_true(kp_sass_shape_is_product(&s));
	/* p = __hfma2(p, x, c): the running value times a value loaded before the loop */
	shape(&b, "_Z13h2_poly_chainPK7__half2PS_i", &s);
	assert_true(s.hfma2 > 0 && s.dot_ffma == 0);
	assert_false(kp_sass_shape_is_product(&s));
	/* s = __hfma2(a[i + t], w_t, s): a loaded value times an immediate */
	shape(&b, "_Z16h2_stencil_constPK7__half2PS_i", &s);
	assert_int_equal(s.dot_ffma, 0);
	assert_false(kp_sass_shape_is_product(&s));
	/* HMUL2 then FADDs: no FMA accumulates a product */
	shape(&b, "_Z14h2_rowdot_warpPK7__half2S1_Pfii", &s);
	assert_false(kp_sass_shape_is_product(&s));
	kp_buf_release(&b);
}

/* sgemm_naive of the probe as cuobjdump, nvdisasm and ncu's source page print it: one shape. */
static void test_three_formats(void **state)
{
	static const char *const files[] = {"sass.txt", "nvdisasm.txt", "ncu_source_sass_excerpt.csv"};
	static const char *const names[] = {"_Z11sgemm_naivePKfS0_Pfi", "_Z11sgemm_naivePKfS0_Pfi",
					    "sgemm_naive(const float *, const float *, float *, int)"};
	struct kp_sass_shape s[3];
	for (size_t i = 0; i < 3; i++) {
		struct kp_buf b = KP_BUF_INIT;
		struct kp_buf path = KP_BUF_INIT;
		kp_buf_addf(&path, "tests/golden/h200-probe/%s", files[i]);
		read_text(path.buf, &b);
		shape(&b, names[i], &s[i]);
		assert_true(s[i].in_loop);
		assert_int_equal(s[i].ffma, 16);
		assert_int_equal(s[i].dot_ffma, 16);
		assert_int_equal(s[i].loads, s[0].loads);
		assert_int_equal(s[i].end - s[i].begin, s[0].end - s[0].begin);
		kp_buf_release(&b);
		kp_buf_release(&path);
	}
}

static void test_odd_input(void **state)
{
	struct kp_sass_shape s;
	static const char *const texts[] = {
		"",
		"Function : k\n",
		"Function : k\n /*0000*/ FFMA R1, R2, R3 ;\n /*0010*/ BRA 0x0 ;\n",                   /* three operands */
		"Function : k\n /*0010*/ @P0 BRA `(.L_x_9) ;\n.L_x_9:\n",                              /* label at the end */
		"Function : k\n /*0000*/ LDS R2, [R0] ;\n /*0010*/ LDS R3, [R0+0x4] ;\n"
		" /*0020*/ FFMA R4, R2, R3, R4 ;\n /*0030*/ BRA 0x0 ;\n",                               /* a one-loop dot */
		"\"Kernel Name\",\"k\",\n\"Address\",\"Source\"\n\"0x10\",\"  FFMA R1, R1, R1, R1\",\"x\"\n",
		"Function : k\n /*zz*/ FFMA R1 ;\n /*0000*/ 1234 ;\n /*0000*/\n",
		/* ptxas's constant move "HFMA2.MMA R2, -RZ, RZ, 0, 1.5" is no multiply; a widened dot is one */
		"Function : k\n /*0000*/ HFMA2.MMA R2, -RZ, RZ, 0, 1.5 ;\n /*0010*/ LDG.E.U16 R3, [R0] ;\n"
		" /*0020*/ LDG.E.U16 R5, [R0+0x2] ;\n /*0030*/ HADD2.F32 R6, -RZ, R3.H0_H0 ;\n"
		" /*0040*/ SHF.L.U32 R7, R5, 0x10, RZ ;\n /*0050*/ FFMA R4, R6, R7, R4 ;\n /*0060*/ BRA 0x0 ;\n",
	};
	for (size_t i = 0; i < KP_ARRAY_SIZE(texts); i++)
		kp_sass_shape_read(&s, texts[i], strlen(texts[i]), "k");
	assert_int_equal(kp_sass_shape_read(&s, texts[4], strlen(texts[4]), "k"), 1);
	assert_true(s.in_loop && s.ffma == 1 && s.dot_ffma == 1 && kp_sass_shape_is_product(&s));
	assert_int_equal(kp_sass_shape_read(&s, texts[4], strlen(texts[4]), "other"), 0);
	assert_false(s.found);
	assert_int_equal(kp_sass_shape_read(&s, NULL, 0, "k"), 0);
	assert_int_equal(kp_sass_shape_read(&s, texts[3], strlen(texts[3]), "k"), 1);
	assert_false(s.in_loop);
	assert_int_equal(kp_sass_shape_read(&s, texts[7], strlen(texts[7]), "k"), 1);
	assert_true(s.in_loop && s.ffma == 1 && s.hfma2 == 0 && s.dot_ffma == 1 && s.widened == 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dev_kernels),
		cmocka_unit_test(test_half_kernels),
		cmocka_unit_test(test_three_formats),
		cmocka_unit_test(test_odd_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
