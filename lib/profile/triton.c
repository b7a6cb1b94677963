/*
 * Triton's own record of what it compiled: the metadata JSON Triton writes next to each cubin in its
 * cache (<cache>/<hash>/<kernel>.json: num_warps, num_stages, shared memory, ...), gathered into a
 * profile directory's triton.json, the cubins' SASS (cuobjdump -sass) into its sass.txt, and joined
 * to ncu launches by kernel name and block size.
 */
#include "base/setup.h"

#include <dirent.h>
#include <math.h>

#include "kernelpro/child.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/profile.h"
#include "kernelpro/str.h"

#define META_CAP (1u << 20)    /* a kernel's metadata JSON */
#define MAX_ENTRIES 4096       /* cache entries read from one directory */
#define SASS_CAP (64u << 20)   /* cuobjdump's output, all cubins */

static int get_int(const json_t *o, const char *key, long *out)
{
	const json_t *v = json_object_get(o, key);
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > (1L << 30))
		return -1;
	*out = (long)json_integer_value(v);
	return 1;
}

int kp_triton_meta_parse(struct kp_triton_kernel *k, const char *what, const char *text, size_t len,
			 struct kp_error *err)
{
	static const struct {
		const char *key;
		size_t off;
		int required;
	} ints[] = {
		{"num_warps", offsetof(struct kp_triton_kernel, num_warps), 1},
		{"num_stages", offsetof(struct kp_triton_kernel, num_stages), 0},
		{"num_ctas", offsetof(struct kp_triton_kernel, num_ctas), 0},
		{"shared", offsetof(struct kp_triton_kernel, shared), 1},
		{"maxnreg", offsetof(struct kp_triton_kernel, maxnreg), 0},
	};
	json_t *o = NULL;
	const char *name, *prec, *arch;
	int rc;

	memset(k, 0, sizeof(*k));
	k->num_stages = k->num_ctas = k->maxnreg = -1;
	if ((rc = kp_json_load_mem(what, text, len, &o, err)))
		return rc;
	if (!json_is_object(o) || !(name = kp_json_str(o, "name", NULL)) || !*name || strlen(name) >= sizeof(k->name)) {
		rc = kp_error_set(err, KP_EPARSE, "%s: not Triton kernel metadata (no \"name\")", what);
		goto out;
	}
	kp_strlcpy(k->name, name, sizeof(k->name));
	for (size_t i = 0; i < KP_ARRAY_SIZE(ints); i++) {
		long *dst = (long *)((char *)k + ints[i].off);
		int got = get_int(o, ints[i].key, dst);
		if (got < 0 || (!got && ints[i].required)) {
			rc = kp_error_set(err, KP_EPARSE, "%s: \"%s\" must be a non-negative integer", what, ints[i].key);
			goto out;
		}
	}
	if ((prec = kp_json_str(o, "default_dot_input_precision", NULL)))
		kp_strlcpy(k->dot_precision, prec, sizeof(k->dot_precision));
	if ((arch = kp_json_str(o, "arch", NULL)))
		kp_strlcpy(k->arch, arch, sizeof(k->arch));
out:
	json_decref(o);
	return rc;
}

void kp_triton_meta_release(struct kp_triton_meta *m)
{
	free(m->kernels);
	memset(m, 0, sizeof(*m));
}

static void meta_add(struct kp_triton_meta *m, const struct kp_triton_kernel *k)
{
	KP_ALLOC_GROW(m->kernels, m->n + 1, m->alloc);
	m->kernels[m->n++] = *k;
}

/* --- triton.json: what the profile directory keeps --------------------------------------------- */

