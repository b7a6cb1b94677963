/* File-system helpers: mkdir -p, atomic replace, capped whole-file reads, temp dirs, data lookup. */
#include "base/setup.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernelpro/fault.h"
#include "kernelpro/fs.h"
#include "kernelpro/secret.h"

int kp_mkdir_p(const char *path, mode_t mode, struct kp_error *err)
{
	char *p = kp_xstrdup(path);
	int rc = 0;
	for (char *s = p + 1;; s++) {
		char c = *s;
		if (c != '/' && c != '\0')
			continue;
		*s = '\0';
		if (mkdir(p, mode) != 0 && errno != EEXIST) {
			rc = kp_error_set(err, errno == EACCES ? KP_EPERM : KP_EIO, "cannot create directory '%s': %s",
					  p, strerror(errno));
			goto out;
		}
		*s = c;
		if (!c)
			break;
	}
	if (!kp_path_is_dir(path))
		rc = kp_error_set(err, KP_EIO, "'%s' exists and is not a directory", path);
out:
	free(p);
	return rc;
}

int kp_write_file_atomic(const char *path, const void *data, size_t len, struct kp_error *err)
{
	struct kp_buf tmp = KP_BUF_INIT;
	size_t scrubbed_len = 0;
	char *scrubbed = kp_secret_scrub(data, len, &scrubbed_len); /* no key reaches a file */
	const char *p = scrubbed ? scrubbed : data;
	int fd = -1, rc = 0;

	if (scrubbed)
		len = scrubbed_len;
	if ((rc = kp_fault(KP_FAULT_FILE_WRITE, path, err)))
		goto out;
	kp_buf_addf(&tmp, "%s.tmp.XXXXXX", path);
	fd = mkstemp(tmp.buf);
	if (fd < 0) {
		rc = kp_error_set(err, KP_EIO, "cannot create a temporary file beside '%s': %s", path,
				  strerror(errno));
		goto out;
	}
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = kp_error_set(err, KP_EIO, "cannot write '%s': %s", path,
					  n < 0 ? strerror(errno) : "short write");
			goto out;
		}
		p += n;
		len -= (size_t)n;
	}
	if (fchmod(fd, 0644) != 0 || fsync(fd) != 0) {
		rc = kp_error_set(err, KP_EIO, "cannot write '%s': %s", path, strerror(errno));
		goto out;
	}
	if (close(fd) != 0) {
		fd = -1;
		rc = kp_error_set(err, KP_EIO, "cannot write '%s': %s", path, strerror(errno));
		goto out;
	}
	fd = -1;
	if (rename(tmp.buf, path) != 0) {
		rc = kp_error_set(err, KP_EIO, "cannot replace '%s': %s", path, strerror(errno));
		goto out;
	}
out:
	if (fd >= 0)
		close(fd);
	if (rc && tmp.len)
		unlink(tmp.buf);
	kp_buf_release(&tmp);
	free(scrubbed);
	return rc;
}

int kp_read_file(const char *path, size_t cap, struct kp_buf *out, struct kp_error *err)
{
	char chunk[65536];
	size_t start = out->len, total = 0;
	struct stat st;
	/* O_NONBLOCK: opening a FIFO with no writer must not wait for one (nor a device for its carrier). */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), rc = 0;
	if (fd < 0)
		return kp_error_set(err, errno == ENOENT ? KP_ENOENT : (errno == EACCES ? KP_EPERM : KP_EIO),
				    "cannot read '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return kp_error_set(err, KP_EINVAL,
				    "'%s' is not a regular file (a FIFO, socket or device would block or never end): give "
				    "the file itself",
				    path);
	}
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = kp_error_set(err, KP_EIO, "cannot read '%s': %s", path, strerror(errno));
			break;
		}
		if (n == 0)
			break;
		total += (size_t)n;
		if (cap && total > cap) {
			rc = kp_error_set(err, KP_ETOOBIG, "'%s' is larger than the %zu-byte limit", path, cap);
			break;
		}
		if (kp_buf_add(out, chunk, (size_t)n)) {
			rc = kp_error_set(err, KP_ETOOBIG, "'%s' does not fit its buffer's limit", path);
			break;
		}
	}
	close(fd);
	if (rc && out->alloc)
		kp_buf_setlen(out, start);
	return rc;
}

int kp_mkdtemp(const char *prefix, struct kp_buf *out, struct kp_error *err)
{
	const char *tmp = getenv("TMPDIR");
	struct kp_buf t = KP_BUF_INIT;
	int rc = 0;
	if (!tmp || !*tmp)
		tmp = "/tmp";
	kp_buf_addf(&t, "%s/%s-XXXXXX", tmp, prefix);
	if (!mkdtemp(t.buf))
		rc = kp_error_set(err, KP_EIO, "cannot create a temporary directory in '%s': %s", tmp,
				  strerror(errno));
	else
		kp_buf_add(out, t.buf, t.len);
	kp_buf_release(&t);
	return rc;
}

