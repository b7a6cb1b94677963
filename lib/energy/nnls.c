/*
 * Non-negative least squares after Lawson and Hanson, "Solving Least Squares Problems" (1974), ch. 23:
 * an active-set method whose inner problems are solved by Householder QR. Small and dense: the
 * energy calibration fits about a dozen coefficients to at most a few hundred kernels.
 */
#include "base/setup.h"

#include <float.h>
#include <math.h>

#include "energy/nnls.h"

void kp_lstsq_cols(const double *A, size_t m, size_t n, const size_t *cols, size_t k, const double *b,
		   double *s)
{
	/* Q: the selected columns, column-major (Q[j*m + i]); rhs: a copy of b. */
	double *Q = kp_xcalloc(kp_st_mult(m, k ? k : 1), sizeof(double));
	double *rhs = kp_xcalloc(m ? m : 1, sizeof(double));
	size_t *prow = kp_xcalloc(k ? k : 1, sizeof(size_t));
	size_t r = 0;

	for (size_t j = 0; j < k; j++)
		for (size_t i = 0; i < m; i++)
			Q[j * m + i] = A[i * n + cols[j]];
	memcpy(rhs, b, m * sizeof(double));

	for (size_t j = 0; j < k; j++) {
		double *q = &Q[j * m];
		double orig = 0, norm = 0, alpha, vv = 0;
		for (size_t i = 0; i < m; i++)
			orig += q[i] * q[i];
		for (size_t i = r; i < m; i++)
			norm += q[i] * q[i];
		orig = sqrt(orig);
		norm = sqrt(norm);
		prow[j] = SIZE_MAX;
		/* What is left of this column after the earlier reflections is in their span: dependent. */
		if (r >= m || norm <= 1e-12 * orig || norm == 0)
			continue;
		alpha = q[r] > 0 ? -norm : norm;
		q[r] -= alpha; /* q[r..m) is now the Householder vector v */
		for (size_t i = r; i < m; i++)
			vv += q[i] * q[i];
		for (size_t l = j + 1; l < k; l++) {
			double *c = &Q[l * m], dot = 0;
			for (size_t i = r; i < m; i++)
				dot += q[i] * c[i];
			dot = 2 * dot / vv;
			for (size_t i = r; i < m; i++)
				c[i] -= dot * q[i];
		}
		{
			double dot = 0;
			for (size_t i = r; i < m; i++)
				dot += q[i] * rhs[i];
			dot = 2 * dot / vv;
			for (size_t i = r; i < m; i++)
				rhs[i] -= dot * q[i];
		}
		q[r] = alpha; /* R's diagonal; the rest of v is no longer needed */
		prow[j] = r++;
	}
	for (size_t jj = k; jj-- > 0;) {
		double acc;
		if (prow[jj] == SIZE_MAX) {
			s[jj] = 0;
			continue;
		}
		acc = rhs[prow[jj]];
		for (size_t l = jj + 1; l < k; l++)
			acc -= Q[l * m + prow[jj]] * s[l];
		s[jj] = acc / Q[jj * m + prow[jj]];
	}
	free(Q);
	free(rhs);
	free(prow);
}

/* w = A^T (b - A x); returns ||b - A x||. */
static double gradient(const double *A, size_t m, size_t n, const double *b, const double *x, double *w)
{
	double rr = 0;
	memset(w, 0, n * sizeof(double));
	for (size_t i = 0; i < m; i++) {
		double ri = b[i];
		for (size_t j = 0; j < n; j++)
			ri -= A[i * n + j] * x[j];
		rr += ri * ri;
		for (size_t j = 0; j < n; j++)
			w[j] += A[i * n + j] * ri;
	}
	return sqrt(rr);
}

/* The problem and the working set of Lawson-Hanson: P (in_p, cols[0..k)) and the least-squares z on it. */
struct nnls {
	const double *A, *b;
	size_t m, n;
	double *x, *z;
	size_t *cols, k;
	unsigned char *in_p;
};

/* Finite inputs only; *amax: the largest |A| (for the tolerance). */
static int check_input(const double *A, size_t m, size_t n, const double *b, double *amax, struct kp_error *err)
{
	*amax = 0;
	if (m == 0 || n == 0)
		return kp_error_set(err, KP_EINVAL, "nnls: empty problem (%zu rows, %zu columns)", m, n);
	for (size_t i = 0; i < m * n; i++) {
		if (!isfinite(A[i]))
			return kp_error_set(err, KP_EINVAL, "nnls: matrix entry %zu is not a finite number", i);
		if (fabs(A[i]) > *amax)
			*amax = fabs(A[i]);
	}
	for (size_t i = 0; i < m; i++)
		if (!isfinite(b[i]))
			return kp_error_set(err, KP_EINVAL, "nnls: right-hand side entry %zu is not a finite number", i);
	return 0;
}

