/*
 * The diagnosis pipeline (kernelpro/pipeline.h): profile files, the GPU model, Stage 1, the
 * tools and the feedback, in one place for the commands and the search.
 */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/fs.h"
#include "kernelpro/log.h"
#include "kernelpro/pipeline.h"
#include "kernelpro/str.h"

/* The GPU model: the caller's, or the rule's (kp_hw_for_profile) for the GPU the profile names. */
static int choose_hw(struct kp_pipeline *p, struct kp_error *err)
{
	int rc;
	if (p->o.hw) {
		p->hw = *p->o.hw;
		p->have_hw = 1;
		return 0;
	}
	rc = kp_hw_for_profile(&p->hw, p->o.gpu_key, p->device[0] ? p->device : NULL, p->o.gpu_index, err);
	p->have_hw = rc == 0;
	return rc;
}

/* A copy of path that lives as long as the pipeline (NULL stays NULL). */
static const char *keep(struct kp_pipeline *p, const char *path)
{
	if (!path)
		return NULL;
	kp_strvec_push(&p->paths, path); /* the strings stay put when the vector grows */
	return p->paths.v[p->paths.n - 1];
}

static void keep_files(struct kp_pipeline *p, const struct kp_profile_files *f)
{
	p->files.ncu_csv = keep(p, f->ncu_csv);
	p->files.ncu_details = keep(p, f->ncu_details);
	p->files.sass = keep(p, f->sass);
	p->files.ptxas = keep(p, f->ptxas);
	p->files.trace = keep(p, f->trace);
	p->files.triton = keep(p, f->triton);
}

int kp_pipeline_open(struct kp_pipeline *p, const struct kp_profile_files *f, const struct kp_pipeline_opts *o,
		     struct kp_error *err)
{
	const char *dev;
	int calibrated, rc;

	memset(p, 0, sizeof(*p));
	p->o = *o;
	p->o.recorded_device = NULL; /* copied into p->device below */
	kp_energy_coeffs_default(&p->coeffs);
	keep_files(p, f);
	if ((rc = kp_profile_set_load(&p->set, &p->files, err)))
		return rc;
	/* The parser keeps counts only; the tensor-core tool also needs the hot loop's data flow. */
	if (p->files.sass && (rc = kp_read_file(p->files.sass, KP_PROFILE_MAX_FILE, &p->sass_text, err)))
		return rc;
	dev = kp_ncu_report_device(&p->set.ncu);
	if (!dev)
		dev = o->recorded_device;
	kp_strlcpy(p->device, dev ? dev : "", sizeof(p->device));
	p->trace_kernel.trace = p->set.have_trace ? &p->set.trace : NULL;
	if (!p->files.ncu_csv)
		return 0; /* timing only: no roofline, no GPU model */
	if ((rc = choose_hw(p, err)))
		return rc;
	if (o->stage2.energy) {
		/* Coefficients are calibrated per GPU: the profiled one, else the one modelled. */
		dev = p->device[0] ? p->device : p->hw.device[0] ? p->hw.device : NULL;
		if ((rc = kp_energy_coeffs_for(dev, &p->coeffs, &calibrated, err)))
			return rc;
	}
	return 0;
}

int kp_pipeline_open_dir(struct kp_pipeline *p, const char *dir, const struct kp_profile_files *extra,
			 const struct kp_pipeline_opts *o, struct kp_error *err)
{
	struct kp_strvec paths = KP_STRVEC_INIT;
	struct kp_profile_files f;
	struct kp_pipeline_opts oo = *o;
	int rc;

	memset(p, 0, sizeof(*p));
	kp_profile_dir_files(dir, &f, &paths);
	if (extra && extra->sass)
		f.sass = extra->sass;
	if (extra && extra->ptxas)
		f.ptxas = extra->ptxas;
	if (!oo.recorded_device)
		oo.recorded_device = kp_profile_dir_device(dir, &paths);
	if (!f.ncu_csv && !f.trace)
		rc = kp_error_set(err, KP_EMISSING, "'%s' has neither ncu_raw.csv nor trace.json", dir);
	else
		rc = kp_pipeline_open(p, &f, &oo, err);
	kp_strvec_release(&paths);
	return rc;
}

void kp_pipeline_release(struct kp_pipeline *p)
{
	kp_profile_set_release(&p->set);
	kp_strvec_release(&p->paths);
	kp_buf_release(&p->sass_text);
	memset(&p->files, 0, sizeof(p->files));
	p->have_hw = 0;
}

const struct kp_kernel_profile *kp_pipeline_trace_kernel(struct kp_pipeline *p)
{
	return p->trace_kernel.trace ? &p->trace_kernel : NULL;
}

/*
 * The loop shape of k's SASS into *shape; NULL when there is no SASS text, the function is not in
 * it, or it has no FFMA (nothing for the shape to tell: the text is not read again).
 */
