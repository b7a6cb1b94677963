/*
 * Runs a program under Nsight Compute with exactly the metrics asked for and
 * turns ncu's ways of failing into errors the caller can act on.
 */
#include "base/setup.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "kernelpro/child.h"
#include "kernelpro/fs.h"
#include "kernelpro/log.h"
#include "kernelpro/profile.h"
#include "kernelpro/str.h"
#include "kernelpro/toolchain.h"

#define LOG_CAP (64u << 20)

static int find_ncu(const char *given, char **out, struct kp_error *err)
{
	*out = given ? kp_which(given) : kp_cuda_tool("ncu");
	if (!*out)
		return kp_error_set(err, KP_ENOTOOL,
				    "ncu not found%s%s; install Nsight Compute (part of the CUDA toolkit) or profile with "
				    "timing only",
				    given ? ": " : " on PATH or in the CUDA toolkit", given ? given : "");
	return 0;
}

static void path_in(char *dst, size_t n, const char *dir, const char *name)
{
	snprintf(dst, n, "%s/%s", dir, name);
}

/* The first "==ERROR==" line of ncu's log, without the prefix. */
static void first_error(const char *log, char *out, size_t n)
{
	const char *e = strstr(log, "==ERROR==");
	out[0] = '\0';
	if (!e)
		return;
	e += 9;
	while (*e == ' ')
		e++;
	kp_strlcpy(out, e, n);
	if (strchr(out, '\n'))
		*strchr(out, '\n') = '\0';
}

/* Maps what ncu wrote to an error; 0 when the run looks good. */
static int check_log(const char *log, const char *logpath, const struct kp_child *c, struct kp_error *err)
{
	char first[300], how[128];
	first_error(log, first, sizeof(first));
	if (strstr(log, "ERR_NVGPUCTRPERM"))
		return kp_error_set(err, KP_EPERM,
				    "ncu: no permission to read GPU counters (ERR_NVGPUCTRPERM); run as root, or allow "
				    "non-admin access (NVreg_RestrictProfilingToAdminUsers=0), see 'kernelpro doctor'");
	if (strstr(log, "application returned an error code") || strstr(log, "Target application terminated"))
		return kp_error_set(err, KP_ECHILD, "the profiled program failed under ncu: %s (log: %s)",
				    first[0] ? first : "non-zero exit", logpath);
	if (strstr(log, "Failed to find metric") || strstr(log, "ailed to find section") ||
	    strstr(log, "nvalid metric"))
		return kp_error_set(err, KP_EINVAL, "ncu does not know a requested metric or section: %s (log: %s)",
				    first, logpath);
	if (strstr(log, "No kernels were profiled"))
		return kp_error_set(err, KP_EMISSING,
				    "ncu profiled no kernel: the program launched none, or the kernel filter matched none "
				    "(log: %s)",
				    logpath);
	if (first[0])
		return kp_error_set(err, KP_ECHILD, "ncu: %s (log: %s)", first, logpath);
	if (!kp_child_ok(c))
		return kp_error_set(err, KP_ECHILD, "ncu %s (log: %s)", kp_child_describe(c, how, sizeof(how)), logpath);
	return 0;
}

static void push_list(struct kp_strvec *args, const char *flag, const char *const *items, int joined)
{
	if (!items || !items[0])
		return;
	if (joined) {
		struct kp_buf b = KP_BUF_INIT;
		for (size_t i = 0; items[i]; i++) {
			if (i)
				kp_buf_addch(&b, ',');
			kp_buf_adds(&b, items[i]);
		}
		kp_strvec_pushl(args, flag, b.buf, NULL);
		kp_buf_release(&b);
	} else {
		for (size_t i = 0; items[i]; i++)
			kp_strvec_pushl(args, flag, items[i], NULL);
	}
}

