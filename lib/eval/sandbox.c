/*
 * The evaluation child's sandbox (sandbox.h): rlimits, a network namespace, and a seccomp filter whose
 * refused calls raise SIGSYS in a handler that counts them and makes them return EPERM. A call that
 * would replace that handler is answered as done, without effect (LLVM replaces every fatal signal's
 * handler the first time Triton compiles). libc only: also built as libkp_sandbox.so for the Python
 * adapter.
 */
#include "base/setup.h"

#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "eval/sandbox.h"

#if defined(__x86_64__)
#define SB_ARCH AUDIT_ARCH_X86_64
#define SB_X32_BIT 0x40000000u /* x32 system calls: a second table the filter does not describe */
#elif defined(__aarch64__)
#define SB_ARCH AUDIT_ARCH_AARCH64
#endif

#ifndef SYS_SECCOMP
#define SYS_SECCOMP 1 /* si_code of a SIGSYS raised by a seccomp filter (asm-generic/siginfo.h) */
#endif

#define OPEN_FILES 4096
#define FILE_BYTES (8ull << 30)
#define MIN_DATA_GROWTH (8ull << 30)

/* How the filter treats a call. */
enum rule {
	ALWAYS,        /* refused */
	NEW_PROCESS,   /* clone: refused unless CLONE_THREAD (a thread, which CUDA and PyTorch start) */
	OTHER_PROCESS, /* kill, tgkill, rt_(tg)sigqueueinfo: refused unless aimed at this process */
	SIGSYS_ACTION, /* rt_sigaction replacing the SIGSYS handler: answered as done, without effect */
};

static const struct watched {
	long nr;
	const char *name;
	enum rule rule;
} watched[] = {
	{__NR_execve, "execve", ALWAYS},
#ifdef __NR_execveat
	{__NR_execveat, "execveat", ALWAYS},
#endif
#ifdef __NR_fork
	{__NR_fork, "fork", ALWAYS},
#endif
#ifdef __NR_vfork
	{__NR_vfork, "vfork", ALWAYS},
#endif
	{__NR_clone, "clone", NEW_PROCESS},
	{__NR_setns, "setns", ALWAYS},
	{__NR_unshare, "unshare", ALWAYS},
	{__NR_ptrace, "ptrace", ALWAYS},
	{__NR_process_vm_readv, "process_vm_readv", ALWAYS},
	{__NR_process_vm_writev, "process_vm_writev", ALWAYS},
	{__NR_kill, "kill", OTHER_PROCESS},
	{__NR_tgkill, "tgkill", OTHER_PROCESS},
	{__NR_tkill, "tkill", ALWAYS},
	{__NR_rt_sigqueueinfo, "rt_sigqueueinfo", OTHER_PROCESS},
	{__NR_rt_tgsigqueueinfo, "rt_tgsigqueueinfo", OTHER_PROCESS},
#ifdef __NR_pidfd_open
	{__NR_pidfd_open, "pidfd_open", ALWAYS},
#endif
	{__NR_rt_sigaction, "rt_sigaction", SIGSYS_ACTION},
};
#define NWATCHED (sizeof(watched) / sizeof(watched[0]))

static const char refuses_text[] =
	"execve, execveat, fork, vfork and clone without CLONE_THREAD fail with EPERM (clone3 answers ENOSYS, so "
	"threads fall back to clone); so do setns, unshare, ptrace, process_vm_readv/writev, pidfd_open, signals "
	"to other processes. A call that would replace the SIGSYS handler (the one that answers refused calls) "
	"succeeds without effect and is counted in ignored, not refused: LLVM installs a handler for every "
	"fatal signal the first time Triton compiles";
static const char not_limited_as[] =
	"not limited: CUDA reserves virtual address ranges as large as host and device memory together, so "
	"RLIMIT_AS stops it from starting; private writable memory (RLIMIT_DATA) is limited instead";
static const char not_limited_nproc[] =
	"not limited: RLIMIT_NPROC counts every thread of the user on the machine (CUDA and PyTorch start "
	"dozens) and does not bind root; the filter refuses new processes instead";

