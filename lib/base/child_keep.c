/*
 * kp_child's keeper: a small process between kernelpro and each program it runs that owns the
 * program's whole tree, so nothing it started outlives kernelpro (kill -9 included); and the sweep
 * a resumed run makes of what an earlier, killed session may still have left.
 */
#include "base/setup.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "base/child_int.h"
#include "kernelpro/child.h"
#include "kernelpro/str.h"

/*
 * Why a keeper: PR_SET_PDEATHSIG reaches only the process that set it, and a process group has no
 * one left to kill it once its leader is gone. The program's grandchildren (a `sleep` an evaluator
 * script starts) used to outlive kill -9 of kernelpro, holding the GPU. The keeper leads the group,
 * is a subreaper (whatever the program starts comes back to it when its parent dies, in the group
 * or not), and dies with kernelpro's thread through PDEATHSIG: a signal it waits for, not SIGKILL,
 * so it can kill every descendant first, level by level. It relays the program's end as its own (the
 * exit status, or the same signal), so kp_child's callers see the program, not the keeper.
 *
 * Everything here runs in a child forked from a threaded process before any exec: only
 * async-signal-safe calls (no malloc, no stdio, no locks).
 */
#ifdef __linux__

#define DEATH_SIGNAL (SIGRTMAX - 1) /* glibc keeps the first realtime signals for itself */

/* Decimal digits of v into buf (async-signal-safe); returns the end. */
static char *put_long(char *p, long v)
{
	char tmp[24];
	int n = 0;
	if (v == 0)
		tmp[n++] = '0';
	while (v > 0 && n < (int)sizeof(tmp)) {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	}
	while (n > 0)
		*p++ = tmp[--n];
	*p = '\0';
	return p;
}

/*
 * SIGKILL to each child of the keeper (and to its group, when it leads another one); returns how
 * many it found. /proc/self/task/TID/children lists a thread's children (Linux 3.5 with
 * CONFIG_PROC_CHILDREN; without it, only the group is killed, by kp_child).
 */
static int kill_children(void)
{
	char path[64] = "/proc/self/task/", buf[4096];
	pid_t self = getpid(), group = getpgrp();
	char *e = put_long(path + strlen(path), (long)self);
	int fd, found = 0;
	ssize_t n;
	memcpy(e, "/children", sizeof("/children"));
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	for (char *p = buf; *p;) {
		long q = 0;
		while (*p == ' ' || *p == '\n')
			p++;
		while (*p >= '0' && *p <= '9')
			q = q * 10 + (*p++ - '0');
		if (q > 0) {
			pid_t g = getpgid((pid_t)q);
			if (g > 0 && g != group && g != self)
				kill(-g, SIGKILL);
			kill((pid_t)q, SIGKILL);
			found++;
		}
		while (*p && *p != ' ' && *p != '\n')
			p++;
	}
	return found;
}

/*
 * Kills every descendant of the keeper, however deep and whatever its group or session: each round
 * kills the keeper's children, whose own children then come to the keeper (a subreaper), until it
 * has none. Bounded (2 s), against a process that forks faster than it dies.
 */
static void kill_descendants(void)
{
	struct timespec pause = {0, 5 * 1000 * 1000};
	for (int round = 0; round < 400; round++) {
		kill_children();
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD)
			return;
		nanosleep(&pause, NULL);
	}
}

/* Ends the keeper the way the program ended: its exit status, or death by the same signal. */
static _Noreturn void relay(int status)
{
	struct rlimit none = {0, 0};
	struct sigaction sa;
	sigset_t one;
	int s;
	if (WIFEXITED(status))
		_exit(WEXITSTATUS(status));
	s = WIFSIGNALED(status) ? WTERMSIG(status) : SIGKILL;
	setrlimit(RLIMIT_CORE, &none); /* the program dumped its core already, if it did */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigaction(s, &sa, NULL);
	kill(getpid(), s);
	sigemptyset(&one);
	sigaddset(&one, s);
	sigprocmask(SIG_UNBLOCK, &one, NULL);
	_exit(128 + s);
}

/* Closes descriptor fd when it is close-on-exec (what the program's exec would close). */
static void close_if_cloexec(int fd, int keep)
{
	int fl;
	if (fd > 2 && fd != keep && (fl = fcntl(fd, F_GETFD)) >= 0 && (fl & FD_CLOEXEC))
		close(fd);
}

/*
 * Closes every close-on-exec descriptor but `keep`: the keeper never execs, and would otherwise hold
 * the pipes of other children forked at the same time by other threads, which would then never see
 * EOF. The others it keeps, as the program does: a profiler kernelpro runs under (ncu
 * --target-processes all) reaches the processes it follows through inherited descriptors. Lists
 * /proc/self/fd with getdents64 (no malloc); without /proc, the first 4096.
 */
