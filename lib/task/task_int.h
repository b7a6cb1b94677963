/* Internals of lib/task shared between the loaders. */
#ifndef KP_TASK_INT_H
#define KP_TASK_INT_H

#include "kernelpro/task.h"

/*
 * A loaded .py task whose source has Triton kernels: reads its Stage-1 hints (KERNELPRO_FLOPS,
 * KERNELPRO_MIN_BYTES: integer products) into t. KP_EPARSE naming the hint when one is malformed.
 */
int kp__task_triton_hints(struct kp_task *t, struct kp_error *err);

#endif
