/* Unit tests: proxy arithmetic, coefficient files, calibration on synthetic data, statistics, feedback. */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/energy.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kp_test.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static double urand(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (double)(rng_state >> 11) / 9007199254740992.0;
}

static double rel(double got, double want)
{
	return fabs(got - want) / fabs(want);
}

/* Counts of swish_ieee on the H200 (ncu, fixtures/h200-probe), rounded; instruction split invented. */
static void swish_counts(struct kp_energy_counts *k)
{
	kp_energy_counts_init(k);
	k->v[KP_ENERGY_STATIC] = 217.76e-6;
	k->v[KP_ENERGY_SM_ACTIVE] = 420049.0 * 132;
	k->v[KP_ENERGY_DRAM] = 268447744.0 + 249498368.0;
	k->v[KP_ENERGY_L2] = 25376939.0 * 32;
	k->v[KP_ENERGY_EXCESS] = 0;
	k->v[KP_ENERGY_LOCAL] = 0;
	k->v[KP_ENERGY_FP32] = 9.4e8;
	k->v[KP_ENERGY_FP64] = 0;
	k->v[KP_ENERGY_SFU] = 1.3e8;
	k->v[KP_ENERGY_TENSOR] = 0;
	k->v[KP_ENERGY_INT] = 6.7e8;
	k->v[KP_ENERGY_MEM] = 1.3e8;
	k->v[KP_ENERGY_OTHER] = 4.8e8;
}

static void test_proxy_arithmetic(void **state)
{
	struct kp_energy_counts k;
	struct kp_energy_coeffs c;
	struct kp_energy_breakdown b;
	double want = 0;

	kp_energy_coeffs_default(&c);
	swish_counts(&k);
	for (int t = 0; t < KP_ENERGY_NTERMS; t++)
		want += c.c[t] * k.v[t];
	kp_energy_proxy(&k, &c, &b);
	assert_true(rel(b.total_j, want) < 1e-12);
	/* Hand-computed: 150 W x 217.76 us = 32.664 mJ; 517.946 MB x 60 pJ = 31.0768 mJ. */
	assert_true(fabs(b.term_j[KP_ENERGY_STATIC] - 0.032664) < 1e-9);
	assert_true(fabs(b.term_j[KP_ENERGY_DRAM] - 0.03107676672) < 1e-12);
	assert_true(rel(b.static_j, b.term_j[KP_ENERGY_STATIC] + b.term_j[KP_ENERGY_SM_ACTIVE]) < 1e-12);
	assert_true(rel(b.dynamic_j, b.total_j - 133.0 * 217.76e-6) < 1e-12);
	assert_false(b.incomplete);
	/* The order of magnitude the H200 measured for this kernel (120-126 mJ per launch). */
	assert_true(b.total_j > 0.08 && b.total_j < 0.16);

	/* Missing counts contribute nothing and are flagged; missing time makes it incomplete. */
	k.v[KP_ENERGY_FP64] = NAN;
	k.v[KP_ENERGY_STATIC] = NAN;
	kp_energy_proxy(&k, &c, &b);
	assert_true(b.missing[KP_ENERGY_FP64] && b.missing[KP_ENERGY_STATIC]);
	assert_true(b.incomplete);
	assert_true(isnan(b.dynamic_j));
	assert_true(rel(b.total_j, want - c.c[KP_ENERGY_STATIC] * 217.76e-6) < 1e-12);
}

static void test_counts_add_and_terms(void **state)
{
	struct kp_energy_counts a, b;
	swish_counts(&a);
	swish_counts(&b);
	b.v[KP_ENERGY_LOCAL] = NAN;
	kp_energy_counts_add(&a, &b);
	assert_true(a.v[KP_ENERGY_DRAM] == 2 * (268447744.0 + 249498368.0));
	assert_true(isnan(a.v[KP_ENERGY_LOCAL]));
	assert_int_equal(kp_energy_term_find("dram"), KP_ENERGY_DRAM);
	assert_int_equal(kp_energy_term_find("nope"), -1);
	assert_string_equal(kp_energy_term_name(KP_ENERGY_EXCESS), "excess_sectors");
	assert_string_equal(kp_energy_term_unit(KP_ENERGY_TENSOR), "SM-cycles");
	assert_non_null(kp_energy_proxy_metrics()[0]);
}

