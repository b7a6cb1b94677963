/*
 * kernelpro bench: a suite's results, report and --status.
 */
#include "base/setup.h"

#include "bench_cli.h"
#include "kernelpro/str.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/report.h"
#include "slurm_cli.h"

/* ---- results ------------------------------------------------------------------------------------- */

/* results.json, results.csv, kernels/ and report.html in the suite directory. */
static int write_results(struct bench_state *B, struct kp_suite *s, struct kp_bench_collected *c)
{
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf path = KP_BUF_INIT;
	int rc = kp_bench_collect(B->dir.buf, s, c, &err);

	if (!rc)
		rc = kp_suite_write(s, B->dir.buf, &err);
	if (!rc) {
		kp_path_join(&path, B->dir.buf, "report.html");
		rc = kp_report_suite_write(s, path.buf, &err); /* and each run's page, which it links to */
	}
	kp_buf_release(&path);
	return rc ? kp_cli_fail(B->cli, &err) : 0;
}

static void print_results(struct bench_state *B, const struct kp_suite *s, const struct kp_bench_collected *c)
{
	const struct kp_suite_summary *m = &s->sum;
	FILE *o = B->cli->out;

	if (B->cli->json) {
		json_t *doc = kp_suite_to_json(s), *out = json_object();
		kp_json_set(out, "suite", json_string(s->name));
		kp_json_set(out, "dir", json_string(B->dir.buf));
		kp_json_set(out, "summary", json_incref(json_object_get(doc, "summary")));
		kp_json_set(out, "incomplete", json_integer(c->incomplete));
		kp_cli_print_json_new(B->cli, out);
		json_decref(doc);
		return;
	}
	fprintf(o, "suite %s: %ld %s, %ld finished, %ld failed, %ld not done\n", s->name, m->tasks, kp_plural(m->tasks, "task", "tasks"),
	        m->states[KP_SUITE_FINISHED], m->states[KP_SUITE_FAILED], c->incomplete);
	for (int b = 0; b < KP_SUITE_NBASE; b++) {
		const struct kp_suite_base_stats *st = &m->base[b];
		if (!st->n) {
			fprintf(o, "vs %-14s not measured\n", kp_suite_baseline_name(b));
			continue;
		}
		fprintf(o, "vs %-14s", kp_suite_baseline_name(b));
		for (int k = 0; k < KP_SUITE_NP; k++)
			fprintf(o, "%sfast_%g %.2f", k ? "  " : " ", kp_suite_p[k], st->fast_p[k]);
		fprintf(o, "  geomean %.3gx (correct) %.3gx (all)  n=%ld\n", st->geomean_correct,
		        st->geomean_all, st->n);
	}
	if (s->rejudge) /* bench --kernels: beside the recorded verdicts */
		kp_bench_cli_print_rejudge(o, s->rejudge);
	fprintf(o, "results: %s/results.json, results.csv, kernels/; report: %s/report.html\n", B->dir.buf,
	        B->dir.buf);
}

/* --report / --merge (and the end of a run): 0, or KP_EXIT_FAIL... */
int kp_bench_cli_results(struct bench_state *B, int merge)
{
	struct kp_suite s;
	struct kp_bench_collected c = {0};
	int rc;

	kp_suite_init(&s, NULL);
	if (!(rc = write_results(B, &s, &c))) {
		print_results(B, &s, &c);
		if (merge && c.incomplete) {
			kp_cli_warn(B->cli,
			            "%ld %s not done; run the shards again (--resume) and merge", c.incomplete,
			            c.incomplete == 1 ? "task is" : "tasks are");
			kp_slurm_cli_merge_incomplete(B->cli, B->dir.buf);
			rc = KP_EXIT_USAGE; /* 2: incomplete (docs/slurm.md) */
		}
	}
	kp_bench_collected_release(&c);
	kp_suite_release(&s);
	return rc;
}

int kp_bench_cli_status(struct bench_state *B)
{
	struct kp_error err = KP_ERROR_INIT;
	json_t *doc = NULL, *tasks;
	long counts[KP_SUITE_NSTATE] = {0};

	if (kp_bench_status(B->dir.buf, &doc, &err))
		return kp_cli_fail(B->cli, &err);
	if (B->cli->json) {
		kp_slurm_cli_status(B->cli, B->dir.buf, doc);
		kp_cli_print_json_new(B->cli, doc);
		return KP_EXIT_OK;
	}
	tasks = json_object_get(doc, "tasks");
	for (size_t i = 0; i < json_array_size(tasks); i++) {
		const json_t *t = json_array_get(tasks, i);
		int st = kp_suite_state_parse(kp_json_str(t, "state", "pending"));
		counts[st < 0 ? 0 : st]++;
		fprintf(B->cli->out, "%-32s %-9s", kp_json_str(t, "name", "?"), kp_json_str(t, "state", "?"));
		if (!json_is_null(json_object_get(t, "gpu")))
			fprintf(B->cli->out, " gpu%lld", kp_json_int(t, "gpu", 0));
		if (kp_json_str(t, "reason", NULL))
			fprintf(B->cli->out, "  %s", kp_json_str(t, "reason", ""));
		fputc('\n', B->cli->out);
	}
	fprintf(B->cli->out, "%zu %s:", json_array_size(tasks), kp_plural((long long)json_array_size(tasks), "task", "tasks"));
	for (int i = 0; i < KP_SUITE_NSTATE; i++)
		fprintf(B->cli->out, " %ld %s", counts[i], kp_suite_state_name(i));
	fputc('\n', B->cli->out);
	kp_slurm_cli_status(B->cli, B->dir.buf, doc);
	json_decref(doc);
	return KP_EXIT_OK;
}