int kp_ncu_import(const char *ncu, const char *report, const char *page, const char *out_path, long timeout_ms,
		  struct kp_error *err)
{
	struct kp_child c = KP_CHILD_INIT;
	char *bin = NULL;
	char how[128];
	int rc;
	if ((rc = find_ncu(ncu, &bin, err)))
		return rc;
	kp_strvec_pushl(&c.args, bin, "--import", report, "--csv", "--page", page, "--print-units", "base", NULL);
	if (!strcmp(page, "source"))
		kp_strvec_pushl(&c.args, "--print-source", "sass", NULL);
	kp_strvec_pushl(&c.env, "LC_ALL=C", "LANG=C", NULL);
	c.timeout_ms = timeout_ms;
	c.out_cap = KP_PROFILE_MAX_FILE;
	c.err_cap = 1 << 20;
	if ((rc = kp_child_run(&c, err)))
		goto out;
	if (!kp_child_ok(&c)) {
		char first[300];
		first_error(c.out.buf, first, sizeof(first));
		if (!first[0])
			first_error(c.err.buf, first, sizeof(first));
		rc = kp_error_set(err, c.timed_out ? KP_ETIMEOUT : KP_ECHILD, "ncu --import '%s' --page %s %s%s%s",
				  report, page, kp_child_describe(&c, how, sizeof(how)), first[0] ? ": " : "", first);
		goto out;
	}
	if (c.out_truncated) {
		rc = kp_error_set(err, KP_ETOOBIG, "ncu --import '%s': the %s page is larger than %u bytes", report, page,
				  KP_PROFILE_MAX_FILE);
		goto out;
	}
	rc = kp_write_file_atomic(out_path, c.out.buf, c.out.len, err);
out:
	kp_child_release(&c);
	free(bin);
	return rc;
}

/* ncu's command line for r: the collection, the filters, the log and the output, then the program. */
static void build_command(const struct kp_ncu_run *r, const char *bin, const char *log, const char *rep_base,
			  int want_report, struct kp_child *c)
{
	/* Caches flushed before every replay pass (so each pass of a kernel sees the same cold caches as
	 * the timing's L2 flush), and kernel replay (memory saved and restored on the device: one run of
	 * the program, never --replay-mode application's one run per pass); both ncu's defaults, said
	 * here so that a change of default cannot change what is measured. */
	kp_strvec_pushl(&c->args, bin, "--target-processes", "all", "--clock-control", "none", "--cache-control",
			"all", "--replay-mode", "kernel", NULL);
	push_list(&c->args, "--metrics", r->metrics, 1);
	push_list(&c->args, "--section", r->sections, 0);
	if (r->set)
		kp_strvec_pushl(&c->args, "--set", r->set, NULL);
	if (r->kernel)
		kp_strvec_pushl(&c->args, "--kernel-name", r->kernel, NULL);
	if (r->launch_skip > 0) {
		kp_strvec_push(&c->args, "--launch-skip");
		kp_strvec_pushf(&c->args, "%ld", r->launch_skip);
	}
	if (r->launch_count > 0) {
		kp_strvec_push(&c->args, "--launch-count");
		kp_strvec_pushf(&c->args, "%ld", r->launch_count);
	}
	if (r->nvtx_include)
		kp_strvec_pushl(&c->args, "--nvtx", "--nvtx-include", r->nvtx_include, NULL);
	kp_strvec_pushl(&c->args, "--log-file", log, NULL);
	if (want_report)
		kp_strvec_pushl(&c->args, "--export", rep_base, "--force-overwrite", NULL);
	else
		kp_strvec_pushl(&c->args, "--csv", "--page", "raw", "--print-units", "base", NULL);
	kp_strvec_pushv(&c->args, r->argv);
	kp_strvec_pushl(&c->env, "LC_ALL=C", "LANG=C", NULL);
	if (r->env)
		kp_strvec_pushv(&c->env, r->env);
	c->merge_stderr = 1;
	c->out_cap = 16u << 20;
}

