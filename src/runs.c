/* The run commands' shared CLI pieces: --runs-dir, durations, and printing a run's summary and progress. */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/json.h"
#include "kernelpro/str.h"
#include "runs.h"

const char *kp_cli_runs_root(const struct kp_args *a)
{
	return kp_run_root(kp_arg_str(a, "runs-dir"));
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

void kp_cli_text(struct kp_buf *out, const char *s, unsigned flags)
{
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		if ((flags & KP_TEXT_LINES) && (*p == '\n' || *p == '\t'))
			kp_buf_addch(out, (char)*p);
		else if (*p < 0x20 || *p == 0x7f)
			kp_buf_addf(out, "\\x%02x", *p);
		else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) /* U+0080..U+009F: C1 controls */
			kp_buf_addf(out, "\\u%04x", *++p);
		else
			kp_buf_addch(out, (char)*p);
	}
}

/* Whether s needs kp_cli_text (most strings do not: they are left as they are). */
static int has_controls(const char *s, unsigned flags)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if ((*p < 0x20 && !((flags & KP_TEXT_LINES) && (*p == '\n' || *p == '\t'))) || *p == 0x7f ||
		    (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
			return 1;
	return 0;
}

static json_t *printable_string(const json_t *v, unsigned flags)
{
	struct kp_buf b = KP_BUF_INIT;
	json_t *s;
	kp_cli_text(&b, json_string_value(v), flags);
	s = json_stringn(b.buf, b.len);
	kp_buf_release(&b);
	return s;
}

void kp_cli_json_printable(json_t *v, unsigned flags)
{
	const char *key;
	json_t *e;
	size_t i;

	if (json_is_object(v)) {
		json_object_foreach(v, key, e)
		{
			if (json_is_string(e) && has_controls(json_string_value(e), flags))
				json_object_set_new(v, key, printable_string(e, flags));
			else
				kp_cli_json_printable(e, flags);
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, e)
		{
			if (json_is_string(e) && has_controls(json_string_value(e), flags))
				json_array_set_new(v, i, printable_string(e, flags));
			else
				kp_cli_json_printable(e, flags);
		}
	}
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

/* The tune actions in one line (nothing when there were none): their evaluations' share, their speed,
 * and what each found. */
static void print_tuning(FILE *fp, const json_t *sum)
{
	const json_t *t = json_object_get(sum, "tuning"), *list = json_object_get(t, "tuned");
	double share = kp_json_num(t, "share", NAN), vpm = kp_json_num(t, "variants_per_minute", NAN);

	if (!json_array_size(list))
		return;
	fprintf(fp, "tuning:    %lld %s%s, %lld %s measured", kp_json_int(t, "actions", 0),
	        kp_plural(kp_json_int(t, "actions", 0), "action", "actions"),
	        kp_json_int(t, "running", 0) ? " (one going on)" : "", kp_json_int(t, "evaluations", 0),
	        kp_plural(kp_json_int(t, "evaluations", 0), "variant", "variants"));
	if (isfinite(share))
		fprintf(fp, " (%.0f%% of the evaluations)", 100 * share);
	if (isfinite(vpm))
		fprintf(fp, ", %.1f per minute", vpm);
	fputc('\n', fp);
	for (size_t i = 0; i < json_array_size(list); i++) {
		const json_t *e = json_array_get(list, i);
		const char *best = kp_json_str(e, "best_point", NULL), *note = kp_json_str(e, "note", NULL);
		fprintf(fp, "  #%-4lld %s, %lld %s", kp_json_int(e, "node", 0), kp_json_str(e, "status", "?"),
		        kp_json_int(e, "trials", 0), kp_plural(kp_json_int(e, "trials", 0), "trial", "trials"));
		if (best)
			fprintf(fp, ", best %s %.4g ms (untuned %.4g ms)", best,
			        kp_json_num(e, "best_ms", NAN), kp_json_num(e, "untuned_ms", NAN));
		fprintf(fp, "%s%s\n", note ? ": " : "", note ? note : "");
	}
}

void kp_cli_print_run_summary(struct kp_cli *cli, const json_t *sum)
{
	json_t *used = json_object_get(sum, "used"), *best = json_object_get(sum, "best"),
	       *ref = json_object_get(sum, "reference");
	json_t *search = json_object_get(sum, "search"), *oc = json_object_get(sum, "outcomes");
	json_t *orch = json_object_get(sum, "orchestration"), *path = json_object_get(best, "path");
	char el[32];
	const char *key;
	json_t *v;

	{
		const char *status = kp_json_str(sum, "status", "?"), *why = kp_json_str(sum, "end_reason", NULL);
		if (why && !strcmp(why, status))
			why = NULL; /* "stopped", not "stopped: stopped" (issue 30, #36) */
		fprintf(cli->out, "run:       %s (%s%s%s)\n", kp_json_str(sum, "run", "?"), status, why ? ": " : "",
			why ? why : "");
	}
	fprintf(cli->out, "task:      %s (%s)\n", kp_json_str(json_object_get(sum, "task"), "name", "?"),
		kp_json_str(json_object_get(sum, "task"), "path", "?"));
	fprintf(cli->out, "search:    %s, objective %s, backup %s, c=%g\n",
		kp_json_str(search, "search", "?"), kp_json_str(search, "objective", "?"),
		kp_json_str(search, "backup", "?"), kp_json_num(search, "uct_c", NAN));
	if (!strcmp(kp_json_str(orch, "mode", "proactive"), "reactive"))
		fprintf(cli->out,
			"tools:     reactive, at most %lld %s of requests per version; %lld %s answered\n",
			kp_json_int(orch, "tool_rounds", 0),
			kp_plural(kp_json_int(orch, "tool_rounds", 0), "round", "rounds"), kp_json_int(used, "tool_calls", 0),
			kp_plural(kp_json_int(used, "tool_calls", 0), "request", "requests"));
	fprintf(cli->out,
		"used:      %lld %s, %lld %s (%lld unusable), %lld+%lld tokens, $%.2f, %s in %lld %s\n",
		kp_json_int(used, "evaluations", 0),
		kp_plural(kp_json_int(used, "evaluations", 0), "evaluation", "evaluations"),
		kp_json_int(used, "generations", 0),
		kp_plural(kp_json_int(used, "generations", 0), "generation", "generations"),
		kp_json_int(used, "generation_failures", 0), kp_json_int(used, "tokens_in", 0),
		kp_json_int(used, "tokens_out", 0), kp_json_num(used, "cost_usd", 0),
		kp_fmt_duration(kp_json_num(used, "elapsed_s", 0), el, sizeof(el)),
		kp_json_int(used, "sessions", 0),
		kp_plural(kp_json_int(used, "sessions", 0), "session", "sessions"));
	if (kp_json_num(used, "gpu_busy_s", 0) > 0) {
		char busy[32];
		fprintf(cli->out, "gpu:       busy %.0f%% of the wall time (%s evaluating and profiling)\n",
			100 * kp_json_num(used, "gpu_busy_share", 0),
			kp_fmt_duration(kp_json_num(used, "gpu_busy_s", 0), busy, sizeof(busy)));
	}
	fprintf(cli->out, "outcomes: ");
	json_object_foreach(oc, key, v) if (json_integer_value(v))
	    fprintf(cli->out, " %s %lld", key, (long long)json_integer_value(v));
	fprintf(cli->out, "\nreference: %.4g ms\n", kp_json_num(ref, "time_ms", NAN));
	print_tuning(cli->out, sum);
	if (!json_is_true(json_object_get(best, "improved"))) {
		fprintf(cli->out, "best:      no candidate beat the reference yet\n");
		return;
	}
	fprintf(cli->out, "best:      #%lld, %.2fx (%.4g ms), %s%s\n", kp_json_int(best, "node", 0),
	        kp_json_num(best, "speedup", NAN), kp_json_num(best, "time_ms", NAN),
	        kp_json_str(best, "file", "best.cu"),
	        json_is_false(json_object_get(best, "profiled")) ? " (not profiled: no diagnosis yet)" : "");
	fprintf(cli->out, "path:\n");
	for (size_t i = 0; i < json_array_size(path); i++)
		kp_print_path_line(cli->out, json_array_get(path, i));
}

void kp_cli_run_progress(struct kp_cli *cli, const struct kp_search_status *st)
{
	const struct kp_search_budget *b = st->budget;
	char el[32], left[64] = "", tok[32], evals[48], best[48];

	if (cli->json || cli->verbosity < 0)
		return;
	kp_fmt_duration(st->elapsed_s, el, sizeof(el));
	if (b->wall_s > 0) {
		char d[32];
		snprintf(left, sizeof(left), ", %s left",
			 kp_fmt_duration(b->wall_s - st->elapsed_s, d, sizeof(d)));
	}
	if (st->tokens >= 10000)
		snprintf(tok, sizeof(tok), "%.1fk", st->tokens / 1e3);
	else
		snprintf(tok, sizeof(tok), "%ld", st->tokens);
	if (b->evals)
		snprintf(evals, sizeof(evals), "%ld/%ld", st->evals, b->evals);
	else
		snprintf(evals, sizeof(evals), "%ld", st->evals);
	if (st->best_node > 0)
		snprintf(best, sizeof(best), "%.2fx (#%ld)", st->best_speedup, st->best_node);
	else
		snprintf(best, sizeof(best), "none yet"); /* not "1.00x (#0)" before anything was evaluated */
	kp_progress_update(&cli->progress, "evals %s  best %s  tokens %s  %s%s  [%s]", evals, best, tok, el, left,
			   st->phase ? st->phase : "");
}

void kp_cli_run_note(struct kp_cli *cli, const char *line)
{
	struct kp_buf b = KP_BUF_INIT;
	if (cli->json || cli->verbosity < 0)
		return;
	kp_cli_text(&b, line, KP_TEXT_LINE); /* notes quote the model's summaries */
	kp_progress_clear(&cli->progress);
	fprintf(cli->err, "  %s\n", b.buf);
	fflush(cli->err);
	kp_buf_release(&b);
}

void kp_cli_run_result(struct kp_cli *cli, struct kp_run *r, const struct kp_search_outcome *out)
{
	json_t *sum = NULL, *best, *path;
	struct kp_buf dir = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	const char *status, *why;
	int same;

	if (kp_run_summary(r, &sum, &err)) {
		kp_cli_warn(cli, "%s", kp_error_msg(&err));
		return;
	}
	if (cli->json) {
		kp_cli_print_json(cli, sum);
		json_decref(sum);
		return;
	}
	kp_cli_json_printable(sum, KP_TEXT_LINE);
	kp_cli_text(&dir, kp_run_dir(r), KP_TEXT_LINE);
	best = json_object_get(sum, "best");
	status = kp_json_str(sum, "status", "?");
	why = kp_search_end_name(out->end);
	same = !strcmp(status, why); /* "stopped", not "stopped (stopped)" */
	fprintf(cli->out, "run %s: %s%s%s%s\n", kp_json_str(sum, "run", "?"), status, same ? "" : " (",
		same ? "" : why, same ? "" : ")");
	if (json_is_true(json_object_get(best, "improved"))) {
		double ms = kp_json_num(best, "time_ms", NAN), ref_ms = kp_json_num(best, "ref_time_ms", NAN);
		char times[64] = "";
		/* An evaluator may report a speedup alone: only the times it gave (never "nan ms"). */
		if (isfinite(ms) && isfinite(ref_ms))
			snprintf(times, sizeof(times), " (%.4g ms vs %.4g ms)", ms, ref_ms);
		else if (isfinite(ms))
			snprintf(times, sizeof(times), " (%.4g ms)", ms);
		fprintf(cli->out, "best: #%lld, %.2fx faster than the reference%s: %s/%s\n", kp_json_int(best, "node", 0),
			kp_json_num(best, "speedup", NAN), times, dir.buf, kp_json_str(best, "file", "best.cu"));
		path = json_object_get(best, "path");
		for (size_t i = 0; i < json_array_size(path); i++)
			kp_print_path_line(cli->out, json_array_get(path, i));
	} else {
		fprintf(cli->out, "no candidate beat the reference yet\n");
	}
	print_tuning(cli->out, sum);
	fprintf(cli->out, "details: kernelpro show %s --tree\n", dir.buf);
	if (out->end == KP_END_STOPPED)
		fprintf(cli->out, "stopped; continue with: kernelpro optimize --resume %s\n", dir.buf);
	kp_buf_release(&dir);
	json_decref(sum);
}
