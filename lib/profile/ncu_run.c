/*
 * Runs a program under Nsight Compute with exactly the metrics asked for and
 * turns ncu's ways of failing into errors the caller can act on.
 */
#include "base/setup.h"

#include <signal.h>
#include <unistd.h>

#include "kernelpro/child.h"
#include "kernelpro/fs.h"
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
static void build_command(const struct kp_ncu_run *r, const char *bin, const char *rep_base, int want_report,
			  struct kp_child *c)
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
	kp_strvec_pushl(&c->args, "--log-file", r->log, NULL);
	if (want_report)
		kp_strvec_pushl(&c->args, "--export", rep_base, "--force-overwrite", NULL);
	else
		kp_strvec_pushl(&c->args, "--csv", "--page", "raw", "--print-units", "base", NULL);
	kp_strvec_pushv(&c->args, r->argv);
	kp_strvec_pushl(&c->env, "LC_ALL=C", "LANG=C", NULL);
	if (r->env)
		kp_strvec_pushv(&c->env, r->env);
	c->timeout_ms = r->timeout_ms;
	c->merge_stderr = 1;
	c->out_cap = 16u << 20;
	c->stdin_data = r->stdin_data;
	c->stdin_len = r->stdin_len;
}

/* One optional page of the exported report into dst (emptied on failure: a warning, the raw page stands). */
static void optional_page(struct kp_ncu_run *r, const char *bin, const char *page, const char *file, char *dst,
			  size_t n)
{
	struct kp_error perr = KP_ERROR_INIT;
	path_in(dst, n, r->out_dir, file);
	if (kp_ncu_import(bin, r->report, page, dst, r->timeout_ms, &perr)) {
		kp_strlcpy(r->warning, kp_error_msg(&perr), sizeof(r->warning));
		dst[0] = '\0';
	}
}

/* The pages asked for, from the exported report (removed afterwards unless it is to be kept). */
static int export_pages(struct kp_ncu_run *r, const char *bin, const char *rep_base, struct kp_error *err)
{
	int rc;
	snprintf(r->report, sizeof(r->report), "%.1000s.ncu-rep", rep_base);
	path_in(r->raw_csv, sizeof(r->raw_csv), r->out_dir, "ncu_raw.csv");
	if ((rc = kp_ncu_import(bin, r->report, "raw", r->raw_csv, r->timeout_ms, err)))
		return rc;
	if (r->details)
		optional_page(r, bin, "details", "ncu_details.csv", r->details_csv, sizeof(r->details_csv));
	if (r->source_sass)
		optional_page(r, bin, "source", "sass.csv", r->sass_csv, sizeof(r->sass_csv));
	if (!r->keep_report) {
		unlink(r->report);
		r->report[0] = '\0';
	}
	return 0;
}

int kp_ncu_run(struct kp_ncu_run *r, struct kp_error *err)
{
	struct kp_child c = KP_CHILD_INIT;
	struct kp_buf log = KP_BUF_INIT;
	char *bin = NULL, prog_log[1100], rep_base[1100];
	int rc, want_report = r->details || r->source_sass || r->keep_report;

	r->raw_csv[0] = r->details_csv[0] = r->sass_csv[0] = r->log[0] = r->report[0] = r->warning[0] = '\0';
	r->elapsed_s = 0;
	if (!r->argv || !r->argv[0] || !r->out_dir)
		return kp_error_set(err, KP_EINVAL, "ncu run needs a program and an output directory");
	if ((rc = find_ncu(r->ncu, &bin, err)) || (rc = kp_mkdir_p(r->out_dir, 0755, err)))
		goto out;
	path_in(r->log, sizeof(r->log), r->out_dir, "ncu.log");
	path_in(prog_log, sizeof(prog_log), r->out_dir, "program.log");
	path_in(rep_base, sizeof(rep_base), r->out_dir, "report");
	build_command(r, bin, rep_base, want_report, &c);

	rc = kp_child_run(&c, err);
	r->elapsed_s = c.elapsed_s;
	if (rc == KP_ENOTOOL) {
		kp_error_clear(err);
		rc = kp_error_set(err, KP_ENOTOOL, "ncu at '%s' could not be started", bin);
	}
	if (rc)
		goto out;
	/* What the program printed, for the user; ncu's own words are in the log file. */
	kp_write_file_atomic(prog_log, c.out.buf, c.out.len, NULL);
	if (!c.timed_out && (c.term_signal == SIGINT || c.term_signal == SIGTERM || c.term_signal == SIGHUP)) {
		/* stopped from outside (Ctrl-C, a shutdown): no result, and not the program's failure */
		rc = kp_error_set(err, KP_ECANCELED, "ncu was stopped by signal %d (%s) before it finished (log: %s)",
				  c.term_signal, strsignal(c.term_signal), r->log);
		goto out;
	}
	if (c.timed_out) {
		rc = kp_error_set(err, KP_ETIMEOUT, "ncu run timed out after %.0f s (log: %s); raise --timeout or profile fewer launches",
				  r->timeout_ms / 1000.0, r->log);
		goto out;
	}
	if (kp_read_file(r->log, LOG_CAP, &log, err)) {
		rc = kp_error_set(err, KP_ECHILD, "ncu wrote no log file '%s' (%s)", r->log, kp_error_msg(err));
		goto out;
	}
	/* ncu may put its own errors on stdout as well */
	kp_buf_add(&log, c.out.buf, c.out.len);
	if ((rc = check_log(log.buf, r->log, &c, err)))
		goto out;
	if (want_report) {
		rc = export_pages(r, bin, rep_base, err);
	} else {
		/* the CSV went into the log file, between ncu's ==PROF== lines, which the parser skips */
		path_in(r->raw_csv, sizeof(r->raw_csv), r->out_dir, "ncu_raw.csv");
		rc = kp_write_file_atomic(r->raw_csv, log.buf, log.len - c.out.len, err);
	}
out:
	kp_buf_release(&log);
	kp_child_release(&c);
	free(bin);
	return rc;
}