/* Process-wide state: one sandbox per process. */
static struct {
	char mode[16];
	int asked;           /* parts the mode uses */
	int off;             /* parts KERNELPRO_SANDBOX switched off */
	char off_text[64];   /* its value */
	int net;             /* 1: isolated */
	char net_text[320];  /* how, or why not */
	int limits;          /* 1: set */
	double cpu_s;        /* NAN: no CPU limit */
	unsigned long long data_bytes, data_growth, open_files, file_bytes;
	char limits_text[200];
	int filter;          /* 0 none, 1 one thread and its descendants, 2 every thread */
	char since_one[128], since_all[128];
	char filter_text[200];
	int handler;         /* SIGSYS handler installed */
} S = {.cpu_s = NAN};

static unsigned long refused[NWATCHED];
static unsigned long ignored[NWATCHED];

/* The first refused calls with their first two arguments, for the report: which call, with what. */
#define FIRST_CALLS 8
static struct first_call {
	int valid; /* set (release) once the rest is written */
	unsigned short which;
	unsigned long long arg0, arg1;
} first_calls[FIRST_CALLS];
static unsigned first_count;

int kp_sandbox_parts(const char *mode)
{
	if (mode && !strcmp(mode, "eval"))
		return KP_SANDBOX_ALL;
	if (mode && !strcmp(mode, "run"))
		return KP_SANDBOX_LIMITS | KP_SANDBOX_SPAWN;
	return 0;
}

static void copy(char *dst, size_t n, const char *src)
{
	size_t len = strlen(src);
	if (len >= n)
		len = n - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

/* KERNELPRO_SANDBOX: "off", or a comma list of nolimits, nonet, nospawn. */
static void read_env(void)
{
	const char *v = getenv("KERNELPRO_SANDBOX");
	static const struct {
		const char *word;
		int part;
	} words[] = {{"off", KP_SANDBOX_ALL},
		     {"nolimits", KP_SANDBOX_LIMITS},
		     {"nonet", KP_SANDBOX_NET},
		     {"nospawn", KP_SANDBOX_SPAWN}};
	if (!v || !*v)
		return;
	copy(S.off_text, sizeof(S.off_text), v);
	for (const char *p = v; *p;) {
		size_t n = strcspn(p, ", ");
		for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
			if (n == strlen(words[i].word) && !strncmp(p, words[i].word, n))
				S.off |= words[i].part;
		p += n;
		p += strspn(p, ", ");
	}
}

/* Sets soft and hard limit (never above the hard limit in force); returns the value set, or 0. */
static unsigned long long set_limit(int res, unsigned long long want, unsigned long long slack)
{
	struct rlimit r;
	if (getrlimit(res, &r))
		return 0;
	if (r.rlim_max != RLIM_INFINITY && r.rlim_max < want + slack) {
		if (r.rlim_max <= slack)
			return 0;
		want = r.rlim_max - slack;
	}
	r.rlim_cur = want;
	r.rlim_max = want + slack;
	return setrlimit(res, &r) ? 0 : want;
}

static void set_limits(double budget_s)
{
	struct rlimit none = {0, 0};

	if (budget_s > 0 && isfinite(budget_s)) {
		/* The soft limit sends SIGXCPU, the hard one (5 s later) SIGKILL. */
		unsigned long long cpu = set_limit(RLIMIT_CPU, (unsigned long long)ceil(2 * budget_s), 5);
		S.cpu_s = cpu ? (double)cpu : NAN;
	}
	S.open_files = set_limit(RLIMIT_NOFILE, OPEN_FILES, 0);
	S.file_bytes = set_limit(RLIMIT_FSIZE, FILE_BYTES, 0);
	if (setrlimit(RLIMIT_CORE, &none))
		snprintf(S.limits_text, sizeof(S.limits_text), "RLIMIT_CORE: %s", strerror(errno));
	S.limits = S.open_files && S.file_bytes;
	if (!S.limits && !S.limits_text[0])
		snprintf(S.limits_text, sizeof(S.limits_text), "setrlimit failed: %s", strerror(errno));
}

/* Private writable memory the process holds now (VmData), in bytes; 0 when unknown. */
static unsigned long long data_now(void)
{
	char buf[4096];
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	const char *p;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strstr(buf, "\nVmData:");
	return p ? strtoull(p + 9, NULL, 10) * 1024 : 0;
}

/*
 * RLIMIT_DATA counts the virtual size of private writable mappings, reserved ones included, and CUDA
 * (like ASan) reserves large ones when it starts: so the limit is what the process holds once CUDA is
 * up plus room to grow by 3/4 of the machine's memory (at least 8 GiB), set with the filter on every
 * thread.
 */
static void set_data_limit(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	unsigned long long now = data_now(), grow = 0;
	if (!now)
		return; /* no VmData to start from: data_bytes stays null in the report */
	if (pages > 0 && page > 0)
		grow = (unsigned long long)pages * (unsigned long long)page / 4 * 3;
	if (grow < MIN_DATA_GROWTH)
		grow = MIN_DATA_GROWTH;
	S.data_bytes = set_limit(RLIMIT_DATA, now + grow, 0);
	S.data_growth = S.data_bytes > now ? S.data_bytes - now : 0;
}

static int write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), rc = -1;
	if (fd < 0)
		return -1;
	if (write(fd, text, strlen(text)) == (ssize_t)strlen(text))
		rc = 0;
	close(fd);
	return rc;
}

