/*
 * kp_pbudget: how much memory one parse of outside data (an ncu CSV, SASS, ptxas output, a
 * trace) may take, and the one error past it. Internal to lib/profile.
 */
#ifndef KP_PROFILE_BUDGET_H
#define KP_PROFILE_BUDGET_H

#include <stddef.h>

#include "kernelpro/error.h"

struct kp_pbudget {
	const char *what; /* the file, for the message */
	size_t cap, used; /* bytes */
};

/*
 * Sets the cap from KERNELPRO_PROFILE_MEM_MB (default KP_PROFILE_MEM_MB, kernelpro/profile.h)
 * and charges the input's own copy (`len` bytes). KP_EINVAL when the variable is not a
 * positive whole number of MiB; KP_ETOOBIG when the input alone is over the cap.
 */
int kp_pbudget_init(struct kp_pbudget *b, const char *what, size_t len, struct kp_error *err);
/*
 * Charges `n` more bytes (line: where the parser is, 0 when it does not know). KP_ETOOBIG,
 * with a message naming the cap and how to raise it, when the total passes the cap.
 */
int kp_pbudget_add(struct kp_pbudget *b, size_t n, int line, struct kp_error *err);

#endif
