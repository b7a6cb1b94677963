/*
 * kp_child: fork/exec from an argv vector, own process group, allow-listed environment, capped capture,
 * time limit, cancel.
 */
#include "base/setup.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/child_int.h"
#include "kernelpro/child.h"
#include "kernelpro/fault.h"
#include "kernelpro/log.h"
#include "kernelpro/secret.h"

extern char **environ;

void kp_child_init(struct kp_child *c)
{
	memset(c, 0, sizeof(*c));
	kp_buf_init(&c->out, 0);
	kp_buf_init(&c->err, 0);
}

void kp_child_release(struct kp_child *c)
{
	kp_strvec_release(&c->args);
	kp_strvec_release(&c->env);
	kp_strvec_release(&c->env_keep);
	kp_strvec_release(&c->env_unset);
	kp_buf_release(&c->out);
	kp_buf_release(&c->err);
}

/* --- Process-wide: the cancel flag the program passes, and the children running now ----------------- */

/*
 * Like git's run-command (its children_to_clean list), this is the one piece of process-wide state
 * in lib/: the processes a program started are a property of the process, and only the program's
 * signal handler can reach them when it is about to exit. The library sets no handler itself.
 */
static const volatile sig_atomic_t *process_cancel;

#define MAX_LIVE 256
static atomic_int live[MAX_LIVE]; /* pids of running children (their group ids); 0: a free slot */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "kp_child_kill_all must be async-signal-safe: lock-free atomics");
_Static_assert(sizeof(pid_t) == sizeof(int), "live[] holds pids as ints");

void kp_child_set_cancel(const volatile sig_atomic_t *flag)
{
	process_cancel = flag;
}

int kp_child_canceled(void)
{
	return process_cancel && *process_cancel;
}

static int cancel_requested(const struct kp_child *c)
{
	return (!c->stop_proof && kp_child_canceled()) || (c->cancel && c->cancel(c->cancel_ud));
}

/* More children than slots at once are not listed: they still die with their parent (PDEATHSIG). */
static void live_add(pid_t pid)
{
	for (size_t i = 0; i < MAX_LIVE; i++) {
		int free_slot = 0;
		if (atomic_compare_exchange_strong(&live[i], &free_slot, (int)pid))
			return;
	}
}

static void live_remove(pid_t pid)
{
	for (size_t i = 0; i < MAX_LIVE; i++) {
		int mine = (int)pid;
		if (atomic_compare_exchange_strong(&live[i], &mine, 0))
			return;
	}
}

void kp_child_kill_all(void)
{
	for (size_t i = 0; i < MAX_LIVE; i++) {
		pid_t pid = (pid_t)atomic_load(&live[i]);
		if (pid > 0) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
		}
	}
}

/* --- The environment a child inherits ------------------------------------------------------------ */

/* Passed whole: what compilers, Python, PyTorch, ncu and the harness read. */
static const char *const env_names[] = {
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TERM", "NO_COLOR",
	"TMPDIR", "TMP", "TEMP", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR",
	"LD_LIBRARY_PATH", "LIBRARY_PATH", "CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH",
	"CC", "CXX", "CFLAGS", "CXXFLAGS", "LDFLAGS", "CUDAHOSTCXX", "CUTLASS_PATH", "MAX_JOBS",
	"VIRTUAL_ENV", "CONDA_PREFIX", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS",
	"ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS",
	/* A profiler or sanitizer that kernelpro itself runs under (`ncu --target-processes all
	 * kernelpro eval --profile-run`) follows the harness through these. */
	"LD_PRELOAD",
};
/*
 * Passed by prefix: CUDA and driver settings, the toolchain's, Python's, PyTorch's and Triton's, ours,
 * and Slurm's job (an evaluator started inside an allocation runs `srun` steps in it).
 */
