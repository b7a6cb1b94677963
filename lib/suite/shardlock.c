/*
 * The lock of one shard (SUITE/shards/K-of-M.lock): an flock, with the holder's identity written
 * inside. A lock whose holder has ended is waited out, since on a network filesystem a dead node's
 * lock outlives it until the server's lease lapses (docs/slurm.md: a shard database left locked).
 */
#include "base/setup.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "kernelpro/json.h"
#include "kernelpro/log.h"
#include "kernelpro/slurm_status.h"
#include "kernelpro/str.h"
#include "suite/bench_int.h"

#define OWNER_CAP       4096
#define DEFAULT_WAIT_S  300.0
#define POLL_S          1.0
#define SLURM_ID_DIGITS 18

/* Who holds the shard: written into the lock file, read back by a process it refuses. */
static void owner_text(const char *argv_text, struct kp_buf *out)
{
	json_t *j = json_object();
	char host[256] = "";
	const char *env[][2] = {{"job", "SLURM_ARRAY_JOB_ID"},
	                        {"array_task", "SLURM_ARRAY_TASK_ID"},
	                        {"restart", "SLURM_RESTART_COUNT"},
	                        {"slurm_job", "SLURM_JOB_ID"}};
	gethostname(host, sizeof(host) - 1);
	kp_json_set(j, "pid", json_integer((json_int_t)getpid()));
	kp_json_set(j, "host", json_string(host));
	kp_json_set(j, "started", json_real(kp_wall_time()));
	kp_json_set(j, "argv", argv_text ? json_string(argv_text) : NULL);
	for (size_t i = 0; i < KP_ARRAY_SIZE(env); i++)
		if (getenv(env[i][1]) && *getenv(env[i][1]))
			kp_json_set(j, env[i][0], json_string(getenv(env[i][1])));
	kp_json_dump_buf(j, out, 1);
	json_decref(j);
}

/* A Slurm id from the owner text or the environment: 1 to 18 digits; -1 when absent or not one. */
static long long slurm_id(const char *s)
{
	long v;
	if (!s || !*s || strlen(s) > SLURM_ID_DIGITS || strspn(s, "0123456789") != strlen(s) ||
	    kp_parse_long(s, &v))
		return -1;
	return v;
}

/* Whether the Slurm job (array element `task`, or a plain job for -1) still has a run on a node. */
static int job_running(long long job, long long task, char *why, size_t n)
{
	struct kp_slurm_status st;
	struct kp_error err = KP_ERROR_INIT;
	int running = 1;
	kp_slurm_status_init(&st);
	if (kp_slurm_status_query(NULL, NULL, job, task >= 0 ? (long)task + 1 : 0, &st, &err)) {
		snprintf(why, n, "Slurm job %lld cannot be asked about: %s", job, kp_error_msg(&err));
	} else {
		enum kp_slurm_state s = st.v[task >= 0 ? task : 0].state;
		running = kp_slurm_status_state_running(s);
		if (task >= 0)
			snprintf(why, n, "Slurm job %lld_%lld is %s", job, task,
			         kp_slurm_status_state_name(s));
		else
			snprintf(why, n, "Slurm job %lld is %s", job, kp_slurm_status_state_name(s));
	}
	kp_slurm_status_release(&st);
	return running;
}

/*
 * Whether the holder the owner text names can no longer be working on the shard (1: it has ended),
 * and why (for the log and the refusal). Anything kernelpro cannot tell counts as live.
 */
