/* The warm worker's client: finding or starting the per-GPU worker (harness/kp_worker.py), connecting
 * to it and its socket protocol's lines, stopping it. Evaluations that run in it are worker_job.c. */
#include "base/setup.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "eval/evalrun.h"
#include "eval/worker_int.h"
#include "kernelpro/fs.h"
#include "kernelpro/hash.h"
#include "kernelpro/json.h"
#include "kernelpro/log.h"
#include "kernelpro/str.h"

#define PROTO_VERSION 1
#define LINE_CAP (1u << 20)  /* the worker's events are small; a longer line is a broken worker */
#define HELLO_S 10.0          /* a running worker answers a connection at once */

/* Import-time environment: a worker started under other values would import something else. */
static const char *const key_env[] = {"PATH",      "PYTHONPATH", "PYTHONHOME", "LD_LIBRARY_PATH",
				      "LD_PRELOAD", "CUDA_HOME",  "CUDA_PATH",  NULL};

/* --- finding the worker ------------------------------------------------------------------------- */

static double env_seconds(const char *name, double def)
{
	const char *s = getenv(name);
	double v;
	return s && *s && kp_parse_double(s, &v) == 0 && v >= 0 ? v : def;
}

/* $KERNELPRO_WORKER_DIR, $XDG_RUNTIME_DIR/kernelpro or /tmp/kernelpro-UID: a directory only we can use. */
static int runtime_dir(struct kp_buf *dir, struct kp_error *err)
{
	const char *env = getenv("KERNELPRO_WORKER_DIR"), *xdg = getenv("XDG_RUNTIME_DIR");
	struct stat st;

	if (env && *env)
		kp_buf_adds(dir, env);
	else if (xdg && *xdg)
		kp_buf_addf(dir, "%s/kernelpro", xdg);
	else
		kp_buf_addf(dir, "/tmp/kernelpro-%u", (unsigned)getuid());
	if (mkdir(dir->buf, 0700) && errno != EEXIST)
		return kp_error_set(err, KP_EIO, "cannot create the worker directory '%s': %s", dir->buf, strerror(errno));
	if (lstat(dir->buf, &st) || !S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 077))
		return kp_error_set(err, KP_EPERM,
				    "worker directory '%s' must be a directory owned by you with mode 0700 (or set "
				    "KERNELPRO_WORKER_DIR)",
				    dir->buf);
	return 0;
}

