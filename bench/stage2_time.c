/*
 * Times Stage 2 without the profiler: for each launch of the 17-kernel H200
 * capture (already parsed and joined, Stage 1 done), the time to run every
 * tool, synthesize the findings and render the feedback text. Prints the
 * median per launch and for one kernel (sgemm_naive by default).
 * Usage: stage2_time [REPO_ROOT] [N] [LAUNCH_ID]
 */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/analyze.h"
#include "kernelpro/feedback.h"
#include "kernelpro/fs.h"
#include "kernelpro/log.h"
#include "kernelpro/str.h"

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* One full Stage 2 (all tools, synthesis, text): seconds. */
static double stage2_once(struct kp_toolset *ts, const struct kp_strvec *all, const struct kp_tool_input *in,
			  size_t *nfindings)
{
	struct kp_stage2_opts o = {KP_ORCH_PROACTIVE, 0, all, {KP_FEEDBACK_TOOLS, 0, 0, 0}};
	struct kp_diagnosis d = KP_DIAGNOSIS_INIT;
	struct kp_feedback fb;
	struct kp_buf text = KP_BUF_INIT;
	double t0 = kp_now(), dt;
	if (kp_stage2_run(ts, in, &o, &d, &fb, NULL))
		KP_BUG("stage 2 failed");
	kp_feedback_text(&fb, &text);
	dt = kp_now() - t0;
	*nfindings = fb.findings.n;
	kp_buf_release(&text);
	kp_feedback_release(&fb);
	kp_diagnosis_release(&d);
	return dt;
}

int main(int argc, char **argv)
{
	const char *root = argc > 1 ? argv[1] : ".";
	long n = 200, want = 5;
	struct kp_buf p[4] = {KP_BUF_INIT, KP_BUF_INIT, KP_BUF_INIT, KP_BUF_INIT};
	struct kp_profile_files files = {0};
	struct kp_profile_set ps;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_hw hw;
	struct kp_stage1_thresholds th;
	struct kp_toolset *ts = NULL;
	struct kp_strvec all = KP_STRVEC_INIT;
	struct kp_stage1 *s1 = NULL;
	double *t = NULL, *one = NULL;
	size_t nt = 0, nf = 0;
	int rc = 1;

	memset(&ps, 0, sizeof(ps));
	if ((argc > 2 && (kp_parse_long(argv[2], &n) || n < 1)) || (argc > 3 && kp_parse_long(argv[3], &want))) {
		fprintf(stderr, "usage: stage2_time [REPO_ROOT] [N] [LAUNCH_ID]\n");
		return 2;
	}
	kp_buf_addf(&p[0], "%s/tests/golden/h200-probe/ncu_raw.csv", root);
	kp_buf_addf(&p[1], "%s/tests/golden/h200-probe/sass.txt", root);
	kp_buf_addf(&p[2], "%s/tests/golden/h200-probe/ptxas.txt", root);
	files.ncu_csv = p[0].buf;
	files.sass = p[1].buf;
	files.ptxas = p[2].buf;
	kp_stage1_thresholds_default(&th);
	if (kp_profile_set_load(&ps, &files, &err) || kp_hw_load(&hw, "h200-sxm", 0, &err) ||
	    kp_toolset_open(&ts, NULL, &err))
		goto out;
	for (size_t i = 0; i < kp_toolset_count(ts); i++)
		kp_strvec_push(&all, kp_toolset_at(ts, i)->name);
	s1 = kp_xcalloc(ps.nkernels, sizeof(*s1));
	for (size_t k = 0; k < ps.nkernels; k++)
		if (kp_stage1_run(&s1[k], &ps.kernels[k], &hw, NULL, &th, &err))
			goto out;
	t = kp_xcalloc(kp_st_mult((size_t)n, ps.nkernels), sizeof(*t));
	one = kp_xcalloc((size_t)n, sizeof(*one));
	for (long i = 0; i < n; i++)
		for (size_t k = 0; k < ps.nkernels; k++) {
			struct kp_tool_input in = {&ps.kernels[k], &s1[k], &hw, 0, NULL};
			size_t f;
			double dt = stage2_once(ts, &all, &in, &f);
			t[nt++] = dt;
			if (ps.kernels[k].launch->id == want) {
				one[i] = dt;
				nf = f;
			}
		}
	qsort(t, nt, sizeof(*t), cmp);
	qsort(one, (size_t)n, sizeof(*one), cmp);
	printf("stage 2 (all %zu tools, synthesis, feedback text), %ld runs of each of %zu launches:\n",
	       kp_toolset_count(ts), n, ps.nkernels);
	printf("  per launch: median %.1f us, 95th percentile %.1f us, max %.1f us\n", t[nt / 2] * 1e6,
	       t[(size_t)(nt * 0.95)] * 1e6, t[nt - 1] * 1e6);
	printf("  launch %ld (%zu findings): median %.1f us (target: under 10 ms)\n", want, nf, one[n / 2] * 1e6);
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "stage2_time: %s\n", kp_error_msg(&err));
	free(t);
	free(one);
	free(s1);
	kp_strvec_release(&all);
	kp_toolset_free(ts);
	kp_profile_set_release(&ps);
	for (size_t i = 0; i < KP_ARRAY_SIZE(p); i++)
		kp_buf_release(&p[i]);
	return rc;
}
