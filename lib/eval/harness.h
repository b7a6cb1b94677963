/* The harness protocol: what kernelpro reads back from a harness child (JSON lines on its stdout:
 * {"phase": ...} as phases start, one {"result": {...}} at the end) and how that becomes a verdict.
 * docs/internals/eval.md describes the documents. */
#ifndef KP_EVAL_HARNESS_H
#define KP_EVAL_HARNESS_H

#include <jansson.h>

#include "kernelpro/child.h"
#include "kernelpro/eval.h"

struct kp_harness_out {
	json_t *result;        /* the "result" object, or NULL when the child died before writing it */
	char phase[32];        /* the last phase announced */
	double phase_limit_s;  /* its time limit */
	int lines;             /* JSON lines read */
};

/* Reads the child's stdout; lines that are not JSON objects are skipped. */
void kp_harness_parse(const char *out, size_t len, struct kp_harness_out *h);
void kp_harness_release(struct kp_harness_out *h);

/*
 * Fills `v` from a finished harness child: the result document when there is one, else a verdict
 * made from how the child ended (timeout, signal, exit status) and its stderr. Returns a negative
 * code when the harness reports that it could not evaluate at all ("harness_error": no GPU, no
 * torch, a broken task); the message is in err.
 */
int kp_harness_apply(const struct kp_harness_out *h, const struct kp_child *c, struct kp_verdict *v,
		     struct kp_error *err);

/* Shared JSON readers (lib/eval/verdict.c). */
void kp_timing_from_json(struct kp_timing *t, const json_t *o);
void kp_loop_from_json(struct kp_loop *l, const json_t *o);
void kp_scaled_from_json(struct kp_scaled_trial *t, const json_t *o);
/* The correctness phase's parts from {"name": {"seconds", "calls", "longest"}, ...}: entries with a
 * name that does not fit, or numbers that are negative or not finite, are left out; at most
 * KP_TIME_PARTS_MAX. */
void kp_time_parts_from_json(struct kp_verdict *v, const json_t *o);

#endif
