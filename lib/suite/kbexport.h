/* Inside lib/suite: KernelBench interop for an export (kbexport.c). */
#ifndef KP_SUITE_KBEXPORT_H
#define KP_SUITE_KBEXPORT_H

#include "kernelpro/buf.h"
#include "kernelpro/error.h"

/*
 * A KernelBench kernel that KernelBench runs as it is: `src` with its imports of kernelpro's fast path
 * (from kernelpro.fast import ..., import kernelpro.fast [as x], from kernelpro import fast [as x])
 * replaced by the fast path's own code, inlined (harness/kernelpro/build.py and fast.py), and
 * the same names bound; appended to out. *rewritten: 1 when it inlined, 0 when the source does not
 * use the fast path or uses kernelpro in a form this does not rewrite (then `src` unchanged, with a
 * comment saying it needs PYTHONPATH). KP_NOTOOL when the fast path's files are not found.
 */
int kp__suite_kb_kernel(const char *src, struct kp_buf *out, int *rewritten, struct kp_error *err);

#endif