static const struct kp_sass_shape *shape_of(const struct kp_pipeline *p, const struct kp_kernel_profile *k,
					    struct kp_sass_shape *shape)
{
	const char *name = k->sass ? (k->sass->mangled ? k->sass->mangled : k->sass->demangled) : NULL;
	if (!name || !p->sass_text.len || !k->sass->counts[KP_SASS_FFMA])
		return NULL;
	return kp_sass_shape_read(shape, p->sass_text.buf, p->sass_text.len, name) ? shape : NULL;
}

/* The tool ids to run on k: the caller's, every tool, the trace tools, or NULL for the class's. */
static void pick_tools(const struct kp_pipeline *p, const struct kp_kernel_profile *k, struct kp_strvec *ids)
{
	const struct kp_toolset *ts = p->o.toolset;
	if (p->o.stage2.tools) {
		kp_strvec_pushv(ids, (const char *const *)p->o.stage2.tools->v);
		return;
	}
	for (size_t i = 0; i < kp_toolset_count(ts); i++) {
		const struct kp_tool_info *t = kp_toolset_at(ts, i);
		if (!k->launch ? (t->sources & KP_SRC_TRACE) != 0 : p->o.all_tools)
			kp_strvec_push(ids, t->name);
	}
}

static int stage1(struct kp_pipeline *p, const struct kp_kernel_profile *k, struct kp_stage1 *s1,
		  struct kp_error *err)
{
	struct kp_stage1_thresholds th;
	if (!p->have_hw)
		return kp_error_set(err, KP_EINVAL, "stage 1 needs a GPU model: the profile has no ncu data");
	kp_stage1_thresholds_default(&th);
	return kp_stage1_run(s1, k, &p->hw, &p->o.task, &th, err);
}

static void energy_paragraph(struct kp_pipeline *p, const struct kp_kernel_profile *k,
			     struct kp_pipeline_result *r)
{
	struct kp_buf b = KP_BUF_INIT;
	if (!p->o.stage2.energy || !k->launch || !r->have_feedback || r->feedback.mode != KP_FEEDBACK_TOOLS)
		return;
	kp_energy_feedback_profile(&b, k, &p->coeffs, p->o.measured, 0);
	r->energy_text = kp_buf_detach(&b, NULL);
}

int kp_pipeline_kernel(struct kp_pipeline *p, const struct kp_kernel_profile *k, struct kp_pipeline_result *out,
		       struct kp_error *err)
{
	struct kp_sass_shape shape;
	struct kp_tool_input in = {k, NULL, NULL, p->o.stage2.energy, NULL, shape_of(p, k, &shape)};
	struct kp_stage2_opts so = p->o.stage2;
	struct kp_strvec ids = KP_STRVEC_INIT;
	double t0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	out->diagnosis = (struct kp_diagnosis)KP_DIAGNOSIS_INIT;
	out->kernel = k;
	if (k->launch) {
		if ((rc = stage1(p, k, &out->stage1, err)))
			return rc;
		out->have_stage1 = 1;
		in.stage1 = &out->stage1;
		in.hw = &p->hw;
	}
	if (!p->o.toolset)
		return 0;
	t0 = kp_now();
	pick_tools(p, k, &ids);
	so.tools = ids.n ? &ids : NULL;
	rc = kp_stage2_run(p->o.toolset, &in, &so, &out->diagnosis, &out->feedback, err);
	out->have_feedback = rc == 0;
	if (!rc)
		energy_paragraph(p, k, out);
	out->stage2_s = kp_now() - t0;
	kp_strvec_release(&ids);
	return rc;
}

void kp_pipeline_result_release(struct kp_pipeline_result *r)
{
	if (r->have_feedback)
		kp_feedback_release(&r->feedback);
	kp_diagnosis_release(&r->diagnosis);
	free(r->energy_text);
	r->energy_text = NULL;
	r->have_feedback = r->have_stage1 = 0;
}

void kp_pipeline_feedback_text(const struct kp_pipeline_result *r, struct kp_buf *out)
{
	if (r->have_feedback)
		kp_feedback_text(&r->feedback, out);
	if (r->energy_text && *r->energy_text) {
		if (out->len && out->buf[out->len - 1] != '\n')
			kp_buf_addch(out, '\n');
		kp_buf_addf(out, "\n%s", r->energy_text);
	}
}

