/* Non-negative least squares (Lawson and Hanson's active-set method), for fitting energy coefficients. */
#ifndef KP_ENERGY_NNLS_H
#define KP_ENERGY_NNLS_H

#include <stddef.h>

#include "kernelpro/error.h"

/*
 * Solves min ||A x - b||_2 subject to x >= 0.
 *
 * A is m x n, row-major (A[i*n + j]); b has m entries; x receives n
 * entries. `resid` (may be NULL) receives ||A x - b||_2. Neither A nor b is
 * modified. Returns 0, KP_EINVAL for empty or non-finite input, or
 * KP_EUNSUPPORTED when the iteration limit (3n outer steps, as in
 * Lawson and Hanson) is reached, with x holding the last feasible iterate.
 */
int kp_nnls(const double *A, size_t m, size_t n, const double *b, double *x, double *resid,
	    struct kp_error *err);

/*
 * Unconstrained least squares on a subset of A's columns, by Householder QR.
 * cols[0..k) index the columns used; s receives k entries. Columns that are
 * numerically dependent on earlier ones get s = 0. Exposed for tests.
 */
void kp_lstsq_cols(const double *A, size_t m, size_t n, const size_t *cols, size_t k, const double *b,
		   double *s);

#endif
