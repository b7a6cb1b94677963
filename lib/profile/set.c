/* One profiling session's outputs (ncu, SASS, ptxas, trace) read together and joined per launch. */
#include "base/setup.h"

#include <ctype.h>
#include <sys/stat.h>

#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/ncu_metrics.h"
#include "kernelpro/profile.h"
#include "profile/budget.h"

/*
 * Reads one whole file. A file that alone is over the parsers' memory cap is refused before it
 * is read (with the cap's message); the buffer is sized to the file, not doubled past it.
 */
static int read_all(const char *path, struct kp_buf *b, struct kp_error *err)
{
	struct stat st;
	struct kp_pbudget budget;
	int rc;
	kp_buf_reset(b);
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
		if ((rc = kp_pbudget_init(&budget, path, (size_t)st.st_size, err)))
			return rc;
		if (st.st_size < KP_PROFILE_MAX_FILE)
			kp_buf_grow(b, (size_t)st.st_size + 1);
	}
	return kp_read_file(path, KP_PROFILE_MAX_FILE, b, err);
}

int kp_profile_set_load(struct kp_profile_set *ps, const struct kp_profile_files *f, struct kp_error *err)
{
	struct kp_buf b = KP_BUF_INIT;
	int rc = 0;
	if (!f->ncu_csv && !f->trace)
		return kp_error_set(err, KP_EINVAL, "no ncu CSV given");
	if (f->ncu_csv &&
	    ((rc = read_all(f->ncu_csv, &b, err)) || (rc = kp_ncu_parse_raw(&ps->ncu, f->ncu_csv, b.buf, b.len, err))))
		goto out;
	if (f->ncu_details &&
	    ((rc = read_all(f->ncu_details, &b, err)) ||
	     (rc = kp_ncu_parse_details(&ps->ncu, f->ncu_details, b.buf, b.len, err))))
		goto out;
	if (f->sass) {
		if ((rc = read_all(f->sass, &b, err)) || (rc = kp_sass_parse(&ps->sass, f->sass, b.buf, b.len, err)))
			goto out;
		ps->have_sass = 1;
	}
	if (f->ptxas) {
		if ((rc = read_all(f->ptxas, &b, err)) || (rc = kp_ptxas_parse(&ps->ptxas, f->ptxas, b.buf, b.len, err)))
			goto out;
		ps->have_ptxas = 1;
	}
	if (f->trace) {
		const char *t;
		if ((rc = read_all(f->trace, &b, err)))
			goto out;
		for (t = b.buf; isspace((unsigned char)*t); t++)
			;
		rc = *t == '{' ? kp_trace_parse_json(&ps->trace, f->trace, b.buf, b.len, err)
			       : kp_trace_parse_nsys_csv(&ps->trace, f->trace, b.buf, b.len, err);
		if (rc)
			goto out;
		ps->have_trace = 1;
	}
	if (f->triton && ((rc = read_all(f->triton, &b, err)) ||
			  (rc = kp_triton_meta_load(&ps->triton, f->triton, b.buf, b.len, err))))
		goto out;
	ps->nkernels = ps->ncu.nlaunches;
	ps->kernels = kp_xcalloc(ps->nkernels ? ps->nkernels : 1, sizeof(*ps->kernels));
	for (size_t i = 0; i < ps->nkernels; i++) {
		struct kp_kernel_profile *k = &ps->kernels[i];
		k->launch = &ps->ncu.launches[i];
		k->sass = ps->have_sass ? kp_sass_find_launch(&ps->sass, k->launch) : NULL;
		k->ptxas = ps->have_ptxas ? kp_ptxas_find_launch(&ps->ptxas, k->launch) : NULL;
		k->trace = ps->have_trace ? &ps->trace : NULL;
		k->triton = ps->triton.n ? kp_triton_meta_find_launch(&ps->triton, k->launch) : NULL;
	}
out:
	kp_buf_release(&b);
	return rc;
}

void kp_profile_set_release(struct kp_profile_set *ps)
{
	kp_ncu_report_release(&ps->ncu);
	kp_sass_release(&ps->sass);
	kp_ptxas_release(&ps->ptxas);
	kp_trace_release(&ps->trace);
	kp_triton_meta_release(&ps->triton);
	free(ps->kernels);
	ps->kernels = NULL;
	ps->nkernels = 0;
	ps->have_sass = ps->have_ptxas = ps->have_trace = 0;
}

void kp_profile_dir_files(const char *dir, struct kp_profile_files *f, struct kp_strvec *sv)
{
	static const struct {
		const char *name;
		size_t off;
	} names[] = {
		{"ncu_raw.csv", offsetof(struct kp_profile_files, ncu_csv)},
		{"ncu_details.csv", offsetof(struct kp_profile_files, ncu_details)},
		{"sass.csv", offsetof(struct kp_profile_files, sass)},
		{"sass.txt", offsetof(struct kp_profile_files, sass)},
		{"ptxas.txt", offsetof(struct kp_profile_files, ptxas)},
		{"trace.json", offsetof(struct kp_profile_files, trace)},
		{"triton.json", offsetof(struct kp_profile_files, triton)},
		{"triton_sass.txt", offsetof(struct kp_profile_files, sass)}, /* when ncu gave no SASS */
	};
	memset(f, 0, sizeof(*f));
	/* the strings stay put when the vector grows: only its array of pointers moves */
	for (size_t i = 0; i < KP_ARRAY_SIZE(names); i++) {
		const char **slot = (const char **)((char *)f + names[i].off);
		struct kp_buf p = KP_BUF_INIT;
		kp_path_join(&p, dir, names[i].name);
		if (!*slot && kp_path_exists(p.buf)) {
			kp_strvec_push(sv, p.buf);
			*slot = sv->v[sv->n - 1];
		}
		kp_buf_release(&p);
	}
}

const char *kp_profile_dir_device(const char *dir, struct kp_strvec *sv)
{
	struct kp_buf p = KP_BUF_INIT;
	json_t *o = NULL;
	const char *name = NULL;
	kp_path_join(&p, dir, "profile.json");
	if (kp_path_exists(p.buf) && kp_json_load_file(p.buf, 1 << 20, &o, NULL) == 0 &&
	    kp_json_str(o, "device", NULL)) {
		kp_strvec_push(sv, kp_json_str(o, "device", NULL));
		name = sv->v[sv->n - 1];
	}
	json_decref(o);
	kp_buf_release(&p);
	return name;
}

const struct kp_kernel_profile *kp_profile_set_longest(const struct kp_profile_set *ps)
{
	const struct kp_kernel_profile *best = NULL;
	double best_t = -1;
	for (size_t i = 0; i < ps->nkernels; i++) {
		double t = kp_launch_getd(ps->kernels[i].launch, KP_M_TIME, 0);
		if (t > best_t) {
			best_t = t;
			best = &ps->kernels[i];
		}
	}
	return best;
}
