/*
 * The tools' part of `kernelpro diagnose` and `kernelpro analyze`: the
 * options that set up Stage 2 (lib/tools/pipeline.c runs it), and each
 * launch's findings in priority order in the human and JSON reports, or the
 * feedback text the LLM would get.
 */
#include "base/setup.h"

#include <math.h>

#include "diagnose.h"
#include "kernelpro/json.h"
#include "kernelpro/str.h"
#include "tools_cli.h"

int kp_diagnose_tools_open(struct kp_cli *cli, const struct kp_args *args, struct kp_diagnose_opts *o)
{
	const char *mode = kp_arg_str(args, "feedback");
	int rc;

	o->pipe.toolset = NULL;
	memset(&o->pipe.stage2, 0, sizeof(o->pipe.stage2));
	if ((rc = kp_cli_toolset_open(cli, args, &o->pipe.toolset)))
		return rc;
	if (mode && kp_feedback_mode_parse(mode, &o->pipe.stage2.feedback.mode))
		KP_BUG("option table and parser disagree on '%s'", mode);
	o->pipe.stage2.energy = kp_arg_flag(args, "energy");
	o->pipe.all_tools = kp_arg_flag(args, "all-tools");
	o->text = kp_arg_flag(args, "feedback-text");
	return 0;
}

void kp_diagnose_tools_close(struct kp_diagnose_opts *o)
{
	kp_toolset_free(o->pipe.toolset);
	o->pipe.toolset = NULL;
}

static json_t *runs_json(const struct kp_diagnosis *d)
{
	json_t *a = json_array();
	for (size_t i = 0; i < d->nresults; i++) {
		const struct kp_tool_result *r = &d->results[i];
		json_t *o = json_object();
		kp_json_set(o, "tool", json_string(r->tool));
		kp_json_set(o, "status", json_string(kp_tool_status_name(r->status)));
		kp_json_set(o, "message", r->message ? json_string(r->message) : NULL);
		kp_json_set(o, "findings", json_integer((json_int_t)r->nfindings));
		kp_json_set(o, "negligible", json_integer((json_int_t)r->ndropped));
		json_array_append_new(a, o);
	}
	return a;
}

static void print_findings(struct kp_cli *cli, const struct kp_feedback *fb, const struct kp_diagnosis *d)
{
	FILE *fp = cli->out;
	size_t run = 0;
	for (size_t i = 0; i < d->nresults; i++)
		run += d->results[i].status == KP_TOOL_SILENT || d->results[i].status == KP_TOOL_FIRED;
	fprintf(fp, "  findings: %zu (%zu %s; %zu folded into their causes, %zu negligible", fb->findings.n, run,
		run == 1 ? "tool ran" : "tools ran", fb->nfolded, fb->ndropped);
	if (fb->nomitted)
		fprintf(fp, "; %zu less important not shown", fb->nomitted);
	fprintf(fp, ")\n");
	for (size_t i = 0; i < fb->findings.n; i++) {
		const struct kp_finding *f = &fb->findings.v[i];
		const char *style = f->severity >= KP_SEV_HIGH ? "bad" : f->severity == KP_SEV_MEDIUM ? "warn" : "dim";
		fprintf(fp, "    %zu. %s[%s]%s %s (%s", i + 1, kp_cli_color(cli, style), kp_finding_severity_name(f->severity),
			kp_cli_reset(cli), f->title, f->tool);
		if (!isnan(f->gain))
			fprintf(fp, ", up to %.0f%%", f->gain * 100);
		fprintf(fp, ")\n");
		if (f->recs.n)
			fprintf(fp, "       do: %s\n", f->recs.v[0]);
	}
	for (size_t i = 0; i < d->nresults; i++)
		if (d->results[i].status == KP_TOOL_FAILED)
			fprintf(fp, "  tool %s failed: %s\n", d->results[i].tool, d->results[i].message);
}

void kp_diagnose_tools(struct kp_cli *cli, const struct kp_diagnose_opts *o, const struct kp_pipeline_result *r,
		       json_t *lj)
{
	const struct kp_feedback *fb = &r->feedback;
	struct kp_buf text = KP_BUF_INIT;

	if (!r->have_feedback)
		return;
	if (lj) {
		json_t *fs = json_object_get(lj, "findings");
		if (!json_is_array(fs)) {
			fs = json_array();
			json_object_set_new(lj, "findings", fs);
		}
		for (size_t i = 0; i < fb->findings.n; i++)
			json_array_append_new(fs, kp_finding_json(&fb->findings.v[i]));
		kp_json_set(lj, "tool_runs", runs_json(&r->diagnosis));
		kp_json_set(lj, "folded", json_integer((json_int_t)fb->nfolded));
		kp_json_set(lj, "negligible", json_integer((json_int_t)fb->ndropped));
		kp_json_set(lj, "omitted", json_integer((json_int_t)fb->nomitted));
		kp_json_set(lj, "stage2_ms", kp_json_real(r->stage2_s * 1e3));
		kp_pipeline_feedback_text(r, &text);
		kp_json_set(lj, "feedback_text", json_string(text.buf));
	} else if (o->text || fb->mode != KP_FEEDBACK_TOOLS) {
		kp_pipeline_feedback_text(r, &text);
		fprintf(cli->out, "\n%s\n", text.buf);
	} else {
		print_findings(cli, fb, &r->diagnosis);
	}
	kp_buf_release(&text);
}
