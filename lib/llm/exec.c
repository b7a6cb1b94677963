/* The exec backend: any command line as an LLM, prompt on stdin, reply on stdout; one child per request. */
#include "base/setup.h"

#include <math.h>
#include <pthread.h>
#include <time.h>

#include "kernelpro/child.h"
#include "kernelpro/log.h"
#include "kernelpro/str.h"
#include "llm/backend.h"

struct pool {
	struct kp_llm *llm;
	struct kp_llm_job *jobs;
	size_t n;
	size_t next;
	pthread_mutex_t lock;
};

/* Waits s seconds between attempts, in short steps so a cancel cuts the wait short. */
static void sleep_s(struct kp_llm *llm, double s)
{
	double end = kp_now() + s;
	while (!kp_llm_canceled(llm)) {
		double left = end - kp_now();
		struct timespec ts;
		if (left <= 0)
			return;
		if (left > 0.05)
			left = 0.05;
		ts.tv_sec = 0;
		ts.tv_nsec = (long)(left * 1e9);
		nanosleep(&ts, NULL);
	}
}

/* kp_child's cancel hook: the child stops when the handle is canceled. */
static int child_canceled(void *ud)
{
	return kp_llm_canceled(ud);
}

/* The last line of the child's stderr that says something, scrubbed: the reason it failed. */
static void stderr_hint(const struct kp_child *c, char *out, size_t n)
{
	const char *s = c->err.buf;
	size_t end = c->err.len;
	while (end && (s[end - 1] == '\n' || s[end - 1] == ' ' || s[end - 1] == '\r'))
		end--;
	size_t start = end;
	while (start && s[start - 1] != '\n')
		start--;
	snprintf(out, n, "%.*s", (int)(end - start > 200 ? 200 : end - start), s + start);
}

static void run_one(struct kp_llm *llm, struct kp_llm_job *job)
{
	const struct kp_llm_config *cfg = &llm->cfg;
	struct kp_buf prompt = KP_BUF_INIT;
	char what[KP_ERROR_SIZE];

	kp_llm_render_plain(job->req, &prompt);
	job->t_start = kp_now();
	for (;;) {
		struct kp_child c = KP_CHILD_INIT;
		struct kp_error cerr = KP_ERROR_INIT;
		char how[128], hint[256];
		int rc;

		kp_strvec_pushv(&c.args, (const char *const *)cfg->exec_argv.v);
		if (cfg->model)
			kp_strvec_pushf(&c.env, "KERNELPRO_LLM_MODEL=%s", cfg->model);
		kp_strvec_pushf(&c.env, "KERNELPRO_LLM_MAX_TOKENS=%ld", cfg->max_tokens);
		if (!isnan(cfg->temperature))
			kp_strvec_pushf(&c.env, "KERNELPRO_LLM_TEMPERATURE=%g", cfg->temperature);
		kp_strvec_pushf(&c.env, "KERNELPRO_PROMPT_HASH=%s", job->hash);
		c.stdin_data = prompt.buf;
		c.stdin_len = prompt.len;
		c.timeout_ms = (long)(cfg->timeout_s * 1000.0);
		c.out_cap = KP_LLM_REPLY_CAP;
		c.err_cap = 64u << 10;
		c.kill_at_cap = 1; /* a command that never stops writing is stopped at the reply cap */
		/* The user's own command, acting for the user (it may call an API): the whole environment. */
		c.inherit_env = 1;
		c.cancel = child_canceled;
		c.cancel_ud = llm;
		job->attempts++;
		rc = kp_child_run(&c, &cerr);
		if (rc) {
			kp_llm_fail(llm, job, rc, "llm: exec: %s", kp_error_msg(&cerr));
			kp_child_release(&c);
			break;
		}
		if (c.out_truncated || c.output_capped) {
			/* Final: the same request would bring the same flood again. */
			kp_llm_fail(llm, job, KP_ETOOBIG, "llm: exec: '%s' wrote more than %u MiB (not retried)",
				    cfg->exec_argv.v[0], KP_LLM_REPLY_CAP >> 20);
			kp_child_release(&c);
			break;
		}
		if (kp_child_ok(&c)) {
			job->reply->text = kp_buf_detach(&c.out, &job->reply->len);
			kp_child_release(&c);
			if (kp_llm_check_text(llm, job))
				break;
			kp_strlcpy(job->reply->finish_reason, "stop", sizeof(job->reply->finish_reason));
			if (cfg->model)
				kp_strlcpy(job->reply->model, cfg->model, sizeof(job->reply->model));
			/* No usage from a command: kp_llm_job_done estimates it (a token budget holds). */
			job->reply->usage.input_tokens = job->reply->usage.output_tokens = -1;
			job->reply->usage.attempts = job->attempts;
			job->reply->usage.elapsed_s = kp_now() - job->t_start;
			kp_llm_job_done(llm, job);
			break;
		}
		stderr_hint(&c, hint, sizeof(hint));
		snprintf(what, sizeof(what), "'%s' %s%s%s", cfg->exec_argv.v[0],
			 kp_child_describe(&c, how, sizeof(how)), *hint ? ": " : "", hint);
		kp_redact_str(&llm->redact, what, sizeof(what));
		int timed_out = c.timed_out;
		kp_child_release(&c);
		if (job->attempts > cfg->retries) {
			kp_llm_fail(llm, job, timed_out ? KP_ETIMEOUT : KP_ELLM, "llm: exec: gave up after %d attempt%s: %s",
				    job->attempts, job->attempts == 1 ? "" : "s", what);
			break;
		}
		sleep_s(llm, kp_llm_backoff(llm, job->attempts + 1, -1));
		if (kp_llm_job_canceled(llm, job))
			break;
	}
	kp_buf_release(&prompt);
}

