/* nvcc discovery and the content-addressed build cache: one fresh directory per build, renamed into
 * <cache>/<key> when done, so parallel builds never collide and a finished build is never rebuilt. */
#include "base/setup.h"

#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include "eval/build.h"
#include "kernelpro/child.h"
#include "kernelpro/doctor.h"
#include "kernelpro/device.h"
#include "kernelpro/fs.h"
#include "kernelpro/hash.h"
#include "kernelpro/log.h"
#include "kernelpro/str.h"
#include "kernelpro/toolchain.h"

#define KEY_VERSION "kernelpro-build-v2" /* v2: -gencode for sm_X, no embedded PTX */
#define BUILD_LOG_CAP (1u << 20)

/* nvcc --version takes ~30 ms; remember it per path (the search evaluates thousands of candidates). */
static pthread_mutex_t version_lock = PTHREAD_MUTEX_INITIALIZER;
static char *version_path, *version_text;
static time_t version_mtime;

static char *find_nvcc(const struct kp_eval_opts *o)
{
	if (o && o->nvcc)
		return kp_which(o->nvcc);
	return kp_cuda_tool("nvcc");
}

static int nvcc_version(const char *nvcc, char **out, struct kp_error *err)
{
	struct kp_child c = KP_CHILD_INIT;
	struct stat st;
	char *last = NULL;
	int rc = 0;

	if (stat(nvcc, &st) != 0)
		return kp_error_set(err, KP_ENOTOOL, "nvcc '%s': %s", nvcc, strerror(errno));
	pthread_mutex_lock(&version_lock);
	if (version_path && !strcmp(version_path, nvcc) && version_mtime == st.st_mtime) {
		*out = kp_xstrdup(version_text);
		pthread_mutex_unlock(&version_lock);
		return 0;
	}
	pthread_mutex_unlock(&version_lock);

	kp_strvec_pushl(&c.args, nvcc, "--version", NULL);
	c.merge_stderr = 1;
	c.timeout_ms = 60000;
	c.out_cap = 64 << 10;
	if ((rc = kp_child_run(&c, err)))
		goto out;
	if (!kp_child_ok(&c)) {
		char how[128];
		rc = kp_error_set(err, KP_ENOTOOL, "'%s --version' %s", nvcc, kp_child_describe(&c, how, sizeof(how)));
		goto out;
	}
	kp_buf_rtrim(&c.out);
	last = strrchr(c.out.buf, '\n');
	last = kp_xstrdup(last ? last + 1 : c.out.buf);
	pthread_mutex_lock(&version_lock);
	free(version_path);
	free(version_text);
	version_path = kp_xstrdup(nvcc);
	version_text = kp_xstrdup(last);
	version_mtime = st.st_mtime;
	pthread_mutex_unlock(&version_lock);
	*out = last;
out:
	kp_child_release(&c);
	return rc;
}

static char *detect_arch(int gpu)
{
	struct kp_gpu_list *l = kp_xcalloc(1, sizeof(*l));
	char buf[16];
	char *arch = NULL;
	if (kp_device_query(l, NULL) == 0 && l->count > 0) {
		const struct kp_gpu *g = &l->gpus[gpu >= 0 && gpu < l->count ? gpu : 0];
		arch = kp_xstrdup(kp_arch_for_cc(g->cc_major, g->cc_minor, buf, sizeof(buf)));
	}
	free(l);
	return arch ? arch : kp_xstrdup("sm_90");
}

int kp_toolchain_resolve(struct kp_toolchain *tc, const struct kp_eval_opts *o, int gpu, struct kp_error *err)
{
	struct kp_buf cache = KP_BUF_INIT;
	const char *env_cache = getenv("KERNELPRO_CACHE");
	int rc;

	memset(tc, 0, sizeof(*tc));
	tc->nvcc = find_nvcc(o);
	if (!tc->nvcc) {
		rc = kp_error_set(err, KP_ENOTOOL,
				  "nvcc not found%s%s: install the CUDA toolkit or set CUDA_HOME (see 'kernelpro doctor')",
				  o && o->nvcc ? " at " : "", o && o->nvcc ? o->nvcc : "");
		goto out;
	}
	if ((rc = nvcc_version(tc->nvcc, &tc->version, err)))
		goto out;
	if (o && o->arch) {
		if (!kp_starts_with(o->arch, "sm_") && !kp_starts_with(o->arch, "compute_")) {
			rc = kp_error_set(err, KP_EINVAL, "arch '%s' is not an nvcc architecture such as sm_90a", o->arch);
			goto out;
		}
		tc->arch = kp_xstrdup(o->arch);
	} else
		tc->arch = detect_arch(gpu);
	if (o && o->cache_dir)
		kp_buf_adds(&cache, o->cache_dir);
	else if (env_cache && *env_cache)
		kp_buf_adds(&cache, env_cache);
	else {
		if ((rc = kp_cache_dir(&cache, err)))
			goto out;
		kp_buf_adds(&cache, "/builds");
	}
	tc->cache = kp_buf_detach(&cache, NULL);
	kp_strvec_pushl(&tc->flags, "-O3", "-lineinfo", NULL);
	if (o && o->nvcc_flags)
		for (const char *const *f = o->nvcc_flags; *f; f++) {
			if (strchr(*f, '\n')) {
				rc = kp_error_set(err, KP_EINVAL, "nvcc flag with a newline: '%s'", *f);
				goto out;
			}
			kp_strvec_push(&tc->flags, *f);
		}
out:
	kp_buf_release(&cache);
	if (rc)
		kp_toolchain_release(tc);
	return rc;
}

