/*
 * Reactive orchestration: the tools are offered to the model by name, and a request ("tool: NAME")
 * is answered by running that one tool on the profile the parent candidate's evaluation saved —
 * the same ncu files the proactive path reads, through the same diagnosis pipeline
 * (lib/tools/pipeline.c: GPU model, Stage 1, then the tool). Requests come from the programmer's
 * worker threads; the toolset is not thread-safe, so answers are made one at a time.
 */
#include "base/setup.h"

#include <pthread.h>

#include "kernelpro/json.h"
#include "kernelpro/pipeline.h"
#include "kernelpro/search_backends.h"

struct kp_reactive {
	struct kp_reactive_opts o;
	char *hw_key;
	struct kp_buf menu;
	pthread_mutex_t mu;
};

int kp_reactive_new(struct kp_reactive **out, const struct kp_reactive_opts *o, struct kp_error *err)
{
	struct kp_reactive *r;

	*out = NULL;
	if (!o->toolset || !o->task)
		return kp_error_set(err, KP_EINVAL, "reactive tools: a toolset and a task are required");
	r = kp_xcalloc(1, sizeof(*r));
	r->o = *o;
	r->hw_key = o->hw_key ? kp_xstrdup(o->hw_key) : NULL;
	r->o.hw_key = r->hw_key;
	kp_toolset_menu(o->toolset, &r->menu);
	kp_buf_rtrim(&r->menu);
	pthread_mutex_init(&r->mu, NULL);
	*out = r;
	return 0;
}

void kp_reactive_free(struct kp_reactive *r)
{
	if (!r)
		return;
	pthread_mutex_destroy(&r->mu);
	kp_buf_release(&r->menu);
	free(r->hw_key);
	free(r);
}

const char *kp_reactive_menu(const struct kp_reactive *r)
{
	return r->menu.buf;
}

/* The profile directory a saved profile summary points to: its "dir", when files were saved there. */
static int profile_dir(const char *profile_json, struct kp_buf *dir, struct kp_error *err)
{
	json_t *pj = NULL;
	const char *why;
	int rc;

	if (!profile_json || !*profile_json)
		return kp_error_set(err, KP_EMISSING, "this version has no saved profile, so no tool can run on it");
	if ((rc = kp_json_load_mem("the saved profile", profile_json, strlen(profile_json), &pj, err)))
		return rc;
	why = kp_json_str(pj, "skipped", NULL);
	if (!why)
		why = kp_json_str(pj, "error", NULL);
	if (!kp_json_str(pj, "dir", NULL))
		rc = kp_error_set(err, KP_EMISSING, "the saved profile of this version names no directory");
	else if (why)
		rc = kp_error_set(err, KP_EMISSING, "this version was not profiled (%s)", why);
	else
		kp_buf_adds(dir, kp_json_str(pj, "dir", NULL));
	json_decref(pj);
	return rc;
}

int kp_reactive_call(struct kp_reactive *r, const char *profile_json, const char *name, struct kp_buf *out,
		     struct kp_error *err)
{
	struct kp_buf dir = KP_BUF_INIT;
	struct kp_pipeline p;
	struct kp_pipeline_opts po;
	const struct kp_kernel_profile *k;
	int rc;

	memset(&p, 0, sizeof(p));
	memset(&po, 0, sizeof(po));
	if (!kp_toolset_find(r->o.toolset, name)) {
		rc = kp_error_set(err, KP_ENOENT, "no tool named '%s'; ask for one of the tools listed", name);
		goto out;
	}
	if ((rc = profile_dir(profile_json, &dir, err)))
		goto out;
	po.gpu_key = r->o.hw_key;
	po.gpu_index = r->o.gpu;
	po.task.min_bytes = r->o.task->min_bytes;
	po.task.flops_hint = r->o.task->flops;
	po.toolset = r->o.toolset;
	po.stage2.energy = r->o.energy;
	rc = kp_pipeline_open_dir(&p, dir.buf, NULL, &po, err);
	if (rc == KP_EMISSING || (!rc && !p.files.ncu_csv)) {
		kp_error_clear(err);
		rc = kp_error_set(err, KP_EMISSING, "the profile of this version (%s) holds no ncu_raw.csv", dir.buf);
		goto out;
	}
	if (rc == KP_ENODEV)
		kp_error_prefix(err, "the profile names no known GPU and none could be loaded (give --hw KEY)");
	if (rc)
		goto out;
	if (!(k = kp_profile_set_longest(&p.set))) {
		rc = kp_error_set(err, KP_EMISSING, "the profile of this version (%s) holds no kernel launch", dir.buf);
		goto out;
	}
	pthread_mutex_lock(&r->mu);
	rc = kp_pipeline_call_tool(&p, k, name, &r->o.feedback, out, err);
	pthread_mutex_unlock(&r->mu);
out:
	kp_pipeline_release(&p);
	kp_buf_release(&dir);
	return rc;
}