/* Hashes the name, size and modification time of every .py file in `dir`, in name order. */
static void hash_sources(struct kp_sha256 *h, const char *dir)
{
	struct dirent **names = NULL;
	int n = scandir(dir, &names, NULL, alphasort);
	struct kp_buf path = KP_BUF_INIT;

	for (int i = 0; i < n; i++) {
		struct stat st;
		if (kp_ends_with(names[i]->d_name, ".py")) {
			kp_buf_reset(&path);
			kp_path_join(&path, dir, names[i]->d_name);
			if (stat(path.buf, &st) == 0) {
				char line[128];
				snprintf(line, sizeof(line), " %lld %lld.%09ld\n", (long long)st.st_size,
					 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
				kp_sha256_update_str(h, names[i]->d_name);
				kp_sha256_update_str(h, line);
			}
		}
		free(names[i]);
	}
	free(names);
	kp_buf_release(&path);
}

/* The worker this configuration needs: interpreter, harness sources, device and import-time
 * environment. Another configuration gets its own worker. */
static void worker_key(const char *python, const char *script, const char *adapter, const struct kp_strvec *genv,
		       char hex[65])
{
	struct kp_sha256 h;
	struct kp_buf dir = KP_BUF_INIT;
	const char *slash = strrchr(adapter, '/');

	kp_sha256_init(&h);
	kp_sha256_update_str(&h, "kernelpro-worker-v1\n");
	for (const char *s[] = {python, script, adapter}, **p = s; p < s + 3; p++) {
		kp_sha256_update_str(&h, *p);
		kp_sha256_update_str(&h, "\n");
	}
	for (size_t i = 0; i < genv->n; i++) {
		kp_sha256_update_str(&h, genv->v[i]);
		kp_sha256_update_str(&h, "\n");
	}
	for (const char *const *e = key_env; *e; e++) {
		const char *v = getenv(*e);
		kp_sha256_update_str(&h, *e);
		kp_sha256_update_str(&h, v ? "=" : "-");
		kp_sha256_update_str(&h, v ? v : "");
		kp_sha256_update_str(&h, "\n");
	}
	kp_buf_add(&dir, adapter, slash ? (size_t)(slash - adapter) : 0);
	hash_sources(&h, dir.buf);
	kp_buf_adds(&dir, "/python/kernelpro");
	hash_sources(&h, dir.buf);
	kp_sha256_final(&h, hex);
	kp_buf_release(&dir);
}

static int sock_connect(const char *path)
{
	struct sockaddr_un a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(a.sun_path))
		return -ENAMETOOLONG;
	memcpy(a.sun_path, path, strlen(path));
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		int e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

/*
 * Builds "NAME=value" entries: what a kp_child with `extra` as its env would see (the allow-listed
 * part of ours, never an API key, then `extra`), for the worker and for each job, as for a cold run.
 */
void kp__worker_merged_env(const struct kp_strvec *extra, struct kp_strvec *out)
{
	struct kp_child c = KP_CHILD_INIT;
	kp_strvec_pushv(&c.env, (const char *const *)extra->v);
	kp_child_environment(&c, out);
	kp_child_release(&c);
}

/*
 * Starts the worker detached (its own session; a double fork, so it is nobody's child and outlives us),
 * with stdout and stderr in `log_path` and the write end of a pipe as fd 3, on which it says when it
 * serves. No kp_child here: kp_child runs a program to its end, and the worker must outlive us.
 */
static int spawn_worker(const char *python, const char *script, const char *sock, const char *log_path,
			const struct kp_strvec *genv, int *ready_fd, pid_t *group, struct kp_error *err)
{
	struct kp_strvec argv = KP_STRVEC_INIT, envp = KP_STRVEC_INIT;
	int rp[2] = {-1, -1}, logfd = -1, nullfd = -1, rc = 0, status;
	long maxfd = sysconf(_SC_OPEN_MAX);
	pid_t pid;

	if (maxfd < 0 || maxfd > 65536)
		maxfd = 65536;
	kp_strvec_pushl(&argv, python, "-B", script, "--socket", sock, "--ready-fd", "3", "--idle", NULL);
	kp_strvec_pushf(&argv, "%g", env_seconds("KERNELPRO_WORKER_IDLE", 600));
	kp__worker_merged_env(genv, &envp);
	if (pipe2(rp, O_CLOEXEC) || (logfd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0 ||
	    (nullfd = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
		rc = kp_error_set(err, KP_EIO, "cannot set up the warm worker ('%s'): %s", log_path, strerror(errno));
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		rc = kp_error_set(err, KP_EIO, "cannot start the warm worker: fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		sigset_t none;
		setsid();
		if ((pid = fork()) != 0)
			_exit(pid < 0 ? 1 : 0);
		/* Move the pipe out of the way of fds 0-2 first, then lay out 0-3 without close-on-exec. */
		int ready = fcntl(rp[1], F_DUPFD, 10);
		if (ready < 0 || dup2(nullfd, 0) < 0 || dup2(logfd, 1) < 0 || dup2(logfd, 2) < 0 || dup2(ready, 3) < 0)
			_exit(126);
		for (int fd = 0; fd <= 3; fd++)
			fcntl(fd, F_SETFD, 0);
		for (int fd = 4; fd < (int)maxfd; fd++)
			close(fd);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		execve(python, argv.v, envp.v);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	*group = pid; /* the intermediate's setsid() made its pid the worker's session and group */
	*ready_fd = rp[0];
	rp[0] = -1;
out:
	for (int i = 0; i < 2; i++)
		if (rp[i] >= 0)
			close(rp[i]);
	if (logfd >= 0)
		close(logfd);
	if (nullfd >= 0)
		close(nullfd);
	kp_strvec_release(&argv);
	kp_strvec_release(&envp);
	return rc;
}

/* Appends what `fd` has within `timeout_ms` to b. 1: data, 0: nothing yet, -1: end of file or error. */
int kp__worker_read_some(int fd, struct kp_buf *b, long timeout_ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	char chunk[65536];
	ssize_t n;
	int r;

	do
		r = poll(&p, 1, (int)timeout_ms);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -1;
	if (r == 0)
		return 0;
	do
		n = read(fd, chunk, sizeof(chunk));
	while (n < 0 && errno == EINTR);
	if (n <= 0 || kp_buf_add(b, chunk, (size_t)n))
		return -1;
	return 1;
}

/* Moves the first complete line of b (without its newline) into `line`; 0 when there is none. */
int kp__worker_take_line(struct kp_buf *b, struct kp_buf *line)
{
	char *nl = memchr(b->buf, '\n', b->len);
	size_t n;
	if (!nl)
		return 0;
	n = (size_t)(nl - b->buf);
	kp_buf_reset(line);
	kp_buf_add(line, b->buf, n);
	memmove(b->buf, nl + 1, b->len - n - 1);
	kp_buf_setlen(b, b->len - n - 1);
	return 1;
}

/* How often a wait for the worker looks at the program's cancel flag (Ctrl-C: kp_child_set_cancel). */
#define CANCEL_POLL_MS 100

/* One JSON line from fd within `limit_s`, into *out (new reference); KP_ECANCELED once the program is
 * canceled (a worker that imports for minutes must not hold Ctrl-C up). */
static int read_json_line(int fd, struct kp_buf *b, double limit_s, const char *what, json_t **out,
			  struct kp_error *err)
{
	struct kp_buf line = KP_BUF_INIT;
	double end = kp_now() + limit_s;
	int rc = 0;

	*out = NULL;
	while (!kp__worker_take_line(b, &line)) {
		double left = end - kp_now();
		long ms;
		int r;
		if (kp_child_canceled()) {
			rc = kp_error_set(err, KP_ECANCELED, "%s: canceled", what);
			goto out;
		}
		if (left <= 0) {
			rc = kp_error_set(err, KP_ETIMEOUT, "%s: no answer within %.0f s", what, limit_s);
			goto out;
		}
		ms = (long)(left * 1000) + 1;
		r = kp__worker_read_some(fd, b, ms < CANCEL_POLL_MS ? ms : CANCEL_POLL_MS);
		if (r < 0) {
			rc = kp_error_set(err, KP_ECHILD, "%s: the worker closed the connection", what);
			goto out;
		}
	}
	rc = kp_json_load_mem(what, line.buf, line.len, out, err);
out:
	kp_buf_release(&line);
	return rc;
}

static void log_tail(const char *path, struct kp_buf *out)
{
	struct kp_buf text = KP_BUF_INIT;
	kp_buf_init(&text, 1 << 20);
	if (kp_read_file(path, 1 << 20, &text, NULL) == 0 && text.len) {
		kp_buf_rtrim(&text);
		const char *tail = text.len > 600 ? text.buf + text.len - 600 : text.buf;
		kp_buf_addf(out, ":\n%s", tail);
	}
	kp_buf_release(&text);
}

/*
 * Whether a worker holds the socket's lock (kp_worker.py takes it before it imports anything and keeps it
 * while it serves): one is starting, or serving. A shared lock, tried and dropped at once.
 */
static int lock_held(const struct kp_eval_worker *w)
{
	struct kp_buf path = KP_BUF_INIT;
	int fd, held = 0;

	kp_buf_addf(&path, "%s.lock", w->sock.buf);
	fd = open(path.buf, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		held = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
		close(fd); /* and our lock with it */
	}
	kp_buf_release(&path);
	return held;
}

static int spawn(struct kp_eval_worker *w, struct kp_error *err)
{
	return spawn_worker(w->python, w->script, w->sock.buf, w->log_path.buf, &w->genv, &w->ready_fd,
	                    &w->group, err);
}

/*
 * A worker we launched that has not said it serves is nobody's yet: ending our handle ends it (SIGTERM to
 * its group, which is still its own while it holds the pipe open). One that serves stays, as every worker
 * does, until it is idle.
 */
static void abandon(struct kp_eval_worker *w)
{
	struct pollfd p = {.fd = w->ready_fd, .events = POLLIN};

	if (w->ready_fd < 0)
		return;
	if (poll(&p, 1, 0) == 0 && w->group > 0)
		kill(-w->group, SIGTERM);
	close(w->ready_fd);
	w->ready_fd = -1;
	w->group = 0;
}

/* Reads the ready line of the worker we launched (within limit_s): 0 when it serves, or found another
 * serving the socket; else why it did not start. The pipe is closed either way. */
static int await_ready(struct kp_eval_worker *w, double limit_s, struct kp_error *err)
{
	struct kp_buf b = KP_BUF_INIT, tail = KP_BUF_INIT;
	json_t *ready = NULL;
	int rc;

	kp_buf_init(&b, LINE_CAP);
	if ((rc = read_json_line(w->ready_fd, &b, limit_s, "starting the warm worker", &ready, err)) ==
	    KP_ECANCELED) {
		abandon(w); /* still ours and still importing: it ends with the wait */
		kp_buf_release(&b);
		return rc;
	}
	if (rc) {
		log_tail(w->log_path.buf, &tail);
		kp_error_set(err, rc, "the warm worker did not start (log '%s')%s", w->log_path.buf,
		             tail.buf);
	} else if (kp_json_str(ready, "error", NULL)) {
		rc = kp_error_set(err, KP_ENOTOOL, "the warm worker refused to start: %s",
		                  kp_json_str(ready, "error", "?"));
	}
	close(w->ready_fd);
	w->ready_fd = -1;
	w->group = 0;
	json_decref(ready);
	kp_buf_release(&b);
	kp_buf_release(&tail);
	return rc;
}

/*
 * A connection to the worker at the socket: the one we launched once it says it serves, one another
 * kernelpro is starting (its lock held) once it binds, or one we launch now when there is neither, all
 * within $KERNELPRO_WORKER_START_S seconds (default 180).
 */
static int reach(struct kp_eval_worker *w, int *out, struct kp_error *err)
{
	double limit = env_seconds("KERNELPRO_WORKER_START_S", 180), end = kp_now() + limit;
	int spawns = 0, fd, rc;

	for (;;) {
		if (w->ready_fd >= 0) {
			spawns++;
			if ((rc = await_ready(w, end > kp_now() ? end - kp_now() : 0, err)))
				return rc;
		}
		if ((fd = sock_connect(w->sock.buf)) >= 0) {
			*out = fd;
			return 0;
		}
		if (!lock_held(w)) {
			/* Twice: a worker launched while another held the lock for a moment found it taken.
			 */
			if (spawns >= 2)
				return kp_error_set(err, KP_EIO,
				                    "cannot connect to the warm worker at '%s': %s",
				                    w->sock.buf, strerror(-fd));
			if ((rc = spawn(w, err)))
				return rc;
			continue;
		}
		if (kp_child_canceled())
			return kp_error_set(err, KP_ECANCELED, "waiting for the warm worker: canceled");
		if (kp_now() >= end)
			return kp_error_set(
			    err, KP_ETIMEOUT,
			    "the warm worker another kernelpro is starting did not serve within %.0f s "
			    "(its log '%s')",
			    limit, w->log_path.buf);
		poll(NULL, 0, 50);
	}
}

static int hello(struct kp_eval_worker *w, struct kp_error *err)
{
	json_t *msg = NULL;
	const json_t *h;
	int rc;

	if ((rc = read_json_line(w->fd, &w->rbuf, HELLO_S, "warm worker", &msg, err)))
		return rc;
	h = json_object_get(msg, "hello");
	if (!json_is_object(h) || kp_json_int(h, "version", 0) != PROTO_VERSION) {
		json_decref(msg);
		return kp_error_set(err, KP_EPARSE, "the warm worker speaks another protocol (want version %d)",
				    PROTO_VERSION);
	}
	w->hello = json_incref((json_t *)h);
	json_decref(msg);
	return 0;
}

int kp_eval_worker_launch(int gpu, const struct kp_eval_opts *o, struct kp_eval_worker **out,
                          struct kp_error *err)
{
	const char *py = o && o->python ? o->python : getenv("KERNELPRO_PYTHON");
	struct kp_eval_worker *w = kp_xcalloc(1, sizeof(*w));
	struct kp_buf dir = KP_BUF_INIT;
	char key[65];
	int fd, rc = 0;

	*out = NULL;
	w->fd = w->ready_fd = -1;
	w->rbuf = (struct kp_buf)KP_BUF_INIT;
	w->sock = (struct kp_buf)KP_BUF_INIT;
	w->log_path = (struct kp_buf)KP_BUF_INIT;
	kp_strvec_init(&w->genv);
	kp_buf_init(&w->rbuf, LINE_CAP);
	w->python = kp_which(py && *py ? py : "python3");
	w->script = kp_find_data("harness/kp_worker.py");
	w->adapter = kp_find_data("harness/kp_torch.py");
	if (!w->python || !w->script || !w->adapter) {
		rc = kp_error_set(err, KP_ENOTOOL, "no warm worker: %s not found",
		                  !w->python ? "python3"
		                             : "harness/kp_worker.py or kp_torch.py (set KERNELPRO_HOME)");
		goto out;
	}
	if ((rc = kp_eval_gpu_env(gpu, &w->genv, err)) || (rc = runtime_dir(&dir, err)))
		goto out;
	kp_strvec_pushl(&w->genv, "PYTHONDONTWRITEBYTECODE=1", "PYTHONUNBUFFERED=1", NULL);
	/* The sandbox prelude runs in each forked child (kp_torch.main): it finds libkp_sandbox.so here
	 * (each job's environment names it too; a worker started without it is another worker). */
	kp_eval_sandbox_env(&w->genv);
	worker_key(w->python, w->script, w->adapter, &w->genv, key);
	kp_buf_addf(&w->sock, "%s/w%d-%.16s.sock", dir.buf, gpu, key);
	kp_buf_addf(&w->log_path, "%s/w%d-%.16s.log", dir.buf, gpu, key);
	fd = sock_connect(w->sock.buf);
	if (fd == -ENAMETOOLONG) {
		rc = kp_error_set(err, KP_EINVAL,
		                  "worker socket path '%s' is too long (set KERNELPRO_WORKER_DIR)",
		                  w->sock.buf);
		goto out;
	}
	if (fd >= 0)
		close(fd); /* one serves: kp_eval_worker_connect takes it */
	else if (!lock_held(w))
		rc = spawn(w, err);
	if (!rc)
		*out = w;
out:
	if (rc)
		kp_eval_worker_stop(w, 0);
	kp_buf_release(&dir);
	return rc;
}

int kp_eval_worker_connect(struct kp_eval_worker *w, struct kp_error *err)
{
	int rc = 0;

	if (w->fd >= 0)
		return 0;
	/* A worker that is going away (idle) may take our connection and close it: then start anew, once. */
	for (int attempt = 0; attempt < 2; attempt++) {
		kp_buf_reset(&w->rbuf);
		json_decref(w->hello);
		w->hello = NULL;
		if ((rc = reach(w, &w->fd, err)))
			return rc;
		if ((rc = hello(w, err)) == 0)
			return 0;
		close(w->fd);
		w->fd = -1;
	}
	return rc;
}

int kp_eval_worker_start(int gpu, const struct kp_eval_opts *o, struct kp_eval_worker **out,
                         struct kp_error *err)
{
	int rc = kp_eval_worker_launch(gpu, o, out, err);
	if (!rc && (rc = kp_eval_worker_connect(*out, err))) {
		kp_eval_worker_stop(*out, 0);
		*out = NULL;
	}
	return rc;
}

int kp_eval_worker_fd(const struct kp_eval_worker *w)
{
	return w ? w->fd : -1;
}

const json_t *kp_eval_worker_hello(const struct kp_eval_worker *w)
{
	return w ? w->hello : NULL;
}

/* --- the connection (worker_job.c too) ---------------------------------------------------------- */

int kp__worker_send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* The worker exits once its running job ends (it keeps serving other clients' jobs until then). A handle
 * not connected asks through a connection of its own. */
void kp__worker_ask_shutdown(struct kp_eval_worker *w)
{
	static const char req[] = "{\"op\": \"shutdown\"}\n";
	int fd = w->fd >= 0 ? w->fd : w->sock.len ? sock_connect(w->sock.buf) : -1;
	if (fd >= 0)
		kp__worker_send_all(fd, req, sizeof(req) - 1);
	if (fd >= 0 && fd != w->fd)
		close(fd);
}

void kp_eval_worker_stop(struct kp_eval_worker *w, int shutdown)
{
	if (!w)
		return;
	if (shutdown)
		kp__worker_ask_shutdown(w);
	abandon(w);
	/* The worker drops the jobs of a client that goes away; ours run cold when finished. */
	kp__worker_broken(w);
	json_decref(w->hello);
	kp_buf_release(&w->rbuf);
	kp_buf_release(&w->sock);
	kp_buf_release(&w->log_path);
	kp_strvec_release(&w->genv);
	free(w->python);
	free(w->script);
	free(w->adapter);
	free(w);
}
