/*
 * Creating a run, all or nothing: the run is built in a hidden directory in the runs directory
 * (ROOT/.kp-new-HOST-PID-XXXXXX) and renamed to ROOT/NAME once its database holds the task and
 * settings, so kill -9 at any moment (or a full disk) leaves a whole run under the name or none;
 * what a killed creation left is swept by the next one.
 */
#include "base/setup.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kernelpro/fault.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/log.h"
#include "run/run_int.h"

#define NEW_PREFIX ".kp-new-"

/* s for a message: control characters as \xNN, at most n - 1 bytes. */
static const char *shown(const char *s, char *out, size_t n)
{
	size_t k = 0;
	for (; *s && k + 5 < n; s++) {
		unsigned char c = (unsigned char)*s;
		if (c < 0x20 || c == 0x7f)
			k += (size_t)snprintf(out + k, n - k, "\\x%02x", c);
		else
			out[k++] = (char)c;
	}
	if (*s && k + 4 <= n)
		k += (size_t)snprintf(out + k, n - k, "...");
	out[k] = '\0';
	return out;
}

int kp_run_name_check(const char *name, const char *what, size_t max, struct kp_error *err)
{
	char show[96];
	size_t len = strlen(name);

	if (!len || strchr(name, '/') || name[0] == '.')
		return kp_error_set(err, KP_EINVAL, "%s name '%s' must not be empty, contain '/' or start with '.'",
				    what, shown(name, show, sizeof(show)));
	if (len > max)
		return kp_error_set(err, KP_EINVAL, "%s name '%s' is %zu bytes long; at most %zu (choose a shorter --name)",
				    what, shown(name, show, 48), len, max);
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return kp_error_set(err, KP_EINVAL,
					    "%s name '%s' holds a control character (\\x%02x); choose a "
					    "--name of printable characters",
					    what, shown(name, show, sizeof(show)), *p);
	return 0;
}

/* The run's name: the one given, else TASK-STAMP. */
static int choose_name(const struct kp_run_new *o, const char *stamp, struct kp_buf *name,
		       struct kp_error *err)
{
	int rc;
	if (o->name)
		kp_buf_adds(name, o->name);
	else
		kp_buf_addf(name, "%s-%s", o->task->name, stamp);
	rc = kp_run_name_check(name->buf, "run", KP_RUN_NAME_MAX, err);
	if (rc && !o->name)
		kp_error_prefix(err, "the task's name makes no usable run name; give one with --name");
	return rc;
}

/* ---- what killed creations left ------------------------------------------------------------- */

/* This host's name as it appears in a creation directory's name (no '-' or '/'). */
static void host_tag(char *out, size_t n)
{
	if (gethostname(out, n) != 0 || !out[0])
		snprintf(out, n, "host");
	out[n - 1] = '\0';
	for (char *p = out; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '.')
			*p = '_';
}

/* Whether the lock file in dir is held by some process (a missing one is not). */
static int lock_held(const char *dir)
{
	struct kp_buf p = KP_BUF_INIT;
	int fd, held = 0;

	kp_path_join(&p, dir, "run.lock");
	fd = open(p.buf, O_RDONLY | O_CLOEXEC);
	kp_buf_release(&p);
	if (fd < 0)
		return 0;
	if (flock(fd, LOCK_EX | LOCK_NB) != 0)
		held = errno == EWOULDBLOCK;
	close(fd);
	return held;
}

/*
 * The pid in ".kp-new-HOST-PID-XXXXXX" when HOST is this host's; 0 otherwise (another host's
 * creation, on a shared file system, is never touched).
 */
static long creator_pid(const char *entry, const char *host)
{
	const char *rest = entry + strlen(NEW_PREFIX), *end = strrchr(rest, '-'), *p;
	size_t hl = strlen(host);
	long pid = 0;

	if (!end || (size_t)(end - rest) <= hl + 1 || strncmp(rest, host, hl) || rest[hl] != '-')
		return 0;
	for (p = rest + hl + 1; p < end && *p >= '0' && *p <= '9' && pid < 1L << 30; p++)
		pid = pid * 10 + (*p - '0');
	return p == end ? pid : 0;
}