static const char *const env_prefixes[] = {
	"LC_", "CUDA_", "NVIDIA_", "NV_", "NVCC_", "CUBLAS", "CUDNN_", "NCCL_",
	"PYTHON", "PYTORCH_", "TORCH", "TRITON_", "KERNELPRO_", "KP_", "SLURM_",
	"NVTX_", "NSYS_", "NSIGHT_", /* NVTX_INJECTION64_PATH: ncu's --nvtx-include sees our ranges */
};
static int allowed_n(const char *name, size_t n)
{
	int listed = 0;
	for (size_t i = 0; i < KP_ARRAY_SIZE(env_names) && !listed; i++)
		listed = strlen(env_names[i]) == n && !strncmp(name, env_names[i], n);
	for (size_t i = 0; i < KP_ARRAY_SIZE(env_prefixes) && !listed; i++) {
		size_t k = strlen(env_prefixes[i]);
		listed = n > k && !strncmp(name, env_prefixes[i], k);
	}
	/* A name holding a secret word is held back even in an allowed family (KERNELPRO_API_KEY, SLURM_JWT). */
	return listed && !kp_secret_name(name, n);
}

int kp_child_env_allowed(const char *name)
{
	return name && allowed_n(name, strlen(name));
}

/* True when the comma- (or space-) separated list holds the name name[0..n). */
static int list_has(const char *list, const char *name, size_t n)
{
	for (const char *p = list; p && *p;) {
		size_t len = strcspn(p, ", ");
		if (len == n && !strncmp(p, name, n))
			return 1;
		p += len;
		p += strspn(p, ", ");
	}
	return 0;
}

static int is_executable(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

static char *which_in(const char *name, const char *path)
{
	struct kp_buf cand = KP_BUF_INIT;
	const char *p = path;
	if (strchr(name, '/'))
		return is_executable(name) ? kp_xstrdup(name) : NULL;
	if (!path || !*path)
		path = p = "/usr/local/bin:/usr/bin:/bin";
	while (*p) {
		const char *q = strchr(p, ':');
		size_t n = q ? (size_t)(q - p) : strlen(p);
		kp_buf_reset(&cand);
		if (n == 0)
			kp_buf_adds(&cand, ".");
		else
			kp_buf_add(&cand, p, n);
		kp_buf_addf(&cand, "/%s", name);
		if (is_executable(cand.buf))
			return kp_buf_detach(&cand, NULL);
		p += n;
		if (*p == ':')
			p++;
	}
	kp_buf_release(&cand);
	return NULL;
}

char *kp_which(const char *name)
{
	return which_in(name, getenv("PATH"));
}

static int env_name_matches(const char *entry, const char *name, size_t n)
{
	return !strncmp(entry, name, n) && entry[n] == '=';
}

/* Whether the parent's variable name[0..n) passes to the child (see child.h). */
static int inherits(const struct kp_child *c, const char *name, size_t n, const char *pass)
{
	for (size_t i = 0; i < c->env_unset.n; i++)
		if (strlen(c->env_unset.v[i]) == n && !strncmp(name, c->env_unset.v[i], n))
			return 0;
	for (size_t i = 0; i < c->env.n; i++)
		if (env_name_matches(c->env.v[i], name, n))
			return 0; /* set anew below */
	if (c->inherit_env || allowed_n(name, n))
		return 1;
	for (size_t i = 0; i < c->env_keep.n; i++)
		if (strlen(c->env_keep.v[i]) == n && !strncmp(name, c->env_keep.v[i], n))
			return 1;
	return pass && list_has(pass, name, n);
}

void kp_child_environment(const struct kp_child *c, struct kp_strvec *out)
{
	const char *pass = getenv("KERNELPRO_PASS_ENV");
	for (char **e = environ; e && *e && !c->env_clear; e++) {
		const char *eq = strchr(*e, '=');
		if (eq && inherits(c, *e, (size_t)(eq - *e), pass))
			kp_strvec_push(out, *e);
	}
	/* The secrets kp_secret_hold_env took out of our environment: the same rules. */
	for (const char *const *e = kp_secret_held(); *e && !c->env_clear; e++) {
		const char *eq = strchr(*e, '=');
		if (eq && inherits(c, *e, (size_t)(eq - *e), pass))
			kp_strvec_push(out, *e);
	}
	for (size_t i = 0; i < c->env.n; i++)
		kp_strvec_push(out, c->env.v[i]);
}

static const char *env_get(const struct kp_strvec *env, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < env->n; i++)
		if (env_name_matches(env->v[i], name, n))
			return env->v[i] + n + 1;
	return NULL;
}