static int wants_report(const struct kp_ncu_run *r)
{
	return r->details || r->source_sass || r->keep_report;
}

/* One page export, run on its own thread when the pages go out side by side. */
struct page_job {
	const char *bin, *report, *page;
	char *dst;
	long timeout_ms;
	int rc, threaded;
	pthread_t th;
	struct kp_error err;
};

static void *page_run(void *arg)
{
	struct page_job *j = arg;
	j->rc = kp_ncu_import(j->bin, j->report, j->page, j->dst, j->timeout_ms, &j->err);
	return NULL;
}

/*
 * The pages asked for, from the exported report (removed afterwards unless it is to be kept). Each
 * page is an `ncu --import` of its own (about 0.6-0.8 s each on the H200, mostly ncu's start), so
 * the optional ones run on their own threads beside the raw page: the three take as long as one.
 * An optional page that fails leaves a warning; the raw page is required.
 */
static int export_pages(struct kp_ncu_run *r, const char *bin, const char *rep_base, struct kp_error *err)
{
	struct page_job jobs[2];
	size_t n = 0;
	int rc;

	snprintf(r->report, sizeof(r->report), "%.1000s.ncu-rep", rep_base);
	path_in(r->raw_csv, sizeof(r->raw_csv), r->out_dir, "ncu_raw.csv");
	if (r->details) {
		path_in(r->details_csv, sizeof(r->details_csv), r->out_dir, "ncu_details.csv");
		jobs[n++] = (struct page_job){.page = "details", .dst = r->details_csv};
	}
	if (r->source_sass) {
		path_in(r->sass_csv, sizeof(r->sass_csv), r->out_dir, "sass.csv");
		jobs[n++] = (struct page_job){.page = "source", .dst = r->sass_csv};
	}
	for (size_t i = 0; i < n; i++) {
		jobs[i].bin = bin;
		jobs[i].report = r->report;
		jobs[i].timeout_ms = r->timeout_ms;
		jobs[i].err = (struct kp_error)KP_ERROR_INIT;
		jobs[i].threaded = pthread_create(&jobs[i].th, NULL, page_run, &jobs[i]) == 0;
	}
	rc = kp_ncu_import(bin, r->report, "raw", r->raw_csv, r->timeout_ms, err);
	for (size_t i = 0; i < n; i++) {
		if (jobs[i].threaded)
			pthread_join(jobs[i].th, NULL);
		else
			page_run(&jobs[i]);
		if (jobs[i].rc) {
			if (!r->warning[0])
				kp_strlcpy(r->warning, kp_error_msg(&jobs[i].err), sizeof(r->warning));
			jobs[i].dst[0] = '\0';
		}
	}
	if (rc)
		return rc;
	if (!r->keep_report) {
		unlink(r->report);
		r->report[0] = '\0';
	}
	return 0;
}

/*
 * After ncu has ended (kp_child_run returned `run_rc` for c): the program's output, ncu's log
 * checked for its ways of failing, then the pages. `rep_base` is the report's path without
 * ".ncu-rep", r->log ncu's log file.
 */
