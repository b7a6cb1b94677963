/* Unit tests: ptxas -v reports (CUDA 13 capture, older spellings, spills, device functions, truncation). */
#include "base/setup.h"

#include "kp_test.h"
#include "kernelpro/profile.h"

#define DIR "tests/golden/h200-probe/"

static void test_fixture(void **state)
{
	struct kp_ptxas p = KP_PTXAS_INIT;
	struct kp_buf b = KP_BUF_INIT, out = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	const struct kp_ptxas_func *f;
	kp_test_read(DIR "ptxas.txt", &b);
	KP_ASSERT_OK(kp_ptxas_parse(&p, "ptxas.txt", b.buf, b.len, &err), &err);
	assert_int_equal(p.nfuncs, 16);
	assert_false(p.incomplete);
	f = kp_ptxas_find(&p, "_Z11spill_localPKfPfii");
	assert_non_null(f);
	assert_int_equal(f->registers, 32);
	assert_int_equal(f->stack_frame, 256);
	assert_int_equal(f->spill_stores, 0);
	assert_int_equal(f->spill_loads, 0);
	assert_int_equal(f->cumulative_stack, 256);
	assert_string_equal(f->arch, "sm_90");
	f = kp_ptxas_find(&p, "transpose_padded(const float *, float *, int)");
	assert_non_null(f);
	assert_int_equal(f->smem_bytes, 4224);
	assert_int_equal(f->barriers, 1);
	assert_int_equal(f->cmem_bytes, -1); /* CUDA 13 does not print it */
	f = kp_ptxas_find(&p, "tiny_kernel");
	assert_int_equal(f->registers, 8);
	assert_int_equal(f->smem_bytes, 0);
	assert_int_equal(f->cumulative_stack, -1);
	for (size_t i = 0; i < p.nfuncs; i++) {
		const struct kp_ptxas_func *x = &p.funcs[i];
		assert_true(x->entry);
		kp_buf_addf(&out, "%s [%s] %s regs=%d bar=%d smem=%ld cmem=%ld stack=%ld spill_st=%ld spill_ld=%ld cum=%ld\n",
			    x->mangled, x->key, x->arch, x->registers, x->barriers, x->smem_bytes, x->cmem_bytes,
			    x->stack_frame, x->spill_stores, x->spill_loads, x->cumulative_stack);
	}
	kp_test_golden(DIR "expected/ptxas.txt", out.buf);
	kp_buf_release(&out);
	kp_buf_release(&b);
	kp_ptxas_release(&p);
	kp_ptxas_release(&p);
}

static void test_other_spellings(void **state)
{
	/* CUDA 11/12 (cmem printed, no barriers), a register cap that spills, a device function, other tools' lines */
	const char *text =
		"nvlink info    : 0 bytes gmem\n"
		"ptxas info    : 0 bytes gmem\n"
		"ptxas info    : Compiling entry function '_Z4smemPf' for 'sm_80'\n"
		"ptxas info    : Function properties for _Z4smemPf\n"
		"    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
		"ptxas info    : Used 10 registers, 4224 bytes smem, 380 bytes cmem[0], 4 bytes cmem[2]\n"
		"ptxas info    : Function properties for _Z6helperf\n"
		"    8 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
		"ptxas info    : Overriding maximum register limit 256 for '_Z5spillPKfPfii' with  32 of maxrregcount option\n"
		"ptxas info    : Compiling entry function '_Z5spillPKfPfii' for 'sm_90'\n"
		"ptxas info    : Function properties for _Z5spillPKfPfii\n"
		"    928 bytes stack frame, 1112 bytes spill stores, 1244 bytes spill loads\n"
		"ptxas info    : Used 32 registers, used 0 barriers, 928 bytes cumulative stack size\n"
		"ptxas warning : Registers are spilled to local memory in function '_Z5spillPKfPfii', 1112 bytes spill stores, 1244 bytes spill loads\n";
	struct kp_ptxas p = KP_PTXAS_INIT;
	struct kp_error err = KP_ERROR_INIT;
	const struct kp_ptxas_func *f;
	KP_ASSERT_OK(kp_ptxas_parse(&p, "old.txt", text, strlen(text), &err), &err);
	assert_int_equal(p.nfuncs, 3);
	f = kp_ptxas_find(&p, "smem");
	assert_int_equal(f->registers, 10);
	assert_int_equal(f->barriers, -1);
	assert_int_equal(f->smem_bytes, 4224);
	assert_int_equal(f->cmem_bytes, 380);
	f = kp_ptxas_find(&p, "_Z6helperf");
	assert_false(f->entry);
	assert_int_equal(f->stack_frame, 8);
	assert_null(kp_ptxas_find(&p, "helper")); /* keys only match kernels */
	f = kp_ptxas_find(&p, "spill");
	assert_int_equal(f->registers, 32);
	assert_int_equal(f->spill_stores, 1112);
	assert_int_equal(f->spill_loads, 1244);
	assert_int_equal(f->stack_frame, 928);
	kp_ptxas_release(&p);
}