static void test_coeff_files(void **state)
{
	char *dir = kp_test_tmpdir();
	struct kp_buf p = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_energy_coeffs c, back;
	json_t *v;
	int calibrated = -1;
	const char *newer = "{\"kind\":\"kernelpro-energy-coefficients\",\"version\":1,"
			    "\"coefficients\":{\"dram\":7e-11,\"future_term\":3},\"fitted\":[\"dram\"]}";
	const char *negative = "{\"kind\":\"kernelpro-energy-coefficients\",\"version\":1,"
			       "\"coefficients\":{\"dram\":-1}}";

	setenv("XDG_CACHE_HOME", dir, 1);
	KP_ASSERT_OK(kp_energy_coeffs_path("NVIDIA H200 (SXM)", &p, &err), &err);
	assert_non_null(strstr(p.buf, "/kernelpro/energy/coeffs-nvidia-h200-sxm.json"));

	/* Nothing calibrated yet: defaults. */
	KP_ASSERT_OK(kp_energy_coeffs_for("NVIDIA H200 (SXM)", &c, &calibrated, &err), &err);
	assert_int_equal(calibrated, 0);
	assert_true(c.c[KP_ENERGY_STATIC] == 150.0);

	c.c[KP_ENERGY_DRAM] = 5.5e-11;
	c.fitted[KP_ENERGY_DRAM] = 1;
	c.idle_power_w = 120;
	snprintf(c.device, sizeof(c.device), "NVIDIA H200 (SXM)");
	KP_ASSERT_OK(kp_energy_coeffs_save(&c, p.buf, &err), &err);
	KP_ASSERT_OK(kp_energy_coeffs_for("NVIDIA H200 (SXM)", &back, &calibrated, &err), &err);
	assert_int_equal(calibrated, 1);
	assert_true(back.c[KP_ENERGY_DRAM] == 5.5e-11 && back.fitted[KP_ENERGY_DRAM] && !back.fitted[KP_ENERGY_L2]);
	assert_true(back.idle_power_w == 120);
	assert_string_equal(back.device, "NVIDIA H200 (SXM)");

	/* A file from a newer kernelpro: unknown terms ignored, missing ones at their defaults. */
	KP_ASSERT_OK(kp_json_load_mem("newer", newer, strlen(newer), &v, &err), &err);
	KP_ASSERT_OK(kp_energy_coeffs_from_json(v, "newer", &back, &err), &err);
	json_decref(v);
	assert_true(back.c[KP_ENERGY_DRAM] == 7e-11 && back.c[KP_ENERGY_L2] == 1e-11);
	KP_ASSERT_OK(kp_json_load_mem("neg", negative, strlen(negative), &v, &err), &err);
	assert_int_equal(kp_energy_coeffs_from_json(v, "neg", &back, &err), KP_EPARSE);
	assert_non_null(strstr(kp_error_msg(&err), "'dram'"));
	json_decref(v);

	/* A corrupt calibrated file is an error, not a silent fallback. */
	kp_error_clear(&err);
	KP_ASSERT_OK(kp_write_file_atomic(p.buf, "{oops", 5, &err), &err);
	assert_int_equal(kp_energy_coeffs_for("NVIDIA H200 (SXM)", &back, &calibrated, &err), KP_EPARSE);
	assert_non_null(strstr(kp_error_msg(&err), "calibrated energy coefficients"));

	unsetenv("XDG_CACHE_HOME");
	kp_buf_release(&p);
	kp_test_tmpdir_remove(dir);
}

/* Samples from known coefficients: each kernel exercises a random subset of the terms. */
static size_t make_samples(struct kp_energy_sample *s, size_t n, const struct kp_energy_coeffs *truth, double noise,
			   int skip_term)
{
	for (size_t i = 0; i < n; i++) {
		struct kp_energy_breakdown b;
		memset(&s[i], 0, sizeof(s[i]));
		snprintf(s[i].name, sizeof(s[i].name), "k%zu", i);
		kp_energy_counts_init(&s[i].counts);
		s[i].counts.v[KP_ENERGY_STATIC] = 1e-5 * (1 + 100 * urand());
		for (int t = 1; t < KP_ENERGY_NTERMS; t++) {
			/* Scale counts so each term is worth 0-50% of the static part when present. */
			double worth = urand() < 0.6 ? urand() * 0.5 * 150 * s[i].counts.v[KP_ENERGY_STATIC] : 0;
			s[i].counts.v[t] = t == skip_term ? 0 : worth / truth->c[t];
		}
		kp_energy_proxy(&s[i].counts, truth, &b);
		s[i].energy_j = b.total_j * (1 + noise * (2 * urand() - 1));
		s[i].time_s = s[i].counts.v[KP_ENERGY_STATIC];
		s[i].idle_power_w = truth->idle_power_w;
		s[i].dynamic_j = s[i].energy_j - truth->idle_power_w * s[i].time_s;
	}
	return n;
}