static void *worker(void *ud)
{
	struct pool *p = ud;
	for (;;) {
		struct kp_llm_job *job = NULL;
		pthread_mutex_lock(&p->lock);
		while (p->next < p->n && !job) {
			job = &p->jobs[p->next++];
			if (job->done)
				job = NULL;
		}
		pthread_mutex_unlock(&p->lock);
		if (!job)
			return NULL;
		if (!kp_llm_job_canceled(p->llm, job))
			run_one(p->llm, job);
	}
}

static void exec_run(struct kp_llm *llm, struct kp_llm_job *jobs, size_t n)
{
	struct pool p = {.llm = llm, .jobs = jobs, .n = n};
	size_t nthreads = n < (size_t)llm->cfg.parallel ? n : (size_t)llm->cfg.parallel;
	pthread_t *t;
	size_t started = 0;

	pthread_mutex_init(&p.lock, NULL);
	t = kp_xcalloc(nthreads ? nthreads : 1, sizeof(*t));
	while (nthreads > 1 && started < nthreads && !pthread_create(&t[started], NULL, worker, &p))
		started++;
	/* With one request (or no threads to be had) this thread does the work itself. */
	worker(&p);
	for (size_t i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	free(t);
	pthread_mutex_destroy(&p.lock);
}

static int exec_setup(struct kp_llm *llm, struct kp_error *err)
{
	char *path;
	if (!llm->cfg.exec_argv.n)
		return kp_error_set(err, KP_EINVAL, "llm: exec needs a program: --llm exec:PROGRAM");
	path = kp_which(llm->cfg.exec_argv.v[0]);
	if (!path)
		return kp_error_set(err, KP_ENOTOOL, "llm: exec program '%s' not found on PATH", llm->cfg.exec_argv.v[0]);
	free(path);
	return 0;
}

static int exec_parse_spec(struct kp_llm_config *cfg, const char *word, const char *rest, struct kp_error *err)
{
	struct kp_strvec words = KP_STRVEC_INIT;
	kp_strvec_release(&cfg->exec_argv);
	kp_strvec_split(&words, rest, ' ');
	for (size_t i = 0; i < words.n; i++)
		if (*words.v[i])
			kp_strvec_push(&cfg->exec_argv, words.v[i]);
	kp_strvec_release(&words);
	if (!cfg->exec_argv.n)
		return kp_error_set(err, KP_EINVAL, "llm: 'exec:' needs a program, e.g. exec:my-llm-cli");
	return 0;
}

static void exec_format_spec(const struct kp_llm_config *cfg, struct kp_buf *out)
{
	char *j = kp_strvec_join(&cfg->exec_argv, " ");
	kp_buf_addf(out, "exec:%s", j ? j : "");
	free(j);
}

static const char *const exec_words[] = {"exec", NULL};

const struct kp_llm_backend kp_llm_backend_exec = {
	.id = KP_LLM_EXEC,
	.name = "exec",
	.words = exec_words,
	.arg = "PROGRAM",
	.parse_spec = exec_parse_spec,
	.format_spec = exec_format_spec,
	.setup = exec_setup,
	.run = exec_run,
	/* no cleanup: nothing is held between requests, each one is its own child */
};
