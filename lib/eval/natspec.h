/* The native harness's spec: what kernelpro tells kp-native-harness on its stdin (the libraries, the
 * protocol's numbers, the checks switched off, the tensors). One module writes it (lib/eval/drivers.c)
 * and reads it (harness/native), so the two cannot drift; docs/internals/eval.md shows the lines.
 * C and C++ (the harness links libkernelpro for it). */
#ifndef KP_EVAL_NATSPEC_H
#define KP_EVAL_NATSPEC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "kernelpro/error.h"

struct kp_buf;

#define KP_NATSPEC_TENSORS 64 /* inputs, and outputs, at most */
#define KP_NATSPEC_DIMS 8
#define KP_NATSPEC_OFF 32     /* checks switched off, at most */
#define KP_NATSPEC_MAX (1u << 20)

struct kp_natspec_tensor {
	char name[64];
	int dtype, ndim;              /* enum kp_dtype (= KP_ABI_*); 0 .. KP_NATSPEC_DIMS */
	int64_t shape[KP_NATSPEC_DIMS];
	int fill;                     /* inputs: enum kp_fill_kind */
	double a, b;                  /* inputs: the fill's parameters; outputs: atol, rtol */
	int64_t numel;                /* derived */
	size_t bytes;                 /* derived */
};

struct kp_natspec {
	char mode[16];                /* "eval", "run", "baseline" */
	char ref[4096], cand[4096];   /* the libraries; cand empty for baselines */
	unsigned long long seed;
	int correct_trials, warmup, trials, discard;
	int time_cand, time_ref, l2_flush, scaled_trial;
	double limit_check, limit_timing, loop_s;
	long iters;
	char off[KP_NATSPEC_OFF][32];
	int noff;
	struct kp_natspec_tensor in[KP_NATSPEC_TENSORS], out[KP_NATSPEC_TENSORS];
	int nin, nout;
};

/* The defaults (eval, seed 42, 5 trials, 3 warm-ups, 100 trials, 1 discarded, everything on). */
void kp_natspec_init(struct kp_natspec *s);

/* Appends a tensor; numel and bytes are derived. KP_EINVAL when there is no room or the shape or
 * dtype is out of range. */
int kp_natspec_add(struct kp_natspec *s, int is_input, const char *name, int dtype, int ndim, const int64_t *shape,
		   int fill, double a, double b, struct kp_error *err);

/* The spec as lines ("kp-native-spec 1" ... "end"), appended to out. */
void kp_natspec_write(const struct kp_natspec *s, struct kp_buf *out);

/*
 * Reads the lines kp_natspec_write writes (after kp_natspec_init). Strict: an unknown key, a bad
 * number, a value that does not fit, too many tensors or no "end" line is KP_EPARSE naming the line,
 * never a silent truncation.
 */
int kp_natspec_parse(struct kp_natspec *s, const char *text, size_t len, struct kp_error *err);

/* 1 when `check` is switched off. */
int kp_natspec_off(const struct kp_natspec *s, const char *check);

#ifdef __cplusplus
}
#endif

#endif