static json_t *kernel_json(const struct kp_triton_kernel *k)
{
	json_t *o = json_object();
	kp_json_set(o, "name", json_string(k->name));
	kp_json_set(o, "num_warps", json_integer(k->num_warps));
	kp_json_set(o, "num_stages", k->num_stages >= 0 ? json_integer(k->num_stages) : NULL);
	kp_json_set(o, "num_ctas", k->num_ctas >= 0 ? json_integer(k->num_ctas) : NULL);
	kp_json_set(o, "shared", json_integer(k->shared));
	kp_json_set(o, "maxnreg", k->maxnreg >= 0 ? json_integer(k->maxnreg) : NULL);
	kp_json_set(o, "default_dot_input_precision", k->dot_precision[0] ? json_string(k->dot_precision) : NULL);
	kp_json_set(o, "arch", k->arch[0] ? json_string(k->arch) : NULL);
	return o;
}

int kp_triton_meta_load(struct kp_triton_meta *m, const char *what, const char *text, size_t len,
			struct kp_error *err)
{
	json_t *root = NULL, *ks, *e;
	size_t i;
	int rc;

	memset(m, 0, sizeof(*m));
	if ((rc = kp_json_load_mem(what, text, len, &root, err)))
		return rc;
	ks = json_object_get(root, "kernels");
	if (!json_is_array(ks)) {
		rc = kp_error_set(err, KP_EPARSE, "%s: no \"kernels\" array", what);
		goto out;
	}
	json_array_foreach(ks, i, e) {
		struct kp_triton_kernel k;
		char *one = json_dumps(e, JSON_COMPACT);
		char where[96];
		snprintf(where, sizeof(where), "%.40s kernels[%zu]", what, i);
		rc = one ? kp_triton_meta_parse(&k, where, one, strlen(one), err) : kp_error_set(err, KP_EPARSE, "%s", where);
		free(one);
		if (rc)
			goto out;
		meta_add(m, &k);
	}
out:
	json_decref(root);
	if (rc)
		kp_triton_meta_release(m);
	return rc;
}

const struct kp_triton_kernel *kp_triton_meta_find_launch(const struct kp_triton_meta *m, const struct kp_launch *l)
{
	const char *fn = l->function;
	double block = (double)l->block[0] * (l->block[1] ? l->block[1] : 1) * (l->block[2] ? l->block[2] : 1);
	const struct kp_triton_kernel *by_name = NULL;

	for (size_t i = 0; fn && i < m->n; i++) {
		const struct kp_triton_kernel *k = &m->kernels[i];
		if (strcmp(k->name, fn))
			continue;
		if (!block || block == 32.0 * (double)k->num_warps)
			return k; /* an autotuned kernel has one entry per config: the launch's block size picks it */
		if (!by_name)
			by_name = k;
	}
	return by_name;
}

/* --- collecting from a Triton cache ------------------------------------------------------------ */

static int collect_entry(const char *dir, struct kp_triton_meta *m, struct kp_strvec *cubins, struct kp_error *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int rc = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)) && !rc) {
		struct kp_buf path = KP_BUF_INIT, text = KP_BUF_INIT, cubin = KP_BUF_INIT;
		struct kp_triton_kernel k;
		struct kp_error ignore = KP_ERROR_INIT;
		size_t n = strlen(e->d_name);
		if (n < 6 || strcmp(e->d_name + n - 5, ".json") || !strncmp(e->d_name, "__grp__", 7))
			continue;
		kp_path_join(&path, dir, e->d_name);
		/* A file that is not Triton's metadata (or half written) is not this kernel's business. */
		if (!kp_read_file(path.buf, META_CAP, &text, &ignore) &&
		    !kp_triton_meta_parse(&k, path.buf, text.buf, text.len, &ignore)) {
			meta_add(m, &k);
			kp_buf_add(&cubin, path.buf, path.len - 5);
			kp_buf_adds(&cubin, ".cubin");
			if (kp_path_exists(cubin.buf))
				kp_strvec_push(cubins, cubin.buf);
		}
		kp_buf_release(&path);
		kp_buf_release(&text);
		kp_buf_release(&cubin);
	}
	closedir(d);
	(void)err;
	return rc;
}