static int collect(struct kp_ncu_run *r, struct kp_child *c, int run_rc, struct kp_error *run_err, const char *bin,
		   const char *rep_base, struct kp_error *err)
{
	struct kp_buf log = KP_BUF_INIT;
	char prog_log[1100];
	int rc;

	if (run_rc == KP_ENOTOOL) {
		rc = kp_error_set(err, KP_ENOTOOL, "ncu at '%s' could not be started", bin);
		goto out;
	}
	if (run_rc) {
		rc = kp_error_set(err, run_rc, "%s", kp_error_msg(run_err));
		goto out;
	}
	/* What the program printed, for the user; ncu's own words are in the log file. */
	path_in(prog_log, sizeof(prog_log), r->out_dir, "program.log");
	kp_write_file_atomic(prog_log, c->out.buf, c->out.len, NULL);
	if (!c->timed_out && (c->term_signal == SIGINT || c->term_signal == SIGTERM || c->term_signal == SIGHUP)) {
		/* stopped from outside (Ctrl-C, a shutdown): no result, and not the program's failure */
		rc = kp_error_set(err, KP_ECANCELED, "ncu was stopped by signal %d (%s) before it finished (log: %s)",
				  c->term_signal, strsignal(c->term_signal), r->log);
		goto out;
	}
	if (c->timed_out) {
		rc = kp_error_set(err, KP_ETIMEOUT, "ncu run timed out after %.0f s (log: %s); raise --timeout or profile fewer launches",
				  r->timeout_ms / 1000.0, r->log);
		goto out;
	}
	if (kp_read_file(r->log, LOG_CAP, &log, err)) {
		rc = kp_error_set(err, KP_ECHILD, "ncu wrote no log file '%s' (%s)", r->log, kp_error_msg(err));
		goto out;
	}
	/* ncu may put its own errors on stdout as well */
	kp_buf_add(&log, c->out.buf, c->out.len);
	if ((rc = check_log(log.buf, r->log, c, err)))
		goto out;
	if (wants_report(r)) {
		rc = export_pages(r, bin, rep_base, err);
	} else {
		/* the CSV went into the log file, between ncu's ==PROF== lines, which the parser skips */
		path_in(r->raw_csv, sizeof(r->raw_csv), r->out_dir, "ncu_raw.csv");
		rc = kp_write_file_atomic(r->raw_csv, log.buf, log.len - c->out.len, err);
	}
out:
	kp_buf_release(&log);
	return rc;
}

static void clear_results(struct kp_ncu_run *r)
{
	r->raw_csv[0] = r->details_csv[0] = r->sass_csv[0] = r->log[0] = r->report[0] = r->warning[0] = '\0';
	r->elapsed_s = 0;
}

int kp_ncu_run(struct kp_ncu_run *r, struct kp_error *err)
{
	struct kp_child c = KP_CHILD_INIT;
	struct kp_error run_err = KP_ERROR_INIT;
	char *bin = NULL, rep_base[1100];
	int rc;

	clear_results(r);
	if (!r->argv || !r->argv[0] || !r->out_dir)
		return kp_error_set(err, KP_EINVAL, "ncu run needs a program and an output directory");
	if ((rc = find_ncu(r->ncu, &bin, err)) || (rc = kp_mkdir_p(r->out_dir, 0755, err)))
		goto out;
	path_in(r->log, sizeof(r->log), r->out_dir, "ncu.log");
	path_in(rep_base, sizeof(rep_base), r->out_dir, "report");
	build_command(r, bin, r->log, rep_base, wants_report(r), &c);
	c.timeout_ms = r->timeout_ms;
	c.stdin_data = r->stdin_data;
	c.stdin_len = r->stdin_len;
	rc = kp_child_run(&c, &run_err);
	r->elapsed_s = c.elapsed_s;
	rc = collect(r, &c, rc, &run_err, bin, rep_base, err);
out:
	kp_child_release(&c);
	free(bin);
	return rc;
}

/* ---- Held collections: ncu and its program started before the program's input is known ---------- */

struct kp_ncu_held {
	struct kp_child c;
	char *bin;
	char dir[1024], log[1100], rep_base[1100];
	int want_report;
	struct kp_strvec key; /* the command line and environment with the paths left out: what must match */
	int in_w;             /* our end of the program's stdin; -1 once closed */
	pthread_t th;
	int threaded;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int done, run_rc;     /* kp_child_run has returned run_rc */
	struct kp_error run_err;
	volatile sig_atomic_t stop;
};