static void test_bad_and_truncated(void **state)
{
	struct kp_ptxas p = KP_PTXAS_INIT;
	struct kp_error err = KP_ERROR_INIT;
	const char *cut = "ptxas info    : Compiling entry function '_Z1kv' for 'sm_90'\n"
			  "ptxas info    : Function properties for _Z1kv\n";
	assert_int_equal(kp_ptxas_parse(&p, "x.txt", "warning: something\n", 19, &err), KP_EPARSE);
	assert_non_null(strstr(kp_error_msg(&err), "x.txt: no ptxas function reports"));
	kp_ptxas_release(&p);
	KP_ASSERT_OK(kp_ptxas_parse(&p, "cut.txt", cut, strlen(cut), &err), &err);
	assert_true(p.incomplete);
	assert_int_equal(p.funcs[0].registers, -1);
	assert_non_null(strstr(p.warnings.buf, "cut.txt: no 'Used N registers' line for '_Z1kv'"));
	kp_ptxas_release(&p);
}

/*
 * Numbers are read whole and strictly (issue 21: "-5" was read as 5 and "1e400" as 400): a sign,
 * an exponent, a fraction or an out-of-range count leaves the figure missing (-1), with a
 * warning naming the file, line and word, and marks the report incomplete.
 */
static void test_strict_numbers(void **state)
{
	static const struct {
		const char *report, *word;
	} bad[] = {
		{"ptxas info    : Used -5 registers, used 1 barriers, 4224 bytes smem", "-5"},
		{"ptxas info    : Used 1e400 registers, used 1 barriers, 4224 bytes smem", "1e400"},
		{"ptxas info    : Used 32 registers, used 1 barriers, 1e400 bytes smem", "1e400"},
		{"ptxas info    : Used 32 registers, used +1 barriers, 4224 bytes smem", "+1"},
		{"ptxas info    : Used 3.5 registers, used 1 barriers, 4224 bytes smem", "3.5"},
		{"ptxas info    : Used 99999999999 registers, used 1 barriers, 4224 bytes smem", "99999999999"},
		{"ptxas info    : Used 32 registers, used 1 barriers, 99999999999999999999999 bytes smem",
		 "99999999999999999999999"},
		{"ptxas info    : Used 32 registers, used 1 barriers, 0x10 bytes smem", "0x10"},
	};
	for (size_t i = 0; i < KP_ARRAY_SIZE(bad); i++) {
		struct kp_ptxas p = KP_PTXAS_INIT;
		struct kp_error err = KP_ERROR_INIT;
		struct kp_buf text = KP_BUF_INIT, want = KP_BUF_INIT;
		const struct kp_ptxas_func *f;
		kp_buf_addf(&text, "ptxas info    : Compiling entry function '_Z1kv' for 'sm_90'\n%s\n", bad[i].report);
		KP_ASSERT_OK(kp_ptxas_parse(&p, "bad.txt", text.buf, text.len, &err), &err);
		f = &p.funcs[0];
		if (strstr(bad[i].report, bad[i].word) < strstr(bad[i].report, "registers")) {
			assert_int_equal(f->registers, -1);
			assert_int_equal(f->smem_bytes, 4224);
		} else if (strstr(bad[i].report, bad[i].word) < strstr(bad[i].report, "barriers")) {
			assert_int_equal(f->registers, 32);
			assert_int_equal(f->barriers, -1);
		} else {
			assert_int_equal(f->registers, 32);
			assert_int_equal(f->smem_bytes, -1);
		}
		assert_true(p.incomplete);
		kp_buf_addf(&want, "bad.txt:2: '%s' before", bad[i].word);
		if (!strstr(p.warnings.buf, want.buf))
			fail_msg("%s: warnings '%s' lack \"%s\"", bad[i].report, p.warnings.buf, want.buf);
		kp_ptxas_release(&p);
		kp_buf_release(&text);
		kp_buf_release(&want);
	}
	{
		/* the stack line too */
		const char *t = "ptxas info    : Compiling entry function '_Z1kv' for 'sm_90'\n"
				"ptxas info    : Function properties for _Z1kv\n"
				"    -8 bytes stack frame, 12 bytes spill stores, 1e3 bytes spill loads\n"
				"ptxas info    : Used 8 registers\n";
		struct kp_ptxas p = KP_PTXAS_INIT;
		struct kp_error err = KP_ERROR_INIT;
		KP_ASSERT_OK(kp_ptxas_parse(&p, "stack.txt", t, strlen(t), &err), &err);
		assert_int_equal(p.funcs[0].stack_frame, -1);
		assert_int_equal(p.funcs[0].spill_stores, 12);
		assert_int_equal(p.funcs[0].spill_loads, -1);
		assert_int_equal(p.funcs[0].registers, 8);
		assert_true(p.incomplete);
		kp_ptxas_release(&p);
	}
}