static int rm_rf_at(int at, const char *name, struct kp_error *err)
{
	struct stat st;
	if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT ? 0 : kp_error_set(err, KP_EIO, "cannot stat '%s': %s", name, strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		DIR *d;
		struct dirent *de;
		int rc = 0;
		if (fd < 0)
			return kp_error_set(err, KP_EIO, "cannot open '%s': %s", name, strerror(errno));
		d = fdopendir(fd);
		if (!d) {
			close(fd);
			return kp_error_set(err, KP_EIO, "cannot open '%s': %s", name, strerror(errno));
		}
		while (!rc && (de = readdir(d))) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			rc = rm_rf_at(dirfd(d), de->d_name, err);
		}
		closedir(d);
		if (rc)
			return rc;
		if (unlinkat(at, name, AT_REMOVEDIR) != 0 && errno != ENOENT)
			return kp_error_set(err, KP_EIO, "cannot remove '%s': %s", name, strerror(errno));
		return 0;
	}
	if (unlinkat(at, name, 0) != 0 && errno != ENOENT)
		return kp_error_set(err, KP_EIO, "cannot remove '%s': %s", name, strerror(errno));
	return 0;
}

int kp_rm_rf(const char *path, struct kp_error *err)
{
	return rm_rf_at(AT_FDCWD, path, err);
}

int kp_path_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

int kp_path_is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int kp_path_join(struct kp_buf *out, const char *a, const char *b)
{
	size_t n = strlen(a);
	int rc;
	while (n > 1 && a[n - 1] == '/')
		n--;
	while (*b == '/')
		b++;
	rc = kp_buf_add(out, a, n);
	if (!rc && n && a[n - 1] != '/')
		rc = kp_buf_addch(out, '/');
	return rc ? rc : kp_buf_adds(out, b);
}

char *kp_self_dir(void)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	char *slash;
	if (n <= 0)
		return kp_xstrdup(".");
	path[n] = '\0';
	slash = strrchr(path, '/');
	if (slash && slash != path)
		*slash = '\0';
	return kp_xstrdup(path);
}

char *kp_find_data(const char *relpath)
{
	/* Source tree: <root>/build/bin/kernelpro; bundle or install: <prefix>/bin + <prefix>/share/kernelpro. */
	static const char *const rel_roots[] = {"../..", "../share/kernelpro", "..", "."};
	struct kp_buf p = KP_BUF_INIT;
	const char *home = getenv("KERNELPRO_HOME");
	char *self = NULL;

	if (home && *home) {
		kp_path_join(&p, home, relpath);
		if (kp_path_exists(p.buf))
			return kp_buf_detach(&p, NULL);
		kp_buf_reset(&p);
	}
	self = kp_self_dir();
	for (size_t i = 0; i < KP_ARRAY_SIZE(rel_roots); i++) {
		kp_buf_reset(&p);
		kp_buf_addf(&p, "%s/%s/%s", self, rel_roots[i], relpath);
		if (kp_path_exists(p.buf)) {
			char *real = realpath(p.buf, NULL);
			free(self);
			kp_buf_release(&p);
			return real ? real : kp_xstrdup(relpath);
		}
	}
	free(self);
	kp_buf_release(&p);
	return NULL;
}

char *kp_find_libexec(const char *name)
{
	struct kp_buf p = KP_BUF_INIT;
	const char *dir = getenv("KERNELPRO_LIBEXEC");
	char *self;
	if (dir && *dir) {
		kp_path_join(&p, dir, name);
		if (kp_path_exists(p.buf))
			return kp_buf_detach(&p, NULL);
		kp_buf_release(&p);
		return NULL;
	}
	self = kp_self_dir();
	kp_buf_addf(&p, "%s/../libexec/kernelpro/%s", self, name);
	free(self);
	if (kp_path_exists(p.buf)) {
		char *real = realpath(p.buf, NULL);
		kp_buf_release(&p);
		return real;
	}
	kp_buf_release(&p);
	return NULL;
}

char *kp_config_file(const char *env_var, const char *name)
{
	const char *env = getenv(env_var), *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char *p;
	if (env && *env)
		return kp_xstrdup(env);
	if (xdg && *xdg)
		p = kp_xasprintf("%s/kernelpro/%s", xdg, name);
	else if (home && *home)
		p = kp_xasprintf("%s/.config/kernelpro/%s", home, name);
	else
		return NULL;
	if (kp_path_exists(p))
		return p;
	free(p);
	return NULL;
}

int kp_cache_dir(struct kp_buf *out, struct kp_error *err)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	if (xdg && *xdg)
		return kp_buf_addf(out, "%s/kernelpro", xdg);
	if (home && *home)
		return kp_buf_addf(out, "%s/.cache/kernelpro", home);
	return kp_error_set(err, KP_ENOENT, "no cache directory: set XDG_CACHE_HOME or HOME");
}

const char *kp_dir_setting(const char *given, const char *env_var, const char *fallback)
{
	const char *env = getenv(env_var);
	if (given)
		return given;
	return env && *env ? env : fallback;
}