void kp_toolchain_release(struct kp_toolchain *tc)
{
	free(tc->nvcc);
	free(tc->version);
	free(tc->arch);
	free(tc->cache);
	kp_strvec_release(&tc->flags);
	memset(tc, 0, sizeof(*tc));
}

static void hash_line(struct kp_sha256 *h, const char *key, const char *value)
{
	kp_sha256_update(h, key, strlen(key));
	kp_sha256_update(h, "=", 1);
	kp_sha256_update(h, value, strlen(value));
	kp_sha256_update(h, "\n", 1);
}

int kp_build_key(const char *src, size_t len, const char *const *flags, size_t nflags, const char *version,
		 const char *arch, const char *const *extras, size_t nextras, char hex[65])
{
	struct kp_sha256 h;
	char n[32];

	for (size_t i = 0; i < nflags; i++)
		if (strchr(flags[i], '\n'))
			return KP_EINVAL;
	kp_sha256_init(&h);
	kp_sha256_update(&h, KEY_VERSION "\n", strlen(KEY_VERSION) + 1);
	hash_line(&h, "arch", arch);
	hash_line(&h, "nvcc", version);
	for (size_t i = 0; i < nflags; i++)
		hash_line(&h, "flag", flags[i]);
	for (size_t i = 0; i < nextras; i++) {
		char eh[65];
		kp_sha256_hex(extras[i], strlen(extras[i]), eh);
		hash_line(&h, "extra", eh);
	}
	snprintf(n, sizeof(n), "%zu", len);
	hash_line(&h, "source-bytes", n);
	kp_sha256_update(&h, src, len);
	kp_sha256_final(&h, hex);
	return 0;
}

void kp_build_release(struct kp_build *b)
{
	free(b->lib);
	free(b->log);
	memset(b, 0, sizeof(*b));
}

/*
 * The headers of include_dir the source includes by a plain name (#include "kp_tune.h"), read into
 * `texts` for the cache key: a build depends on them as on the source. Headers whose text is already
 * one of the caller's extras (kp_native.h) are left out, so the keys of sources that include nothing
 * else stay what they were.
 */
static void included_headers(const char *src, size_t len, const char *include_dir, const char *const *extras,
                             size_t nextras, struct kp_strvec *texts)
{
	for (size_t pos = 0; include_dir && pos < len;) {
		const char *line = src + pos, *nl = memchr(line, '\n', len - pos), *p = line, *end;
		size_t n = nl ? (size_t)(nl - line) : len - pos;
		pos += n + 1;
		end = line + n;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p == end || *p++ != '#')
			continue;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if ((size_t)(end - p) < 8 || strncmp(p, "include", 7))
			continue;
		p += 7;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p == end || (*p != '"' && *p != '<'))
			continue;
		const char close = *p == '"' ? '"' : '>', *name = ++p;
		while (p < end && *p != close && *p != '/')
			p++;
		if (p == end || *p != close || p == name || p - name > 128)
			continue;
		struct kp_buf path = KP_BUF_INIT, text = KP_BUF_INIT;
		int known = 0;
		kp_buf_addf(&path, "%s/%.*s", include_dir, (int)(p - name), name);
		if (kp_read_file(path.buf, 1 << 20, &text, NULL) == 0) {
			for (size_t i = 0; i < nextras && !known; i++)
				known = !strcmp(extras[i], text.buf);
			for (size_t i = 0; i < texts->n && !known; i++)
				known = !strcmp(texts->v[i], text.buf);
			if (!known)
				kp_strvec_push(texts, text.buf);
		}
		kp_buf_release(&path);
		kp_buf_release(&text);
	}
}

/* [A-Za-z0-9_] only, at most 64: the source file's name shows up in nvcc's messages. */
static void safe_name(const char *name, char *out, size_t n)
{
	size_t k = 0;
	const char *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	for (const char *p = base; *p && *p != '.' && k + 1 < n && k < 64; p++)
		out[k++] = (char)((('a' <= *p && *p <= 'z') || ('A' <= *p && *p <= 'Z') || ('0' <= *p && *p <= '9')) ? *p : '_');
	if (!k)
		out[k++] = 'k';
	out[k] = '\0';
}

/* Over 80 lines: one build in order (flags and key, the cache hit, a fresh directory, nvcc, the rename)
 * with one cleanup path for everything it holds; split up, each step would pass the key, the paths
 * and the child on. */