/* Maps this process's user and group to themselves inside the user namespace just entered: without
 * a mapping, files it creates (builds, caches) would fail with EOVERFLOW. */
static int map_ids(unsigned uid, unsigned gid)
{
	char line[64];
	if (write_text("/proc/self/setgroups", "deny") && errno != ENOENT)
		return -1;
	snprintf(line, sizeof(line), "%u %u 1", uid, uid);
	if (write_text("/proc/self/uid_map", line))
		return -1;
	snprintf(line, sizeof(line), "%u %u 1", gid, gid);
	return write_text("/proc/self/gid_map", line);
}

static void enter_netns(void)
{
	struct stat before, after;
	int known = stat("/proc/self/ns/net", &before) == 0, e1, e2;
	unsigned uid = (unsigned)geteuid(), gid = (unsigned)getegid();
	const char *how;

	if (unshare(CLONE_NEWNET) == 0)
		how = "a network namespace of its own (no interface but a loopback that is down)";
	else {
		e1 = errno;
		if (unshare(CLONE_NEWUSER | CLONE_NEWNET)) {
			e2 = errno;
			snprintf(S.net_text, sizeof(S.net_text),
				 "no network namespace could be made: unshare(CLONE_NEWNET): %s; with a user namespace: "
				 "%s",
				 strerror(e1), strerror(e2));
			return;
		}
		how = "a user and network namespace of its own (no interface but a loopback that is down)";
		if (map_ids(uid, gid)) {
			snprintf(S.net_text, sizeof(S.net_text),
				 "%s; its user ids could not be mapped (%s): files it creates may fail", how,
				 strerror(errno));
			how = NULL;
		}
	}
	if (known && (stat("/proc/self/ns/net", &after) || after.st_ino == before.st_ino)) {
		snprintf(S.net_text, sizeof(S.net_text), "unshare succeeded but /proc/self/ns/net did not change");
		return;
	}
	S.net = 1;
	if (how)
		copy(S.net_text, sizeof(S.net_text), how);
}

int kp_sandbox_begin(const char *mode, double budget_s)
{
	copy(S.mode, sizeof(S.mode), mode ? mode : "?");
	S.asked = kp_sandbox_parts(mode);
	read_env();
	if (S.asked & ~S.off & KP_SANDBOX_LIMITS)
		set_limits(budget_s);
	if (S.asked & ~S.off & KP_SANDBOX_NET)
		enter_netns();
	return (S.limits ? KP_SANDBOX_LIMITS : 0) | (S.net ? KP_SANDBOX_NET : 0) |
	       (S.asked & ~S.off & KP_SANDBOX_SPAWN);
}

/* --- the filter -------------------------------------------------------------------------------- */

/* Writes "kernelpro sandbox: refused NAME(0xARG0)\n" to stderr with nothing but write(2). */
static void note(const char *name, unsigned long long arg0)
{
	static const char hex[] = "0123456789abcdef";
	char line[96];
	size_t n = 0;
	int shift = 60;
	for (const char *p = "kernelpro sandbox: refused "; *p && n < 40; p++)
		line[n++] = *p;
	for (const char *p = name; *p && n < 70; p++)
		line[n++] = *p;
	line[n++] = '(';
	line[n++] = '0';
	line[n++] = 'x';
	while (shift > 0 && !((arg0 >> shift) & 0xf))
		shift -= 4;
	for (; shift >= 0; shift -= 4)
		line[n++] = hex[(arg0 >> shift) & 0xf];
	line[n++] = ')';
	line[n++] = '\n';
	(void)!write(2, line, n);
}

