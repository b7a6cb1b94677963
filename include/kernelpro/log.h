/* Logging through a sink the program installs, plus a progress line that redraws in place on a TTY. */
#ifndef KERNELPRO_LOG_H
#define KERNELPRO_LOG_H

#include <stdarg.h>
#include <stdio.h>

enum kp_log_level { KP_LOG_ERROR = 0, KP_LOG_WARN, KP_LOG_INFO, KP_LOG_DEBUG, KP_LOG_TRACE };

/*
 * The library never writes to the terminal by itself: messages go to the
 * installed sink, and are dropped while none is installed.
 */
typedef void (*kp_log_sink)(enum kp_log_level level, const char *msg, void *ud);
void kp_log_set_sink(kp_log_sink sink, void *ud);
void kp_log_set_level(enum kp_log_level level);
enum kp_log_level kp_log_get_level(void);
int kp_log_enabled(enum kp_log_level level);

void kp_log(enum kp_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void kp_vlog(enum kp_log_level level, const char *fmt, va_list ap);

#define kp_error_log(...) kp_log(KP_LOG_ERROR, __VA_ARGS__)
#define kp_warn(...) kp_log(KP_LOG_WARN, __VA_ARGS__)
#define kp_info(...) kp_log(KP_LOG_INFO, __VA_ARGS__)
#define kp_debug(...) kp_log(KP_LOG_DEBUG, __VA_ARGS__)

/* A ready-made sink: "kernelpro: warning: msg" lines on the FILE* passed as ud. */
void kp_log_stderr_sink(enum kp_log_level level, const char *msg, void *ud);

/*
 * A status line for long jobs. On a terminal it redraws in place (\r and
 * erase-to-end); elsewhere it prints a plain line at most every
 * `min_interval_s` seconds, so logs stay readable. Log lines printed in
 * between must call kp_progress_clear() first (the stderr sink does).
 */
struct kp_progress {
	FILE *fp;
	int is_tty;
	int active;       /* a line is currently drawn */
	double last_print;
	double min_interval_s;
	int enabled;
	int lines;        /* lines of the block drawn by kp_progress_block (TTY) */
};

void kp_progress_init(struct kp_progress *p, FILE *fp, int enabled);
void kp_progress_update(struct kp_progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * A status block of several lines (one per GPU and a total, say), `text` with '\n' between them.
 * On a terminal the block redraws in place; elsewhere it is printed whole at most every
 * min_interval_s (final: always, and left in place). Safe against log lines from other threads:
 * it draws under the log's lock, and the stderr sink erases it before printing.
 */
void kp_progress_block(struct kp_progress *p, const char *text, int final);
/* Prints `line` and a newline on p's stream above the block (erased first on a TTY, redrawn at the
 * next update), under the log's lock like kp_progress_block. */
void kp_progress_note(struct kp_progress *p, const char *line);
/* Erases the line (or the block) on a TTY (before other output). */
void kp_progress_clear(struct kp_progress *p);
/* Leaves the final state on its own line. */
void kp_progress_done(struct kp_progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The process-wide progress line the stderr sink clears before printing; may be NULL. */
void kp_progress_set_global(struct kp_progress *p);

/* Monotonic seconds. */
double kp_now(void);
/* Wall-clock seconds since the epoch. */
double kp_wall_time(void);

#endif
