/* Unit tests: the evaluation child's sandbox (lib/eval/sandbox.c). Every scenario runs in a forked
 * child, since a seccomp filter and a namespace cannot be left again; the child writes what it saw to
 * a pipe and the test reads it. The filter must refuse and count every way to start a process
 * (system, fork, execve, posix_spawn) while threads still start; the network namespace must leave
 * no route out (or the report must say why there is none); the limits must be the ones reported. */
#include "base/setup.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "eval/sandbox.h"
#include "kp_test.h"
#include "kernelpro/buf.h"

/* system() is banned in kernelpro; here it is what the sandbox must refuse. */
#undef system

extern char **environ;

typedef void (*scenario_fn)(int fd);

static void say(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(int fd, const char *fmt, ...)
{
	char line[8192];
	va_list ap;
	int n;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n > 0)
		(void)!write(fd, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

static void say_report(int fd)
{
	char rep[8192];
	if (kp_sandbox_report(rep, sizeof(rep)) < 0)
		say(fd, "report=TOO-SMALL\n");
	else
		say(fd, "report=%s\n", rep);
}

/* Runs fn in a forked child and returns everything it wrote; returns the signal that ended the child,
 * or 0 when it exited with status 0. The child leaves with _exit: nothing (LeakSanitizer included)
 * may start a process after the filter. */
static int in_child(scenario_fn fn, struct kp_buf *out)
{
	int p[2], status = 0;
	char chunk[4096];
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		fn(p[1]);
		_exit(0);
	}
	close(p[1]);
	while ((n = read(p[0], chunk, sizeof(chunk))) > 0)
		kp_buf_add(out, chunk, (size_t)n);
	close(p[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFSIGNALED(status))
		return WTERMSIG(status);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("the child ended with status %#x; it wrote:\n%s", status, out->buf ? out->buf : "");
	return 0;
}

static void expect(const struct kp_buf *b, const char *text)
{
	if (!b->buf || !strstr(b->buf, text))
		fail_msg("expected '%s' in:\n%s", text, b->buf ? b->buf : "(nothing)");
}

static void expect_not(const struct kp_buf *b, const char *text)
{
	if (b->buf && strstr(b->buf, text))
		fail_msg("did not expect '%s' in:\n%s", text, b->buf);
}

static void *thread_body(void *arg)
{
	*(int *)arg = 42;
	return NULL;
}

/* Starts a thread and returns 1 when it ran. */
static int thread_runs(void)
{
	pthread_t t;
	int v = 0;
	if (pthread_create(&t, NULL, thread_body, &v))
		return 0;
	pthread_join(t, NULL);
	return v == 42;
}

/* The ways to start a process that return to the caller: what each returned and the errno. */
static void try_spawns(int fd)
{
	char *argv[] = {(char *)"/nonexistent/kp-sandbox-test", NULL};
	pid_t pid;
	int rc;

	errno = 0;
	pid = fork();
	if (pid == 0)
		_exit(0);
	say(fd, "fork=%s errno=%s\n", pid < 0 ? "refused" : "RAN", strerror(errno));
	if (pid > 0)
		waitpid(pid, NULL, 0);
	errno = 0;
	pid = vfork();
	if (pid == 0)
		_exit(0);
	say(fd, "vfork=%s errno=%s\n", pid < 0 ? "refused" : "RAN", strerror(errno));
	if (pid > 0)
		waitpid(pid, NULL, 0);
	/* A path that does not exist: unfiltered, execve fails with ENOENT and the test goes on. */
	rc = execve(argv[0], argv, environ);
	say(fd, "execve=%s errno=%s\n", rc == 0 ? "RAN" : errno == EPERM ? "refused" : "tried", strerror(errno));
	say(fd, "thread=%s\n", thread_runs() ? "runs" : "REFUSED");
}

/* What a fork under the filter did: "refused with EPERM", or how it was not. */
static const char *fork_refusal(void)
{
	pid_t pid;
	errno = 0;
	pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid > 0) {
		waitpid(pid, NULL, 0);
		return "RAN";
	}
	return errno == EPERM ? "refused with EPERM" : "refused with another errno";
}

/* system() and posix_spawn block every signal around clone, so the refusal cannot reach the SIGSYS
 * handler: the kernel ends the process with SIGSYS instead, which kernelpro reports as a refusal. */
static void system_scenario(int fd)
{
	kp_sandbox_begin("eval", 30);
	say(fd, "lock=%d\n", kp_sandbox_lock(1, "x"));
	say(fd, "system=%d\n", system("exit 0"));
}

static void posix_spawn_scenario(int fd)
{
	char *argv[] = {(char *)"/bin/true", NULL};
	pid_t pid;
	kp_sandbox_begin("eval", 30);
	say(fd, "lock=%d\n", kp_sandbox_lock(1, "x"));
	say(fd, "posix_spawn=%d\n", posix_spawn(&pid, "/bin/true", NULL, NULL, argv, environ));
}

static void test_signal_blocking_spawns_end_the_child(void **state)
{
	struct kp_buf out = KP_BUF_INIT;
	(void)state;
	assert_int_equal(in_child(system_scenario, &out), SIGSYS);
	expect(&out, "lock=0\n");
	expect_not(&out, "system=");
	kp_buf_reset(&out);
	assert_int_equal(in_child(posix_spawn_scenario, &out), SIGSYS);
	expect_not(&out, "posix_spawn=");
	kp_buf_release(&out);
}

static void spawn_scenario(int fd)
{
	int rc, parts = kp_sandbox_begin("eval", 30);
	say(fd, "parts=%d\n", parts);
	say(fd, "lock=%d\n", kp_sandbox_lock(1, "in the test"));
	try_spawns(fd);
	errno = 0;
	rc = kill(getppid(), 0);
	say(fd, "kill_parent=%s errno=%s\n", rc ? "refused" : "ALLOWED", strerror(errno));
	say(fd, "kill_self=%s\n", kill(getpid(), 0) ? "REFUSED" : "allowed");
	rc = sigqueue(getppid(), 0, (union sigval){0});
	say(fd, "sigqueue_parent=%s\n", rc ? "refused" : "ALLOWED");
	say(fd, "sigsys_ignore=%s\n", signal(SIGSYS, SIG_IGN) == SIG_ERR ? "FAILED" : "answered");
	/* Had SIG_IGN taken effect, the kernel would end the process at this refusal. */
	say(fd, "fork_after=%s\n", fork_refusal());
	say(fd, "refused=%lu\n", kp_sandbox_refused());
	say_report(fd);
}

static void test_spawn_refused_and_counted(void **state)
{
	struct kp_buf out = KP_BUF_INIT;
	(void)state;
	assert_int_equal(in_child(spawn_scenario, &out), 0);
	expect(&out, "lock=0\n");
	expect(&out, "fork=refused errno=Operation not permitted\n");
	expect(&out, "vfork=refused errno=Operation not permitted\n");
	expect(&out, "execve=refused errno=Operation not permitted\n");
	expect(&out, "thread=runs\n");
	expect(&out, "kill_parent=refused errno=Operation not permitted\n");
	expect(&out, "kill_self=allowed\n");
	expect(&out, "sigqueue_parent=refused\n");
	expect(&out, "\"rt_sigqueueinfo\":1");
	expect(&out, "sigsys_ignore=answered\n");
	expect(&out, "fork_after=refused with EPERM\n");
	expect(&out, "\"processes\":{\"blocked\":true,\"threads\":\"every thread\",\"since\":\"in the test\"");
	expect(&out, "\"execve\":1");
	expect(&out, "\"clone\":2");
	expect(&out, "\"vfork\":1");
	expect(&out, "\"kill\":1");
	expect(&out, "refused=6\n");
	/* Replacing the SIGSYS handler is no refusal: it is answered without effect and noted apart. */
	expect(&out, "\"ignored\":{\"rt_sigaction\":1}");
	expect_not(&out, "\"rt_sigaction\":1}}");
	expect(&out, "\"refused_calls\":[{\"call\":\"clone\",\"arg0\":\"0x");
	kp_buf_release(&out);
}

/*
 * What LLVM does the first time Triton compiles in the process (MLIR's crash reproducer adds a signal
 * handler; llvm::sys RegisterHandlers): its handler for every fatal signal, SIGSYS among them, the old
 * actions kept, and later restored. Neither may take the filter's handler away, nor count as a refused
 * call: a refusal after it still returns EPERM and is counted.
 */
static volatile sig_atomic_t foreign_ran;
static void foreign_handler(int sig, siginfo_t *si, void *ctx)
{
	(void)sig;
	(void)si;
	(void)ctx;
	foreign_ran = 1;
}

static const int fatal_signals[] = {SIGILL,  SIGTRAP, SIGABRT, SIGFPE,  SIGBUS,
                                    SIGSEGV, SIGQUIT, SIGSYS,  SIGXCPU, SIGXFSZ};
#define NFATAL (sizeof(fatal_signals) / sizeof(fatal_signals[0]))

static void llvm_handlers_scenario(int fd)
{
	struct sigaction sa, old[NFATAL];
	int rc = 0;
	size_t i;

	kp_sandbox_begin("eval", 30);
	say(fd, "lock=%d\n", kp_sandbox_lock(0, "before the compile"));
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = foreign_handler;
	sa.sa_flags = SA_ONSTACK | SA_NODEFER | SA_RESETHAND | SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	memset(old, 0, sizeof(old));
	for (i = 0; i < NFATAL; i++)
		rc |= sigaction(fatal_signals[i], &sa, &old[i]);
	say(fd, "register=%d\n", rc);
	for (i = 0; i < NFATAL; i++)
		if (fatal_signals[i] == SIGSYS)
			say(fd, "old_sigsys=%s\n",
			    (old[i].sa_flags & SA_SIGINFO) && old[i].sa_sigaction != foreign_handler
			        ? "the sandbox's"
			        : "OTHER");
	say(fd, "fork=%s foreign=%d\n", fork_refusal(), (int)foreign_ran);
	for (i = 0; i < NFATAL; i++)
		rc |= sigaction(fatal_signals[i], &old[i], NULL);
	say(fd, "unregister=%d\n", rc);
	say(fd, "lock_all=%d\n", kp_sandbox_lock(1, "before the first call"));
	say(fd, "fork_after=%s foreign=%d\n", fork_refusal(), (int)foreign_ran);
	say(fd, "refused=%lu\n", kp_sandbox_refused());
	say_report(fd);
}

static void test_llvm_signal_handlers_leave_the_filter_working(void **state)
{
	struct kp_buf out = KP_BUF_INIT;
	(void)state;
	assert_int_equal(in_child(llvm_handlers_scenario, &out), 0);
	expect(&out, "lock=0\n");
	expect(&out, "register=0\n");
	expect(&out, "old_sigsys=the sandbox's\n");
	expect(&out, "fork=refused with EPERM foreign=0\n");
	expect(&out, "unregister=0\n");
	expect(&out, "fork_after=refused with EPERM foreign=0\n");
	expect(&out, "refused=2\n");
	expect(&out, "\"refused\":{\"clone\":2}");
	expect(&out, "\"ignored\":{\"rt_sigaction\":2}");
	kp_buf_release(&out);
}

/* Before the filter the same calls work: the test above fails without the sandbox. */
static void unsandboxed_scenario(int fd)
{
	try_spawns(fd);
	say_report(fd);
}

static void test_without_the_filter_processes_start(void **state)
{
	struct kp_buf out = KP_BUF_INIT;
	(void)state;
	assert_int_equal(in_child(unsandboxed_scenario, &out), 0);
	expect(&out, "fork=RAN");
	expect(&out, "vfork=RAN");
	expect(&out, "execve=tried errno=No such file or directory\n");
	expect(&out, "\"applied\":false");
	kp_buf_release(&out);
}

/* The Python adapter's order: a thread started before the main thread's filter (its spawner) can
 * still start processes; once every thread is locked, nothing can. */
static int forked_ok(void)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return pid > 0;
}