/* Removes the creation directories in root whose process died (kill -9, a crash) before finishing. */
static void sweep(const char *root)
{
	char host[64];
	DIR *d = opendir(root);
	struct dirent *de;

	if (!d)
		return;
	host_tag(host, sizeof(host));
	while ((de = readdir(d))) {
		struct kp_buf p = KP_BUF_INIT;
		struct kp_error err = KP_ERROR_INIT;
		long pid;

		if (strncmp(de->d_name, NEW_PREFIX, strlen(NEW_PREFIX)))
			continue;
		pid = creator_pid(de->d_name, host);
		if (pid <= 0 || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue; /* its process is alive (or not ours to judge) */
		kp_path_join(&p, root, de->d_name);
		if (!lock_held(p.buf)) {
			if (kp_rm_rf(p.buf, &err))
				kp_warn("%s", kp_error_msg(&err));
			else
				kp_warn("removed '%s': a run being created when its process (pid %ld) died",
					p.buf, pid);
		}
		kp_buf_release(&p);
	}
	closedir(d);
}

int kp__run_half_made(const char *dir)
{
	static const char *const ours[] = {"run.lock", KP_RUN_DB, KP_RUN_DB "-wal", KP_RUN_DB "-shm",
					   KP_RUN_DB "-journal"};
	DIR *d = opendir(dir);
	struct dirent *de;
	struct kp_buf db = KP_BUF_INIT;
	struct kp_store *s = NULL;
	struct kp_error err = KP_ERROR_INIT;
	struct stat st;
	int half = 1;

	if (!d)
		return 0;
	while (half && (de = readdir(d))) {
		size_t i = 0;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		while (i < KP_ARRAY_SIZE(ours) && strcmp(de->d_name, ours[i]))
			i++;
		half = i < KP_ARRAY_SIZE(ours);
	}
	closedir(d);
	if (!half || lock_held(dir))
		return 0;
	kp_path_join(&db, dir, KP_RUN_DB);
	if (stat(db.buf, &st) == 0 && st.st_size > 0) {
		int rc = kp_store_open(&s, db.buf, KP_STORE_READONLY, &err);
		if (rc == 0) {
			struct kp_buf task = KP_BUF_INIT;
			half = kp_store_meta_get(s, "task", &task, &err) == KP_ENOENT &&
			       !kp_store_session_count(s);
			kp_buf_release(&task);
		} else {
			half = rc == KP_ENOENT; /* a database without the schema */
		}
		kp_store_close(s);
	}
	kp_buf_release(&db);
	return half;
}

/* ROOT/NAME must be free: a run's directory is refused, a half-made run's is replaced. */
static int clear_the_way(const char *dir, struct kp_error *err)
{
	struct kp_error e = KP_ERROR_INIT;

	if (!kp_path_exists(dir))
		return 0;
	if (kp__run_half_made(dir)) {
		if (kp_rm_rf(dir, &e))
			return kp_error_set(err, e.code, "%s", kp_error_msg(&e));
		kp_warn("replaced '%s': a run whose creation was killed before it was complete", dir);
		return 0;
	}
	if (kp_run_exists(dir))
		return kp_error_set(err, KP_EEXISTS,
				    "run directory '%s' exists; resume it with --resume %s or choose another "
				    "--name",
				    dir, dir);
	return kp_error_set(err, KP_EEXISTS, "'%s' exists and is not a run; choose another --name", dir);
}

/* ---- building and placing the run ------------------------------------------------------------ */

/* The hidden directory the run is built in. */
static int make_new_dir(const char *root, struct kp_buf *out, struct kp_error *err)
{
	char host[64];
	int rc = kp_fault(KP_FAULT_FILE_WRITE, "creating the run's directory", err);

	if (rc)
		return rc;
	host_tag(host, sizeof(host));
	kp_path_join(out, root, NEW_PREFIX);
	kp_buf_addf(out, "%s-%ld-XXXXXX", host, (long)getpid());
	if (!mkdtemp(out->buf))
		return kp_error_set(err, KP_EIO, "cannot create a directory in '%s': %s", root,
				    strerror(errno));
	return 0;
}

/* Renames the built run to its name, never over another (a run made meanwhile under the name). */
static int place(const char *from, const char *to, struct kp_error *err)
{
	int rc = kp_fault(KP_FAULT_FILE_WRITE, to, err);

	if (rc)
		return rc;
	if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno == EINVAL || errno == ENOSYS) { /* a file system that cannot refuse: look first */
		errno = EEXIST;
		if (!kp_path_exists(to) && rename(from, to) == 0)
			return 0;
	}
	if (errno == EEXIST || errno == ENOTEMPTY)
		return kp_error_set(err, KP_EEXISTS,
				    "run directory '%s' appeared while this run was being created; choose "
				    "another --name",
				    to);
	return kp_error_set(err, KP_EIO, "cannot move the new run to '%s': %s", to, strerror(errno));
}

