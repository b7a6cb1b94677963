/*
 * Orchestration: proactive Stage 2 (the class selects the tools, all run
 * before the LLM is asked) and the reactive protocol (a menu of tools by name
 * and description, and one call that runs a tool and renders its findings).
 */
#include "base/setup.h"

#include "kernelpro/feedback.h"

int kp_stage2_run(struct kp_toolset *ts, const struct kp_tool_input *in, const struct kp_stage2_opts *o,
		  struct kp_diagnosis *d, struct kp_feedback *fb, struct kp_error *err)
{
	struct kp_strvec ids = KP_STRVEC_INIT;
	enum kp_bound cls = in->stage1 ? in->stage1->bound : KP_BOUND_UNKNOWN;
	int rc = 0;

	if (o->tools)
		kp_strvec_pushv(&ids, (const char *const *)o->tools->v);
	else
		kp_toolset_select(ts, cls, o->energy, &ids);
	/* Only interpreted feedback needs the tools to run; raw reads what they would read. */
	if (o->orchestration == KP_ORCH_PROACTIVE && o->feedback.mode == KP_FEEDBACK_TOOLS)
		rc = kp_toolset_run(ts, &ids, in, d, err);
	else if (o->tools) {
		struct kp_strvec metrics = KP_STRVEC_INIT;
		rc = kp_toolset_metrics(ts, &ids, &metrics, NULL, err); /* validates the ids */
		kp_strvec_release(&metrics);
	}
	if (!rc)
		kp_feedback_build(fb, ts, &ids, in, d, &o->feedback);
	kp_strvec_release(&ids);
	return rc;
}

void kp_toolset_menu(const struct kp_toolset *ts, struct kp_buf *out)
{
	for (size_t i = 0; i < kp_toolset_count(ts); i++) {
		const struct kp_tool_info *t = kp_toolset_at(ts, i);
		kp_buf_addf(out, "- %s: %s\n", t->name, t->description);
	}
}

json_t *kp_toolset_menu_json(const struct kp_toolset *ts)
{
	json_t *a = json_array();
	for (size_t i = 0; i < kp_toolset_count(ts); i++) {
		const struct kp_tool_info *t = kp_toolset_at(ts, i);
		json_t *o = json_object();
		json_object_set_new(o, "name", json_string(t->name));
		json_object_set_new(o, "description", json_string(t->description));
		json_array_append_new(a, o);
	}
	return a;
}

int kp_toolset_call(struct kp_toolset *ts, const char *id, const struct kp_tool_input *in,
		    const struct kp_feedback_opts *o, struct kp_buf *text, json_t **json, struct kp_error *err)
{
	struct kp_diagnosis d = KP_DIAGNOSIS_INIT;
	struct kp_feedback fb;
	struct kp_feedback_opts fo = o ? *o : (struct kp_feedback_opts){0};
	int rc;

	if ((rc = kp_toolset_run_one(ts, id, in, &d, err)))
		return rc;
	fo.mode = KP_FEEDBACK_TOOLS;
	kp_feedback_build(&fb, ts, NULL, in, &d, &fo);
	if (text) {
		const struct kp_tool_result *r = &d.results[0];
		kp_buf_addf(text, "Tool %s: %s", id, kp_tool_status_name(r->status));
		if (r->message)
			kp_buf_addf(text, " (%s)", r->message);
		kp_buf_adds(text, "\n");
		if (fb.findings.n)
			kp_feedback_text(&fb, text);
	}
	if (json) {
		*json = kp_feedback_json(&fb);
		json_object_set_new(*json, "tool", json_string(id));
		json_object_set_new(*json, "status", json_string(kp_tool_status_name(d.results[0].status)));
		json_object_set_new(*json, "message", d.results[0].message ? json_string(d.results[0].message) : json_null());
	}
	kp_feedback_release(&fb);
	kp_diagnosis_release(&d);
	return 0;
}