static int spawn_from_thread_ok;
static void *spawner(void *arg)
{
	(void)arg;
	spawn_from_thread_ok = forked_ok();
	return NULL;
}

static void two_step_scenario(int fd)
{
	pthread_t t;

	kp_sandbox_begin("eval", 30);
	pthread_create(&t, NULL, spawner, NULL); /* started before the first filter, as the spawner is */
	say(fd, "lock_one=%d\n", kp_sandbox_lock(0, "before the import"));
	say(fd, "main=%s\n", forked_ok() ? "RAN" : "refused");
	say(fd, "new_thread=%s\n", thread_runs() ? "runs" : "REFUSED");
	pthread_join(t, NULL);
	say(fd, "older_thread=%s\n", spawn_from_thread_ok ? "ran" : "REFUSED");
	say(fd, "lock_all=%d\n", kp_sandbox_lock(1, "before the first call"));
	pthread_create(&t, NULL, spawner, NULL);
	pthread_join(t, NULL);
	say(fd, "thread_after_lock=%s\n", spawn_from_thread_ok ? "RAN" : "refused");
	say_report(fd);
}

static void test_main_thread_then_every_thread(void **state)
{
	struct kp_buf out = KP_BUF_INIT;
	(void)state;
	assert_int_equal(in_child(two_step_scenario, &out), 0);
	expect(&out, "lock_one=0\n");
	expect(&out, "main=refused\n");
	expect(&out, "new_thread=runs\n");
	expect(&out, "older_thread=ran\n");
	expect(&out, "lock_all=0\n");
	expect(&out, "thread_after_lock=refused\n");
	expect(&out, "\"since\":\"before the first call\",\"main_thread_since\":\"before the import\"");
	kp_buf_release(&out);
}

