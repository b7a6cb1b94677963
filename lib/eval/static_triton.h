/*
 * The static checks' Triton part (static_triton.c): which Python candidates are Triton, their host
 * code (the Python around the @triton.jit kernels), and the rules only Triton candidates need:
 * PyTorch doing work around the launches, streams reached through Triton, lower precision in
 * tl.dot and Triton's settings. Findings go back through `emit` as the other rules' evidence.
 */
#ifndef KP_EVAL_STATIC_TRITON_H
#define KP_EVAL_STATIC_TRITON_H

#include "eval/srcscan.h"
#include "kernelpro/buf.h"

/* One piece of evidence: check id, 1-based line, what it means, the matched text (n bytes). */
typedef void (*kp__static_triton_emit)(void *ud, const char *check, int line, const char *what,
                                       const char *text, size_t n);

/* The lexed candidate (srcscan.h) has Triton kernels (kp_py_has_triton on its code). */
int kp__static_triton_candidate(const struct kp_pysrc *p);

/*
 * `code` (lexed Python) with the bodies of its Triton kernels blanked, newlines kept: what runs
 * on the host around the launches. Appends to out.
 */
void kp__static_triton_host_code(const char *code, struct kp_buf *out);

/*
 * The Triton rules over a lexed Triton candidate whose host code is `host`: `fp32` when the task
 * runs in fp32/fp64 (the precision rules apply only then). Every match is emitted; which checks
 * are switched off is the caller's business.
 */
void kp__static_triton_scan(const struct kp_pysrc *p, const char *host, int fp32, kp__static_triton_emit emit,
                            void *ud);

/* The '@' at p in Python `code` is the matrix-multiply operator, not a decorator (static.c). */
int kp__static_matmul_operator(const char *code, const char *p);
/* The canonical PyTorch compute op `name` stands for ("matmul" for mm, linear, ...), NULL when none (static.c). */
const char *kp__static_compute_op(const char *name, size_t n);

#endif
