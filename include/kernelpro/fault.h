/*
 * Fault injection at the boundaries, as SQLite's and curl's test hooks do: with
 * KP_FAULT=KIND:N[+],... in the environment, the Nth child spawn, HTTP request, SQLite write or
 * file write of this process fails (N+: the Nth and every one after), so tests can drive the
 * program through each failure. Compiled in always; without KP_FAULT a hook costs one atomic
 * increment. docs/internals/faults.md.
 *
 * A hook is one or two lines at the top of the operation:
 *     if ((rc = kp_fault(KP_FAULT_FILE_WRITE, path, err)))
 *             return rc;
 */
#ifndef KERNELPRO_FAULT_H
#define KERNELPRO_FAULT_H

#include "kernelpro/error.h"

#define KP_FAULT_KINDS(X)                                                                                   \
	X(SPAWN, "spawn", KP_ECHILD)            /* kp_child_run, before fork */                             \
	X(HTTP, "http", KP_EHTTP)               /* an HTTP request attempt of an LLM backend */             \
	X(SQLITE_WRITE, "sqlite-write", KP_EDB) /* a statement that writes the run database, or a commit */ \
	X(FILE_WRITE, "file-write", KP_EIO)     /* kp_write_file_atomic */
#define KP__FAULT_ENUM(n, s, c) KP_FAULT_##n,
enum kp_fault_kind { KP_FAULT_KINDS(KP__FAULT_ENUM) KP_FAULT_KIND_COUNT };
#undef KP__FAULT_ENUM

/* "spawn", "http", "sqlite-write", "file-write". */
const char *kp_fault_kind_name(enum kp_fault_kind kind);

/*
 * Counts one operation of `kind`. When the plan makes it fail: logs a warning, sets err
 * ("injected fault: file-write #2 (KP_FAULT): WHAT") and returns the kind's code; else 0.
 * Thread-safe. `what` names the operation (a path, a program); may be NULL.
 */
int kp_fault(enum kp_fault_kind kind, const char *what, struct kp_error *err);

/* The same for hooks that fail in their own way (an HTTP attempt fails as a lost connection). */
int kp_fault_hit(enum kp_fault_kind kind);

/*
 * Replaces the plan (and zeroes the counts) with `spec` ("spawn:3,http:1+"; "" or NULL: none).
 * The plan otherwise comes from $KP_FAULT on first use. KP_EINVAL naming the bad part; the old
 * plan stays then. Not safe while other threads pass hooks: for tests and program start.
 */
int kp_fault_plan(const char *spec, struct kp_error *err);

#endif
