/*
 * Reactive orchestration: the tools are offered to the model by name, and a request ("tool: NAME")
 * is answered by running that one tool on the profile the parent candidate's evaluation saved —
 * the same ncu files the proactive path reads. Requests come from the programmer's worker
 * threads; the toolset is not thread-safe, so answers are made one at a time.
 */
#include "base/setup.h"

#include <math.h>
#include <pthread.h>

#include "kernelpro/analyze.h"
#include "kernelpro/json.h"
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

/* The GPU model: the key given, else the one the report names, else the local device. */
static int load_hw(const struct kp_reactive *r, const struct kp_ncu_report *rep, struct kp_hw *hw,
		   struct kp_error *err)
{
	const struct kp_hw_spec *s = r->o.hw_key ? NULL : kp_hw_spec_for_report(rep);
	int rc = kp_hw_load(hw, s ? s->key : r->o.hw_key, r->o.gpu, err);
	if (rc)
		kp_error_prefix(err, "the profile names no known GPU and none could be loaded (give --hw KEY)");
	return rc;
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
	struct kp_strvec paths = KP_STRVEC_INIT;
	struct kp_profile_files files;
	struct kp_profile_set ps;
	struct kp_stage1_thresholds th;
	struct kp_stage1 s1;
	struct kp_hw hw;
	struct kp_task_bytes tb = {r->o.task->min_bytes, r->o.task->flops};
	const struct kp_kernel_profile *k;
	int rc;

	memset(&ps, 0, sizeof(ps));
	if (!kp_toolset_find(r->o.toolset, name)) {
		rc = kp_error_set(err, KP_ENOENT, "no tool named '%s'; ask for one of the tools listed", name);
		goto out;
	}
	if ((rc = profile_dir(profile_json, &dir, err)))
		goto out;
	kp_profile_dir_files(dir.buf, &files, &paths);
	if (!files.ncu_csv) {
		rc = kp_error_set(err, KP_EMISSING, "the profile of this version (%s) holds no ncu_raw.csv", dir.buf);
		goto out;
	}
	if ((rc = kp_profile_set_load(&ps, &files, err)))
		goto out;
	if (!(k = kp_profile_set_longest(&ps))) {
		rc = kp_error_set(err, KP_EMISSING, "the profile of this version (%s) holds no kernel launch", dir.buf);
		goto out;
	}
	kp_stage1_thresholds_default(&th);
	if ((rc = load_hw(r, &ps.ncu, &hw, err)) || (rc = kp_stage1_run(&s1, k, &hw, &tb, &th, err)))
		goto out;
	pthread_mutex_lock(&r->mu);
	{
		struct kp_tool_input in = {k, &s1, &hw, r->o.energy, NULL};
		rc = kp_toolset_call(r->o.toolset, name, &in, &r->o.feedback, out, NULL, err);
	}
	pthread_mutex_unlock(&r->mu);
out:
	kp_profile_set_release(&ps);
	kp_strvec_release(&paths);
	kp_buf_release(&dir);
	return rc;
}