/* cols[0..k) := the columns in P, in order; returns the position of column t (0 when absent). */
static size_t gather(struct nnls *p, size_t t)
{
	size_t pos_t = 0;
	p->k = 0;
	for (size_t j = 0; j < p->n; j++)
		if (p->in_p[j]) {
			if (j == t)
				pos_t = p->k;
			p->cols[p->k++] = j;
		}
	return pos_t;
}

/*
 * L&H steps 7-11: while the least-squares solution z on P has a non-positive entry, step from x
 * towards z until the first coordinate reaches zero, drop the zeros from P and solve again.
 */
static int inner_loop(struct nnls *p, struct kp_error *err)
{
	double *x = p->x, *z = p->z;
	for (size_t inner = 0;; inner++) {
		double alpha = INFINITY;
		size_t qmin = SIZE_MAX;
		for (size_t q = 0; q < p->k; q++)
			if (z[q] <= 0) {
				double xq = x[p->cols[q]], a = xq / (xq - z[q]);
				if (a < alpha) {
					alpha = a;
					qmin = q;
				}
			}
		if (qmin == SIZE_MAX)
			return 0; /* z is feasible: it becomes the new x */
		if (inner > 3 * p->n)
			return kp_error_set(err, KP_EUNSUPPORTED, "nnls: inner loop did not settle");
		/* Step towards z until the first coordinate reaches zero; it (and any other at zero) leaves P. */
		for (size_t q = 0; q < p->k; q++)
			x[p->cols[q]] += alpha * (z[q] - x[p->cols[q]]);
		x[p->cols[qmin]] = 0;
		for (size_t q = 0; q < p->k; q++)
			if (x[p->cols[q]] <= 0) {
				p->in_p[p->cols[q]] = 0;
				x[p->cols[q]] = 0;
			}
		gather(p, SIZE_MAX);
		if (p->k == 0)
			return 0;
		kp_lstsq_cols(p->A, p->m, p->n, p->cols, p->k, p->b, z);
	}
}

int kp_nnls(const double *A, size_t m, size_t n, const double *b, double *x, double *resid,
	    struct kp_error *err)
{
	struct nnls p = {A, b, m, n, x, NULL, NULL, 0, NULL};
	double *w = NULL, *s = NULL, amax, tol;
	size_t outer = 0, max_outer = 3 * n;
	int rc;

	if ((rc = check_input(A, m, n, b, &amax, err)))
		return rc;
	w = kp_xcalloc(n, sizeof(double));
	s = kp_xcalloc(n, sizeof(double));
	p.z = kp_xcalloc(n, sizeof(double));
	p.cols = kp_xcalloc(n, sizeof(size_t));
	p.in_p = kp_xcalloc(n, 1);
	memset(x, 0, n * sizeof(double));
	tol = 10 * DBL_EPSILON * amax * (double)(m > n ? m : n);
	gradient(A, m, n, b, x, w);

	for (;;) {
		size_t t = SIZE_MAX, pos_t;
		for (size_t j = 0; j < n; j++)
			if (!p.in_p[j] && w[j] > tol && (t == SIZE_MAX || w[j] > w[t]))
				t = j;
		if (t == SIZE_MAX)
			break; /* Kuhn-Tucker conditions hold */
		if (++outer > max_outer) {
			rc = kp_error_set(err, KP_EUNSUPPORTED, "nnls: no convergence after %zu steps", max_outer);
			goto out;
		}
		p.in_p[t] = 1;
		pos_t = gather(&p, t);
		kp_lstsq_cols(A, m, n, p.cols, p.k, b, p.z);
		if (p.z[pos_t] <= 0) {
			/* Rounding made the new column useless: drop it and pick another (L&H step 6). */
			p.in_p[t] = 0;
			w[t] = 0;
			outer--;
			continue;
		}
		if ((rc = inner_loop(&p, err)))
			goto out;
		memset(x, 0, n * sizeof(double));
		for (size_t q = 0; q < p.k; q++)
			x[p.cols[q]] = p.z[q] > 0 ? p.z[q] : 0;
		for (size_t j = 0; j < n; j++)
			if (p.in_p[j] && x[j] == 0)
				p.in_p[j] = 0;
		gradient(A, m, n, b, x, w);
	}
out:
	if (resid)
		*resid = gradient(A, m, n, b, x, s);
	free(w);
	free(s);
	free(p.z);
	free(p.cols);
	free(p.in_p);
	return rc;
}