static int holder_ended(const char *text, char *why, size_t n)
{
	json_t *o = json_loads(text, 0, NULL);
	long long job = slurm_id(kp_json_str(o, "job", NULL)),
	          task = slurm_id(kp_json_str(o, "array_task", NULL));
	long long plain = slurm_id(kp_json_str(o, "slurm_job", NULL));
	long long pid = kp_json_int(o, "pid", 0);
	const char *host = kp_json_str(o, "host", "");
	char me[256] = "";
	int ended = 0;

	gethostname(me, sizeof(me) - 1);
	if (!o) {
		snprintf(why, n, "no owner written");
	} else if (job > 0 && task >= 0 && job == slurm_id(getenv("SLURM_ARRAY_JOB_ID")) &&
	           task == slurm_id(getenv("SLURM_ARRAY_TASK_ID"))) {
		/* Slurm runs one instance of an element at a time: the holder is an earlier run of this one.
		 */
		snprintf(why, n, "an earlier run of this element, Slurm job %lld_%lld", job, task);
		ended = 1;
	} else if (job > 0 && task >= 0) {
		ended = !job_running(job, task, why, n);
	} else if (plain > 0) {
		ended = !job_running(plain, -1, why, n);
	} else if (pid > 0 && pid <= INT32_MAX && *host && !strcmp(host, me)) {
		ended = kill((pid_t)pid, 0) != 0 && errno == ESRCH;
		snprintf(why, n, "pid %lld on this host %s", pid, ended ? "has ended" : "is alive");
	} else {
		snprintf(why, n, "a process on host '%s' that kernelpro cannot see from here", host);
	}
	json_decref(o);
	return ended;
}

static void sleep_s(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static void read_owner(int f, char *held, size_t cap)
{
	ssize_t n = pread(f, held, cap - 1, 0);
	char *t;
	held[n > 0 ? n : 0] = '\0';
	t = kp_str_trim(held);
	memmove(held, t, strlen(t) + 1);
}

int kp__shardlock_take(const struct kp__shardlock_req *r, int *fd, struct kp_error *err)
{
	struct kp_buf p = KP_BUF_INIT, owner = KP_BUF_INIT;
	double wait_s = r->wait_s > 0 ? r->wait_s : r->wait_s < 0 ? 0 : DEFAULT_WAIT_S, t0 = kp_now();
	char held[OWNER_CAP], why[512];
	int f, rc = 0, waiting = 0;

	*fd = -1;
	kp__bench_shard_path(&p, r->dir, r->k, r->m, "lock");
	f = open(p.buf, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (f < 0) {
		rc = kp_error_set(err, KP_EIO, "cannot open '%s': %s", p.buf, strerror(errno));
		goto out;
	}
	while (flock(f, LOCK_EX | LOCK_NB) != 0) {
		int ended;
		read_owner(f, held, sizeof(held));
		ended = holder_ended(held, why, sizeof(why));
		if (!ended) {
			rc = kp_error_set(
			    err, KP_EEXISTS,
			    "shard %d/%d of suite '%s' is in use by another kernelpro process (%s: "
			    "%s); wait for it or stop it",
			    r->k, r->m, r->dir, why, held[0] ? held : "owner unknown");
			goto out;
		}
		if (kp_now() - t0 >= wait_s) {
			rc = kp_error_set(
			    err, KP_EEXISTS,
			    "shard %d/%d of suite '%s' is still locked after %.0f s although its holder has "
			    "ended (%s); on a network filesystem a dead node's lock lasts until the server's "
			    "lease lapses: run the shard again later",
			    r->k, r->m, r->dir, wait_s, why);
			goto out;
		}
		if (!waiting++)
			kp_warn("shard %d/%d: its lock is held, but its holder has ended (%s); waiting up to "
			        "%.0f "
			        "s for the lock to lapse",
			        r->k, r->m, why, wait_s);
		if (r->stop && *r->stop) {
			rc = kp_error_set(err, KP_ECANCELED,
			                  "stopped while waiting for the lock of shard %d/%d", r->k, r->m);
			goto out;
		}
		sleep_s(POLL_S);
	}
	if (waiting)
		kp_warn("shard %d/%d: the lock lapsed after %.0f s; taking the shard over", r->k, r->m,
		        kp_now() - t0);
	owner_text(r->argv_text, &owner);
	if (ftruncate(f, 0) != 0 || pwrite(f, owner.buf, owner.len, 0) < 0)
		kp_warn("'%s': the owner could not be written (%s); the lock holds all the same", p.buf,
		        strerror(errno));
	*fd = f;
	f = -1;
out:
	if (f >= 0)
		close(f);
	kp_buf_release(&p);
	kp_buf_release(&owner);
	return rc;
}

int kp_bench_busy(const struct kp_error *err)
{
	return err && err->code == KP_EEXISTS;
}
