/* Error codes and the first-error-wins message carrier used by every kernelpro API. */
#ifndef KERNELPRO_ERROR_H
#define KERNELPRO_ERROR_H

#include <stdarg.h>

/*
 * The one list of error codes: X(NAME, name, message). Codes are persisted
 * (run databases, JSON verdicts), so entries are only ever appended, never
 * renumbered or reused; a retired code becomes OBSOLETE_<n>. `name` is NAME in
 * lowercase (kp_errname(); the preprocessor cannot lowercase, a test checks).
 */
#define KP_ERRNO_MAP(X)                                                        \
	X(NOMEM, nomem, "out of memory")                                       \
	X(INVAL, inval, "invalid argument")                                    \
	X(IO, io, "input/output error")                                        \
	X(NOENT, noent, "not found")                                           \
	X(PARSE, parse, "malformed input")                                     \
	X(TOOBIG, toobig, "input exceeds its size limit")                      \
	X(CHILD, child, "child process failed")                                \
	X(TIMEOUT, timeout, "time limit exceeded")                             \
	X(NOTOOL, notool, "required tool is missing")                          \
	X(NODEV, nodev, "no usable GPU")                                       \
	X(PERM, perm, "permission denied")                                     \
	X(HTTP, http, "HTTP request failed")                                   \
	X(LLM, llm, "LLM reply unusable")                                      \
	X(DB, db, "database error")                                            \
	X(UNSUPPORTED, unsupported, "not supported")                           \
	X(BUDGET, budget, "budget exhausted")                                  \
	X(MISSING, missing, "required data is missing")                        \
	X(EXISTS, exists, "already exists")                                    \
	X(AUTH, auth, "authentication failed")                                 \
	X(CANCELED, canceled, "canceled")                                      \
	X(LUA, lua, "user tool failed")                                        \
	X(CHEAT, cheat, "candidate refused by anti-cheat checks")

#define KP__ERR_POS(NAME, name, msg) KP__POS_##NAME,
enum kp__err_pos { KP_ERRNO_MAP(KP__ERR_POS) KP__NERR };
#undef KP__ERR_POS

#define KP__ERR_NEG(NAME, name, msg) KP_E##NAME = -(KP__POS_##NAME + 1),
/* 0 is success; every failure is one of these negative codes. */
enum kp_err { KP_OK = 0, KP_ERRNO_MAP(KP__ERR_NEG) };
#undef KP__ERR_NEG

/* Returns the fixed message for a code ("unknown error" for anything else). */
const char *kp_strerror(int code);

/* Returns the stable lowercase name of a code ("parse" for KP_EPARSE), for JSON. */
const char *kp_errname(int code);

#define KP_ERROR_SIZE 512

/*
 * Detail about a failure. The first message set wins, so the innermost,
 * most specific description survives as the error travels up.
 * Initialise with KP_ERROR_INIT or kp_error_clear().
 */
struct kp_error {
	int code;
	char msg[KP_ERROR_SIZE];
};

#define KP_ERROR_INIT {0, {0}}

/*
 * Records `code` and a printf-style message in `err` unless it already
 * holds one; `err` may be NULL. Returns `code`, so call sites can
 * `return kp_error_set(err, KP_EPARSE, "...")`.
 */
int kp_error_set(struct kp_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int kp_error_vset(struct kp_error *err, int code, const char *fmt, va_list ap);

/*
 * Adds context in front of an existing message ("loading 'x': <old msg>").
 * Leaves the code alone. No-op when err is NULL or empty.
 */
void kp_error_prefix(struct kp_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

void kp_error_clear(struct kp_error *err);

/* The message if one was set, else kp_strerror(err->code). Never NULL. */
const char *kp_error_msg(const struct kp_error *err);

#endif
