/* kp-native-harness: the result document (one {"result": ...} line at the end), the phase lines and
 * their time limits (alarm), on a private copy of stdout; everything else the process prints goes to
 * stderr. */
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nh.h"

struct jbuf {
	char *p;
	size_t len, cap;
};

static FILE *res;              /* the result channel: the original stdout */
static int res_fd = -1;
static char timeout_line[256]; /* written by the alarm handler: nothing there may allocate */
static size_t timeout_len;
static const char *cur_phase = "start";
static char timeline[512]; /* "start 0.21, load 0.30, ..." built as phases start */
static size_t timeline_len;
static double phase_t0;
static struct jbuf R_flags, R_fields, R_log;
static int R_nflags, R_trials_run;

static void jb_add(struct jbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 4096;
		while (cap < b->len + n + 1)
			cap *= 2;
		b->p = (char *)realloc(b->p, cap);
		if (!b->p)
			abort();
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void jb_adds(struct jbuf *b, const char *s)
{
	jb_add(b, s, strlen(s));
}

static void jb_printf(struct jbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void jb_printf(struct jbuf *b, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		jb_add(b, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

static void jb_str(struct jbuf *b, const char *s)
{
	jb_adds(b, "\"");
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		char esc[8];
		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			jb_add(b, esc, 2);
		} else if (c < 0x20) {
			snprintf(esc, sizeof(esc), "\\u%04x", c);
			jb_add(b, esc, 6);
		} else
			jb_add(b, (const char *)&c, 1);
	}
	jb_adds(b, "\"");
}

void res_open(void)
{
	/* The result channel is a private copy of stdout; stdout itself becomes stderr. */
	res_fd = dup(1);
	if (res_fd < 0 || dup2(2, 1) < 0)
		_exit(3);
	res = fdopen(res_fd, "w");
	if (!res)
		_exit(3);
	phase_t0 = mono();
}

double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void timeline_mark(const char *next)
{
	double now = mono();
	if (timeline_len < sizeof(timeline) - 64)
		timeline_len += (size_t)snprintf(timeline + timeline_len, sizeof(timeline) - timeline_len, "%s%s %.2f",
						 timeline_len ? ", " : "", cur_phase, now - phase_t0);
	phase_t0 = now;
	cur_phase = next;
}

static void on_alarm(int sig)
{
	(void)sig;
	if (res_fd >= 0)
		(void)!write(res_fd, timeout_line, timeout_len);
	_exit(124);
}

void phase(const char *name, double limit)
{
	timeline_mark(name);
	fprintf(res, "{\"phase\":\"%s\",\"limit_s\":%.9g,\"t\":%.9f}\n", name, limit, mono());
	fflush(res);
	timeout_len = (size_t)snprintf(timeout_line, sizeof(timeout_line),
				       "{\"phase_timeout\":\"%s\",\"limit_s\":%.9g}\n", name, limit);
	signal(SIGALRM, on_alarm);
	alarm(limit > 0 ? (unsigned)ceil(limit) : 0);
}

void res_num(const char *k, double v)
{
	jb_printf(&R_fields, ",\"%s\":", k);
	if (isfinite(v))
		jb_printf(&R_fields, "%.9g", v);
	else
		jb_adds(&R_fields, "null");
}

void res_raw(const char *k, const char *raw)
{
	jb_printf(&R_fields, ",\"%s\":%s", k, raw);
}

void res_str(const char *k, const char *v)
{
	jb_printf(&R_fields, ",\"%s\":", k);
	jb_str(&R_fields, v);
}

void res_scaled_trial(const char *status, double scale, const char *reason)
{
	jb_printf(&R_fields, ",\"scaled_trial\":{\"status\":\"%s\",\"scale\":%.9g,\"reason\":", status, scale);
	if (reason)
		jb_str(&R_fields, reason);
	else
		jb_adds(&R_fields, "null");
	jb_adds(&R_fields, "}");
}

void res_trials_run(int n)
{
	R_trials_run = n;
}

void res_log(const char *fmt, ...)
{
	char tmp[2048];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0 && R_log.len < 16000)
		jb_add(&R_log, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

void finish(const char *status, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;
	struct jbuf out = {0, 0, 0};

	alarm(0);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	timeline_mark(cur_phase);
	jb_adds(&out, "{\"result\":{\"status\":");
	jb_str(&out, status);
	jb_adds(&out, ",\"message\":");
	jb_str(&out, msg);
	jb_adds(&out, ",\"phase\":");
	jb_str(&out, strcmp(status, "correct") ? cur_phase : "done");
	jb_adds(&out, ",\"log\":");
	if (R_log.len)
		jb_str(&out, R_log.p);
	else
		jb_adds(&out, "null");
	jb_adds(&out, ",\"flags\":[");
	if (R_flags.len)
		jb_add(&out, R_flags.p, R_flags.len);
	jb_adds(&out, "]");
	jb_printf(&out, ",\"trials_run\":%d,\"timeline\":", R_trials_run);
	jb_str(&out, timeline);
	if (R_fields.len)
		jb_add(&out, R_fields.p, R_fields.len);
	{
		static char sb[8192];
		if (kp_sandbox_report(sb, sizeof(sb)) > 0) {
			jb_adds(&out, ",\"sandbox\":");
			jb_adds(&out, sb);
		}
	}
	jb_adds(&out, "}}\n");
	fwrite(out.p, 1, out.len, res);
	fflush(res);
	fflush(stderr);
	/* No teardown: a candidate's destructors or a broken context must not run after the verdict. */
	_exit(0);
}

void res_flag(const struct nh *h, const char *check, const char *severity, const char *fmt, ...)
{
	char msg[1536];
	va_list ap;
	if (kp_natspec_off(&h->S, check))
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (R_nflags++)
		jb_adds(&R_flags, ",");
	jb_adds(&R_flags, "{\"check\":");
	jb_str(&R_flags, check);
	jb_printf(&R_flags, ",\"severity\":\"%s\",\"message\":", severity);
	jb_str(&R_flags, msg);
	jb_adds(&R_flags, "}");
	if (!strcmp(severity, "refuse")) {
		res_log("refused by dynamic check '%s': %s\n", check, msg);
		finish("cheat_suspected", "refused by check '%s': %s", check, msg);
	}
	if (!strcmp(severity, "fail")) {
		res_log("failed dynamic check '%s': %s\n", check, msg);
		finish("wrong_output", "check '%s': %s", check, msg);
	}
}

const char *err_text(int rc, char *buf, size_t n)
{
	const char *name = cudaGetErrorName((cudaError_t)rc);
	if (name && strncmp(name, "unrecognized", 12))
		snprintf(buf, n, "%d, %s: %s", rc, name, cudaGetErrorString((cudaError_t)rc));
	else
		snprintf(buf, n, "%d", rc);
	return buf;
}

void harness_fail(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	finish("harness_error", "%s", msg);
}
