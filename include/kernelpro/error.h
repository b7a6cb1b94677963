/* Error codes and the first-error-wins message carrier used by every kernelpro API. */
#ifndef KERNELPRO_ERROR_H
#define KERNELPRO_ERROR_H

#include <stdarg.h>

/*
 * The one list of error codes. Codes are persisted (run databases, JSON
 * verdicts), so entries are only ever appended, never renumbered or reused;
 * a retired code becomes OBSOLETE_<n>.
 */
#define KP_ERRNO_MAP(X)                                                        \
	X(NOMEM, "out of memory")                                              \
	X(INVAL, "invalid argument")                                           \
	X(IO, "input/output error")                                            \
	X(NOENT, "not found")                                                  \
	X(PARSE, "malformed input")                                            \
	X(TOOBIG, "input exceeds its size limit")                              \
	X(CHILD, "child process failed")                                       \
	X(TIMEOUT, "time limit exceeded")                                      \
	X(NOTOOL, "required tool is missing")                                  \
	X(NODEV, "no usable GPU")                                              \
	X(PERM, "permission denied")                                           \
	X(HTTP, "HTTP request failed")                                         \
	X(LLM, "LLM reply unusable")                                           \
	X(DB, "database error")                                                \
	X(UNSUPPORTED, "not supported")                                        \
	X(BUDGET, "budget exhausted")                                          \
	X(MISSING, "required data is missing")                                 \
	X(EXISTS, "already exists")                                            \
	X(AUTH, "authentication failed")                                       \
	X(CANCELED, "canceled")                                                \
	X(LUA, "user tool failed")                                             \
	X(CHEAT, "candidate refused by anti-cheat checks")

#define KP__ERR_POS(name, msg) KP__POS_##name,
enum kp__err_pos { KP_ERRNO_MAP(KP__ERR_POS) KP__NERR };
#undef KP__ERR_POS

#define KP__ERR_NEG(name, msg) KP_E##name = -(KP__POS_##name + 1),
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
