/* What kernelpro checks itself in a finished harness child before it trusts the verdict: how the
 * child ended (by the sandbox's SIGSYS, by its CPU-time limit), the sandbox's report, and numbers no
 * measurement gives. The harness's own checks cannot cover these: the candidate runs in its process. */
#ifndef KP_EVAL_TRUST_H
#define KP_EVAL_TRUST_H

#include "eval/harness.h"

/* Applies the checks to `v`, just filled by kp_harness_apply from `h` and `c`: copies the "sandbox"
 * object; a child ended by SIGSYS becomes process_spawn (refuse), one ended by SIGXCPU a timeout; a
 * correct verdict with impossible times becomes implausible_result (refuse). */
void kp_eval_trust(const struct kp_harness_out *h, const struct kp_child *c, struct kp_verdict *v);

#endif
