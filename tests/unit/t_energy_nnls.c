/* Unit tests: least squares by Householder QR and Lawson-Hanson NNLS, checked against brute force. */
#include "base/setup.h"

#include <math.h>

#include "energy/nnls.h"
#include "kp_test.h"

/* A small deterministic generator (xorshift), so failures reproduce. */
static uint64_t rng_state = 88172645463325252ull;
static double urand(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (double)(rng_state >> 11) / 9007199254740992.0;
}

static double objective(const double *A, size_t m, size_t n, const double *b, const double *x)
{
	double s = 0;
	for (size_t i = 0; i < m; i++) {
		double r = b[i];
		for (size_t j = 0; j < n; j++)
			r -= A[i * n + j] * x[j];
		s += r * r;
	}
	return s;
}

/*
 * The NNLS optimum by enumeration: for every subset of columns, the unconstrained least-squares
 * solution on it; the best feasible one (all >= 0) is the constrained optimum (the problem is
 * convex, and the optimum is the LS solution on its own support).
 */
static double brute_force(const double *A, size_t m, size_t n, const double *b, double *best_x)
{
	double best = INFINITY;
	size_t cols[16];
	double s[16], x[16];
	for (unsigned mask = 0; mask < (1u << n); mask++) {
		size_t k = 0;
		int ok = 1;
		for (size_t j = 0; j < n; j++)
			if (mask & (1u << j))
				cols[k++] = j;
		memset(x, 0, sizeof(x));
		if (k) {
			kp_lstsq_cols(A, m, n, cols, k, b, s);
			for (size_t q = 0; q < k; q++) {
				if (s[q] < -1e-12)
					ok = 0;
				x[cols[q]] = s[q] > 0 ? s[q] : 0;
			}
		}
		if (ok && objective(A, m, n, b, x) < best) {
			best = objective(A, m, n, b, x);
			memcpy(best_x, x, n * sizeof(double));
		}
	}
	return best;
}

static void test_lstsq_exact(void **state)
{
	/* 4 x 3, full rank, b = A * (1, -2, 3). */
	const double A[] = {1, 2, 0, 0, 1, 1, 2, 0, 1, 1, 1, 1};
	const double xt[] = {1, -2, 3};
	double b[4], s[3];
	size_t cols[] = {0, 1, 2};
	for (int i = 0; i < 4; i++)
		b[i] = A[i * 3] * xt[0] + A[i * 3 + 1] * xt[1] + A[i * 3 + 2] * xt[2];
	kp_lstsq_cols(A, 4, 3, cols, 3, b, s);
	for (int j = 0; j < 3; j++)
		assert_true(fabs(s[j] - xt[j]) < 1e-12);
}

static void test_lstsq_dependent_column(void **state)
{
	/* Column 2 = 2 * column 0: the dependent column gets 0 and the fit still matches b. */
	const double A[] = {1, 0, 2, 0, 1, 0, 1, 1, 2};
	const double b[] = {3, 1, 4};
	double s[3];
	size_t cols[] = {0, 1, 2};
	kp_lstsq_cols(A, 3, 3, cols, 3, b, s);
	assert_true(s[2] == 0);
	assert_true(fabs(s[0] - 3) < 1e-12 && fabs(s[1] - 1) < 1e-12);
}

static void test_nnls_recovers_known_coefficients(void **state)
{
	enum { M = 40, N = 6 };
	const double xt[N] = {2.5, 0, 1e-3, 7, 0, 0.25};
	double A[M * N], b[M], x[N], resid = -1;
	struct kp_error err = KP_ERROR_INIT;
	for (int i = 0; i < M * N; i++)
		A[i] = urand();
	for (int i = 0; i < M; i++) {
		b[i] = 0;
		for (int j = 0; j < N; j++)
			b[i] += A[i * N + j] * xt[j];
	}
	KP_ASSERT_OK(kp_nnls(A, M, N, b, x, &resid, &err), &err);
	for (int j = 0; j < N; j++)
		assert_true(fabs(x[j] - xt[j]) < 1e-9);
	assert_true(resid < 1e-9);
}

static void test_nnls_matches_brute_force(void **state)
{
	/* Random problems, some with true negative coefficients, m > n and m < n. */
	for (int trial = 0; trial < 200; trial++) {
		size_t m = 3 + (size_t)(urand() * 12), n = 1 + (size_t)(urand() * 7);
		double A[15 * 8], b[15], x[8], xb[8];
		struct kp_error err = KP_ERROR_INIT;
		double got, want;
		for (size_t i = 0; i < m * n; i++)
			A[i] = urand() * 2 - 1;
		for (size_t i = 0; i < m; i++)
			b[i] = urand() * 4 - 2;
		KP_ASSERT_OK(kp_nnls(A, m, n, b, x, NULL, &err), &err);
		for (size_t j = 0; j < n; j++)
			assert_true(x[j] >= 0);
		got = objective(A, m, n, b, x);
		want = brute_force(A, m, n, b, xb);
		if (got > want * (1 + 1e-9) + 1e-12)
			fail_msg("trial %d (%zu x %zu): nnls objective %.12g, optimum %.12g", trial, m, n, got, want);
	}
}

static void test_nnls_all_negative_gives_zero(void **state)
{
	/* b points away from every column: the best non-negative x is 0. */
	const double A[] = {1, 0, 0, 1, 1, 1};
	const double b[] = {-1, -2, -3};
	double x[2] = {5, 5};
	struct kp_error err = KP_ERROR_INIT;
	KP_ASSERT_OK(kp_nnls(A, 3, 2, b, x, NULL, &err), &err);
	assert_true(x[0] == 0 && x[1] == 0);
}

static void test_nnls_rejects_bad_input(void **state)
{
	const double A[] = {1, NAN};
	const double b[] = {1};
	double x[2];
	struct kp_error err = KP_ERROR_INIT;
	assert_int_equal(kp_nnls(A, 1, 2, b, x, NULL, &err), KP_EINVAL);
	assert_non_null(strstr(kp_error_msg(&err), "not a finite number"));
	kp_error_clear(&err);
	assert_int_equal(kp_nnls(A, 0, 2, b, x, NULL, &err), KP_EINVAL);
}

static void test_nnls_badly_scaled_columns(void **state)
{
	/* Columns 20 orders of magnitude apart (seconds vs bytes), as in the energy fit before scaling. */
	enum { M = 12 };
	double A[M * 2], b[M], x[2];
	struct kp_error err = KP_ERROR_INIT;
	for (int i = 0; i < M; i++) {
		A[i * 2] = 1e-4 * (1 + i);
		A[i * 2 + 1] = 1e9 * (1 + (i * 7) % 5);
		b[i] = 150 * A[i * 2] + 6e-11 * A[i * 2 + 1];
	}
	KP_ASSERT_OK(kp_nnls(A, M, 2, b, x, NULL, &err), &err);
	assert_true(fabs(x[0] - 150) / 150 < 1e-6);
	assert_true(fabs(x[1] - 6e-11) / 6e-11 < 1e-6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lstsq_exact),
		cmocka_unit_test(test_lstsq_dependent_column),
		cmocka_unit_test(test_nnls_recovers_known_coefficients),
		cmocka_unit_test(test_nnls_matches_brute_force),
		cmocka_unit_test(test_nnls_all_negative_gives_zero),
		cmocka_unit_test(test_nnls_rejects_bad_input),
		cmocka_unit_test(test_nnls_badly_scaled_columns),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