/* cuobjdump -sass over every cubin, into `out` (whose format the SASS parser reads). */
static int cubin_sass(const char *cuobjdump, const struct kp_strvec *cubins, struct kp_buf *out, struct kp_error *err)
{
	int rc = 0;
	for (size_t i = 0; i < cubins->n && !rc; i++) {
		struct kp_child c = KP_CHILD_INIT;
		kp_strvec_pushl(&c.args, cuobjdump, "-sass", cubins->v[i], NULL);
		c.timeout_ms = 60000;
		c.out_cap = SASS_CAP;
		rc = kp_child_run(&c, err);
		if (!rc && kp_child_ok(&c))
			kp_buf_add(out, c.out.buf, c.out.len);
		kp_child_release(&c);
	}
	return rc;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int kp_triton_collect(const char *cache_dir, const char *out_dir, const char *cuobjdump, size_t *nkernels,
		      struct kp_error *err)
{
	struct kp_triton_meta m = {0};
	struct kp_strvec cubins = KP_STRVEC_INIT, entries = KP_STRVEC_INIT;
	struct kp_buf path = KP_BUF_INIT, sass = KP_BUF_INIT;
	json_t *root = json_object(), *ks = json_array();
	DIR *d = cache_dir ? opendir(cache_dir) : NULL;
	struct dirent *e;
	int rc = 0;

	*nkernels = 0;
	if (!d)
		goto out; /* nothing compiled with Triton */
	while ((e = readdir(d)) && entries.n < MAX_ENTRIES)
		if (e->d_name[0] != '.')
			kp_strvec_push(&entries, e->d_name);
	closedir(d);
	if (entries.n) /* the same cache gives the same file */
		qsort(entries.v, entries.n, sizeof(*entries.v), cmp_name);
	for (size_t i = 0; i < entries.n && !rc; i++) {
		kp_buf_reset(&path);
		kp_path_join(&path, cache_dir, entries.v[i]);
		if (kp_path_is_dir(path.buf))
			rc = collect_entry(path.buf, &m, &cubins, err);
	}
	if (rc || !m.n)
		goto out;
	for (size_t i = 0; i < m.n; i++)
		json_array_append_new(ks, kernel_json(&m.kernels[i]));
	kp_json_set(root, "cache", json_string(cache_dir));
	kp_json_set(root, "kernels", ks);
	ks = NULL;
	kp_buf_reset(&path);
	kp_path_join(&path, out_dir, "triton.json");
	if ((rc = kp_json_write_file(path.buf, root, err)))
		goto out;
	*nkernels = m.n;
	if (cuobjdump && cubins.n && !(rc = cubin_sass(cuobjdump, &cubins, &sass, err)) && sass.len) {
		kp_buf_reset(&path);
		kp_path_join(&path, out_dir, "triton_sass.txt");
		rc = kp_write_file_atomic(path.buf, sass.buf, sass.len, err);
	}
out:
	json_decref(ks);
	json_decref(root);
	kp_triton_meta_release(&m);
	kp_strvec_release(&cubins);
	kp_strvec_release(&entries);
	kp_buf_release(&path);
	kp_buf_release(&sass);
	return rc;
}

void kp_triton_describe(const struct kp_triton_kernel *k, struct kp_buf *out)
{
	kp_buf_addf(out, "Triton kernel %s: num_warps %ld (%ld threads per program)", k->name, k->num_warps,
		    32 * k->num_warps);
	if (k->num_stages >= 0)
		kp_buf_addf(out, ", num_stages %ld", k->num_stages);
	kp_buf_addf(out, ", %ld bytes of shared memory per program", k->shared);
	if (k->num_ctas > 1)
		kp_buf_addf(out, ", %ld CTAs per cluster", k->num_ctas);
	if (k->maxnreg > 0)
		kp_buf_addf(out, ", maxnreg %ld", k->maxnreg);
	if (k->dot_precision[0])
		kp_buf_addf(out, ", fp32 tl.dot default %s", k->dot_precision);
	kp_buf_adds(out, " (Triton's cache metadata)");
}