static void close_cloexec(int keep)
{
	char buf[4096];
	int dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	long n;
	if (dir < 0) {
		for (int fd = 3; fd < 4096; fd++)
			close_if_cloexec(fd, keep);
		return;
	}
	while ((n = syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n;) {
			/* struct linux_dirent64: ino (8), off (8), reclen (2), type (1), name */
			unsigned short reclen;
			const char *name = buf + off + 19;
			int fd = 0, digits = 0;
			memcpy(&reclen, buf + off + 16, sizeof(reclen));
			for (; *name >= '0' && *name <= '9'; name++, digits++)
				fd = fd * 10 + (*name - '0');
			if (digits && !*name && fd != dir)
				close_if_cloexec(fd, keep);
			off += reclen;
		}
	}
	close(dir);
}

void kp__child_keep(pid_t parent, int report_fd)
{
	sigset_t all, wait_for;
	pid_t prog, keeper;
	int status = 0;

	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	/* Die with the thread that started us (kill -9 of kernelpro too); it may already be gone. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0 || prctl(PR_SET_PDEATHSIG, DEATH_SIGNAL) != 0 ||
	    getppid() != parent)
		_exit(127);
	close_cloexec(report_fd);
	keeper = getpid();
	prog = fork();
	if (prog < 0) {
		int e = errno;
		(void)!write(report_fd, &e, sizeof(e));
		_exit(127);
	}
	if (prog == 0) {
		sigset_t none;
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != keeper)
			_exit(127);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		return; /* the program: the caller execs it */
	}
	close(0);
	close(1);
	close(2);
	close(report_fd); /* the program's copy alone tells kernelpro whether the exec worked */
	sigemptyset(&wait_for);
	sigaddset(&wait_for, SIGCHLD);
	sigaddset(&wait_for, DEATH_SIGNAL);
	for (;;) {
		siginfo_t si;
		int s = sigwaitinfo(&wait_for, &si), done = 0;
		if (s == DEATH_SIGNAL) {
			kill_descendants();
			kill(-getpgrp(), SIGKILL); /* what may be left of the group, the keeper with it */
			_exit(137);
		}
		for (pid_t w; (w = waitpid(-1, &status, WNOHANG)) > 0;)
			if (w == prog) {
				done = 1;
				break;
			}
		if (done) {
			int st = status;
			kill_descendants(); /* nothing the program started outlives it */
			relay(st); /* kp_child kills what may be left in the group once this is reaped */
		}
	}
}

#else

void kp__child_keep(pid_t parent, int report_fd)
{
	sigset_t none;
	(void)parent;
	(void)report_fd;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

#endif

/* --- The owner mark and the sweep ------------------------------------------------------------------ */

static pthread_once_t owner_once = PTHREAD_ONCE_INIT;
static char owner[64];

static void make_owner(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(owner, sizeof(owner), "%ld.%lld.%09ld", (long)getpid(), (long long)ts.tv_sec, ts.tv_nsec);
}

const char *kp_child_owner(void)
{
	pthread_once(&owner_once, make_owner);
	return owner;
}

/* True when the NUL-separated environment block env[0..n) holds the entry `want`. */
static int env_block_has(const char *env, size_t n, const char *want)
{
	size_t w = strlen(want);
	for (size_t i = 0; i < n;) {
		size_t len = strnlen(env + i, n - i);
		if (len == w && !memcmp(env + i, want, w))
			return 1;
		i += len + 1;
	}
	return 0;
}

int kp_child_sweep(const char *token)
{
	char want[128], path[64];
	static char env[1 << 16];
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	DIR *d;
	int killed = 0;
	pid_t self = getpid();

	if (!token || !*token || !strcmp(token, kp_child_owner()))
		return 0;
	if ((size_t)snprintf(want, sizeof(want), KP_CHILD_OWNER_VAR "=%s", token) >= sizeof(want))
		return 0;
	if (!(d = opendir("/proc")))
		return 0;
	pthread_mutex_lock(&lock);
	for (struct dirent *de; (de = readdir(d));) {
		long pid = 0;
		int fd;
		ssize_t n;
		if (de->d_name[0] < '1' || de->d_name[0] > '9' || kp_parse_long(de->d_name, &pid) ||
		    pid == self)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/environ", pid);
		/* Another user's processes are not readable, and are not ours to kill. */
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		n = read(fd, env, sizeof(env));
		close(fd);
		if (n > 0 && env_block_has(env, (size_t)n, want) && kill((pid_t)pid, SIGKILL) == 0)
			killed++;
	}
	pthread_mutex_unlock(&lock);
	closedir(d);
	return killed;
}
