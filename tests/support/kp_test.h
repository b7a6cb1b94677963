/* Shared helpers for the cmocka unit tests: includes, repo paths, temp dirs. */
#ifndef KP_TEST_H
#define KP_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "kernelpro/buf.h"
#include "kernelpro/error.h"

/* Path of a file in the source tree (tests run from the repo root); static storage, one at a time. */
const char *kp_test_path(const char *rel);

/* A fresh temporary directory for one test; removed by kp_test_tmpdir_remove(). Allocated. */
char *kp_test_tmpdir(void);
void kp_test_tmpdir_remove(char *dir);

/* Reads a whole file in the source tree into b (asserting success). */
void kp_test_read(const char *rel, struct kp_buf *b);

/*
 * Compares `actual` with the golden file `rel` (relative to the repo root).
 * With KP_REGEN_GOLDEN=1 in the environment it rewrites the file instead, so
 * `KP_REGEN_GOLDEN=1 make unit` regenerates every golden output for review.
 * On a mismatch it reports the first differing line.
 */
void kp_test_golden(const char *rel, const char *actual);

/* True while process pid exists and is not a zombie (one not reaped yet counts as dead). */
int kp_test_pid_alive(long pid);

/* Fails the test with the error's message when rc != 0. */
#define KP_ASSERT_OK(rc, err)                                                  \
	do {                                                                   \
		int kp__rc = (rc);                                             \
		if (kp__rc != 0)                                               \
			fail_msg("%s -> %d (%s)", #rc, kp__rc, kp_error_msg(err)); \
	} while (0)

#endif
