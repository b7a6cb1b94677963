/*
 * The harness evaluator's profiling: ncu over one version's calls (through the held run started ahead
 * when it runs the same command), then the diagnosis pipeline on its longest kernel (GPU model, Stage 1,
 * the tools, the semantic feedback). Profiling problems never fail anything: a note goes into the
 * profile's JSON and the feedback says less. The evaluator itself: harness_eval.c.
 */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/analyze.h"
#include "kernelpro/child.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/log.h"
#include "kernelpro/pipeline.h"
#include "kernelpro/toolchain.h"
#include "adapters/harness_int.h"

/* The NVTX range kp_eval_prepare() wraps the candidate's calls in (eval.h). */
#define CANDIDATE_RANGE "kp_candidate/"
/* ncu profiles each launch in the range with every replay pass its metrics need: one call of the
 * candidate is profiled, and at most this many of its launches (a candidate that launches thousands of
 * tiny kernels per call would otherwise cost thousands of replays). docs/internals/adapters.md. */
#define PROFILE_MAX_LAUNCHES 64

/* The GPU model when no profile chose one (kp_hw_for_profile without a profiled GPU): --hw, else the device. */
int kp__harness_ensure_hw(struct harness *h, struct kp_error *err)
{
	int rc;
	if (h->have_hw)
		return 0;
	rc = kp_hw_for_profile(&h->hw, h->o.hw_key, NULL, h->o.eval.gpu, err);
	if (!rc)
		h->have_hw = 1;
	return rc;
}

/*
 * The whole task through the pipeline (kp_pipeline_task: every launch's Stage 1, kernels ranked by
 * the time they could save, the tools on the top ones); fills `out` with the task's feedback and
 * the top kernel's findings and launch.
 */
static int diagnose(struct harness *h, const struct kp_profile_files *files,
		    const struct kp_energy_measurement *measured, struct kp_search_eval *out, json_t *pj, int reference,
		    struct kp_error *err)
{
	struct kp_pipeline p;
	struct kp_pipeline_opts po;
	struct kp_pipeline_task t;
	struct kp_buf text = KP_BUF_INIT;
	const struct kp_pipeline_result *top;
	json_t *fa;
	int rc;

	memset(&po, 0, sizeof(po));
	memset(&t, 0, sizeof(t));
	po.gpu_key = h->o.hw_key;
	po.gpu_index = h->o.eval.gpu;
	po.hw = h->have_hw ? &h->hw : NULL; /* the first profile's choice holds for the run */
	po.task.min_bytes = h->o.task->min_bytes;
	po.task.flops_hint = h->o.task->flops;
	po.toolset = h->o.toolset;
	po.stage2 = h->o.stage2;
	po.measured = measured;
	if ((rc = kp_pipeline_open(&p, files, &po, err)))
		goto out;
	if (!h->have_hw) {
		h->hw = p.hw;
		h->have_hw = 1;
	}
	if (!p.set.nkernels) {
		rc = kp_error_set(err, KP_EMISSING, "ncu profiled no kernel inside the candidate's calls");
		goto out;
	}
	if ((rc = kp_pipeline_task(&p, &t, err)))
		goto out;
	kp_pipeline_task_feedback_text(&t, &text);
	out->feedback = kp_buf_detach(&text, NULL);
	top = t.nresults ? &t.results[0] : NULL;
	fa = json_array();
	for (size_t i = 0; top && i < top->feedback.findings.n; i++)
		json_array_append_new(fa, kp_finding_json(&top->feedback.findings.v[i]));
	out->findings_json = kp_json_text(fa);
	if (top)
		kp_json_set(pj, "launch", kp_diagnose_launch_json(top->kernel, &top->stage1));
	if (t.task.n > 1)
		kp_json_set(pj, "task", kp_task_stage1_to_json(&t.task, p.set.kernels));
	if (reference) {
		struct kp_buf b = KP_BUF_INIT;
		const struct kp_stage1 *s1 = top ? &top->stage1 : &t.stage1[0];
		double floor = t.task.n > 1 && !isnan(t.task.floor_s) ? t.task.floor_s : s1->floor_time_s;
		if (t.task.n > 1)
			kp_task_stage1_describe(&t.task, 8, &b);
		kp_stage1_describe(s1, &b);
		out->stage1 = kp_buf_detach(&b, NULL);
		h->o.eval.floor_time_s = floor; /* the anti-cheat roofline floor for candidates */
		kp_json_set(pj, "floor_time_s", kp_json_real(floor));
	}
out:
	kp_pipeline_task_release(&t);
	kp_pipeline_release(&p);
	kp_buf_release(&text);
	return rc;
}

