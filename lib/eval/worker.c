/* The warm worker's client: finding or starting the per-GPU worker (harness/kp_worker.py), its
 * socket protocol, and evaluations that run in it (kp_eval_submit, kp_eval_job_poll, _finish),
 * with a cold start whenever the worker cannot be had or misbehaves. */
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
#include "kernelpro/fs.h"
#include "kernelpro/hash.h"
#include "kernelpro/json.h"
#include "kernelpro/log.h"
#include "kernelpro/str.h"

#define PROTO_VERSION 1
#define LINE_CAP (1u << 20)  /* the worker's events are small; a longer line is a broken worker */
#define HELLO_S 10.0          /* a running worker answers a connection at once */
#define GRACE_S 2.0           /* the worker's SIGTERM-to-SIGKILL grace */
#define BACKSTOP_S 30.0       /* past limit + grace + this, we stop trusting the worker with the job */
/* torch's words when it refuses CUDA in a child forked from a process that had called into CUDA
 * (harness/kp_worker.py: FORK_ERROR). The worker's fault, never the candidate's. */
#define FORK_ERROR "Cannot re-initialize CUDA in forked subprocess"

/* Import-time environment: a worker started under other values would import something else. */
static const char *const key_env[] = {"PATH",      "PYTHONPATH", "PYTHONHOME", "LD_LIBRARY_PATH",
				      "LD_PRELOAD", "CUDA_HOME",  "CUDA_PATH",  NULL};

struct kp_eval_worker {
	int fd;        /* the connection; -1 before kp_eval_worker_connect and once the worker is gone */
	char *python;  /* the resolved interpreter the worker runs */
	char *adapter; /* harness/kp_torch.py: jobs running it run in-process in the fork */
	char *script;  /* harness/kp_worker.py */
	struct kp_strvec genv; /* the worker's environment (GPU, sandbox library), part of its key */
	struct kp_buf sock, log_path;
	int ready_fd; /* a worker we launched says here when it serves (its ready line); -1 */
	pid_t group;  /* that worker's process group (its session), while ready_fd is open */
	json_t *hello;
	struct kp_buf rbuf;
	struct kp_eval_job *jobs; /* submitted to the worker, not yet answered */
	long next_id;
};

enum job_state {
	JOB_NO_RUN,  /* the verdict needs no harness run (refused, compile error, build-only) */
	JOB_STAGED,  /* checked and built (kp_eval_stage), not yet handed to a worker */
	JOB_QUEUED,  /* sent to the worker */
	JOB_STARTED, /* the worker forked it */
	JOB_DONE,    /* ended in the worker: `ran` says how */
	JOB_COLD,    /* to run as a fresh child when finished */
};

