/* Log excerpts: the part of a long compiler or harness log that an LLM needs to fix the problem. */
#ifndef KP_EVAL_EXCERPT_H
#define KP_EVAL_EXCERPT_H

#include <stddef.h>

#include "kernelpro/buf.h"

/*
 * Appends to `out` at most `cap` bytes of `text`: the whole text when it fits; else the lines that
 * report errors (error, fatal, Traceback, illegal, out of memory, ...) with `context` lines around
 * each, gaps marked "..."; else the tail.
 */
void kp_excerpt(const char *text, size_t len, size_t cap, int context, struct kp_buf *out);

#endif
