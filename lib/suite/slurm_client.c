/* Running Slurm's programs (sbatch, squeue, sacct, scontrol) and reading the numbers they print. */
#include "base/setup.h"

#include "suite/slurm_int.h"

#define CLIENT_TIMEOUT_MS 120000

bool kp__slurm_client_num(const char *s, size_t n, long long max, long long *out)
{
	long long v = 0;
	if (n == 0 || n > 18)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (s[i] - '0');
	}
	if (v > max)
		return false;
	*out = v;
	return true;
}

int kp__slurm_client_run(struct kp_child *c, const char *prog, size_t out_cap, struct kp_error *err)
{
	int rc;
	c->timeout_ms = CLIENT_TIMEOUT_MS;
	c->out_cap = out_cap;
	c->err_cap = 1 << 16;
	kp_strvec_pushl(&c->env, "LC_ALL=C", "SLURM_TIME_FORMAT=standard", NULL);
	/*
	 * The user's own cluster client, acting for the user: it needs SLURM_CONF, SLURM_CLUSTERS,
	 * SBATCH_*, and sbatch passes the submitter's environment (API keys included) on to the jobs
	 * (--export=ALL).
	 */
	c->inherit_env = 1;
	rc = kp_child_run(c, err);
	if (rc == KP_ENOTOOL) {
		kp_error_clear(err);
		return kp_error_set(err, KP_ENOTOOL,
		                    "'%s' not found: run on a Slurm login node (or give its path)", prog);
	}
	if (!rc && c->out_truncated)
		rc = kp_error_set(err, KP_ETOOBIG, "%s printed more than %zu bytes", prog, out_cap);
	return rc;
}

/* The first non-empty line of a child's stderr (else stdout), trimmed, for an error message. */
static void first_line(const struct kp_child *c, char *out, size_t n)
{
	const char *s = c->err.len ? c->err.buf : c->out.buf;
	size_t len;
	while (s && (*s == '\n' || *s == ' '))
		s++;
	len = s ? strcspn(s, "\n") : 0;
	snprintf(out, n, "%.*s", (int)len, s ? s : "");
}

int kp__slurm_client_failed(const struct kp_child *c, const char *prog, struct kp_error *err)
{
	char how[128], msg[300];
	first_line(c, msg, sizeof(msg));
	return kp_error_set(err, c->timed_out ? KP_ETIMEOUT : KP_ECHILD, "%s %s%s%s", prog,
	                    kp_child_describe(c, how, sizeof(how)), msg[0] ? ": " : "", msg);
}