struct kp_eval_job {
	struct kp_eval_worker *w;
	struct kp_eval_job *next;
	struct kp_eval_pending p;
	struct kp_verdict v;
	enum job_state state;
	int in_process; /* the worker's forked child runs the adapter itself */
	long id;
	pid_t pid;
	double started_at;
	struct kp_child ran;
	struct kp_buf out_path, err_path;
};

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
static void merged_env(const struct kp_strvec *extra, struct kp_strvec *out)
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
	merged_env(genv, &envp);
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
static int read_some(int fd, struct kp_buf *b, long timeout_ms)
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
static int take_line(struct kp_buf *b, struct kp_buf *line)
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
	while (!take_line(b, &line)) {
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
		r = read_some(fd, b, ms < CANCEL_POLL_MS ? ms : CANCEL_POLL_MS);
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

/* --- jobs ------------------------------------------------------------------------------------------- */

static void unlink_job(struct kp_eval_job *j)
{
	if (!j->w)
		return;
	for (struct kp_eval_job **pp = &j->w->jobs; *pp; pp = &(*pp)->next)
		if (*pp == j) {
			*pp = j->next;
			break;
		}
	j->next = NULL;
	j->w = NULL;
}

/* The worker is gone or not to be trusted: its jobs run cold, and it gets no more. */
static void worker_broken(struct kp_eval_worker *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	while (w->jobs) {
		struct kp_eval_job *j = w->jobs;
		if (j->state == JOB_STARTED && j->pid > 0)
			kill(-j->pid, SIGKILL);
		j->state = JOB_COLD;
		unlink_job(j);
	}
}

static int send_all(int fd, const char *p, size_t n)
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

/* Whether the cold command is `python3 -B harness/kp_torch.py` for the worker's interpreter: then the
 * forked child runs the adapter's main() itself; anything else (the native harness) it execs. */
static int runs_in_process(const struct kp_eval_worker *w, const struct kp_eval_cmd *cmd)
{
	char *py;
	int same;
	if (cmd->argv.n != 3 || strcmp(cmd->argv.v[2], w->adapter))
		return 0;
	py = kp_which(cmd->argv.v[0]);
	same = py && !strcmp(py, w->python);
	free(py);
	return same;
}

static int send_job(struct kp_eval_worker *w, struct kp_eval_job *j, struct kp_error *err)
{
	const struct kp_eval_cmd *cmd = &j->p.cmd;
	struct kp_buf in_path = KP_BUF_INIT, line = KP_BUF_INIT;
	struct kp_strvec env = KP_STRVEC_INIT;
	json_t *req = json_object(), *a;
	char cwd[4096];
	int rc = 0;

	kp_path_join(&in_path, cmd->work_dir, "harness.in");
	kp_path_join(&j->out_path, cmd->work_dir, "harness.out");
	kp_path_join(&j->err_path, cmd->work_dir, "harness.err");
	if ((rc = kp_write_file_atomic(in_path.buf, cmd->input.buf, cmd->input.len, err)))
		goto out;
	if (!getcwd(cwd, sizeof(cwd))) {
		rc = kp_error_set(err, KP_EIO, "getcwd: %s", strerror(errno));
		goto out;
	}
	j->id = ++w->next_id;
	merged_env(&cmd->env, &env);
	kp_json_set(req, "op", json_string("run"));
	kp_json_set(req, "id", json_integer(j->id));
	a = json_array();
	for (size_t i = 0; i < cmd->argv.n; i++)
		json_array_append_new(a, json_string(cmd->argv.v[i]));
	kp_json_set(req, "argv", a);
	a = json_array();
	for (size_t i = 0; i < env.n; i++)
		json_array_append_new(a, json_string(env.v[i]));
	kp_json_set(req, "env", a);
	kp_json_set(req, "cwd", json_string(cwd));
	kp_json_set(req, "stdin", json_string(in_path.buf));
	kp_json_set(req, "out", json_string(j->out_path.buf));
	kp_json_set(req, "err", json_string(j->err_path.buf));
	kp_json_set(req, "out_cap", json_integer(KP_EVAL_OUT_CAP));
	kp_json_set(req, "err_cap", json_integer(KP_EVAL_ERR_CAP));
	kp_json_set(req, "timeout_s", json_real(cmd->timeout_s));
	j->in_process = runs_in_process(w, cmd);
	kp_json_set(req, "in_process", json_boolean(j->in_process));
	if (kp_json_dump_buf(req, &line, 1) || kp_buf_addch(&line, '\n') || send_all(w->fd, line.buf, line.len)) {
		rc = kp_error_set(err, KP_EIO, "the warm worker did not take the job");
		goto out;
	}
	j->w = w;
	j->next = w->jobs;
	w->jobs = j;
	j->state = JOB_QUEUED;
out:
	json_decref(req);
	kp_strvec_release(&env);
	kp_buf_release(&in_path);
	kp_buf_release(&line);
	return rc;
}

/* How the job ended, as kp_child would have reported it: the worker's account and the output files. */
static void job_ended(struct kp_eval_job *j, const json_t *done)
{
	struct kp_child *c = &j->ran;
	const json_t *code = json_object_get(done, "exit_code");

	c->exit_code = json_is_integer(code) ? (int)json_integer_value(code) : -1;
	c->term_signal = (int)kp_json_int(done, "signal", 0);
	c->timed_out = kp_json_bool(done, "timed_out", 0) ? 1 : 0;
	c->elapsed_s = kp_json_num(done, "elapsed_s", kp_now() - j->started_at);
	c->out_total = (size_t)kp_json_int(done, "out_total", 0);
	c->err_total = (size_t)kp_json_int(done, "err_total", 0);
	c->out_truncated = kp_json_bool(done, "out_truncated", 0) ? 1 : 0;
	c->err_truncated = kp_json_bool(done, "err_truncated", 0) ? 1 : 0;
	c->pid = j->pid;
	c->timeout_ms = (long)(j->p.cmd.timeout_s * 1000);
	kp_read_file(j->out_path.buf, KP_EVAL_OUT_CAP, &c->out, NULL);
	kp_read_file(j->err_path.buf, KP_EVAL_ERR_CAP, &c->err, NULL);
	j->state = JOB_DONE;
	unlink_job(j);
}

static struct kp_eval_job *find_job(struct kp_eval_worker *w, long id)
{
	for (struct kp_eval_job *j = w->jobs; j; j = j->next)
		if (j->id == id)
			return j;
	return NULL;
}

/* The worker exits once its running job ends (it keeps serving other clients' jobs until then). A handle
 * not connected asks through a connection of its own. */
static void ask_shutdown(struct kp_eval_worker *w)
{
	static const char req[] = "{\"op\": \"shutdown\"}\n";
	int fd = w->fd >= 0 ? w->fd : w->sock.len ? sock_connect(w->sock.buf) : -1;
	if (fd >= 0)
		send_all(fd, req, sizeof(req) - 1);
	if (fd >= 0 && fd != w->fd)
		close(fd);
}

static int has_text(const struct kp_buf *b, const char *s)
{
	return b->buf && memmem(b->buf, b->len, s, strlen(s)) != NULL;
}

/*
 * A child the worker forked in which torch refused CUDA (its fork handler was registered in the
 * worker: kp_worker.py's probe should have refused to serve). Whatever the verdict would say is the
 * worker's fault: the job runs cold, and the worker is asked to go (it is broken for everyone).
 */
static int refused_cuda_in_fork(struct kp_eval_worker *w, struct kp_eval_job *j)
{
	if (!j->in_process || (!has_text(&j->ran.out, FORK_ERROR) && !has_text(&j->ran.err, FORK_ERROR)))
		return 0;
	kp_warn("warm worker: torch refused CUDA in the child it forked ('%s'); running the evaluation cold and "
		"stopping this worker (its log is in the worker directory)",
		FORK_ERROR);
	kp_child_release(&j->ran);
	kp_child_init(&j->ran);
	j->state = JOB_COLD;
	ask_shutdown(w);
	worker_broken(w);
	return 1;
}

static void event(struct kp_eval_worker *w, const json_t *ev)
{
	struct kp_eval_job *j = find_job(w, (long)kp_json_int(ev, "id", -1));
	if (!j)
		return;
	if (json_is_integer(json_object_get(ev, "started"))) {
		j->pid = (pid_t)kp_json_int(ev, "started", 0);
		j->started_at = kp_now();
		j->state = JOB_STARTED;
	} else if (json_is_object(json_object_get(ev, "done"))) {
		job_ended(j, json_object_get(ev, "done"));
		refused_cuda_in_fork(w, j);
	} else if (kp_json_str(ev, "error", NULL)) {
		kp_warn("warm worker: %s; running the evaluation cold", kp_json_str(ev, "error", "?"));
		j->state = JOB_COLD;
		unlink_job(j);
	}
}

/* A job past its limit that the worker did not end: we end it and stop trusting the worker. */
static void backstop(struct kp_eval_worker *w)
{
	double now = kp_now();
	for (struct kp_eval_job *j = w->jobs; j; j = j->next) {
		if (j->state != JOB_STARTED || now - j->started_at < j->p.cmd.timeout_s + GRACE_S + BACKSTOP_S)
			continue;
		kill(-j->pid, SIGKILL);
		kp_warn("warm worker: job %ld outlived its limit by %.0f s; not using this worker again", j->id,
			now - j->started_at - j->p.cmd.timeout_s);
		job_ended(j, NULL); /* a timeout, with what the job wrote so far */
		j->ran.timed_out = 1;
		j->ran.term_signal = SIGKILL;
		worker_broken(w);
		return;
	}
}

/* Reads the worker's events for up to timeout_ms and applies them. */
static void worker_read(struct kp_eval_worker *w, long timeout_ms)
{
	struct kp_buf line = KP_BUF_INIT;
	json_t *ev;
	int r;

	if (w->fd < 0)
		return;
	r = read_some(w->fd, &w->rbuf, timeout_ms);
	while (r >= 0 && take_line(&w->rbuf, &line)) {
		if (kp_json_load_mem("warm worker", line.buf, line.len, &ev, NULL) == 0) {
			event(w, ev);
			json_decref(ev);
		}
	}
	kp_buf_release(&line);
	if (r < 0) {
		if (w->jobs)
			kp_warn("warm worker: the connection closed with %s pending; running them cold",
				w->jobs->next ? "evaluations" : "an evaluation");
		worker_broken(w);
		return;
	}
	backstop(w);
}

int kp_eval_stage(const struct kp_task *task, const char *src, size_t len, const char *name,
		  const struct kp_eval_opts *o, struct kp_eval_job **out, struct kp_error *err)
{
	struct kp_eval_job *j = kp_xcalloc(1, sizeof(*j));
	int rc;

	*out = NULL;
	kp_verdict_init(&j->v);
	kp_child_init(&j->ran);
	j->out_path = (struct kp_buf)KP_BUF_INIT;
	j->err_path = (struct kp_buf)KP_BUF_INIT;
	if ((rc = kp_eval_begin(&j->p, task, src, len, name, o, &j->v, err))) {
		kp_eval_pending_release(&j->p);
		kp_verdict_release(&j->v);
		free(j);
		return rc;
	}
	j->state = j->p.done ? JOB_NO_RUN : JOB_STAGED;
	*out = j;
	return 0;
}

void kp_eval_job_start(struct kp_eval_worker *w, struct kp_eval_job *j)
{
	struct kp_error ignored = KP_ERROR_INIT;

	if (j->state != JOB_STAGED)
		return;
	if (!w || w->fd < 0) {
		j->state = JOB_COLD;
	} else if (send_job(w, j, &ignored)) {
		kp_warn("%s; running the evaluation cold", ignored.msg);
		worker_broken(w);
		j->state = JOB_COLD;
	}
}

int kp_eval_submit(struct kp_eval_worker *w, const struct kp_task *task, const char *src, size_t len,
		   const char *name, const struct kp_eval_opts *o, struct kp_eval_job **out, struct kp_error *err)
{
	int rc = kp_eval_stage(task, src, len, name, o, out, err);
	if (!rc)
		kp_eval_job_start(w, *out);
	return rc;
}

int kp_eval_job_poll(struct kp_eval_job *j, long timeout_ms)
{
	if ((j->state == JOB_QUEUED || j->state == JOB_STARTED) && j->w)
		worker_read(j->w, timeout_ms);
	/*
	 * A stop (Ctrl-C, kp_child_set_cancel): the running job's group is killed and the connection
	 * closed (the worker drops the rest); the jobs fall back to a cold start, which kp_child refuses
	 * at once (KP_ECANCELED), as for an evaluation without the worker.
	 */
	if ((j->state == JOB_QUEUED || j->state == JOB_STARTED) && j->w && kp_child_canceled())
		worker_broken(j->w);
	return j->state != JOB_QUEUED && j->state != JOB_STARTED;
}

int kp_eval_job_finish(struct kp_eval_job *j, struct kp_verdict *v, struct kp_error *err)
{
	struct kp_child c = KP_CHILD_INIT;
	int rc = 0;

	while (!kp_eval_job_poll(j, 250))
		;
	if (j->state == JOB_NO_RUN)
		rc = kp_eval_end(&j->p, NULL, &j->v, err);
	else if (j->state == JOB_DONE)
		rc = kp_eval_end(&j->p, &j->ran, &j->v, err);
	else if ((rc = kp_eval_run_child(&j->p.cmd, &c, err)) == 0)
		rc = kp_eval_end(&j->p, &c, &j->v, err);
	else {
		j->v.status = KP_STATUS_NONE;
		kp_eval_pending_release(&j->p);
	}
	kp_verdict_release(v);
	*v = j->v; /* the verdict's storage moves to the caller */
	kp_child_release(&c);
	kp_child_release(&j->ran);
	kp_buf_release(&j->out_path);
	kp_buf_release(&j->err_path);
	free(j);
	return rc;
}

void kp_eval_job_discard(struct kp_eval_job *j)
{
	if (!j)
		return;
	if (j->w && j->state == JOB_STARTED && j->pid > 0)
		kill(-j->pid, SIGKILL);
	unlink_job(j);
	kp_eval_pending_release(&j->p);
	kp_verdict_release(&j->v);
	kp_child_release(&j->ran);
	kp_buf_release(&j->out_path);
	kp_buf_release(&j->err_path);
	free(j);
}

void kp_eval_worker_stop(struct kp_eval_worker *w, int shutdown)
{
	if (!w)
		return;
	if (shutdown)
		ask_shutdown(w);
	abandon(w);
	/* The worker drops the jobs of a client that goes away; ours run cold when finished. */
	worker_broken(w);
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
