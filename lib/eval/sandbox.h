/*
 * The sandbox an evaluation child puts itself in before any candidate code runs: resource limits, no
 * network (a network namespace), and a seccomp filter under which creating a process fails with EPERM
 * and every attempt is counted. Both harnesses call it as their prelude (kp-native-harness directly,
 * the PyTorch adapter through harness/kernelpro/sandbox.py), and so must each child a
 * fork-server worker forks. docs/eval.md ("The sandbox") says what is enforced and what is not.
 *
 * One sandbox per process: the filter, the SIGSYS handler and the counters are process-wide. The
 * module uses libc only, so the same file is also built as libkp_sandbox.so for Python (ctypes), and
 * its header is C and C++ (the native harness is C++).
 */
#ifndef KP_EVAL_SANDBOX_H
#define KP_EVAL_SANDBOX_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum kp_sandbox_part {
	KP_SANDBOX_LIMITS = 1 << 0, /* rlimits: CPU time, data, open files, file size, no core dumps */
	KP_SANDBOX_NET = 1 << 1,    /* a network namespace of its own */
	KP_SANDBOX_SPAWN = 1 << 2,  /* the seccomp filter (kp_sandbox_lock) */
	KP_SANDBOX_ALL = 7,
};

/*
 * The parts an evaluation child in `mode` uses: "eval" all of them; "run" (a prepared run, under ncu,
 * compute-sanitizer or an energy meter, whose injected library talks to its front end over
 * localhost) all but the network; "baseline" (the task's own reference, no candidate) none.
 */
int kp_sandbox_parts(const char *mode);

/*
 * Step one, first thing in the child while it still has a single thread (entering a user namespace,
 * which an unprivileged network namespace needs, requires that): the limits and the network
 * namespace, as kp_sandbox_parts(mode) asks. `budget_s` is the child's whole wall-time budget; the
 * CPU-time limit is twice it, as a thread spinning on the GPU burns CPU time while it waits. Parts
 * switched off by the environment (KERNELPRO_SANDBOX=off, or a comma list of nolimits, nonet,
 * nospawn) are skipped and the report says so. Returns the parts in force or pending (the filter).
 */
int kp_sandbox_begin(const char *mode, double budget_s);

/*
 * Step two: the seccomp filter (when the mode given to kp_sandbox_begin uses it; else nothing).
 * `every_thread` 1: on every thread of the process (SECCOMP_FILTER_FLAG_TSYNC); 0: on the calling
 * thread and the threads and processes it creates from now on. `since` says when, for the report
 * ("before the candidate's library was loaded"). Callable twice (the Python adapter narrows first its
 * main thread, then every thread). Returns 0, or -1 when no filter could be installed (the report says
 * why).
 */
int kp_sandbox_lock(int every_thread, const char *since);

/* Calls the filter refused so far. Async-signal-safe. */
unsigned long kp_sandbox_refused(void);

/*
 * The verdict's "sandbox" object as JSON text into buf (NUL-terminated): what is in force, what is
 * not and why, and the refused calls by name. Returns its length, or -1 when `n` is too small (4096
 * bytes always suffice).
 */
int kp_sandbox_report(char *buf, size_t n);

#ifdef __cplusplus
}
#endif

#endif
