/* Where CUTLASS is ($CUTLASS_PATH, kernelpro's .cutlass, pip's nvidia-cutlass), its version, and the
 * nvcc flags a candidate that includes its headers needs. */
#include "base/setup.h"

#include <ctype.h>
#include <pthread.h>

#include "kernelpro/child.h"
#include "kernelpro/toolchain.h"
#include "kernelpro/fs.h"
#include "kernelpro/str.h"

#define VERSION_H_CAP (64u << 10)

const char *kp_cutlass_source_name(enum kp_cutlass_source s)
{
	switch (s) {
	case KP_CUTLASS_ENV: return "CUTLASS_PATH";
	case KP_CUTLASS_BUNDLED: return "kernelpro .cutlass";
	case KP_CUTLASS_PIP: return "pip nvidia-cutlass";
	}
	return "unknown";
}

void kp_cutlass_release(struct kp_cutlass *c)
{
	free(c->root);
	free(c->include);
	free(c->util_include);
	free(c->examples);
	memset(c, 0, sizeof(*c));
}

/* The value of `#define NAME <digits>` in text, or -1. */
static long define_value(const char *text, size_t len, const char *name)
{
	size_t nl = strlen(name);
	for (size_t i = 0; i + 7 + nl < len; i++) {
		const char *p = text + i;
		long v = 0;
		size_t k;
		if ((i && text[i - 1] != '\n') || strncmp(p, "#define", 7))
			continue;
		k = 7;
		while (i + k < len && (p[k] == ' ' || p[k] == '\t'))
			k++;
		if (i + k + nl >= len || strncmp(p + k, name, nl) || !(p[k + nl] == ' ' || p[k + nl] == '\t'))
			continue;
		k += nl;
		while (i + k < len && (p[k] == ' ' || p[k] == '\t'))
			k++;
		if (i + k >= len || !isdigit((unsigned char)p[k]))
			return -1;
		for (; i + k < len && isdigit((unsigned char)p[k]) && v < 1000000; k++)
			v = v * 10 + (p[k] - '0');
		return v;
	}
	return -1;
}

int kp_cutlass_parse_version(const char *text, size_t len, char *out, size_t n, struct kp_error *err)
{
	long major = define_value(text, len, "CUTLASS_MAJOR"),
	     minor = define_value(text, len, "CUTLASS_MINOR");
	long patch = define_value(text, len, "CUTLASS_PATCH");
	if (major < 0 || minor < 0 || patch < 0)
		return kp_error_set(err, KP_EPARSE,
		                    "cutlass/version.h defines no CUTLASS_MAJOR/MINOR/PATCH numbers");
	snprintf(out, n, "%ld.%ld.%ld", major, minor, patch);
	return 0;
}

/* Fills c from a root that holds include/cutlass/cutlass.h; KP_ENOENT when it does not. */
static int fill_from_root(struct kp_cutlass *c, const char *root, enum kp_cutlass_source src,
                          struct kp_error *err)
{
	struct kp_buf p = KP_BUF_INIT, text = KP_BUF_INIT;
	char *real = realpath(root, NULL);
	int rc = 0;

	memset(c, 0, sizeof(*c));
	kp_buf_addf(&p, "%s/include/cutlass/cutlass.h", real ? real : root);
	if (!real || !kp_path_exists(p.buf)) {
		rc = kp_error_set(err, KP_ENOENT, "'%s' holds no include/cutlass/cutlass.h", root);
		goto out;
	}
	c->root = real;
	real = NULL;
	c->source = src;
	c->include = kp_xasprintf("%s/include", c->root);
	kp_buf_reset(&p);
	kp_buf_addf(&p, "%s/tools/util/include", c->root);
	if (kp_path_is_dir(p.buf))
		c->util_include = kp_xstrdup(p.buf);
	kp_buf_reset(&p);
	kp_buf_addf(&p, "%s/examples", c->root);
	if (kp_path_is_dir(p.buf))
		c->examples = kp_xstrdup(p.buf);
	kp_buf_reset(&p);
	kp_buf_addf(&p, "%s/cutlass/version.h", c->include);
	if ((rc = kp_read_file(p.buf, VERSION_H_CAP, &text, err)) ||
	    (rc = kp_cutlass_parse_version(text.buf, text.len, c->version, sizeof(c->version), err))) {
		kp_error_prefix(err, "CUTLASS at '%s'", c->root);
		kp_cutlass_release(c);
	}
out:
	free(real);
	kp_buf_release(&p);
	kp_buf_release(&text);
	return rc;
}