/* A refused call: counted, and its arguments kept while there is room. */
static void record_refused(size_t i, unsigned long long arg0, unsigned long long arg1)
{
	unsigned slot = FIRST_CALLS;
	if (__atomic_load_n(&first_count, __ATOMIC_RELAXED) < FIRST_CALLS)
		slot = __atomic_fetch_add(&first_count, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&refused[i], 1, __ATOMIC_RELAXED);
	if (slot < FIRST_CALLS) {
		first_calls[slot].which = (unsigned short)i;
		first_calls[slot].arg0 = arg0;
		first_calls[slot].arg1 = arg1;
		__atomic_store_n(&first_calls[slot].valid, 1, __ATOMIC_RELEASE);
	}
	note(watched[i].name, arg0);
}

/*
 * rt_sigaction(SIGSYS, act, oldact, size) trapped: answered as if done, the handler unchanged. Whoever
 * asked for the old action gets the real one (a query, which the filter lets through), so a library
 * that saves and later restores the handler (LLVM does) restores this one. Returns the call's result.
 */
static long keep_sigsys_handler(size_t i, unsigned long long oldact, unsigned long long size)
{
	long rc = 0;
	__atomic_add_fetch(&ignored[i], 1, __ATOMIC_RELAXED);
	if (oldact) {
		rc = syscall(__NR_rt_sigaction, SIGSYS, NULL, (void *)(uintptr_t)oldact, (size_t)size);
		if (rc < 0)
			rc = -errno;
	}
	return rc;
}

static void on_sigsys(int sig, siginfo_t *si, void *ctx)
{
	int saved = errno;
	ucontext_t *uc = (ucontext_t *)ctx;
	unsigned long long arg[4] = {0};
	long rc = -EPERM;
	(void)sig;
	if (!si || si->si_code != SYS_SECCOMP)
		return; /* a SIGSYS someone sent: not a refused call */
#if defined(__x86_64__)
	arg[0] = (unsigned long long)uc->uc_mcontext.gregs[REG_RDI];
	arg[1] = (unsigned long long)uc->uc_mcontext.gregs[REG_RSI];
	arg[2] = (unsigned long long)uc->uc_mcontext.gregs[REG_RDX];
	arg[3] = (unsigned long long)uc->uc_mcontext.gregs[REG_R10];
#elif defined(__aarch64__)
	for (int k = 0; k < 4; k++)
		arg[k] = uc->uc_mcontext.regs[k];
#endif
	for (size_t i = 0; i < NWATCHED; i++)
		if (watched[i].nr == si->si_syscall) {
			if (watched[i].rule == SIGSYS_ACTION)
				rc = keep_sigsys_handler(i, arg[2], arg[3]);
			else
				record_refused(i, arg[0], arg[1]);
			break;
		}
#if defined(__x86_64__)
	uc->uc_mcontext.gregs[REG_RAX] = rc;
#elif defined(__aarch64__)
	uc->uc_mcontext.regs[0] = (unsigned long long)(long long)rc;
#endif
	errno = saved;
}

#ifdef SB_ARCH
#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#define ARG_HI(i) (ARG_LO(i) + 4)
#define LD(off) ((struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off)))
#define JMP(op, k, t, f) ((struct sock_filter)BPF_JUMP(BPF_JMP | (op) | BPF_K, (k), (t), (f)))
#define JEQ(k, t, f) JMP(BPF_JEQ, (k), (t), (f))
#define RET(k) ((struct sock_filter)BPF_STMT(BPF_RET | BPF_K, (k)))

/* The program: wrong architecture kills, watched calls trap under their rule, the rest is allowed.
 * Each rule's block leaves the accumulator holding the call number when the call is not its own. */