int kp_build_so(const struct kp_toolchain *tc, const char *src, size_t len, const char *name,
		const char *include_dir, const char *const *extras, size_t nextras, double timeout_s,
		struct kp_build *b, struct kp_error *err)
{
	struct kp_buf final = KP_BUF_INIT, tmp = KP_BUF_INIT, path = KP_BUF_INIT, cl_key = KP_BUF_INIT;
	struct kp_child c = KP_CHILD_INIT;
	struct kp_strvec flags = KP_STRVEC_INIT, headers = KP_STRVEC_INIT;
	struct kp_error cl_err = KP_ERROR_INIT;
	const struct kp_cutlass *cl = NULL;
	const char *arch = tc->arch, **all_extras;
	char sname[80], src_file[96], target[96];
	double t0 = kp_now();
	int rc;

	memset(b, 0, sizeof(*b));
	/* CUTLASS/CuTe sources get its headers and C++17; WGMMA/TMA sources get sm_90a (lib/codesearch). */
	if (kp_cutlass_source_uses(src, len) && !(cl = kp_cutlass_cached(&cl_err))) {
		b->log = kp_xasprintf("the source includes cute/ or cutlass/ headers, but %s", kp_error_msg(&cl_err));
		return 0;
	}
	kp_strvec_pushv(&flags, (const char *const *)tc->flags.v);
	kp_cutlass_build_flags(cl, src, len, &flags, &arch, &cl_key);
	included_headers(src, len, include_dir, extras, nextras, &headers);
	all_extras = kp_xcalloc(nextras + headers.n + 1, sizeof(*all_extras));
	if (nextras)
		memcpy(all_extras, extras, nextras * sizeof(*extras));
	for (size_t i = 0; i < headers.n; i++)
		all_extras[nextras++] = headers.v[i];
	if (cl_key.len)
		all_extras[nextras++] = cl_key.buf;
	rc = kp_build_key(src, len, (const char *const *)flags.v, flags.n, tc->version, arch, all_extras, nextras, b->key);
	free(all_extras);
	if (rc) {
		rc = kp_error_set(err, rc, "build: an nvcc flag contains a newline");
		goto out;
	}
	kp_buf_addf(&final, "%s/%s", tc->cache, b->key);
	b->lib = kp_xasprintf("%s/lib.so", final.buf);
	if (access(b->lib, R_OK) == 0) {
		b->ok = b->cached = 1;
		goto out;
	}
	if ((rc = kp_mkdir_p(tc->cache, 0755, err)))
		goto out;
	kp_buf_addf(&tmp, "%s/tmp-%.16s-XXXXXX", tc->cache, b->key);
	if (!mkdtemp(tmp.buf)) {
		rc = kp_error_set(err, KP_EIO, "build: cannot create a directory in '%s': %s", tc->cache, strerror(errno));
		goto out;
	}
	safe_name(name, sname, sizeof(sname));
	snprintf(src_file, sizeof(src_file), "%s.cu", sname);
	kp_buf_addf(&path, "%s/%s", tmp.buf, src_file);
	if ((rc = kp_write_file_atomic(path.buf, src, len, err)))
		goto out;

	kp_strvec_pushl(&c.args, tc->nvcc, "-shared", "-Xcompiler", "-fPIC", NULL);
	kp_strvec_push(&c.args, kp_nvcc_target(arch, target, sizeof(target)));
	kp_strvec_pushv(&c.args, (const char *const *)flags.v);
	if (include_dir)
		kp_strvec_pushf(&c.args, "-I%s", include_dir);
	kp_strvec_pushl(&c.args, "-o", "lib.so", src_file, NULL);
	c.cwd = tmp.buf;
	c.merge_stderr = 1;
	c.out_cap = BUILD_LOG_CAP;
	c.timeout_ms = timeout_s > 0 ? (long)(timeout_s * 1000) : 0;
	if ((rc = kp_child_run(&c, err)))
		goto out;
	b->seconds = kp_now() - t0;
	kp_buf_reset(&path);
	kp_buf_addf(&path, "%s/build.log", tmp.buf);
	kp_write_file_atomic(path.buf, c.out.buf, c.out.len, NULL);
	if (!kp_child_ok(&c)) {
		char how[128];
		b->timed_out = c.timed_out;
		kp_buf_rtrim(&c.out);
		b->log = kp_xasprintf("%s%snvcc %s", c.out.buf, c.out.len ? "\n" : "",
				      kp_child_describe(&c, how, sizeof(how)));
		goto out;
	}
	if (rename(tmp.buf, final.buf) != 0 && access(b->lib, R_OK) != 0) {
		rc = kp_error_set(err, KP_EIO, "build: cannot move '%s' to '%s': %s", tmp.buf, final.buf, strerror(errno));
		goto out;
	}
	b->ok = 1;
out:
	if (tmp.len && kp_path_exists(tmp.buf))
		kp_rm_rf(tmp.buf, NULL); /* a failed build, or another process finished the same key first */
	kp_child_release(&c);
	kp_strvec_release(&flags);
	kp_strvec_release(&headers);
	kp_buf_release(&cl_key);
	kp_buf_release(&final);
	kp_buf_release(&tmp);
	kp_buf_release(&path);
	return rc;
}