/* The command's identity: what it would run with no paths in it (a held run matches another request). */
static void command_key(const struct kp_ncu_run *r, const char *bin, struct kp_strvec *key)
{
	struct kp_child c = KP_CHILD_INIT;
	int want = wants_report(r);
	build_command(r, bin, "", "", want, &c);
	kp_strvec_pushv(key, (const char *const *)c.args.v);
	kp_strvec_push(key, "--env--");
	kp_strvec_pushv(key, (const char *const *)c.env.v);
	kp_child_release(&c);
}

static int held_cancel(void *ud)
{
	const struct kp_ncu_held *h = ud;
	return h->stop != 0;
}

static void *held_run(void *arg)
{
	struct kp_ncu_held *h = arg;
	int rc = kp_child_run(&h->c, &h->run_err);
	pthread_mutex_lock(&h->mu);
	h->run_rc = rc;
	h->done = 1;
	pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->mu);
	return NULL;
}

static void close_input(struct kp_ncu_held *h)
{
	if (h->in_w >= 0) {
		close(h->in_w);
		h->in_w = -1;
	}
}

int kp_ncu_hold(const struct kp_ncu_run *r, struct kp_ncu_held **out, struct kp_error *err)
{
	struct kp_ncu_held *h;
	int p[2] = {-1, -1}, rc;

	*out = NULL;
	if (!r->argv || !r->argv[0] || !r->out_dir)
		return kp_error_set(err, KP_EINVAL, "ncu run needs a program and an output directory");
	h = kp_xcalloc(1, sizeof(*h));
	kp_child_init(&h->c);
	h->key = (struct kp_strvec)KP_STRVEC_INIT;
	h->run_err = (struct kp_error)KP_ERROR_INIT;
	h->in_w = -1;
	pthread_mutex_init(&h->mu, NULL);
	{
		pthread_condattr_t ca;
		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* a time limit no clock change moves */
		pthread_cond_init(&h->cv, &ca);
		pthread_condattr_destroy(&ca);
	}
	if ((rc = find_ncu(r->ncu, &h->bin, err)) || (rc = kp_mkdir_p(r->out_dir, 0755, err)))
		goto fail;
	kp_strlcpy(h->dir, r->out_dir, sizeof(h->dir));
	path_in(h->log, sizeof(h->log), r->out_dir, "ncu.log");
	path_in(h->rep_base, sizeof(h->rep_base), r->out_dir, "report");
	h->want_report = wants_report(r);
	command_key(r, h->bin, &h->key);
	build_command(r, h->bin, h->log, h->rep_base, h->want_report, &h->c);
	if (pipe2(p, O_CLOEXEC)) {
		rc = kp_error_set(err, KP_EIO, "ncu: cannot create a pipe for the program's input: %s", strerror(errno));
		goto fail;
	}
	h->c.stdin_from_fd = 1;
	h->c.stdin_fd = p[0];
	h->in_w = p[1];
	/* No time limit while it waits for its input: kp_ncu_held_finish counts r->timeout_ms from there. */
	h->c.timeout_ms = 0;
	h->c.cancel = held_cancel;
	h->c.cancel_ud = h;
	if (pthread_create(&h->th, NULL, held_run, h)) {
		rc = kp_error_set(err, KP_EIO, "ncu: cannot start a thread for a held run");
		goto fail;
	}
	h->threaded = 1;
	*out = h;
	return 0;
fail:
	kp_ncu_held_free(h);
	return rc;
}

int kp_ncu_held_matches(const struct kp_ncu_held *h, const struct kp_ncu_run *r)
{
	struct kp_strvec key = KP_STRVEC_INIT;
	char *bin = NULL;
	int same = 0;

	if (!h || !r->argv || !r->argv[0] || find_ncu(r->ncu, &bin, NULL))
		goto out;
	command_key(r, bin, &key); /* ncu itself is its first word */
	same = key.n == h->key.n;
	for (size_t i = 0; same && i < key.n; i++)
		same = !strcmp(key.v[i], h->key.v[i]);
out:
	kp_strvec_release(&key);
	free(bin);
	return same;
}