static void set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static void close_fd(int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
	}
}

/* Reads what is available on fd into b (up to cap); returns 0 at EOF, 1 otherwise. */
static int drain(int fd, struct kp_buf *b, size_t cap, size_t *total, int *truncated)
{
	char chunk[65536];
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n == 0)
			return 0;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 1;
			return 0;
		}
		*total += (size_t)n;
		if (b->len < cap) {
			size_t keep = (size_t)n;
			if (keep > cap - b->len) {
				keep = cap - b->len;
				*truncated = 1;
			}
			kp_buf_add(b, chunk, keep);
		} else {
			*truncated = 1;
		}
	}
}

/* Writes to a pipe whose reader may be gone without letting SIGPIPE kill us. */
static ssize_t write_nosigpipe(int fd, const void *data, size_t n)
{
	sigset_t block, old, pending;
	ssize_t w;
	int saved;
	sigemptyset(&block);
	sigaddset(&block, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	w = write(fd, data, n);
	saved = errno;
	if (w < 0 && saved == EPIPE) {
		struct timespec zero = {0, 0};
		sigpending(&pending);
		if (sigismember(&pending, SIGPIPE))
			sigtimedwait(&block, NULL, &zero);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = saved;
	return w;
}

static _Noreturn void child_exec(const struct kp_child *c, const char *prog, char **envp, int in_fd,
				 int out_fd, int err_fd, int report_fd, pid_t parent)
{
	int e;
	struct sigaction sa;
	sigset_t none;

	setpgid(0, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (int s = 1; s < NSIG; s++)
		sigaction(s, &sa, NULL);

	if (in_fd >= 0)
		dup2(in_fd, 0);
	if (out_fd >= 0)
		dup2(out_fd, 1);
	if (c->merge_stderr && out_fd >= 0)
		dup2(out_fd, 2);
	else if (err_fd >= 0)
		dup2(err_fd, 2);
	/* From here on the program; this process stays behind as the keeper of its tree (Linux). */
	kp__child_keep(parent, report_fd);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (c->cwd && chdir(c->cwd) != 0) {
		e = errno;
		(void)!write(report_fd, &e, sizeof(e));
		_exit(127);
	}
	execve(prog, c->args.v, envp);
	e = errno;
	(void)!write(report_fd, &e, sizeof(e));
	_exit(127);
}

/* --- One run: spawn, then feed stdin and collect output until the child is gone, then reap ---------- */

/* The parent's side of a running child. fds are -1 once closed. */
struct run {
	pid_t pid;
	int in_fd, out_fd, err_fd; /* our ends of the child's stdin, stdout, stderr */
	size_t in_off;             /* stdin bytes written so far */
	size_t out_cap, err_cap;
	int out_trunc, err_trunc;
	long grace_ms;             /* between SIGTERM and SIGKILL */
	double start, term_at;     /* term_at: when the group got SIGTERM (stopping) */
	int stopping, exited, group_killed, status;
};

static void run_init(struct run *r, const struct kp_child *c)
{
	memset(r, 0, sizeof(*r));
	r->in_fd = r->out_fd = r->err_fd = -1;
	r->out_cap = c->out_cap ? c->out_cap : KP_CHILD_DEFAULT_CAP;
	r->err_cap = c->err_cap ? c->err_cap : KP_CHILD_DEFAULT_CAP;
	r->grace_ms = c->kill_grace_ms > 0 ? c->kill_grace_ms : 2000;
}

static void run_close(struct run *r)
{
	close_fd(&r->in_fd);
	close_fd(&r->out_fd);
	close_fd(&r->err_fd);
}

static void reset_results(struct kp_child *c)
{
	kp_buf_reset(&c->out);
	kp_buf_reset(&c->err);
	c->out_total = c->err_total = 0;
	c->out_truncated = c->err_truncated = c->timed_out = c->canceled = c->output_capped = 0;
	c->exit_code = -1;
	c->term_signal = 0;
	c->elapsed_s = 0;
	c->pid = 0;
}

/* The pipes the child needs: exec report, stdout, stderr, stdin (or /dev/null). All close-on-exec. */
static int open_pipes(const struct kp_child *c, int in_p[2], int out_p[2], int err_p[2], int rep_p[2],
		      int *devnull, struct kp_error *err)
{
	if (pipe2(rep_p, O_CLOEXEC) || (!c->inherit_stdout && pipe2(out_p, O_CLOEXEC)) ||
	    (!c->inherit_stderr && !c->merge_stderr && pipe2(err_p, O_CLOEXEC)) ||
	    (c->stdin_data && !c->stdin_from_fd && pipe2(in_p, O_CLOEXEC)))
		return kp_error_set(err, KP_EIO, "child: cannot create pipes: %s", strerror(errno));
	if (!c->stdin_data && !c->stdin_from_fd && (*devnull = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)
		return kp_error_set(err, KP_EIO, "child: cannot open /dev/null: %s", strerror(errno));
	return 0;
}

/*
 * Waits for a child that has exited or is being killed. Its group goes first, while the unreaped
 * leader still holds the group id (so the id cannot have been reused), then the registry entry.
 */
static void reap_now(struct run *r)
{
	kill(-r->pid, SIGKILL);
	live_remove(r->pid);
	while (waitpid(r->pid, &r->status, 0) < 0 && errno == EINTR)
		;
	r->exited = 1;
	r->group_killed = 1;
}

/*
 * The report pipe closes on a successful exec (close-on-exec) or carries the exec's errno.
 * Returns 0 when the program is running, else the error (the child reaped).
 */
static int wait_exec(const struct kp_child *c, const char *prog, struct run *r, int rep_fd, struct kp_error *err)
{
	int e = 0;
	ssize_t n;
	do
		n = read(rep_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(e))
		return 0;
	reap_now(r);
	return kp_error_set(err, e == ENOENT || e == EACCES || e == ENOEXEC ? KP_ENOTOOL : KP_EIO, "cannot run '%s': %s",
			    prog, strerror(e));
}

/* Starts the program in its own process group. On success r holds the pid and our pipe ends. */
static int spawn(struct kp_child *c, struct run *r, struct kp_error *err)
{
	struct kp_strvec envv = KP_STRVEC_INIT;
	int in_p[2] = {-1, -1}, out_p[2] = {-1, -1}, err_p[2] = {-1, -1}, rep_p[2] = {-1, -1}, devnull = -1;
	char *prog;
	pid_t parent = getpid();
	int rc;

	kp_child_environment(c, &envv);
	kp_strvec_pushf(&envv, KP_CHILD_OWNER_VAR "=%s", kp_child_owner());
	prog = which_in(c->args.v[0], env_get(&envv, "PATH"));
	if (!prog) {
		rc = kp_error_set(err, KP_ENOTOOL, "cannot run '%s': not found%s", c->args.v[0],
				  strchr(c->args.v[0], '/') ? " or not executable" : " on PATH");
		goto out;
	}
	if ((rc = open_pipes(c, in_p, out_p, err_p, rep_p, &devnull, err)))
		goto out;
	r->start = kp_now();
	r->pid = fork();
	if (r->pid < 0) {
		rc = kp_error_set(err, KP_EIO, "child: fork failed: %s", strerror(errno));
		goto out;
	}
	if (r->pid == 0)
		child_exec(c, prog, envv.v, c->stdin_from_fd ? c->stdin_fd : c->stdin_data ? in_p[0] : devnull, out_p[1],
			   c->merge_stderr ? -1 : err_p[1], rep_p[1], parent);
	live_add(r->pid);
	c->pid = r->pid;
	setpgid(r->pid, r->pid); /* also done in the child; whichever runs first wins the race */
	/* The child's ends: ours would keep its pipes (the report pipe included) from ever reading EOF. */
	close_fd(&in_p[0]);
	if (c->stdin_from_fd)
		close_fd(&c->stdin_fd); /* the child's now; ours would keep a dead child's pipe writable */
	close_fd(&out_p[1]);
	close_fd(&err_p[1]);
	close_fd(&rep_p[1]);
	close_fd(&devnull);
	rc = wait_exec(c, prog, r, rep_p[0], err);
	if (rc)
		goto out;
	/* Ours from here; run_close() closes them. */
	r->in_fd = in_p[1], in_p[1] = -1;
	r->out_fd = out_p[0], out_p[0] = -1;
	r->err_fd = err_p[0], err_p[0] = -1;
out:
	for (int i = 0; i < 2; i++) {
		close_fd(&in_p[i]);
		close_fd(&out_p[i]);
		close_fd(&err_p[i]);
		close_fd(&rep_p[i]);
	}
	close_fd(&devnull);
	free(prog);
	kp_strvec_release(&envv);
	return rc;
}

/* SIGTERM to the group now; SIGKILL once grace_ms have passed (a shorter grace wins). */
static void begin_stop(struct run *r, double now, long grace_ms)
{
	if (!r->stopping) {
		kill(-r->pid, SIGTERM);
		kill(r->pid, SIGTERM);
		r->stopping = 1;
		r->term_at = now;
		r->grace_ms = grace_ms;
	} else if (grace_ms < r->grace_ms) {
		r->grace_ms = grace_ms;
	}
}

/* The time limit and the cancel flags: SIGTERM to the group, then SIGKILL after the grace period. */
static void enforce_limits(struct kp_child *c, struct run *r, double now)
{
	if (r->exited)
		return;
	if (c->timeout_ms > 0 && !c->timed_out && !c->canceled &&
	    (now - r->start) * 1000.0 >= (double)c->timeout_ms) {
		c->timed_out = 1;
		begin_stop(r, now, r->grace_ms);
	}
	if (!c->canceled && cancel_requested(c)) {
		long grace = r->grace_ms < KP_CHILD_CANCEL_GRACE_MS ? r->grace_ms : KP_CHILD_CANCEL_GRACE_MS;
		c->canceled = 1;
		begin_stop(r, now, grace);
	}
	if (r->stopping && !r->group_killed && (now - r->term_at) * 1000.0 >= (double)r->grace_ms) {
		kill(-r->pid, SIGKILL);
		kill(r->pid, SIGKILL);
		r->group_killed = 1;
	}
}

/* Reaps the child once it has exited; nothing it started may outlive it or hold our pipes open. */
static void reap_nowait(struct kp_child *c, struct run *r)
{
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	if (r->exited || waitid(P_PID, (id_t)r->pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0 ||
	    si.si_pid != r->pid)
		return;
	c->elapsed_s = kp_now() - r->start;
	reap_now(r);
}

/* Moves data on the descriptors poll found ready. */
static void transfer(struct kp_child *c, struct run *r, const struct pollfd *pfd, int nfd)
{
	for (int i = 0; i < nfd; i++) {
		if (!pfd[i].revents)
			continue;
		if (pfd[i].fd == r->out_fd) {
			if (!drain(r->out_fd, &c->out, r->out_cap, &c->out_total, &r->out_trunc))
				close_fd(&r->out_fd);
		} else if (pfd[i].fd == r->err_fd) {
			if (!drain(r->err_fd, &c->err, r->err_cap, &c->err_total, &r->err_trunc))
				close_fd(&r->err_fd);
		} else if (pfd[i].fd == r->in_fd) {
			ssize_t w = write_nosigpipe(r->in_fd, (const char *)c->stdin_data + r->in_off,
						    c->stdin_len - r->in_off);
			if (w > 0)
				r->in_off += (size_t)w;
			if ((w < 0 && errno != EAGAIN && errno != EINTR) || r->in_off >= c->stdin_len)
				close_fd(&r->in_fd);
		}
	}
	/* Reading on past the cap would only burn our CPU until the time limit: stop it now. */
	if (c->kill_at_cap && r->out_trunc && !r->group_killed && !r->exited) {
		c->output_capped = 1;
		kill(-r->pid, SIGKILL);
		kill(r->pid, SIGKILL);
		r->stopping = r->group_killed = 1;
	}
}

/* Feeds stdin and collects stdout and stderr until every pipe is closed and the child has exited. */
static int pump(struct kp_child *c, struct run *r, struct kp_error *err)
{
	if (r->out_fd >= 0)
		set_nonblock(r->out_fd);
	if (r->err_fd >= 0)
		set_nonblock(r->err_fd);
	if (r->in_fd >= 0) {
		set_nonblock(r->in_fd);
		if (c->stdin_len == 0)
			close_fd(&r->in_fd);
	}
	while (r->out_fd >= 0 || r->err_fd >= 0 || r->in_fd >= 0 || !r->exited) {
		struct pollfd pfd[3];
		int nfd = 0;

		enforce_limits(c, r, kp_now());
		reap_nowait(c, r);
		if (r->out_fd >= 0)
			pfd[nfd++] = (struct pollfd){.fd = r->out_fd, .events = POLLIN};
		if (r->err_fd >= 0)
			pfd[nfd++] = (struct pollfd){.fd = r->err_fd, .events = POLLIN};
		if (r->in_fd >= 0)
			pfd[nfd++] = (struct pollfd){.fd = r->in_fd, .events = POLLOUT};
		if (nfd == 0) {
			if (r->exited)
				break;
			struct timespec ts = {0, 10 * 1000 * 1000};
			nanosleep(&ts, NULL);
			continue;
		}
		if (poll(pfd, (nfds_t)nfd, 50) < 0 && errno != EINTR) {
			int rc = kp_error_set(err, KP_EIO, "child: poll failed: %s", strerror(errno));
			reap_now(r);
			return rc;
		}
		transfer(c, r, pfd, nfd);
	}
	return 0;
}

/* How the child ended, into the results. */
static void reap(struct kp_child *c, const struct run *r)
{
	c->out_truncated = (unsigned)r->out_trunc;
	c->err_truncated = (unsigned)r->err_trunc;
	if (WIFEXITED(r->status))
		c->exit_code = WEXITSTATUS(r->status);
	else if (WIFSIGNALED(r->status))
		c->term_signal = WTERMSIG(r->status);
}

int kp_child_run(struct kp_child *c, struct kp_error *err)
{
	struct run r;
	int rc;

	if ((rc = kp_fault(KP_FAULT_SPAWN, c->args.n ? c->args.v[0] : NULL, err)))
		goto out;
	reset_results(c);
	if (!c->args.n) {
		rc = kp_error_set(err, KP_EINVAL, "child: empty argument vector");
		goto out;
	}
	if (cancel_requested(c)) {
		c->canceled = 1;
		rc = kp_error_set(err, KP_ECANCELED, "'%s' not started: canceled", c->args.v[0]);
		goto out;
	}
	run_init(&r, c);
	rc = spawn(c, &r, err);
	if (!rc)
		rc = pump(c, &r, err);
	if (!rc)
		reap(c, &r);
	run_close(&r);
	if (!rc && c->canceled)
		rc = kp_error_set(err, KP_ECANCELED, "'%s' stopped: canceled", c->args.v[0]);
out:
	if (c->stdin_from_fd)
		close_fd(&c->stdin_fd);
	return rc;
}

int kp_child_feed(int fd, const void *data, size_t len, struct kp_error *err)
{
	size_t off = 0;
	while (off < len) {
		ssize_t w = write_nosigpipe(fd, (const char *)data + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return kp_error_set(err, KP_EIO, "cannot give the program its input: %s",
					    w < 0 ? strerror(errno) : "nothing written");
		off += (size_t)w;
	}
	return 0;
}

int kp_child_ok(const struct kp_child *c)
{
	return !c->timed_out && c->term_signal == 0 && c->exit_code == 0;
}

const char *kp_child_describe(const struct kp_child *c, char *buf, size_t n)
{
	if (c->timed_out)
		snprintf(buf, n, "timed out after %.1f s", (double)c->timeout_ms / 1000.0);
	else if (c->term_signal)
		snprintf(buf, n, "killed by signal %d (%s)", c->term_signal, strsignal(c->term_signal));
	else
		snprintf(buf, n, "exited with status %d", c->exit_code);
	return buf;
}