static void test_calibration_recovers_known_coefficients(void **state)
{
	enum { N = 60 };
	struct kp_energy_sample s[N];
	struct kp_energy_coeffs base, truth, fitted;
	struct kp_energy_fit fit;
	struct kp_error err = KP_ERROR_INIT;

	kp_energy_coeffs_default(&base);
	truth = base;
	for (int t = 0; t < KP_ENERGY_NTERMS; t++)
		truth.c[t] = base.c[t] * (0.3 + 3 * urand());
	truth.idle_power_w = 125;
	make_samples(s, N, &truth, 0, KP_ENERGY_TENSOR);
	KP_ASSERT_OK(kp_energy_calibrate(s, N, &base, 0, &fitted, &fit, &err), &err);
	for (int t = 0; t < KP_ENERGY_NTERMS; t++) {
		if (t == KP_ENERGY_TENSOR) {
			/* No sample used tensor cores: the base value stays, marked as not fitted. */
			assert_false(fitted.fitted[t]);
			assert_true(fitted.c[t] == base.c[t]);
			continue;
		}
		assert_true(fitted.fitted[t]);
		if (rel(fitted.c[t], truth.c[t]) > 1e-6)
			fail_msg("term %s: fitted %g, true %g", kp_energy_term_name(t), fitted.c[t], truth.c[t]);
	}
	assert_int_equal(fit.nfitted, KP_ENERGY_NTERMS - 1);
	assert_true(fit.nsamples == N);
	assert_true(fit.fitted.spearman > 0.9999 && fit.loo.spearman > 0.9999);
	assert_true(fit.fitted.mape < 1e-6 && fit.loo.mape < 1e-6);
	assert_true(fit.fitted.power_spearman > 0.9999 && fit.fitted.dynamic_spearman > 0.9999);
	assert_true(fitted.idle_power_w == 125);
	assert_non_null(strstr(fitted.source, "calibrated"));
	assert_non_null(strstr(fitted.source, "60 kernels"));
}

static void test_calibration_with_noise_and_prior(void **state)
{
	enum { N = 40 };
	struct kp_energy_sample s[N];
	struct kp_energy_coeffs base, truth, fitted, pulled;
	struct kp_energy_fit fit;
	struct kp_error err = KP_ERROR_INIT;

	kp_energy_coeffs_default(&base);
	truth = base;
	for (int t = 0; t < KP_ENERGY_NTERMS; t++)
		truth.c[t] = base.c[t] * 2;
	make_samples(s, N, &truth, 0.03, -1);
	KP_ASSERT_OK(kp_energy_calibrate(s, N, &base, 0, &fitted, &fit, &err), &err);
	/* 3% noise: the large terms are found within 15%, and ranking stays near perfect. */
	assert_true(rel(fitted.c[KP_ENERGY_STATIC], truth.c[KP_ENERGY_STATIC]) < 0.15);
	assert_true(fit.loo.spearman > 0.95);
	assert_true(fit.loo.mape < 0.1);
	/* The defaults are off by 2x everywhere: they rank the same but miss by ~50%. */
	assert_true(fit.base.mape > 0.4);

	/* A heavy prior keeps the coefficients at the base values. */
	KP_ASSERT_OK(kp_energy_calibrate(s, N, &base, 1e6, &pulled, &fit, &err), &err);
	for (int t = 0; t < KP_ENERGY_NTERMS; t++)
		assert_true(rel(pulled.c[t], base.c[t]) < 0.01);
}

