/* What may reach a Slurm job script: every value is checked here before a script is written. */
#include "base/setup.h"

#include "suite/slurm_int.h"

static bool is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* True when every character is a letter, a digit or one of `extra`. */
bool kp__slurm_check_chars(const char *s, const char *extra)
{
	for (; *s; s++)
		if (!is_alnum(*s) && !strchr(extra, *s))
			return false;
	return true;
}

bool kp__slurm_check_has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

/* A Slurm name: partition (also a comma list), account, QoS, job name. */
int kp__slurm_check_name(const char *what, const char *v, const char *extra, struct kp_error *err)
{
	if (!*v || strlen(v) > 64 || !kp__slurm_check_chars(v, extra))
		return kp_error_set(err, KP_EINVAL, "%s '%s': use 1 to 64 letters, digits or '%s'", what, v,
		                    extra);
	return 0;
}

/* One number of a Slurm time: 1 to 6 digits. */
static bool time_part(const char *s, size_t n)
{
	if (n == 0 || n > 6)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* Slurm's time forms: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S. */
int kp__slurm_check_time(const char *what, const char *v, struct kp_error *err)
{
	const char *p = v, *dash = strchr(v, '-');
	int parts = 0;
	bool ok = true;
	if (dash) {
		ok = time_part(v, (size_t)(dash - v));
		p = dash + 1;
	}
	while (ok) {
		size_t n = strcspn(p, ":");
		ok = time_part(p, n) && ++parts <= 3;
		if (!p[n])
			break;
		p += n + 1;
	}
	if (!ok)
		return kp_error_set(
		    err, KP_EINVAL,
		    "%s '%s' is not a Slurm time: use minutes, H:M:S or D-H:M:S (e.g. 4:00:00, 1-12)", what,
		    v);
	return 0;
}

int kp__slurm_check_abs_path(const char *what, const char *v, struct kp_error *err)
{
	if (v[0] != '/' || strlen(v) > 4096 || kp__slurm_check_has_control(v))
		return kp_error_set(err, KP_EINVAL,
		                    "%s '%s': give an absolute path without control characters", what, v);
	return 0;
}

/*
 * A path that goes on an #SBATCH line: sbatch splits those lines itself (quotes, backslashes and
 * '#' mean something there, '%' starts a file-name pattern), so only plain characters pass.
 */
int kp__slurm_check_sbatch_path(const char *what, const char *v, struct kp_error *err)
{
	if (v[0] != '/' || strlen(v) > 1024 || !kp__slurm_check_chars(v, "/._+,=@-"))
		return kp_error_set(
		    err, KP_EINVAL,
		    "%s '%s' cannot be named on an #SBATCH line: use an absolute path of letters, "
		    "digits and / . _ + , = @ -",
		    what, v);
	return 0;
}

int kp__slurm_check_module(const char *v, struct kp_error *err)
{
	if (!*v || strlen(v) > 128 || !kp__slurm_check_chars(v, "/._+@:-"))
		return kp_error_set(err, KP_EINVAL, "module '%s': use letters, digits and / . _ + @ : -", v);
	return 0;
}

/* NAME=value; names kernelpro sets from other settings, and Slurm's own, are refused. */
int kp__slurm_check_env(const char *v, struct kp_error *err)
{
	const char *eq = strchr(v, '=');
	size_t n = eq ? (size_t)(eq - v) : 0;
	static const char *const own[] = {"KERNELPRO_PYTHON", "CUDA_HOME", "PATH"};
	if (!eq || n == 0 || n > 64 || (v[0] >= '0' && v[0] <= '9') || strlen(eq + 1) > 4096 ||
	    kp__slurm_check_has_control(eq + 1))
		return kp_error_set(err, KP_EINVAL, "env '%s': write NAME=value (no control characters)", v);
	for (size_t i = 0; i < n; i++)
		if (!is_alnum(v[i]) && v[i] != '_')
			return kp_error_set(err, KP_EINVAL, "env '%.*s': a name is letters, digits and '_'",
			                    (int)n, v);
	for (size_t i = 0; i < KP_ARRAY_SIZE(own); i++)
		if (strlen(own[i]) == n && !memcmp(v, own[i], n))
			return kp_error_set(
			    err, KP_EINVAL,
			    "env '%s': kernelpro sets %s itself (use the python and cuda_home settings)", v,
			    own[i]);
	if (n >= 6 && !memcmp(v, "SLURM_", 6))
		return kp_error_set(err, KP_EINVAL, "env '%.*s': SLURM_ variables belong to Slurm", (int)n,
		                    v);
	return 0;
}

/* sbatch options kernelpro writes itself, and the setting to use instead (NULL: none). */
static const struct {
	const char *opt, *use;
} owned_opts[] = {
    {"array", NULL},
    {"output", NULL},
    {"error", NULL},
    {"open-mode", NULL},
    {"parsable", NULL},
    {"wrap", NULL},
    {"dependency", NULL},
    {"job-name", NULL},
    {"chdir", NULL},
    {"requeue", "requeue"},
    {"no-requeue", "requeue"},
    {"signal", "signal_s"},
    {"partition", "partition"},
    {"account", "account"},
    {"qos", "qos"},
    {"time", "time"},
    {"nodes", "nodes"},
    {"gpus-per-node", "gpus_per_node"},
};

/* One sbatch option in long form, "--name" or "--name=value", with nothing sbatch would reinterpret. */
int kp__slurm_check_sbatch_arg(const char *v, struct kp_error *err)
{
	size_t n;
	if (strncmp(v, "--", 2) || !v[2] || strlen(v) > 512)
		return kp_error_set(err, KP_EINVAL,
		                    "sbatch argument '%s': write one long option, --name or --name=value", v);
	n = strcspn(v + 2, "=");
	for (const char *p = v + 2; *p; p++)
		if (*p <= ' ' || *p >= 0x7f || strchr("'\"\\#", *p) ||
		    (p < v + 2 + n && !is_alnum(*p) && *p != '-'))
			return kp_error_set(
			    err, KP_EINVAL,
			    "sbatch argument '%s': no spaces, quotes, backslashes or '#' (sbatch reads "
			    "them on #SBATCH lines)",
			    v);
	for (size_t i = 0; i < KP_ARRAY_SIZE(owned_opts); i++)
		if (strlen(owned_opts[i].opt) == n && !memcmp(v + 2, owned_opts[i].opt, n)) {
			if (owned_opts[i].use)
				return kp_error_set(err, KP_EINVAL,
				                    "sbatch argument '%s': use the '%s' setting", v,
				                    owned_opts[i].use);
			return kp_error_set(err, KP_EINVAL,
			                    "sbatch argument '%s': kernelpro sets --%s itself", v,
			                    owned_opts[i].opt);
		}
	return 0;
}