static unsigned long long ns_inode(void)
{
	struct stat st;
	return stat("/proc/self/ns/net", &st) ? 0 : (unsigned long long)st.st_ino;
}

/* UDP connect sends nothing; it only asks the kernel for a route. */
static const char *route_out(void)
{
	struct sockaddr_in a;
	int s = socket(AF_INET, SOCK_DGRAM, 0), rc;
	if (s < 0)
		return "no-socket";
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons(9);
	inet_pton(AF_INET, "192.0.2.1", &a.sin_addr); /* TEST-NET-1 */
	rc = connect(s, (struct sockaddr *)&a, sizeof(a));
	close(s);
	return rc == 0 ? "route" : errno == ENETUNREACH ? "unreachable" : "other-error";
}

static void net_scenario(int fd)
{
	unsigned long long before = ns_inode();
	kp_sandbox_begin("eval", 30);
	say(fd, "ns_changed=%s\n", ns_inode() != before ? "yes" : "no");
	say(fd, "route=%s\n", route_out());
	say_report(fd);
}

static void test_network_isolated_or_says_why(void **state)
{
	struct kp_buf out = KP_BUF_INIT;
	(void)state;
	assert_int_equal(in_child(net_scenario, &out), 0);
	if (strstr(out.buf, "\"isolated\":true")) {
		expect(&out, "ns_changed=yes\n");
		expect(&out, "route=unreachable\n");
	} else {
		/* Fail-safe: no namespace could be made here, and the report must say so. */
		expect(&out, "ns_changed=no\n");
		expect(&out, "\"network\":{\"isolated\":false,\"why\":\"no network namespace could be made");
		print_message("note: no network namespace on this machine; the fail-safe report was checked\n");
	}
	kp_buf_release(&out);
}