static void test_calibration_errors(void **state)
{
	struct kp_energy_sample s[3];
	struct kp_energy_coeffs base, out;
	struct kp_energy_fit fit;
	struct kp_error err = KP_ERROR_INIT;
	kp_energy_coeffs_default(&base);
	make_samples(s, 3, &base, 0, -1);
	assert_int_equal(kp_energy_calibrate(s, 2, &base, 0, &out, &fit, &err), KP_EINVAL);
	assert_non_null(strstr(kp_error_msg(&err), "at least 3"));
	kp_error_clear(&err);
	s[1].energy_j = 0;
	assert_int_equal(kp_energy_calibrate(s, 3, &base, 0, &out, &fit, &err), KP_EINVAL);
	assert_non_null(strstr(kp_error_msg(&err), "'k1'"));
}

static void test_corpus_file(void **state)
{
	char *dir = kp_test_tmpdir();
	struct kp_buf p = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_energy_sample one, *s = NULL;
	size_t n = 0, alloc = 0;
	json_t *v;
	char *line;

	swish_counts(&one.counts);
	snprintf(one.name, sizeof(one.name), "swish_ieee");
	snprintf(one.device, sizeof(one.device), "NVIDIA H200");
	one.energy_j = 0.126;
	one.dynamic_j = 0.096;
	one.time_s = 223e-6;
	one.power_w = 565;
	one.idle_power_w = 133;
	one.energy_spread = 0.04;
	one.counts.v[KP_ENERGY_FP64] = NAN;
	v = kp_energy_sample_to_json(&one);
	line = json_dumps(v, JSON_COMPACT);
	json_decref(v);
	kp_buf_addf(&p, "%s/corpus.jsonl", dir);
	{
		struct kp_buf text = KP_BUF_INIT;
		kp_buf_addf(&text, "# measured on the H200\n%s\n\n%s\n", line, line);
		KP_ASSERT_OK(kp_write_file_atomic(p.buf, text.buf, text.len, &err), &err);
		kp_buf_release(&text);
	}
	KP_ASSERT_OK(kp_energy_corpus_load(p.buf, &s, &n, &alloc, &err), &err);
	assert_int_equal(n, 2);
	assert_string_equal(s[1].name, "swish_ieee");
	assert_true(s[1].energy_j == 0.126 && s[1].counts.v[KP_ENERGY_DRAM] == one.counts.v[KP_ENERGY_DRAM]);
	assert_true(isnan(s[1].counts.v[KP_ENERGY_FP64]));

	/* A bad line names the file and line. */
	{
		struct kp_buf text = KP_BUF_INIT;
		kp_buf_addf(&text, "%s\n{\"name\": \"x\", \"energy_j\": 1, \"counts\": {\"dram\": -4}}\n", line);
		KP_ASSERT_OK(kp_write_file_atomic(p.buf, text.buf, text.len, &err), &err);
		kp_buf_release(&text);
	}
	assert_int_equal(kp_energy_corpus_load(p.buf, &s, &n, &alloc, &err), KP_EPARSE);
	assert_non_null(strstr(kp_error_msg(&err), "corpus.jsonl:2"));
	free(line);
	free(s);
	kp_buf_release(&p);
	kp_test_tmpdir_remove(dir);
}

static void test_statistics(void **state)
{
	const double a[] = {1, 2, 3, 4, 5};
	const double up[] = {10, 20, 35, 40, 100};
	const double down[] = {5, 4, 3, 2, 1};
	const double tied[] = {1, 1, 2, 2, 3};
	const double flat[] = {7, 7, 7, 7, 7};
	double med[] = {5, 1, 3, 2, 4, 6};
	double odd[] = {3, 1, 2};
	assert_true(kp_energy_spearman(a, up, 5) == 1.0);
	assert_true(kp_energy_spearman(a, down, 5) == -1.0);
	/* Ranks of `tied` are 1.5 1.5 3.5 3.5 5: rho = 0.9487... */
	assert_true(fabs(kp_energy_spearman(a, tied, 5) - 0.9486832980505138) < 1e-12);
	assert_true(isnan(kp_energy_spearman(a, flat, 5)));
	assert_true(isnan(kp_energy_spearman(a, up, 1)));
	assert_true(kp_energy_median(med, 6) == 3.5);
	assert_true(kp_energy_median(odd, 3) == 2);
	assert_true(isnan(kp_energy_median(odd, 0)));
	assert_true(fabs(kp_energy_mape(up, a, 2) - (9.0 / 1 + 18.0 / 2) / 2) < 1e-12);

	/* Noise-aware comparison: 1% floor, spreads widen the band. */
	assert_int_equal(kp_energy_cmp(100, 0, 100.5, 0, 0.01), 0);
	assert_int_equal(kp_energy_cmp(100, 0, 102, 0, 0.01), -1);
	assert_int_equal(kp_energy_cmp(102, 0, 100, 0, 0.01), 1);
	assert_int_equal(kp_energy_cmp(100, 0.06, 102, 0.01, 0.01), 0); /* band 3% */
	assert_int_equal(kp_energy_cmp(NAN, 0, 1, 0, 0.01), 0);
}