static size_t build_filter(struct sock_filter *p, pid_t self)
{
	size_t n = 0;
	p[n++] = LD(offsetof(struct seccomp_data, arch));
	p[n++] = JEQ(SB_ARCH, 1, 0);
	p[n++] = RET(SECCOMP_RET_KILL_PROCESS);
	p[n++] = LD(offsetof(struct seccomp_data, nr));
#ifdef SB_X32_BIT
	p[n++] = JMP(BPF_JGE, SB_X32_BIT, 0, 1);
	p[n++] = RET(SECCOMP_RET_KILL_PROCESS);
#endif
#ifdef __NR_clone3
	/* clone3 passes its flags in memory the filter cannot read; ENOSYS makes glibc use clone. */
	p[n++] = JEQ(__NR_clone3, 0, 1);
	p[n++] = RET(SECCOMP_RET_ERRNO | ENOSYS);
#endif
	for (size_t i = 0; i < NWATCHED; i++) {
		unsigned nr = (unsigned)watched[i].nr;
		switch (watched[i].rule) {
		case ALWAYS:
			p[n++] = JEQ(nr, 0, 1);
			p[n++] = RET(SECCOMP_RET_TRAP);
			break;
		case NEW_PROCESS:
			p[n++] = JEQ(nr, 0, 4);
			p[n++] = LD(ARG_LO(0));
			p[n++] = JMP(BPF_JSET, CLONE_THREAD, 0, 1);
			p[n++] = RET(SECCOMP_RET_ALLOW);
			p[n++] = RET(SECCOMP_RET_TRAP);
			break;
		case OTHER_PROCESS:
			p[n++] = JEQ(nr, 0, 4);
			p[n++] = LD(ARG_LO(0));
			p[n++] = JEQ((unsigned)self, 1, 0);
			p[n++] = RET(SECCOMP_RET_TRAP);
			p[n++] = RET(SECCOMP_RET_ALLOW);
			break;
		case SIGSYS_ACTION: /* rt_sigaction(SIGSYS, act != NULL, ...): trapped, answered as done */
			p[n++] = JEQ(nr, 0, 8);
			p[n++] = LD(ARG_LO(0));
			p[n++] = JEQ(SIGSYS, 0, 5);
			p[n++] = LD(ARG_LO(1));
			p[n++] = JEQ(0, 0, 2);
			p[n++] = LD(ARG_HI(1));
			p[n++] = JEQ(0, 1, 0);
			p[n++] = RET(SECCOMP_RET_TRAP);
			p[n++] = RET(SECCOMP_RET_ALLOW);
			break;
		}
	}
	p[n++] = RET(SECCOMP_RET_ALLOW);
	return n;
}
#endif

int kp_sandbox_lock(int every_thread, const char *since)
{
	if (every_thread && S.limits && !S.data_bytes)
		set_data_limit();
	if (!(S.asked & KP_SANDBOX_SPAWN) || (S.off & KP_SANDBOX_SPAWN))
		return 0;
#ifndef SB_ARCH
	(void)every_thread;
	(void)since;
	copy(S.filter_text, sizeof(S.filter_text), "no seccomp filter for this architecture");
	return -1;
#else
	struct sock_filter prog[16 + 10 * NWATCHED];
	struct sock_fprog fprog;
	long rc;

	if (!S.handler) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_sigsys;
		sa.sa_flags = SA_SIGINFO;
		sigemptyset(&sa.sa_mask);
		if (sigaction(SIGSYS, &sa, NULL)) {
			snprintf(S.filter_text, sizeof(S.filter_text), "sigaction(SIGSYS): %s", strerror(errno));
			return -1;
		}
		S.handler = 1;
	}
	fprog.len = (unsigned short)build_filter(prog, getpid());
	fprog.filter = prog;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		snprintf(S.filter_text, sizeof(S.filter_text), "prctl(PR_SET_NO_NEW_PRIVS): %s", strerror(errno));
		return -1;
	}
	rc = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, every_thread ? SECCOMP_FILTER_FLAG_TSYNC : 0, &fprog);
	if (rc) {
		if (rc > 0)
			snprintf(S.filter_text, sizeof(S.filter_text), "seccomp: thread %ld could not take the filter", rc);
		else
			snprintf(S.filter_text, sizeof(S.filter_text), "seccomp: %s", strerror(errno));
		return -1;
	}
	if (every_thread) {
		S.filter = 2;
		copy(S.since_all, sizeof(S.since_all), since ? since : "?");
	} else if (!S.filter) {
		S.filter = 1;
		copy(S.since_one, sizeof(S.since_one), since ? since : "?");
	}
	return 0;
#endif
}

unsigned long kp_sandbox_refused(void)
{
	unsigned long n = 0;
	for (size_t i = 0; i < NWATCHED; i++)
		n += __atomic_load_n(&refused[i], __ATOMIC_RELAXED);
	return n;
}

/* --- the report -------------------------------------------------------------------------------- */

struct out {
	char *p;
	size_t n, len;
	int full;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int k;
	if (o->full)
		return;
	va_start(ap, fmt);
	k = vsnprintf(o->p + o->len, o->n - o->len, fmt, ap);
	va_end(ap);
	if (k < 0 || (size_t)k >= o->n - o->len)
		o->full = 1;
	else
		o->len += (size_t)k;
}

