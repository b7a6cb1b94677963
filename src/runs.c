/* Run directories: resolving a run by name or path, the one-process lock, durations. */
#include "base/setup.h"

#include <fcntl.h>
#include <math.h>
#include <sys/file.h>
#include <unistd.h>

#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/str.h"
#include "runs.h"

const char *kp_runs_dir(const struct kp_args *a)
{
	const char *d = kp_arg_str(a, "runs-dir");
	const char *env = getenv("KERNELPRO_RUNS");
	if (d)
		return d;
	return env && *env ? env : "kernelpro-runs";
}

static int has_db(const char *dir)
{
	struct kp_buf p = KP_BUF_INIT;
	int ok;
	kp_path_join(&p, dir, KP_RUN_DB);
	ok = kp_path_exists(p.buf);
	kp_buf_release(&p);
	return ok;
}

int kp_run_resolve(const char *runs_dir, const char *run, struct kp_buf *dir, struct kp_error *err)
{
	struct kp_buf p = KP_BUF_INIT;
	if (has_db(run)) {
		kp_buf_adds(dir, run);
		return 0;
	}
	kp_path_join(&p, runs_dir, run);
	if (!strchr(run, '/') && has_db(p.buf)) {
		kp_buf_adds(dir, p.buf);
		kp_buf_release(&p);
		return 0;
	}
	kp_buf_release(&p);
	return kp_error_set(err, KP_ENOENT, "no run '%s' (neither a directory holding %s nor a run in '%s'); "
					    "'kernelpro runs' lists them",
			    run, KP_RUN_DB, runs_dir);
}

int kp_run_lock(const char *dir, int *fd, struct kp_error *err)
{
	struct kp_buf p = KP_BUF_INIT;
	char pid[32];
	int f;

	kp_path_join(&p, dir, "run.lock");
	f = open(p.buf, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (f < 0) {
		int rc = kp_error_set(err, KP_EIO, "cannot open '%s': %s", p.buf, strerror(errno));
		kp_buf_release(&p);
		return rc;
	}
	if (flock(f, LOCK_EX | LOCK_NB) != 0) {
		ssize_t n = read(f, pid, sizeof(pid) - 1);
		pid[n > 0 ? n : 0] = '\0';
		close(f);
		kp_buf_release(&p);
		return kp_error_set(err, KP_EEXISTS, "run '%s' is in use by another kernelpro process%s%s%s; wait for it "
						     "or stop it",
				    dir, pid[0] ? " (pid " : "", pid[0] ? kp_str_trim(pid) : "", pid[0] ? ")" : "");
	}
	if (ftruncate(f, 0) == 0) {
		int n = snprintf(pid, sizeof(pid), "%ld", (long)getpid());
		if (pwrite(f, pid, (size_t)n, 0) < 0)
			pid[0] = '\0'; /* the pid is only a courtesy in the message above */
	}
	*fd = f;
	kp_buf_release(&p);
	return 0;
}

void kp_run_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}

int kp_parse_duration(const char *s, double *out)
{
	char num[64];
	size_t n = s ? strlen(s) : 0;
	double mult = 1, v;

	if (!n || n >= sizeof(num))
		return KP_EINVAL;
	memcpy(num, s, n + 1);
	switch (num[n - 1]) {
	case 's':
		num[n - 1] = '\0';
		break;
	case 'm':
		mult = 60;
		num[n - 1] = '\0';
		break;
	case 'h':
		mult = 3600;
		num[n - 1] = '\0';
		break;
	default:
		break;
	}
	if (kp_parse_double(num, &v) || !(v > 0) || !isfinite(v))
		return KP_EINVAL;
	*out = v * mult;
	return 0;
}

const char *kp_fmt_duration(double s, char *buf, size_t n)
{
	long t = s > 0 ? (long)(s + 0.5) : 0;
	if (t < 60)
		snprintf(buf, n, "%lds", t);
	else if (t < 3600)
		snprintf(buf, n, "%ldm%02lds", t / 60, t % 60);
	else
		snprintf(buf, n, "%ldh%02ldm", t / 3600, (t % 3600) / 60);
	return buf;
}

void kp_print_path_line(FILE *fp, const json_t *n)
{
	double sp = kp_json_num(n, "speedup", NAN);
	char how[32];
	if (isfinite(sp))
		snprintf(how, sizeof(how), "%.2fx", sp);
	else
		snprintf(how, sizeof(how), "-");
	fprintf(fp, "  #%-4lld %-8s %-14s %7s  %s\n", kp_json_int(n, "node", 0), kp_json_str(n, "kind", ""),
		kp_json_str(n, "outcome", ""), how, kp_json_str(n, "summary", ""));
}
