/*
 * The tools' part of `kernelpro diagnose` and `kernelpro analyze`: Stage 2 on
 * each launch (the class's tools, or all), its findings in priority order in
 * the human and JSON reports, and the feedback text the LLM would get.
 */
#include "base/setup.h"

#include <math.h>

#include "diagnose.h"
#include "kernelpro/json.h"
#include "tools_cli.h"

int kp_diagnose_tools_open(struct kp_cli *cli, const struct kp_args *args, struct kp_diagnose_opts *o)
{
	const char *mode = kp_arg_str(args, "feedback");
	int rc;

	memset(&o->tools, 0, sizeof(o->tools));
	if ((rc = kp_cli_toolset_open(cli, args, &o->tools.ts)))
		return rc;
	if (mode && kp_feedback_mode_parse(mode, &o->tools.stage2.feedback.mode))
		KP_BUG("option table and parser disagree on '%s'", mode);
	o->tools.stage2.energy = kp_arg_flag(args, "energy");
	o->tools.all = kp_arg_flag(args, "all-tools");
	o->tools.text = kp_arg_flag(args, "feedback-text");
	return 0;
}

void kp_diagnose_tools_close(struct kp_diagnose_opts *o)
{
	kp_toolset_free(o->tools.ts);
	o->tools.ts = NULL;
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
	fprintf(fp, "  findings: %zu (%zu tools ran; %zu folded into their causes, %zu negligible", fb->findings.n,
		run, fb->nfolded, fb->ndropped);
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

/* The ids to run: explicit --all-tools, the trace tools for a trace-only profile, else the class's. */
static void pick_tools(const struct kp_diagnose_opts *o, const struct kp_kernel_profile *k, struct kp_strvec *ids)
{
	const struct kp_toolset *ts = o->tools.ts;
	for (size_t i = 0; i < kp_toolset_count(ts); i++) {
		const struct kp_tool_info *t = kp_toolset_at(ts, i);
		if (!k->launch ? (t->sources & KP_SRC_TRACE) != 0 : o->tools.all)
			kp_strvec_push(ids, t->name);
	}
}

int kp_diagnose_tools(struct kp_cli *cli, const struct kp_diagnose_opts *o, const struct kp_kernel_profile *k,
		      const struct kp_stage1 *s1, const struct kp_hw *hw, json_t *lj)
{
	struct kp_tool_input in = {k, s1, hw, o->tools.stage2.energy, NULL};
	struct kp_stage2_opts so = o->tools.stage2;
	struct kp_strvec ids = KP_STRVEC_INIT;
	struct kp_diagnosis d = KP_DIAGNOSIS_INIT;
	struct kp_feedback fb;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf text = KP_BUF_INIT;
	double t0 = kp_now();
	int rc;

	if (!o->tools.ts)
		return 0;
	pick_tools(o, k, &ids);
	so.tools = ids.n ? &ids : NULL;
	if ((rc = kp_stage2_run(o->tools.ts, &in, &so, &d, &fb, &err))) {
		kp_strvec_release(&ids);
		kp_diagnosis_release(&d);
		return kp_cli_fail(cli, &err);
	}
	if (lj) {
		json_t *fs = json_object_get(lj, "findings");
		if (!json_is_array(fs)) {
			fs = json_array();
			json_object_set_new(lj, "findings", fs);
		}
		for (size_t i = 0; i < fb.findings.n; i++)
			json_array_append_new(fs, kp_finding_json(&fb.findings.v[i]));
		kp_json_set(lj, "tool_runs", runs_json(&d));
		kp_json_set(lj, "folded", json_integer((json_int_t)fb.nfolded));
		kp_json_set(lj, "negligible", json_integer((json_int_t)fb.ndropped));
		kp_json_set(lj, "omitted", json_integer((json_int_t)fb.nomitted));
		kp_json_set(lj, "stage2_ms", kp_json_real((kp_now() - t0) * 1e3));
		kp_feedback_text(&fb, &text);
		kp_json_set(lj, "feedback_text", json_string(text.buf));
	} else if (o->tools.text || fb.mode != KP_FEEDBACK_TOOLS) {
		kp_feedback_text(&fb, &text);
		fprintf(cli->out, "\n%s\n", text.buf);
	} else {
		print_findings(cli, &fb, &d);
	}
	kp_buf_release(&text);
	kp_feedback_release(&fb);
	kp_diagnosis_release(&d);
	kp_strvec_release(&ids);
	return 0;
}