/* Waits until the held run's ncu has ended, stopping it once `limit_ms` (> 0) have passed; 1 when it did. */
static int held_wait(struct kp_ncu_held *h, long limit_ms)
{
	int stopped = 0;
	pthread_mutex_lock(&h->mu);
	if (limit_ms > 0) {
		struct timespec until;
		clock_gettime(CLOCK_MONOTONIC, &until); /* the condition variable's clock (kp_ncu_hold) */
		until.tv_sec += limit_ms / 1000;
		until.tv_nsec += (limit_ms % 1000) * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		while (!h->done && pthread_cond_timedwait(&h->cv, &h->mu, &until) != ETIMEDOUT)
			;
		if (!h->done) {
			h->stop = 1;
			stopped = 1;
		}
	}
	while (!h->done)
		pthread_cond_wait(&h->cv, &h->mu);
	pthread_mutex_unlock(&h->mu);
	if (h->threaded) {
		pthread_join(h->th, NULL);
		h->threaded = 0;
	}
	return stopped;
}

/* A held file moved to where the request wants it; "" in dst when there was none. */
static void move_in(const char *from, const char *dir, const char *name, char *dst, size_t n)
{
	path_in(dst, n, dir, name);
	if (rename(from, dst) != 0)
		dst[0] = '\0';
}

int kp_ncu_held_finish(struct kp_ncu_held *h, struct kp_ncu_run *r, struct kp_error *err)
{
	char rep_from[1200], rep_base[1100], rep_to[1100];
	double given_at;
	int rc, stopped;

	clear_results(r);
	if (!r->out_dir)
		return kp_error_set(err, KP_EINVAL, "ncu run needs an output directory");
	if ((rc = kp_mkdir_p(r->out_dir, 0755, err)))
		return rc;
	given_at = kp_now();
	/* A program that has already ended fails the feed; how it ended is what the log says. */
	kp_child_feed(h->in_w, r->stdin_data ? r->stdin_data : "", r->stdin_data ? r->stdin_len : 0, NULL);
	close_input(h);
	stopped = held_wait(h, r->timeout_ms);
	r->elapsed_s = kp_now() - given_at;
	/* ncu's files into the request's directory, as a run of its own would have left them. */
	move_in(h->log, r->out_dir, "ncu.log", r->log, sizeof(r->log));
	if (!r->log[0])
		kp_strlcpy(r->log, h->log, sizeof(r->log));
	path_in(rep_base, sizeof(rep_base), r->out_dir, "report");
	snprintf(rep_from, sizeof(rep_from), "%s.ncu-rep", h->rep_base);
	if (h->want_report && kp_path_exists(rep_from))
		move_in(rep_from, r->out_dir, "report.ncu-rep", rep_to, sizeof(rep_to));
	if (stopped) {
		rc = kp_error_set(err, KP_ETIMEOUT, "ncu run timed out after %.0f s (log: %s); raise --timeout or profile fewer launches",
				  r->timeout_ms / 1000.0, r->log);
		goto out;
	}
	rc = collect(r, &h->c, h->run_rc, &h->run_err, h->bin, rep_base, err);
out:
	kp_ncu_held_free(h);
	return rc;
}

void kp_ncu_held_free(struct kp_ncu_held *h)
{
	if (!h)
		return;
	close_input(h); /* the program sees the end of its input, */
	if (h->threaded) {
		h->stop = 1; /* and ncu's group is stopped */
		held_wait(h, 0);
	}
	if (h->c.stdin_from_fd && h->c.stdin_fd >= 0)
		close(h->c.stdin_fd);
	if (h->dir[0])
		kp_rm_rf(h->dir, NULL);
	kp_child_release(&h->c);
	kp_strvec_release(&h->key);
	pthread_mutex_destroy(&h->mu);
	pthread_cond_destroy(&h->cv);
	free(h->bin);
	free(h);
}
