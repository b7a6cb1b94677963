/* Logging to an installed sink, and the in-place progress line. */
#include "base/setup.h"

#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "kernelpro/buf.h"
#include "kernelpro/log.h"
#include "kernelpro/secret.h"
#include "kernelpro/str.h"

static kp_log_sink log_sink;
static void *log_ud;
static enum kp_log_level log_level = KP_LOG_WARN;
static struct kp_progress *global_progress;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

void kp_log_set_sink(kp_log_sink sink, void *ud)
{
	log_sink = sink;
	log_ud = ud;
}

void kp_log_set_level(enum kp_log_level level)
{
	log_level = level;
}

enum kp_log_level kp_log_get_level(void)
{
	return log_level;
}

int kp_log_enabled(enum kp_log_level level)
{
	return log_sink && level <= log_level;
}

void kp_vlog(enum kp_log_level level, const char *fmt, va_list ap)
{
	char msg[2048];
	if (!kp_log_enabled(level))
		return;
	char *scrubbed;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if ((scrubbed = kp_secret_scrub(msg, strlen(msg), NULL))) {
		kp_strlcpy(msg, scrubbed, sizeof(msg));
		free(scrubbed);
	}
	pthread_mutex_lock(&log_lock);
	log_sink(level, msg, log_ud);
	pthread_mutex_unlock(&log_lock);
}

void kp_log(enum kp_log_level level, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	kp_vlog(level, fmt, ap);
	va_end(ap);
}

void kp_log_stderr_sink(enum kp_log_level level, const char *msg, void *ud)
{
	static const char *const names[] = {"error", "warning", "info", "debug", "trace"};
	FILE *fp = ud ? ud : stderr;
	if (global_progress)
		kp_progress_clear(global_progress);
	fprintf(fp, "kernelpro: %s: %s\n", names[level], msg);
	fflush(fp);
}

void kp_progress_set_global(struct kp_progress *p)
{
	global_progress = p;
}

double kp_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double kp_wall_time(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void kp_progress_init(struct kp_progress *p, FILE *fp, int enabled)
{
	memset(p, 0, sizeof(*p));
	p->fp = fp;
	p->is_tty = isatty(fileno(fp));
	p->min_interval_s = p->is_tty ? 0.1 : 10.0;
	p->last_print = -1e9;
	p->enabled = enabled;
}

/* Erases what is drawn: the line, or the block from its first line down. */
static void progress_erase(struct kp_progress *p)
{
	fputs("\r", p->fp);
	for (int i = 1; i < p->lines; i++)
		fputs("\033[A", p->fp);
	fputs(p->lines > 1 ? "\033[J" : "\033[K", p->fp);
	p->lines = 0;
}

static void progress_vdraw(struct kp_progress *p, const char *fmt, va_list ap, int final)
{
	char line[512];
	double now = kp_now();
	if (!p->enabled)
		return;
	if (!final && now - p->last_print < p->min_interval_s)
		return;
	vsnprintf(line, sizeof(line), fmt, ap);
	if (p->is_tty) {
		if (p->active && p->lines > 1)
			progress_erase(p);
		fprintf(p->fp, "\r\033[K%s%s", line, final ? "\n" : "");
		p->active = !final;
		p->lines = final ? 0 : 1;
	} else {
		fprintf(p->fp, "%s\n", line);
	}
	fflush(p->fp);
	p->last_print = now;
}

void kp_progress_update(struct kp_progress *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	progress_vdraw(p, fmt, ap, 0);
	va_end(ap);
}

void kp_progress_done(struct kp_progress *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	progress_vdraw(p, fmt, ap, 1);
	va_end(ap);
}

void kp_progress_clear(struct kp_progress *p)
{
	if (p->enabled && p->is_tty && p->active) {
		progress_erase(p);
		fflush(p->fp);
		p->active = 0;
		p->last_print = -1e9; /* redraw at the next update */
	}
}

void kp_progress_note(struct kp_progress *p, const char *line)
{
	pthread_mutex_lock(&log_lock);
	kp_progress_clear(p);
	fprintf(p->fp, "%s\n", line);
	fflush(p->fp);
	pthread_mutex_unlock(&log_lock);
}

void kp_progress_block(struct kp_progress *p, const char *text, int final)
{
	double now = kp_now();
	int n = 1;

	if (!p->enabled || (!final && now - p->last_print < p->min_interval_s))
		return;
	for (const char *c = text; *c; c++)
		n += *c == '\n';
	pthread_mutex_lock(&log_lock);
	if (p->is_tty) {
		if (p->active)
			progress_erase(p);
		fputs(text, p->fp);
		if (final)
			fputc('\n', p->fp);
		p->active = !final;
		p->lines = final ? 0 : n;
	} else {
		fprintf(p->fp, "%s\n", text);
	}
	fflush(p->fp);
	p->last_print = now;
	pthread_mutex_unlock(&log_lock);
}