static void test_feedback_paragraph(void **state)
{
	struct kp_energy_counts k;
	struct kp_energy_coeffs c;
	struct kp_energy_breakdown b;
	struct kp_energy_measurement m;
	struct kp_sass_func sass;
	struct kp_buf t = KP_BUF_INIT;

	kp_energy_coeffs_default(&c);
	swish_counts(&k);
	kp_energy_proxy(&k, &c, &b);
	memset(&sass, 0, sizeof(sass));
	sass.counts[KP_SASS_CALL_FDIV_SLOW] = 1;
	sass.counts[KP_SASS_MUFU_EX2] = 1;
	sass.counts[KP_SASS_MUFU_RCP] = 1;
	sass.counts[KP_SASS_LDG_32] = 1;
	sass.counts[KP_SASS_STG_32] = 1;

	kp_energy_feedback(&t, &b, &c, NULL, &sass, 0);
	assert_non_null(strstr(t.buf, "Energy (estimate from counters):"));
	assert_non_null(strstr(t.buf, "Where it goes: running time"));
	assert_non_null(strstr(t.buf, "What would lower it:"));
	/* Running time dominates swish: it comes first; DRAM next. */
	assert_true(strstr(t.buf, "- Run faster") < strstr(t.buf, "- Move fewer DRAM bytes"));
	/* The IEEE division slow path is named with its remedy even though the XU share is small. */
	assert_non_null(strstr(t.buf, "__fdividef"));
	assert_non_null(strstr(t.buf, "default Hopper coefficients"));
	assert_true(t.len <= 1500);

	/* With a measurement it leads with NVML's figure. */
	kp_buf_reset(&t);
	memset(&m, 0, sizeof(m));
	m.energy_j = 0.126;
	m.dynamic_j = 0.096;
	m.time_s = 223e-6;
	m.power_w = 565;
	snprintf(c.source, sizeof(c.source), "calibrated 2026-07-01 on 31 kernels");
	kp_energy_feedback(&t, &b, &c, &m, NULL, 0);
	assert_non_null(strstr(t.buf, "126 mJ per launch measured (NVML"));
	assert_non_null(strstr(t.buf, "96 mJ above idle"));
	assert_null(strstr(t.buf, "__fdividef")); /* no SASS, no claim about division */
	assert_null(strstr(t.buf, "default Hopper"));

	/* Bounded, and cut at a line end. */
	kp_buf_reset(&t);
	kp_energy_feedback(&t, &b, &c, NULL, &sass, 200);
	assert_true(t.len <= 200 && t.len > 0);
	assert_true(t.buf[t.len - 1] == '\n');

	/* No counters at all: says so instead of inventing shares. */
	kp_buf_reset(&t);
	kp_energy_counts_init(&k);
	kp_energy_proxy(&k, &c, &b);
	kp_energy_feedback(&t, &b, &c, NULL, NULL, 0);
	assert_non_null(strstr(t.buf, "no counters to estimate it from"));
	assert_null(strstr(t.buf, " nJ"));
	kp_buf_release(&t);
}