/* The rename survives a power cut once the directory holding it is synced. */
static void sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		if (fsync(fd) != 0)
			kp_warn("cannot sync '%s': %s", dir, strerror(errno));
		close(fd);
	}
}

static void copy_settings(struct kp_run *r, const struct kp_run_new *o)
{
	const struct kp_run_settings *s = o->settings;
	r->settings.params = s->params;
	r->settings.budget = s->budget;
	r->settings.orchestration = s->orchestration;
	r->settings.tool_rounds = s->tool_rounds;
	r->settings.family = kp_xstrdup(s->family ? s->family : o->task->name);
	r->settings.llm = s->llm && *s->llm ? kp_xstrdup(s->llm) : NULL;
	r->settings.evaluator = kp_xstrdup(s->evaluator ? s->evaluator : "harness");
	r->settings.formats = s->formats ? kp_xstrdup(s->formats) : NULL;
	r->task = kp_task_to_json(o->task);
	kp_json_set(r->task, "path", json_string(o->task->path));
	r->kind = kp_task_kind_info(o->task->kind);
	kp__run_task_identity(o->task, r->task_sha256);
}

int kp_run_create(struct kp_run **out, const struct kp_run_new *o, struct kp_error *err)
{
	struct kp_buf name = KP_BUF_INIT, dir = KP_BUF_INIT, tmp = KP_BUF_INIT;
	struct kp_run *r = NULL;
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	int made_root = !kp_path_exists(o->root), rc;

	*out = NULL;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	if ((rc = choose_name(o, stamp, &name, err)))
		goto out;
	kp_path_join(&dir, o->root, name.buf);
	if ((rc = clear_the_way(dir.buf, err)) || (rc = kp_mkdir_p(o->root, 0755, err)))
		goto out;
	sweep(o->root);
	if ((rc = make_new_dir(o->root, &tmp, err)))
		goto out;
	r = kp__run_alloc(tmp.buf);
	r->created = 1;
	r->made_root = made_root ? kp_xstrdup(o->root) : NULL;
	r->name = kp_buf_detach(&name, NULL);
	copy_settings(r, o);
	if ((rc = kp__run_lock(r->dir, &r->lock_fd, err)) ||
	    (rc = kp__run_open_db(r, KP_STORE_CREATE, err)) || (rc = kp__run_save_settings(r, stamp, err)))
		goto out;
	/* Closed before the move (SQLite keeps the path of its write-ahead log); the lock moves along. */
	kp_store_close(r->store);
	r->store = NULL;
	if ((rc = place(r->dir, dir.buf, err)))
		goto out;
	free(r->dir);
	r->dir = kp_buf_detach(&dir, NULL);
	sync_dir(o->root);
	if ((rc = kp__run_open_db(r, 0, err)))
		goto out;
	*out = r;
	r = NULL;
out:
	if (r)
		kp_run_abandon(r); /* the built directory, wherever it is, and the root when it made it */
	else if (rc && made_root)
		rmdir(o->root);
	kp_buf_release(&name);
	kp_buf_release(&dir);
	kp_buf_release(&tmp);
	return rc;
}