/* AT_DISPATCH's float and double instances share the key; the launch's template argument picks one. */
static void test_template_instances(void **state)
{
	const char *text = "ptxas info    : Compiling entry function '_Z8argmin_kIfEvPKT_Pli' for 'sm_90'\n"
			   "ptxas info    : Used 32 registers, used 0 barriers\n"
			   "ptxas info    : Compiling entry function '_Z8argmin_kIdEvPKT_Pli' for 'sm_90'\n"
			   "ptxas info    : Used 40 registers, used 0 barriers\n";
	struct kp_ptxas p = KP_PTXAS_INIT;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_launch l = {0};
	const struct kp_ptxas_func *f;
	KP_ASSERT_OK(kp_ptxas_parse(&p, "two.txt", text, strlen(text), &err), &err);
	assert_null(kp_ptxas_find(&p, "argmin_k")); /* by the key alone: ambiguous */
	l.cc = "9.0";
	l.kernel = "void argmin_k<float>(const T1 *, long *, int)";
	f = kp_ptxas_find_launch(&p, &l);
	assert_non_null(f);
	assert_int_equal(f->registers, 32);
	l.kernel = "void argmin_k<double>(const T1 *, long *, int)";
	f = kp_ptxas_find_launch(&p, &l);
	assert_non_null(f);
	assert_int_equal(f->registers, 40);
	l.kernel = "void argmin_k<int>(const T1 *, long *, int)";
	assert_null(kp_ptxas_find_launch(&p, &l));
	kp_ptxas_release(&p);
}

static void test_join(void **state)
{
	struct kp_ptxas p = KP_PTXAS_INIT;
	struct kp_ncu_report r = KP_NCU_REPORT_INIT;
	struct kp_buf b = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	kp_test_read(DIR "ptxas.txt", &b);
	KP_ASSERT_OK(kp_ptxas_parse(&p, "ptxas.txt", b.buf, b.len, &err), &err);
	kp_buf_reset(&b);
	kp_test_read(DIR "ncu_raw.csv", &b);
	KP_ASSERT_OK(kp_ncu_parse_raw(&r, "ncu_raw.csv", b.buf, b.len, &err), &err);
	for (size_t i = 0; i < r.nlaunches; i++) {
		const struct kp_ptxas_func *f = kp_ptxas_find_launch(&p, &r.launches[i]);
		if (i < 15)
			assert_string_equal(f->key, r.launches[i].function);
		else
			assert_null(f);
	}
	kp_ncu_report_release(&r);
	kp_ptxas_release(&p);
	kp_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture),
		cmocka_unit_test(test_other_spellings),
		cmocka_unit_test(test_bad_and_truncated),
		cmocka_unit_test(test_strict_numbers),
		cmocka_unit_test(test_join),
		cmocka_unit_test(test_template_instances),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