static void put_str(struct out *o, const char *s)
{
	put(o, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			put(o, "\\%c", c);
		else if (c < 0x20)
			put(o, "\\u%04x", c);
		else
			put(o, "%c", c);
	}
	put(o, "\"");
}

/* {"name":count,...} for the calls counted in `counts` (one slot per watched call). */
static void put_counts(struct out *o, const unsigned long *counts)
{
	int first = 1;
	put(o, "{");
	for (size_t i = 0; i < NWATCHED; i++) {
		unsigned long k = __atomic_load_n(&counts[i], __ATOMIC_RELAXED);
		if (!k)
			continue;
		put(o, "%s\"%s\":%lu", first ? "" : ",", watched[i].name, k);
		first = 0;
	}
	put(o, "}");
}

/* Why a part is not in force when it was not attempted. */
static const char *skipped(int part)
{
	if (S.off & part)
		return "switched off by KERNELPRO_SANDBOX";
	if (!strcmp(S.mode, "run") && part == KP_SANDBOX_NET)
		return "not used for prepared runs: a profiler's injected library talks to its front end over localhost";
	return "not used: no candidate runs in this mode";
}

int kp_sandbox_report(char *buf, size_t n)
{
	struct out o = {buf, n, 0, 0};
	int first = 1;

	if (!buf || !n)
		return -1;
	buf[0] = '\0';
	put(&o, "{\"applied\":%s,\"switched_off\":", S.limits || S.net || S.filter ? "true" : "false");
	if (S.off_text[0])
		put_str(&o, S.off_text);
	else
		put(&o, "null");

	put(&o, ",\"network\":{\"isolated\":%s,\"%s\":", S.net ? "true" : "false", S.net ? "how" : "why");
	put_str(&o, S.net_text[0] ? S.net_text : skipped(KP_SANDBOX_NET));
	put(&o, "}");

	put(&o, ",\"processes\":{\"blocked\":%s", S.filter ? "true" : "false");
	if (S.filter) {
		put(&o, ",\"threads\":\"%s\",\"since\":", S.filter == 2 ? "every thread" : "the main thread and those it starts");
		put_str(&o, S.filter == 2 ? S.since_all : S.since_one);
		if (S.filter == 2 && S.since_one[0]) {
			put(&o, ",\"main_thread_since\":");
			put_str(&o, S.since_one);
		}
		put(&o, ",\"refuses\":");
		put_str(&o, refuses_text);
	} else {
		put(&o, ",\"why\":");
		put_str(&o, S.filter_text[0]			   ? S.filter_text
			    : (S.asked & ~S.off & KP_SANDBOX_SPAWN) ? "the harness has not installed it yet"
								    : skipped(KP_SANDBOX_SPAWN));
	}
	put(&o, "}");

	if (S.limits) {
		put(&o, ",\"limits\":{\"cpu_s\":");
		if (isfinite(S.cpu_s))
			put(&o, "%.0f", S.cpu_s);
		else
			put(&o, "null");
		put(&o, ",\"data_bytes\":");
		if (S.data_bytes)
			put(&o, "%llu,\"data_growth_bytes\":%llu", S.data_bytes, S.data_growth);
		else
			put(&o, "null");
		put(&o, ",\"open_files\":%llu,\"file_bytes\":%llu,\"core_bytes\":0}", S.open_files, S.file_bytes);
	} else {
		put(&o, ",\"limits\":null,\"limits_why\":");
		put_str(&o, S.limits_text[0] ? S.limits_text : skipped(KP_SANDBOX_LIMITS));
	}
	put(&o, ",\"not_limited\":{\"address_space\":");
	put_str(&o, not_limited_as);
	put(&o, ",\"processes\":");
	put_str(&o, not_limited_nproc);
	put(&o, "},\"refused\":");
	put_counts(&o, refused);
	put(&o, ",\"ignored\":");
	put_counts(&o, ignored);
	put(&o, ",\"refused_calls\":[");
	for (unsigned i = 0; i < FIRST_CALLS; i++) {
		const struct first_call *c = &first_calls[i];
		if (!__atomic_load_n(&c->valid, __ATOMIC_ACQUIRE))
			continue;
		put(&o, "%s{\"call\":\"%s\",\"arg0\":\"0x%llx\",\"arg1\":\"0x%llx\"}", first ? "" : ",",
		    watched[c->which].name, c->arg0, c->arg1);
		first = 0;
	}
	put(&o, "]}");
	return o.full ? -1 : (int)o.len;
}