/*
 * A Python candidate's Triton kernels (the evaluation compiled them into cmd->triton_cache): their
 * metadata into dir/triton.json and, when ncu gave no SASS, their cubins' SASS into
 * dir/triton_sass.txt, both for the diagnosis. A failure only leaves them out.
 */
static void triton_files(const struct kp_eval_cmd *cmd, const char *dir, struct kp_profile_files *files,
			 struct kp_buf *json, struct kp_buf *sass, json_t *pj)
{
	struct kp_error err = KP_ERROR_INIT;
	char *cuobjdump = files->sass ? NULL : kp_cuda_tool("cuobjdump");
	size_t n = 0;

	if (!cmd->triton_cache)
		goto out;
	if (kp_triton_collect(cmd->triton_cache, dir, cuobjdump, &n, &err)) {
		kp_json_set(pj, "triton_error", json_string(kp_error_msg(&err)));
		goto out;
	}
	kp_json_set(pj, "triton_kernels", json_integer((json_int_t)n));
	if (!n)
		goto out;
	kp_path_join(json, dir, "triton.json");
	files->triton = json->buf;
	kp_path_join(sass, dir, "triton_sass.txt");
	if (!files->sass && kp_path_exists(sass->buf))
		files->sass = sass->buf;
out:
	free(cuobjdump);
}

/* The ncu request for a prepared command (argv, env) into r, its files in `dir`: the same for a profile
 * and for the held run started ahead of one, so that the one matches the other. */
static void profile_request(struct harness *h, const struct kp_strvec *argv, const struct kp_strvec *env,
			    const char *dir, struct kp_ncu_run *r)
{
	memset(r, 0, sizeof(*r));
	r->argv = (const char *const *)argv->v;
	r->env = env->n ? (const char *const *)env->v : NULL;
	r->metrics = (const char *const *)h->metrics.v;
	r->nvtx_include = CANDIDATE_RANGE;
	r->launch_count = PROFILE_MAX_LAUNCHES;
	r->out_dir = dir;
	r->timeout_ms = (long)(h->o.ncu_timeout_s > 0 ? h->o.ncu_timeout_s : 600) * 1000;
	r->details = 1;
	r->source_sass = 1;
}

/*
 * Starts the next profile's ncu ahead, with the last profile's command, when none is waiting; a
 * failure only means the next profile starts cold. Called as an evaluation starts, so that the held
 * program's start-up overlaps the evaluation.
 */
void kp__harness_hold_next(struct harness *h)
{
	struct kp_ncu_run r;
	struct kp_buf dir = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;

	if (h->held || !h->held_argv.n || h->profile_off || kp_child_canceled())
		return;
	kp_path_join(&dir, h->profile_dir, ".held");
	profile_request(h, &h->held_argv, &h->held_env, dir.buf, &r);
	if (kp_ncu_hold(&r, &h->held, &err))
		kp_info("the next profile starts cold: %s", kp_error_msg(&err));
	kp_buf_release(&dir);
}

/*
 * ncu over the prepared command: through the held run when it runs this very command, else a run of
 * its own; either way the command is remembered for the next held run. *held says which.
 */
static int profile_run(struct harness *h, const struct kp_strvec *argv, const struct kp_strvec *env,
		       struct kp_ncu_run *r, int *held, struct kp_error *err)
{
	*held = 0;
	if (h->held && kp_ncu_held_matches(h->held, r)) {
		struct kp_ncu_held *hd = h->held;
		h->held = NULL;
		*held = 1;
		return kp_ncu_held_finish(hd, r, err);
	}
	kp_ncu_held_free(h->held); /* started for another command (another python, GPU or toolset) */
	h->held = NULL;
	kp_strvec_release(&h->held_argv);
	kp_strvec_release(&h->held_env);
	kp_strvec_pushv(&h->held_argv, (const char *const *)argv->v);
	kp_strvec_pushv(&h->held_env, (const char *const *)env->v);
	return kp_ncu_run(r, err);
}