static void limits_scenario(int fd)
{
	struct rlimit cpu, core, files, fsize, data;
	kp_sandbox_begin("eval", 10);
	say_report(fd);
	kp_sandbox_lock(1, "x");
	getrlimit(RLIMIT_DATA, &data);
	say(fd, "data=%s\n", data.rlim_cur != RLIM_INFINITY && data.rlim_cur >= (8ull << 30) ? "limited" : "NOT LIMITED");
	getrlimit(RLIMIT_CPU, &cpu);
	getrlimit(RLIMIT_CORE, &core);
	getrlimit(RLIMIT_NOFILE, &files);
	getrlimit(RLIMIT_FSIZE, &fsize);
	say(fd, "cpu=%llu/%llu core=%llu files=%llu fsize=%llu\n", (unsigned long long)cpu.rlim_cur,
	    (unsigned long long)cpu.rlim_max, (unsigned long long)core.rlim_cur, (unsigned long long)files.rlim_cur,
	    (unsigned long long)fsize.rlim_cur);
	say_report(fd);
}

static void test_limits_are_the_reported_ones(void **state)
{
	struct kp_buf out = KP_BUF_INIT;
	(void)state;
	assert_int_equal(in_child(limits_scenario, &out), 0);
	expect(&out, "cpu=20/25 core=0 files=4096 fsize=8589934592\n");
	/* Data is limited once CUDA is up, with the filter on every thread: from what is held then. */
	expect(&out, "\"limits\":{\"cpu_s\":20,\"data_bytes\":null,");
	expect(&out, "data=limited\n");
	expect(&out, "\"data_growth_bytes\":");
	expect(&out, "\"open_files\":4096,\"file_bytes\":8589934592,\"core_bytes\":0}");
	expect(&out, "\"address_space\":\"not limited: CUDA reserves");
	kp_buf_release(&out);
}