/* The real H200 capture through issue 3's parsers: counts, the search's entry point, the paragraph. */
static void test_profile_from_h200_capture(void **state)
{
	struct kp_buf csv = KP_BUF_INIT, sasstext = KP_BUF_INIT, t = KP_BUF_INIT;
	struct kp_ncu_report r = KP_NCU_REPORT_INIT;
	struct kp_sass sass = KP_SASS_INIT;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_energy_coeffs c;
	struct kp_energy_breakdown b;
	struct kp_kernel_profile p = {0};
	struct kp_energy_counts k;

	kp_test_read("tests/golden/h200-probe/ncu_raw.csv", &csv);
	kp_test_read("tests/golden/h200-probe/sass.txt", &sasstext);
	KP_ASSERT_OK(kp_ncu_parse_raw(&r, "ncu_raw.csv", csv.buf, csv.len, &err), &err);
	KP_ASSERT_OK(kp_sass_parse(&sass, "sass.txt", sasstext.buf, sasstext.len, &err), &err);
	kp_energy_coeffs_default(&c);
	for (size_t i = 0; i < r.nlaunches; i++) {
		const struct kp_launch *l = &r.launches[i];
		kp_energy_counts_from_launch(l, &k);
		/* Every launch has time, DRAM, L2 and local traffic; a --set full capture has no classes. */
		assert_true(k.v[KP_ENERGY_STATIC] > 0 && isfinite(k.v[KP_ENERGY_DRAM]) && isfinite(k.v[KP_ENERGY_L2]));
		assert_true(isfinite(k.v[KP_ENERGY_LOCAL]) && isfinite(k.v[KP_ENERGY_SM_ACTIVE]));
		assert_true(isnan(k.v[KP_ENERGY_FP32]) && k.v[KP_ENERGY_OTHER] > 0);
		if (!strcmp(l->function, "vec_add_f4")) {
			assert_true(k.v[KP_ENERGY_DRAM] == 536887552.0 + 250120448.0);
			assert_true(fabs(k.v[KP_ENERGY_STATIC] - 182400e-9) < 1e-12);
			assert_true(k.v[KP_ENERGY_EXCESS] == 0 && k.v[KP_ENERGY_LOCAL] == 0);
		}
		if (!strcmp(l->function, "spill_local"))
			assert_true(k.v[KP_ENERGY_LOCAL] > 1e11); /* 4.8 G sectors of local traffic */
		if (!strcmp(l->function, "copy_strided"))
			assert_true(k.v[KP_ENERGY_EXCESS] > 1e8);
		if (!strcmp(l->function, "swish_ieee")) {
			p.launch = l;
			p.sass = kp_sass_find(&sass, l->function);
		}
	}
	assert_non_null(p.launch);
	assert_non_null(p.sass);
	KP_ASSERT_OK(kp_energy_proxy_profile(&p, &c, &b), &err);
	assert_true(b.total_j > 0.05 && b.total_j < 0.2);
	kp_energy_feedback_profile(&t, &p, &c, NULL, 0);
	assert_non_null(strstr(t.buf, "__fdividef"));
	assert_non_null(strstr(t.buf, "does not split them by class"));

	/* No ncu launch: says so, guesses nothing. */
	kp_buf_reset(&t);
	p.launch = NULL;
	assert_int_equal(kp_energy_proxy_profile(&p, &c, &b), KP_EMISSING);
	kp_energy_feedback_profile(&t, &p, &c, NULL, 0);
	assert_non_null(strstr(t.buf, "no counters to estimate it from"));

	kp_buf_release(&t);
	kp_buf_release(&csv);
	kp_buf_release(&sasstext);
	kp_sass_release(&sass);
	kp_ncu_report_release(&r);
}

static void test_breakdown_json(void **state)
{
	struct kp_energy_counts k;
	struct kp_energy_coeffs c;
	struct kp_energy_breakdown b;
	json_t *v;
	kp_energy_coeffs_default(&c);
	swish_counts(&k);
	k.v[KP_ENERGY_TENSOR] = NAN;
	kp_energy_proxy(&k, &c, &b);
	v = kp_energy_breakdown_to_json(&b, &c);
	assert_true(json_real_value(json_object_get(v, "total_j")) == b.total_j);
	assert_null(json_object_get(json_object_get(v, "terms_j"), "tensor"));
	assert_string_equal(json_string_value(json_array_get(json_object_get(v, "missing"), 0)), "tensor");
	json_decref(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_proxy_arithmetic),
		cmocka_unit_test(test_counts_add_and_terms),
		cmocka_unit_test(test_coeff_files),
		cmocka_unit_test(test_calibration_recovers_known_coefficients),
		cmocka_unit_test(test_calibration_with_noise_and_prior),
		cmocka_unit_test(test_calibration_errors),
		cmocka_unit_test(test_corpus_file),
		cmocka_unit_test(test_statistics),
		cmocka_unit_test(test_feedback_paragraph),
		cmocka_unit_test(test_breakdown_json),
		cmocka_unit_test(test_profile_from_h200_capture),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
