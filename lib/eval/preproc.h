/*
 * Native candidates as the compiler sees them: includes held to the candidate and the toolkit's
 * headers, the static checks again on the preprocessed source (nvcc -E), and build logs cut to what
 * the candidate's own files say.
 */
#ifndef KP_EVAL_PREPROC_H
#define KP_EVAL_PREPROC_H

#include <stddef.h>

#include "eval/evalrun.h"
#include "kernelpro/buf.h"
#include "kernelpro/eval.h"

/*
 * Before a native candidate is built: refuses (v: cheat_suspected, phase "static", the evidence
 * with its line) an #include of an absolute path or one with a ".." component, any file the
 * preprocessor opened outside the candidate and the include roots (harness/include `inc`, the CUDA
 * toolkit, the system's and CUTLASS's headers, -I directories the user gave), and what the text
 * checks of lib/eval/static.c find only after preprocessing: a call spelled across a continuation
 * line or built by token pasting, a system call in inline assembly. Returns 0 whatever it found
 * (v says); nvcc missing or failing is no refusal (the build reports it).
 */
int kp_preproc_check(const struct kp_eval_ctx *x, const char *src, size_t len, const char *inc,
                     struct kp_verdict *v, struct kp_error *err);

/*
 * Appends to `out` the build log `log` with the text of every diagnostic located in a file outside
 * the build directory and the include roots withheld (its location stays): nvcc quotes the line it
 * complains about, and an included file's lines must not reach a prompt.
 */
void kp_preproc_own_log(const struct kp_eval_ctx *x, const char *inc, const char *log, struct kp_buf *out);

#endif
