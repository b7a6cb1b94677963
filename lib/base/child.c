/* kp_child: fork/exec from an argv vector, own process group, capped capture, time limit. */
#include "base/setup.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kernelpro/child.h"
#include "kernelpro/fault.h"
#include "kernelpro/log.h"

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
	kp_strvec_release(&c->env_unset);
	kp_buf_release(&c->out);
	kp_buf_release(&c->err);
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

/* Builds the child's environment: inherited (unless cleared) minus unset and overridden names, plus env. */
static void build_env(const struct kp_child *c, struct kp_strvec *out)
{
	if (!c->env_clear) {
		for (char **e = environ; e && *e; e++) {
			const char *eq = strchr(*e, '=');
			size_t n = eq ? (size_t)(eq - *e) : strlen(*e);
			int drop = 0;
			for (size_t i = 0; i < c->env_unset.n && !drop; i++)
				drop = strlen(c->env_unset.v[i]) == n && !strncmp(*e, c->env_unset.v[i], n);
			for (size_t i = 0; i < c->env.n && !drop; i++)
				drop = env_name_matches(c->env.v[i], *e, n);
			if (!drop)
				kp_strvec_push(out, *e);
		}
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
				 int out_fd, int err_fd, int report_fd)
{
	int e;
	struct sigaction sa;
	sigset_t none;

	setpgid(0, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (int s = 1; s < NSIG; s++)
		sigaction(s, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	if (in_fd >= 0)
		dup2(in_fd, 0);
	if (out_fd >= 0)
		dup2(out_fd, 1);
	if (c->merge_stderr && out_fd >= 0)
		dup2(out_fd, 2);
	else if (err_fd >= 0)
		dup2(err_fd, 2);
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

int kp_child_run(struct kp_child *c, struct kp_error *err)
{
	struct kp_strvec envv = KP_STRVEC_INIT;
	char *prog = NULL;
	int in_p[2] = {-1, -1}, out_p[2] = {-1, -1}, err_p[2] = {-1, -1}, rep_p[2] = {-1, -1};
	int devnull = -1, rc = 0, status = 0, exited = 0, group_killed = 0;
	size_t out_cap = c->out_cap ? c->out_cap : KP_CHILD_DEFAULT_CAP;
	size_t err_cap = c->err_cap ? c->err_cap : KP_CHILD_DEFAULT_CAP;
	size_t in_off = 0;
	long grace = c->kill_grace_ms > 0 ? c->kill_grace_ms : 2000;
	double start, term_at = 0;
	int out_trunc = 0, err_trunc = 0;
	pid_t pid;

	if ((rc = kp_fault(KP_FAULT_SPAWN, c->args.n ? c->args.v[0] : NULL, err)))
		return rc;
	kp_buf_reset(&c->out);
	kp_buf_reset(&c->err);
	c->out_total = c->err_total = 0;
	c->out_truncated = c->err_truncated = c->timed_out = 0;
	c->exit_code = -1;
	c->term_signal = 0;
	c->pid = 0;

	if (!c->args.n)
		return kp_error_set(err, KP_EINVAL, "child: empty argument vector");

	build_env(c, &envv);
	prog = which_in(c->args.v[0], env_get(&envv, "PATH"));
	if (!prog) {
		rc = kp_error_set(err, KP_ENOTOOL, "cannot run '%s': not found%s", c->args.v[0],
				  strchr(c->args.v[0], '/') ? " or not executable" : " on PATH");
		goto out;
	}

	if (pipe2(rep_p, O_CLOEXEC) || (!c->inherit_stdout && pipe2(out_p, O_CLOEXEC)) ||
	    (!c->inherit_stderr && !c->merge_stderr && pipe2(err_p, O_CLOEXEC)) ||
	    (c->stdin_data && pipe2(in_p, O_CLOEXEC))) {
		rc = kp_error_set(err, KP_EIO, "child: cannot create pipes: %s", strerror(errno));
		goto out;
	}
	if (!c->stdin_data && (devnull = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
		rc = kp_error_set(err, KP_EIO, "child: cannot open /dev/null: %s", strerror(errno));
		goto out;
	}

	start = kp_now();
	pid = fork();
	if (pid < 0) {
		rc = kp_error_set(err, KP_EIO, "child: fork failed: %s", strerror(errno));
		goto out;
	}
	if (pid == 0)
		child_exec(c, prog, envv.v, c->stdin_data ? in_p[0] : devnull, out_p[1],
			   c->merge_stderr ? -1 : err_p[1], rep_p[1]);

	c->pid = pid;
	setpgid(pid, pid); /* also done in the child; whichever runs first wins the race */
	close_fd(&in_p[0]);
	close_fd(&out_p[1]);
	close_fd(&err_p[1]);
	close_fd(&rep_p[1]);
	close_fd(&devnull);

	{
		int e = 0;
		ssize_t n;
		do
			n = read(rep_p[0], &e, sizeof(e));
		while (n < 0 && errno == EINTR);
		close_fd(&rep_p[0]);
		if (n == (ssize_t)sizeof(e)) {
			waitpid(pid, &status, 0);
			rc = kp_error_set(err, e == ENOENT || e == EACCES || e == ENOEXEC ? KP_ENOTOOL : KP_EIO,
					  "cannot run '%s': %s", prog, strerror(e));
			goto out;
		}
	}

	if (out_p[0] >= 0)
		set_nonblock(out_p[0]);
	if (err_p[0] >= 0)
		set_nonblock(err_p[0]);
	if (in_p[1] >= 0) {
		set_nonblock(in_p[1]);
		if (c->stdin_len == 0)
			close_fd(&in_p[1]);
	}

	while (out_p[0] >= 0 || err_p[0] >= 0 || in_p[1] >= 0 || !exited) {
		struct pollfd pfd[3];
		int nfd = 0;
		double now = kp_now();

		if (!exited && c->timeout_ms > 0 && !c->timed_out &&
		    (now - start) * 1000.0 >= (double)c->timeout_ms) {
			c->timed_out = 1;
			kill(-pid, SIGTERM);
			kill(pid, SIGTERM);
			term_at = now;
		}
		if (c->timed_out && !group_killed && (now - term_at) * 1000.0 >= (double)grace) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			group_killed = 1;
		}
		if (!exited) {
			pid_t w = waitpid(pid, &status, WNOHANG);
			if (w == pid) {
				exited = 1;
				c->elapsed_s = kp_now() - start;
				/* Nothing the child started may outlive it or hold our pipes open. */
				kill(-pid, SIGKILL);
				group_killed = 1;
			}
		}

		if (out_p[0] >= 0)
			pfd[nfd++] = (struct pollfd){.fd = out_p[0], .events = POLLIN};
		if (err_p[0] >= 0)
			pfd[nfd++] = (struct pollfd){.fd = err_p[0], .events = POLLIN};
		if (in_p[1] >= 0)
			pfd[nfd++] = (struct pollfd){.fd = in_p[1], .events = POLLOUT};
		if (nfd == 0) {
			if (exited)
				break;
			struct timespec ts = {0, 10 * 1000 * 1000};
			nanosleep(&ts, NULL);
			continue;
		}
		if (poll(pfd, (nfds_t)nfd, 50) < 0 && errno != EINTR) {
			rc = kp_error_set(err, KP_EIO, "child: poll failed: %s", strerror(errno));
			kill(-pid, SIGKILL);
			waitpid(pid, &status, 0);
			goto out;
		}
		for (int i = 0; i < nfd; i++) {
			if (!pfd[i].revents)
				continue;
			if (pfd[i].fd == out_p[0]) {
				if (!drain(out_p[0], &c->out, out_cap, &c->out_total, &out_trunc))
					close_fd(&out_p[0]);
			} else if (pfd[i].fd == err_p[0]) {
				if (!drain(err_p[0], &c->err, err_cap, &c->err_total, &err_trunc))
					close_fd(&err_p[0]);
			} else if (pfd[i].fd == in_p[1]) {
				ssize_t w = write_nosigpipe(in_p[1], (const char *)c->stdin_data + in_off,
							    c->stdin_len - in_off);
				if (w > 0)
					in_off += (size_t)w;
				if ((w < 0 && errno != EAGAIN && errno != EINTR) || in_off >= c->stdin_len)
					close_fd(&in_p[1]);
			}
		}
	}

	c->out_truncated = (unsigned)out_trunc;
	c->err_truncated = (unsigned)err_trunc;
	if (WIFEXITED(status))
		c->exit_code = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		c->term_signal = WTERMSIG(status);

out:
	close_fd(&in_p[0]);
	close_fd(&in_p[1]);
	close_fd(&out_p[0]);
	close_fd(&out_p[1]);
	close_fd(&err_p[0]);
	close_fd(&err_p[1]);
	close_fd(&rep_p[0]);
	close_fd(&rep_p[1]);
	close_fd(&devnull);
	free(prog);
	kp_strvec_release(&envv);
	return rc;
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