/* python3's nvidia-cutlass: the package cutlass_library ships the headers under source/. */
static char *pip_root(void)
{
	static const char probe[] =
	    "import importlib.util, os\n"
	    "s = importlib.util.find_spec('cutlass_library')\n"
	    "if s and s.submodule_search_locations:\n"
	    "    print(os.path.join(list(s.submodule_search_locations)[0], 'source'))\n";
	struct kp_child ch = KP_CHILD_INIT;
	const char *py_env = getenv("KERNELPRO_PYTHON");
	char *py = py_env && *py_env ? kp_xstrdup(py_env) : kp_which("python3");
	char *root = NULL;

	if (!py)
		return NULL;
	kp_strvec_pushl(&ch.args, py, "-c", probe, NULL);
	ch.timeout_ms = 30000;
	ch.out_cap = 1 << 14;
	ch.err_cap = 1 << 14;
	if (kp_child_run(&ch, NULL) == 0 && kp_child_ok(&ch)) {
		kp_buf_rtrim(&ch.out);
		if (ch.out.len && !strchr(ch.out.buf, '\n'))
			root = kp_xstrdup(ch.out.buf);
	}
	kp_child_release(&ch);
	free(py);
	return root;
}

int kp_cutlass_find(struct kp_cutlass *c, unsigned flags, struct kp_error *err)
{
	const char *env = getenv("CUTLASS_PATH");
	char *root;
	int rc;

	memset(c, 0, sizeof(*c));
	if (env && *env) {
		struct kp_error e2 = KP_ERROR_INIT;
		if (fill_from_root(c, env, KP_CUTLASS_ENV, &e2) == 0)
			return 0;
		return kp_error_set(err, KP_EINVAL, "CUTLASS_PATH: %s; point it at a CUTLASS checkout",
		                    kp_error_msg(&e2));
	}
	if ((root = kp_find_data(".cutlass"))) {
		rc = fill_from_root(c, root, KP_CUTLASS_BUNDLED, NULL);
		free(root);
		if (!rc)
			return 0;
	}
	if (!(flags & KP_CUTLASS_NO_PYTHON) && (root = pip_root())) {
		rc = fill_from_root(c, root, KP_CUTLASS_PIP, NULL);
		free(root);
		if (!rc)
			return 0;
	}
	return kp_error_set(err, KP_ENOENT, "no CUTLASS found: %s", KP_CUTLASS_INSTALL_HINT);
}

static pthread_mutex_t cached_lock = PTHREAD_MUTEX_INITIALIZER;
static struct kp_cutlass cached;
static struct kp_error cached_err;
static int cached_done;

const struct kp_cutlass *kp_cutlass_cached(struct kp_error *err)
{
	const struct kp_cutlass *r;
	pthread_mutex_lock(&cached_lock);
	if (!cached_done) {
		kp_cutlass_find(&cached, 0, &cached_err);
		cached_done = 1;
	}
	r = cached.root ? &cached : NULL;
	if (!r)
		kp_error_set(err, cached_err.code, "%s", cached_err.msg);
	pthread_mutex_unlock(&cached_lock);
	return r;
}

/* ---- sources ------------------------------------------------------------------------------------------ */

/* Is `line` (up to its end) an #include of a cute/ or cutlass/ header? */
static int includes_cutlass(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p >= end || *p != '#')
		return 0;
	p++;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (end - p < 7 || strncmp(p, "include", 7))
		return 0;
	p += 7;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p >= end || (*p != '<' && *p != '"'))
		return 0;
	p++;
	return (end - p > 5 && !strncmp(p, "cute/", 5)) || (end - p > 8 && !strncmp(p, "cutlass/", 8));
}

int kp_cutlass_source_uses(const char *src, size_t len)
{
	const char *p = src, *end = src + len;
	while (p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		if (!e)
			e = end;
		if (includes_cutlass(p, e))
			return 1;
		p = e + 1;
	}
	return 0;
}

/* Words that only compile for sm_90a: WGMMA (raw or CuTe's GMMA), TMA, register reconfiguration. */
static const char *const arch_a_words[] = {"wgmma",
                                           "GMMA",
                                           "SM90_TMA",
                                           "make_tma_",
                                           "cp.async.bulk.tensor",
                                           "setmaxnreg",
                                           "warpgroup_reg_",
                                           "KernelTmaWarpSpecialized",
                                           "SM90_64x"};

int kp_cutlass_source_needs_arch_a(const char *src, size_t len)
{
	for (size_t i = 0; i < KP_ARRAY_SIZE(arch_a_words); i++)
		if (memmem(src, len, arch_a_words[i], strlen(arch_a_words[i])))
			return 1;
	return 0;
}

void kp_cutlass_build_flags(const struct kp_cutlass *c, const char *src, size_t len, struct kp_strvec *flags,
                            const char **arch, struct kp_buf *key)
{
	if (arch && *arch && !strcmp(*arch, "sm_90") && kp_cutlass_source_needs_arch_a(src, len))
		*arch = "sm_90a";
	if (!c || !kp_cutlass_source_uses(src, len))
		return;
	kp_strvec_pushl(flags, "-std=c++17", "--expt-relaxed-constexpr", NULL);
	kp_strvec_pushf(flags, "-I%s", c->include);
	if (c->util_include)
		kp_strvec_pushf(flags, "-I%s", c->util_include);
	if (key)
		kp_buf_addf(key, "cutlass %s\n", c->version);
}