int kp_pipeline_task(struct kp_pipeline *p, struct kp_pipeline_task *out, struct kp_error *err)
{
	const struct kp_profile_set *ps = &p->set;
	struct kp_feedback_opts saved = p->o.stage2.feedback;
	size_t budget = saved.max_chars ? saved.max_chars : 6000;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (!ps->nkernels)
		return kp_error_set(err, KP_EMISSING, "the profile holds no kernel launch (ncu profiled nothing)");
	out->n = ps->nkernels;
	out->stage1 = kp_xcalloc(ps->nkernels, sizeof(*out->stage1));
	for (size_t i = 0; i < ps->nkernels; i++)
		if ((rc = stage1(p, &ps->kernels[i], &out->stage1[i], err)))
			return rc;
	kp_task_stage1_build(&out->task, ps->kernels, out->stage1, ps->nkernels, &p->o.task, NULL);
	if (!p->o.toolset)
		return 0;
	out->results = kp_xcalloc(out->task.nselected, sizeof(*out->results));
	out->of = kp_xcalloc(out->task.nselected, sizeof(*out->of));
	/* several kernels share the text the LLM reads: each gets a part, never less than a finding's worth */
	if (out->task.nselected > 1)
		p->o.stage2.feedback.max_chars = budget / out->task.nselected > 1500 ? budget / out->task.nselected : 1500;
	for (size_t i = 0; i < out->task.n && !rc; i++) {
		const struct kp_task_kernel *k = &out->task.kernels[i];
		if (!k->selected)
			continue;
		out->of[out->nresults] = k;
		rc = kp_pipeline_kernel(p, &ps->kernels[k->longest], &out->results[out->nresults], err);
		out->nresults++;
	}
	p->o.stage2.feedback = saved;
	return rc;
}

void kp_pipeline_task_release(struct kp_pipeline_task *t)
{
	for (size_t i = 0; i < t->nresults; i++)
		kp_pipeline_result_release(&t->results[i]);
	free(t->results);
	free(t->of);
	free(t->stage1);
	kp_task_stage1_release(&t->task);
	memset(t, 0, sizeof(*t));
}

void kp_pipeline_task_feedback_text(const struct kp_pipeline_task *t, struct kp_buf *out)
{
	if (t->task.n == 1) {
		if (t->nresults)
			kp_pipeline_feedback_text(&t->results[0], out);
		return;
	}
	kp_buf_adds(out, "# The whole task\n");
	kp_task_stage1_describe(&t->task, 8, out);
	kp_buf_addf(out, "The findings below are for the %zu kernel%s that could save the most; attack the first "
			 "first.\n",
		    t->nresults, t->nresults == 1 ? "" : "s");
	for (size_t i = 0; i < t->nresults; i++) {
		const struct kp_task_kernel *k = t->of[i];
		kp_buf_addf(out, "\n# Kernel %zu: %.80s (%.0f%% of the task's time, could save %.0f%%)\n", i + 1,
			    k->function, 100 * k->share, t->task.time_s > 0 ? 100 * k->saving_s / t->task.time_s : 0.0);
		kp_pipeline_feedback_text(&t->results[i], out);
		if (out->len && out->buf[out->len - 1] != '\n')
			kp_buf_addch(out, '\n');
	}
}

int kp_pipeline_call_tool(struct kp_pipeline *p, const struct kp_kernel_profile *k, const char *name,
			  const struct kp_feedback_opts *fo, struct kp_buf *out, struct kp_error *err)
{
	struct kp_stage1 s1;
	struct kp_sass_shape shape;
	struct kp_tool_input in = {k, NULL, NULL, p->o.stage2.energy, NULL, shape_of(p, k, &shape)};
	int rc;

	if (!p->o.toolset)
		return kp_error_set(err, KP_EINVAL, "no toolset to answer a tool request");
	if (!kp_toolset_find(p->o.toolset, name))
		return kp_error_set(err, KP_ENOENT, "no tool named '%s'; ask for one of the tools listed", name);
	if (k->launch) {
		if ((rc = stage1(p, k, &s1, err)))
			return rc;
		in.stage1 = &s1;
		in.hw = &p->hw;
	}
	return kp_toolset_call(p->o.toolset, name, &in, fo, out, NULL, err);
}

int kp_pipeline_collection(const struct kp_toolset *ts, const struct kp_strvec *ids, int energy,
			   struct kp_strvec *metrics, struct kp_strvec *sections, struct kp_error *err)
{
	struct kp_strvec all = KP_STRVEC_INIT, tools = KP_STRVEC_INIT, secs = KP_STRVEC_INIT;
	int rc = 0;

	for (const char *const *m = kp_stage1_metrics(); *m; m++)
		if (kp_strvec_find(metrics, *m) < 0)
			kp_strvec_push(metrics, *m);
	if (ts) {
		if (!ids) {
			for (size_t i = 0; i < kp_toolset_count(ts); i++)
				kp_strvec_push(&all, kp_toolset_at(ts, i)->name);
			ids = &all;
		}
		if ((rc = kp_toolset_collection(ts, ids, &tools, &secs, err)))
			goto out;
		for (size_t i = 0; i < tools.n; i++)
			if (kp_strvec_find(metrics, tools.v[i]) < 0)
				kp_strvec_push(metrics, tools.v[i]);
		for (size_t i = 0; sections && i < secs.n; i++)
			if (kp_strvec_find(sections, secs.v[i]) < 0)
				kp_strvec_push(sections, secs.v[i]);
	}
	if (energy)
		for (const char *const *m = kp_energy_proxy_metrics(); *m; m++)
			if (kp_strvec_find(metrics, *m) < 0)
				kp_strvec_push(metrics, *m);
out:
	kp_strvec_release(&all);
	kp_strvec_release(&tools);
	kp_strvec_release(&secs);
	return rc;
}