static void env_off_scenario(int fd)
{
	unsigned long long before = ns_inode();
	setenv("KERNELPRO_SANDBOX", "nonet,nospawn", 1);
	kp_sandbox_begin("eval", 30);
	say(fd, "lock=%d\n", kp_sandbox_lock(1, "x"));
	say(fd, "ns_changed=%s\n", ns_inode() != before ? "yes" : "no");
	try_spawns(fd);
	say_report(fd);
}

static void test_switched_off_parts_are_reported(void **state)
{
	struct kp_buf out = KP_BUF_INIT;
	(void)state;
	assert_int_equal(in_child(env_off_scenario, &out), 0);
	expect(&out, "ns_changed=no\n");
	expect(&out, "fork=RAN");
	expect(&out, "\"switched_off\":\"nonet,nospawn\"");
	expect(&out, "\"network\":{\"isolated\":false,\"why\":\"switched off by KERNELPRO_SANDBOX\"}");
	expect(&out, "\"processes\":{\"blocked\":false,\"why\":\"switched off by KERNELPRO_SANDBOX\"}");
	expect(&out, "\"limits\":{\"cpu_s\":60");
	kp_buf_release(&out);
}

static void run_mode_scenario(int fd)
{
	unsigned long long before = ns_inode();
	kp_sandbox_begin("run", 30);
	say(fd, "ns_changed=%s\n", ns_inode() != before ? "yes" : "no");
	say(fd, "lock=%d\n", kp_sandbox_lock(1, "before the candidate"));
	try_spawns(fd);
	say_report(fd);
}

static void test_prepared_runs_keep_the_network(void **state)
{
	struct kp_buf out = KP_BUF_INIT;
	(void)state;
	assert_int_equal(in_child(run_mode_scenario, &out), 0);
	expect(&out, "ns_changed=no\n");
	expect(&out, "fork=refused");
	expect(&out, "\"why\":\"not used for prepared runs: a profiler's injected library talks to its front end over "
		     "localhost\"");
	kp_buf_release(&out);
}

static void test_parts_and_small_buffer(void **state)
{
	char tiny[16];
	(void)state;
	assert_int_equal(kp_sandbox_parts("eval"), KP_SANDBOX_ALL);
	assert_int_equal(kp_sandbox_parts("run"), KP_SANDBOX_LIMITS | KP_SANDBOX_SPAWN);
	assert_int_equal(kp_sandbox_parts("baseline"), 0);
	assert_int_equal(kp_sandbox_parts(NULL), 0);
	assert_int_equal(kp_sandbox_report(tiny, sizeof(tiny)), -1);
	assert_int_equal(kp_sandbox_refused(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parts_and_small_buffer),
		cmocka_unit_test(test_without_the_filter_processes_start),
		cmocka_unit_test(test_spawn_refused_and_counted),
		cmocka_unit_test(test_signal_blocking_spawns_end_the_child),
		cmocka_unit_test(test_llvm_signal_handlers_leave_the_filter_working),
		cmocka_unit_test(test_main_thread_then_every_thread),
		cmocka_unit_test(test_network_isolated_or_says_why),
		cmocka_unit_test(test_limits_are_the_reported_ones),
		cmocka_unit_test(test_switched_off_parts_are_reported),
		cmocka_unit_test(test_prepared_runs_keep_the_network),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