/*
 * Profiles one candidate file: ncu over its calls, then the diagnosis pipeline on its longest
 * kernel (`measured`: its NVML energy for the energy paragraph, or NULL). Returns 0 whatever
 * happened to the profile (a note goes into the profile JSON); a negative code only for an
 * evaluation-level error.
 */
int kp__harness_profile(struct harness *h, const char *tag, const char *path, const struct kp_eval_opts *eo,
		   const struct kp_energy_measurement *measured, struct kp_search_eval *out, int reference)
{
	struct kp_eval_cmd cmd;
	struct kp_verdict v;
	struct kp_ncu_run r;
	struct kp_profile_files files;
	struct kp_buf dir = KP_BUF_INIT, tjson = KP_BUF_INIT, tsass = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	json_t *pj = json_object();
	double t0 = kp_now();
	int rc, held = 0;

	memset(&files, 0, sizeof(files));
	kp_verdict_init(&v);
	memset(&cmd, 0, sizeof(cmd));
	kp_path_join(&dir, h->profile_dir, tag);
	kp_json_set(pj, "dir", json_string(dir.buf));
	if (h->profile_off || !h->o.toolset) {
		kp_json_set(pj, "skipped", json_string(h->profile_off ? "profiling is unavailable here" : "no tools"));
		goto done;
	}
	rc = kp_eval_prepare(h->o.task, path, eo, 1, &cmd, &v, &err);
	if (rc || !cmd.argv.n) {
		if (!rc)
			kp_error_set(&err, KP_ECHILD, "the profiling run was not prepared: %s", v.message ? v.message : "?");
		goto note;
	}
	/* A Python harness imports PyTorch before it reads its input: what a held run does while it waits. */
	kp_strvec_push(&cmd.env, "KERNELPRO_PRELOAD=1");
	profile_request(h, &cmd.argv, &cmd.env, dir.buf, &r);
	r.stdin_data = cmd.input.buf;
	r.stdin_len = cmd.input.len;
	rc = profile_run(h, &cmd.argv, &cmd.env, &r, &held, &err);
	kp_json_set(pj, "ncu_s", kp_json_real(r.elapsed_s)); /* the profiled run, replays included */
	kp_json_set(pj, "held", json_boolean(held)); /* started ahead: ncu_s counts from its input */
	if (rc == KP_ENOTOOL || rc == KP_EPERM) {
		/* Nothing will change during this run: say it once, go on with timing only. */
		h->profile_off = 1;
		kp_warn("profiling switched off for this run, feedback will have timing only: %s", kp_error_msg(&err));
	}
	if (rc)
		goto note;
	files.ncu_csv = r.raw_csv;
	files.ncu_details = r.details_csv[0] ? r.details_csv : NULL;
	files.sass = r.sass_csv[0] ? r.sass_csv : NULL;
	triton_files(&cmd, dir.buf, &files, &tjson, &tsass, pj);
	if (diagnose(h, &files, measured, out, pj, reference, &err))
		goto note;
	goto done;
note:
	kp_info("%s: profile not used: %s", tag, kp_error_msg(&err));
	kp_json_set(pj, "error", json_string(kp_error_msg(&err)));
done:
	if (reference && !out->stage1 && !kp__harness_ensure_hw(h, &err))
		kp_json_set(pj, "stage1", json_null());
	if (reference && h->have_hw) {
		struct kp_buf b = KP_BUF_INIT;
		kp_hw_describe(&h->hw, &b);
		out->hardware = kp_buf_detach(&b, NULL);
	}
	/* The whole step: the prepared run's build, ncu, the page exports and the diagnosis. */
	kp_json_set(pj, "profile_s", kp_json_real(kp_now() - t0));
	out->profile_json = kp_json_text(pj);
	if (cmd.argv.n || cmd.work_dir)
		kp_eval_cmd_release(&cmd);
	kp_verdict_release(&v);
	kp_buf_release(&dir);
	kp_buf_release(&tjson);
	kp_buf_release(&tsass);
	return 0;
}
