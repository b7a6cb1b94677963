/* A suite on a Slurm cluster: settings, job-array and merge scripts, sbatch, and squeue/sacct parsing. */
#include "base/setup.h"

#include <stdbool.h>
#include <time.h>

#include "kernelpro/child.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/slurm.h"
#include "kernelpro/str.h"

#define MAX_ELEMS                                                                                 \
	100000 /* array elements one parse may produce (Slurm's MaxArraySize is ~1001 by default) \
	        */
#define MAX_SHARDS       10000
#define CHILD_CAP        (4u << 20) /* squeue/sacct output kept */
#define CHILD_TIMEOUT_MS 120000

/* ---- Validation: what may reach a script -------------------------------------------------------- */

static bool is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* True when every character is a letter, a digit or one of `extra`. */
static bool in_set(const char *s, const char *extra)
{
	for (; *s; s++)
		if (!is_alnum(*s) && !strchr(extra, *s))
			return false;
	return true;
}

static bool has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

/* A Slurm name: partition (also a comma list), account, QoS, job name. */
static int check_name(const char *what, const char *v, const char *extra, struct kp_error *err)
{
	if (!*v || strlen(v) > 64 || !in_set(v, extra))
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

/* A whole number of at most 18 digits, no sign, not above max. */
static bool parse_num(const char *s, size_t n, long long max, long long *out)
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

/* Slurm's time forms: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S. */
static int check_time(const char *what, const char *v, struct kp_error *err)
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

static int check_abs_path(const char *what, const char *v, struct kp_error *err)
{
	if (v[0] != '/' || strlen(v) > 4096 || has_control(v))
		return kp_error_set(err, KP_EINVAL,
		                    "%s '%s': give an absolute path without control characters", what, v);
	return 0;
}

/*
 * A path that goes on an #SBATCH line: sbatch splits those lines itself (quotes, backslashes and
 * '#' mean something there, '%' starts a file-name pattern), so only plain characters pass.
 */
static int check_sbatch_path(const char *what, const char *v, struct kp_error *err)
{
	if (v[0] != '/' || strlen(v) > 1024 || !in_set(v, "/._+,=@-"))
		return kp_error_set(
		    err, KP_EINVAL,
		    "%s '%s' cannot be named on an #SBATCH line: use an absolute path of letters, "
		    "digits and / . _ + , = @ -",
		    what, v);
	return 0;
}

static int check_module(const char *v, struct kp_error *err)
{
	if (!*v || strlen(v) > 128 || !in_set(v, "/._+@:-"))
		return kp_error_set(err, KP_EINVAL, "module '%s': use letters, digits and / . _ + @ : -", v);
	return 0;
}

/* NAME=value; names kernelpro sets from other settings, and Slurm's own, are refused. */
static int check_env(const char *v, struct kp_error *err)
{
	const char *eq = strchr(v, '=');
	size_t n = eq ? (size_t)(eq - v) : 0;
	static const char *const own[] = {"KERNELPRO_PYTHON", "CUDA_HOME", "PATH"};
	if (!eq || n == 0 || n > 64 || (v[0] >= '0' && v[0] <= '9') || strlen(eq + 1) > 4096 ||
	    has_control(eq + 1))
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
static int check_sbatch_arg(const char *v, struct kp_error *err)
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

/* ---- Settings ----------------------------------------------------------------------------------- */

enum kind { K_NAME, K_PARTITION, K_TIME, K_COUNT, K_BOOL, K_PATH, K_MODULES, K_ENV, K_SBATCH };

static const struct key {
	const char *name;
	enum kind kind;
	size_t off;
	long min, max;
} keys[] = {
    {"partition", K_PARTITION, offsetof(struct kp_slurm_settings, partition), 0, 0},
    {"account", K_NAME, offsetof(struct kp_slurm_settings, account), 0, 0},
    {"qos", K_NAME, offsetof(struct kp_slurm_settings, qos), 0, 0},
    {"time", K_TIME, offsetof(struct kp_slurm_settings, time), 0, 0},
    {"merge_time", K_TIME, offsetof(struct kp_slurm_settings, merge_time), 0, 0},
    {"nodes", K_COUNT, offsetof(struct kp_slurm_settings, nodes), 1, MAX_SHARDS},
    {"gpus_per_node", K_COUNT, offsetof(struct kp_slurm_settings, gpus_per_node), 0, 64},
    {"requeue", K_BOOL, offsetof(struct kp_slurm_settings, requeue), 0, 1},
    {"signal_s", K_COUNT, offsetof(struct kp_slurm_settings, signal_s), 0, 65535},
    {"modules", K_MODULES, offsetof(struct kp_slurm_settings, modules), 0, 0},
    {"python", K_PATH, offsetof(struct kp_slurm_settings, python), 0, 0},
    {"cuda_home", K_PATH, offsetof(struct kp_slurm_settings, cuda_home), 0, 0},
    {"env", K_ENV, offsetof(struct kp_slurm_settings, env), 0, 0},
    {"sbatch_args", K_SBATCH, offsetof(struct kp_slurm_settings, sbatch_args), 0, 0},
};

void kp_slurm_settings_init(struct kp_slurm_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->merge_time = kp_xstrdup("1:00:00");
	s->nodes = 1;
	s->requeue = 1;
	s->signal_s = 300;
}

void kp_slurm_settings_release(struct kp_slurm_settings *s)
{
	free(s->partition);
	free(s->account);
	free(s->qos);
	free(s->time);
	free(s->merge_time);
	free(s->python);
	free(s->cuda_home);
	kp_strvec_release(&s->modules);
	kp_strvec_release(&s->env);
	kp_strvec_release(&s->sbatch_args);
	s->partition = s->account = s->qos = s->time = s->merge_time = s->python = s->cuda_home = NULL;
}

static const struct key *find_key(const char *name)
{
	for (size_t i = 0; i < KP_ARRAY_SIZE(keys); i++)
		if (!strcmp(keys[i].name, name))
			return &keys[i];
	return NULL;
}

/* Checks a text value for a key. */
static int check_value(const struct key *k, const char *v, struct kp_error *err)
{
	switch (k->kind) {
	case K_NAME: return check_name(k->name, v, "_.-", err);
	case K_PARTITION: return check_name(k->name, v, "_.-,", err);
	case K_TIME: return check_time(k->name, v, err);
	case K_PATH: return check_abs_path(k->name, v, err);
	case K_MODULES: return check_module(v, err);
	case K_ENV: return check_env(v, err);
	case K_SBATCH: return check_sbatch_arg(v, err);
	case K_COUNT:
	case K_BOOL: break;
	}
	return 0;
}

static int set_count(struct kp_slurm_settings *s, const struct key *k, long v, struct kp_error *err)
{
	if (v < k->min || v > k->max)
		return kp_error_set(err, KP_EINVAL, "%s %ld: give a whole number from %ld to %ld", k->name, v,
		                    k->min, k->max);
	if (k->kind == K_BOOL)
		*(int *)((char *)s + k->off) = (int)v;
	else
		*(long *)((char *)s + k->off) = v;
	return 0;
}

/* Sets a string or adds to a list, after checking. */
static int set_text(struct kp_slurm_settings *s, const struct key *k, const char *v, struct kp_error *err)
{
	int rc = check_value(k, v, err);
	if (rc)
		return rc;
	if (k->kind == K_MODULES || k->kind == K_ENV || k->kind == K_SBATCH) {
		kp_strvec_push((struct kp_strvec *)((char *)s + k->off), v);
	} else {
		char **slot = (char **)((char *)s + k->off);
		free(*slot);
		*slot = kp_xstrdup(v);
	}
	return 0;
}

int kp_slurm_settings_set(struct kp_slurm_settings *s, const char *key, const char *value,
                          struct kp_error *err)
{
	const struct key *k = find_key(key);
	long v;
	if (!k)
		return kp_error_set(err, KP_EINVAL, "unknown Slurm setting '%s'", key);
	if (k->kind == K_BOOL) {
		if (!strcmp(value, "yes") || !strcmp(value, "true") || !strcmp(value, "1"))
			return set_count(s, k, 1, err);
		if (!strcmp(value, "no") || !strcmp(value, "false") || !strcmp(value, "0"))
			return set_count(s, k, 0, err);
		return kp_error_set(err, KP_EINVAL, "%s '%s': say yes or no", key, value);
	}
	if (k->kind == K_COUNT) {
		if (kp_parse_long(value, &v))
			return kp_error_set(err, KP_EINVAL, "%s '%s' is not a whole number", key, value);
		return set_count(s, k, v, err);
	}
	return set_text(s, k, value, err);
}

static int from_json_value(struct kp_slurm_settings *s, const struct key *k, const json_t *v,
                           const char *what, struct kp_error *err)
{
	size_t i;
	const json_t *item;
	const char *name;
	json_t *val;
	int rc = 0;
	switch (k->kind) {
	case K_BOOL:
		if (!json_is_boolean(v))
			break;
		return set_count(s, k, json_is_true(v), err);
	case K_COUNT:
		if (!json_is_integer(v))
			break;
		if (json_integer_value(v) < k->min || json_integer_value(v) > k->max)
			return kp_error_set(err, KP_EINVAL,
			                    "%s: %s %lld: give a whole number from %ld to %ld", what, k->name,
			                    (long long)json_integer_value(v), k->min, k->max);
		return set_count(s, k, (long)json_integer_value(v), err);
	case K_MODULES:
	case K_SBATCH:
		if (!json_is_array(v))
			break;
		kp_strvec_release((struct kp_strvec *)((char *)s + k->off));
		json_array_foreach(v, i, item)
		{
			if (!json_is_string(item))
				return kp_error_set(err, KP_EINVAL, "%s: %s[%zu] is not a string", what,
				                    k->name, i);
			if ((rc = set_text(s, k, json_string_value(item), err)))
				return rc;
		}
		return 0;
	case K_ENV:
		if (!json_is_object(v))
			break;
		json_object_foreach((json_t *)v, name, val)
		{
			char *entry;
			if (!json_is_string(val))
				return kp_error_set(err, KP_EINVAL, "%s: env.%s is not a string", what, name);
			entry = kp_xasprintf("%s=%s", name, json_string_value(val));
			rc = set_text(s, k, entry, err);
			free(entry);
			if (rc)
				return rc;
		}
		return 0;
	default:
		if (!json_is_string(v))
			break;
		return set_text(s, k, json_string_value(v), err);
	}
	return kp_error_set(err, KP_EINVAL, "%s: '%s' has the wrong type (docs/slurm.md lists each setting)",
	                    what, k->name);
}

int kp_slurm_settings_from_json(struct kp_slurm_settings *s, const json_t *obj, const char *what,
                                struct kp_error *err)
{
	const char *name;
	json_t *v;
	int rc;
	if (!json_is_object(obj))
		return kp_error_set(err, KP_EINVAL, "%s: the Slurm settings must be a JSON object", what);
	json_object_foreach((json_t *)obj, name, v)
	{
		const struct key *k = find_key(name);
		if (!k)
			return kp_error_set(err, KP_EINVAL,
			                    "%s: unknown Slurm setting '%s' (docs/slurm.md lists them)", what,
			                    name);
		if ((rc = from_json_value(s, k, v, what, err))) {
			if (!strstr(kp_error_msg(err), what))
				kp_error_prefix(err, "%s: ", what);
			return rc;
		}
	}
	return 0;
}

int kp_slurm_settings_load(struct kp_slurm_settings *s, const char *path, struct kp_error *err)
{
	json_t *root = NULL;
	const json_t *obj;
	int rc = kp_json_load_file(path, 1 << 20, &root, err);
	if (rc)
		return rc;
	obj = json_object_get(root, "slurm");
	if (!obj)
		rc = kp_error_set(err, KP_ENOENT, "'%s' has no \"slurm\" settings", path);
	else
		rc = kp_slurm_settings_from_json(s, obj, path, err);
	json_decref(root);
	return rc;
}

/* Every setting and job field again, as the script writer sees them (the struct may be set directly). */
static int check_all(const struct kp_slurm_settings *s, const struct kp_slurm_job *job, struct kp_error *err)
{
	int rc = 0;
	for (size_t i = 0; i < KP_ARRAY_SIZE(keys) && !rc; i++) {
		const struct key *k = &keys[i];
		const char *str;
		const struct kp_strvec *list;
		long n;
		switch (k->kind) {
		case K_COUNT:
			n = *(const long *)((const char *)s + k->off);
			if (n < k->min || n > k->max)
				rc = kp_error_set(err, KP_EINVAL,
				                  "%s %ld: give a whole number from %ld to %ld", k->name, n,
				                  k->min, k->max);
			break;
		case K_BOOL: break;
		case K_MODULES:
		case K_ENV:
		case K_SBATCH:
			list = (const struct kp_strvec *)((const char *)s + k->off);
			for (size_t j = 0; j < list->n && !rc; j++)
				rc = check_value(k, list->v[j], err);
			break;
		default:
			str = *(char *const *)((const char *)s + k->off);
			if (str)
				rc = check_value(k, str, err);
		}
	}
	if (rc)
		return rc;
	if (!job->suite_dir || !job->kernelpro)
		return kp_error_set(err, KP_EINVAL,
		                    "a Slurm job needs the suite directory and the kernelpro path");
	if ((rc = check_sbatch_path("suite directory", job->suite_dir, err)) ||
	    (rc = check_abs_path("kernelpro path", job->kernelpro, err)) ||
	    (job->job_name && (rc = check_name("job name", job->job_name, "_.-", err))))
		return rc;
	for (size_t i = 0; job->bench_args && i < job->bench_args->n; i++)
		if (has_control(job->bench_args->v[i]) || strlen(job->bench_args->v[i]) > 4096)
			return kp_error_set(err, KP_EINVAL,
			                    "bench argument '%s' has control characters or is too long",
			                    job->bench_args->v[i]);
	return 0;
}

/* ---- Scripts ------------------------------------------------------------------------------------ */

/* Appends s in single quotes; a quote inside becomes '\'' . */
static void add_sq(struct kp_buf *b, const char *s)
{
	kp_buf_addch(b, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			kp_buf_adds(b, "'\\''");
		else
			kp_buf_addch(b, *s);
	}
	kp_buf_addch(b, '\'');
}

/* The #SBATCH lines both jobs share. */
static void add_common_sbatch(struct kp_buf *b, const struct kp_slurm_settings *s,
                              const struct kp_slurm_job *job, const char *time, const char *log)
{
	kp_buf_adds(b, "#SBATCH --nodes=1\n#SBATCH --ntasks=1\n");
	if (s->partition)
		kp_buf_addf(b, "#SBATCH --partition=%s\n", s->partition);
	if (s->account)
		kp_buf_addf(b, "#SBATCH --account=%s\n", s->account);
	if (s->qos)
		kp_buf_addf(b, "#SBATCH --qos=%s\n", s->qos);
	if (time)
		kp_buf_addf(b, "#SBATCH --time=%s\n", time);
	kp_buf_adds(b, s->requeue ? "#SBATCH --requeue\n" : "#SBATCH --no-requeue\n");
	kp_buf_addf(b, "#SBATCH --chdir=%s\n#SBATCH --output=%s/slurm/%s\n#SBATCH --open-mode=append\n",
	            job->suite_dir, job->suite_dir, log);
}

/* Modules, python, CUDA and env: the same for both jobs. */
static void add_environment(struct kp_buf *b, const struct kp_slurm_settings *s)
{
	if (s->modules.n) {
		/* Batch shells are not login shells: find the module command if the site's profile did not.
		 */
		kp_buf_adds(b, "if ! type module >/dev/null 2>&1; then\n"
		               "\tfor f in /etc/profile.d/lmod.sh /etc/profile.d/z00_lmod.sh "
		               "/etc/profile.d/modules.sh \\\n"
		               "\t\t/usr/share/lmod/lmod/init/bash /usr/share/modules/init/bash; do\n"
		               "\t\tif [ -r \"$f\" ]; then . \"$f\"; break; fi\n"
		               "\tdone\n"
		               "fi\n");
		for (size_t i = 0; i < s->modules.n; i++) {
			kp_buf_adds(b, "module load ");
			add_sq(b, s->modules.v[i]);
			kp_buf_adds(b, " || { echo \"kernelpro: module load failed\" >&2; exit 1; }\n");
		}
	}
	if (s->python) {
		kp_buf_adds(b, "export KERNELPRO_PYTHON=");
		add_sq(b, s->python);
		kp_buf_addch(b, '\n');
	}
	if (s->cuda_home) {
		kp_buf_adds(b, "export CUDA_HOME=");
		add_sq(b, s->cuda_home);
		kp_buf_adds(b, "\nexport PATH=\"$CUDA_HOME/bin:$PATH\"\n");
	}
	for (size_t i = 0; i < s->env.n; i++) {
		const char *eq = strchr(s->env.v[i], '=');
		kp_buf_addf(b, "export %.*s=", (int)(eq - s->env.v[i]), s->env.v[i]);
		add_sq(b, eq + 1);
		kp_buf_addch(b, '\n');
	}
}

/* "exec 'KERNELPRO' bench 'SUITE'": the job's last line, which the caller ends. */
static void add_exec_bench(struct kp_buf *b, const struct kp_slurm_job *job)
{
	kp_buf_adds(b, "exec ");
	add_sq(b, job->kernelpro);
	kp_buf_adds(b, " bench ");
	add_sq(b, job->suite_dir);
}

int kp_slurm_array_script(const struct kp_slurm_settings *s, const struct kp_slurm_job *job,
                          struct kp_buf *out, struct kp_error *err)
{
	int rc = check_all(s, job, err);
	if (rc)
		return rc;
	kp_buf_addf(
	    out,
	    "#!/bin/bash\n"
	    "# kernelpro bench: suite %s as a Slurm job array, one element per shard (docs/slurm.md).\n"
	    "# Written by `kernelpro bench SUITE --slurm`, which submits it and then merge.sbatch with\n"
	    "# --dependency=afterany on it; to submit by hand, do the same.\n"
	    "#SBATCH --job-name=%s\n#SBATCH --array=0-%ld\n",
	    job->suite_dir, job->job_name ? job->job_name : "kp-bench", s->nodes - 1);
	if (s->gpus_per_node > 0)
		kp_buf_addf(out, "#SBATCH --gpus-per-node=%ld\n", s->gpus_per_node);
	add_common_sbatch(out, s, job, s->time, "shard-%a.log");
	/* B: the signal goes to the batch shell only, which is kernelpro after the exec below. */
	if (s->signal_s > 0)
		kp_buf_addf(out, "#SBATCH --signal=B:USR1@%ld\n", s->signal_s);
	for (size_t i = 0; i < s->sbatch_args.n; i++)
		kp_buf_addf(out, "#SBATCH %s\n", s->sbatch_args.v[i]);
	kp_buf_adds(
	    out, "\nshard=${SLURM_ARRAY_TASK_ID:?this script runs as a Slurm array element: submit it with "
	         "sbatch}\n");
	add_environment(out, s);
	kp_buf_addf(out,
	            "echo \"kernelpro: shard $shard/%ld, job ${SLURM_ARRAY_JOB_ID}_$shard on $(hostname), "
	            "start $((${SLURM_RESTART_COUNT:-0} + 1))\"\n",
	            s->nodes);
	add_exec_bench(out, job);
	kp_buf_addf(out, " --shard \"$shard/%ld\" --resume", s->nodes);
	for (size_t i = 0; job->bench_args && i < job->bench_args->n; i++) {
		kp_buf_addch(out, ' ');
		add_sq(out, job->bench_args->v[i]);
	}
	return kp_buf_addch(out, '\n');
}

int kp_slurm_merge_script(const struct kp_slurm_settings *s, const struct kp_slurm_job *job,
                          struct kp_buf *out, struct kp_error *err)
{
	int rc = check_all(s, job, err);
	if (rc)
		return rc;
	kp_buf_addf(
	    out,
	    "#!/bin/bash\n"
	    "# kernelpro bench: merges the shards of suite %s once its job array has ended (docs/slurm.md).\n"
	    "#SBATCH --job-name=%s-merge\n",
	    job->suite_dir, job->job_name ? job->job_name : "kp-bench");
	add_common_sbatch(out, s, job, s->merge_time, "merge.log");
	kp_buf_adds(out, "\n");
	add_environment(out, s);
	add_exec_bench(out, job);
	return kp_buf_adds(out, " --merge\n");
}

/* ---- Submission --------------------------------------------------------------------------------- */

void kp_slurm_submission_init(struct kp_slurm_submission *sub)
{
	memset(sub, 0, sizeof(*sub));
}

void kp_slurm_submission_release(struct kp_slurm_submission *sub)
{
	free(sub->cluster);
	memset(sub, 0, sizeof(*sub));
}

int kp_slurm_parse_job_id(const char *text, size_t len, long long *id, char **cluster, struct kp_error *err)
{
	size_t end = len, start, semi;
	long long v;
	char name[65];
	while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == '\r' || text[end - 1] == ' '))
		end--;
	start = end;
	while (start > 0 && text[start - 1] != '\n')
		start--;
	for (semi = start; semi < end && text[semi] != ';'; semi++)
		;
	if (!parse_num(text + start, semi - start, INT64_MAX / 2, &v) || v == 0)
		goto bad;
	if (semi < end) {
		size_t n = end - semi - 1;
		if (n == 0 || n >= sizeof(name))
			goto bad;
		memcpy(name, text + semi + 1, n);
		name[n] = '\0';
		if (!in_set(name, "_.-"))
			goto bad;
	}
	if (cluster)
		*cluster = semi < end ? kp_xstrdup(name) : NULL;
	*id = v;
	return 0;
bad:
	return kp_error_set(err, KP_EPARSE, "sbatch answered '%.*s', not a job id",
	                    (int)(end - start > 80 ? 80 : end - start), text + start);
}

/* The first non-empty line of a child's stderr (else stdout), trimmed, for an error message. */
static void first_line(const struct kp_child *c, char *out, size_t n)
{
	const char *s = c->err.len ? c->err.buf : c->out.buf;
	size_t len;
	while (*s == '\n' || *s == ' ')
		s++;
	len = strcspn(s, "\n");
	snprintf(out, n, "%.*s", (int)len, s);
}

int kp_slurm_sbatch(const char *sbatch, const char *script, long long afterany, long long *id, char **cluster,
                    struct kp_error *err)
{
	struct kp_child c = KP_CHILD_INIT;
	char how[128], msg[300];
	int rc;
	kp_strvec_pushl(&c.args, sbatch ? sbatch : "sbatch", "--parsable", NULL);
	if (afterany > 0)
		kp_strvec_pushf(&c.args, "--dependency=afterany:%lld", afterany);
	kp_strvec_push(&c.args, script);
	c.timeout_ms = CHILD_TIMEOUT_MS;
	c.out_cap = c.err_cap = 1 << 16;
	/*
	 * The user's own cluster client, acting for the user: it needs SLURM_CONF and SBATCH_*, and
	 * passes the submitter's environment (API keys included) on to the jobs (--export=ALL).
	 */
	c.inherit_env = 1;
	rc = kp_child_run(&c, err);
	if (rc == KP_ENOTOOL) {
		kp_error_clear(err);
		rc = kp_error_set(err, KP_ENOTOOL,
		                  "'%s' not found: run on a Slurm login node (or give its path)",
		                  sbatch ? sbatch : "sbatch");
	}
	if (rc)
		goto out;
	if (!kp_child_ok(&c)) {
		first_line(&c, msg, sizeof(msg));
		rc = kp_error_set(err, c.timed_out ? KP_ETIMEOUT : KP_ECHILD, "sbatch '%s' %s%s%s", script,
		                  kp_child_describe(&c, how, sizeof(how)), msg[0] ? ": " : "", msg);
		goto out;
	}
	rc = kp_slurm_parse_job_id(c.out.buf, c.out.len, id, cluster, err);
out:
	kp_child_release(&c);
	return rc;
}

static int write_record(const char *path, const struct kp_slurm_submission *sub, struct kp_error *err)
{
	json_t *o = json_object();
	int rc;
	kp_json_set(o, "schema", json_string("kernelpro.slurm-submission/1"));
	kp_json_set(o, "array_job", json_integer(sub->array_job));
	kp_json_set(o, "merge_job", sub->merge_job ? json_integer(sub->merge_job) : NULL);
	kp_json_set(o, "shards", json_integer(sub->shards));
	kp_json_set(o, "cluster", sub->cluster ? json_string(sub->cluster) : NULL);
	kp_json_set(o, "submitted_at", json_integer((json_int_t)sub->submitted_at));
	rc = kp_json_write_file(path, o, err);
	json_decref(o);
	return rc;
}

int kp_slurm_write_and_submit(const struct kp_slurm_settings *s, const struct kp_slurm_job *job,
                              const char *sbatch, int submit, struct kp_slurm_submission *out,
                              struct kp_error *err)
{
	struct kp_buf dir = KP_BUF_INIT, array = KP_BUF_INIT, merge = KP_BUF_INIT, script = KP_BUF_INIT,
	              path = KP_BUF_INIT;
	int rc;
	kp_slurm_submission_release(out);
	out->shards = s->nodes;
	if ((rc = kp_slurm_array_script(s, job, &array, err)) ||
	    (rc = kp_slurm_merge_script(s, job, &merge, err)))
		goto out;
	kp_path_join(&dir, job->suite_dir, "slurm");
	if ((rc = kp_mkdir_p(dir.buf, 0755, err)))
		goto out;
	kp_path_join(&script, dir.buf, "bench.sbatch");
	kp_path_join(&path, dir.buf, "merge.sbatch");
	if ((rc = kp_write_file_atomic(script.buf, array.buf, array.len, err)) ||
	    (rc = kp_write_file_atomic(path.buf, merge.buf, merge.len, err)) || !submit)
		goto out;
	if ((rc = kp_slurm_sbatch(sbatch, script.buf, 0, &out->array_job, &out->cluster, err)))
		goto out;
	out->submitted_at = (double)time(NULL);
	kp_buf_reset(&script);
	kp_path_join(&script, dir.buf, "submission.json");
	if ((rc = write_record(script.buf, out, err)))
		goto out;
	rc = kp_slurm_sbatch(sbatch, path.buf, out->array_job, &out->merge_job, NULL, err);
	if (rc) {
		kp_error_prefix(
		    err,
		    "job array %lld is submitted but its merge job is not (run 'kernelpro bench %s "
		    "--merge' once the array has ended): ",
		    out->array_job, job->suite_dir);
		goto out;
	}
	rc = write_record(script.buf, out, err);
out:
	kp_buf_release(&dir);
	kp_buf_release(&array);
	kp_buf_release(&merge);
	kp_buf_release(&script);
	kp_buf_release(&path);
	return rc;
}

int kp_slurm_submission_load(const char *suite_dir, struct kp_slurm_submission *out, struct kp_error *err)
{
	struct kp_buf path = KP_BUF_INIT;
	json_t *o = NULL;
	const char *schema, *cluster;
	long long array, merge, shards;
	int rc;
	kp_slurm_submission_release(out);
	kp_path_join(&path, suite_dir, "slurm/submission.json");
	if ((rc = kp_json_load_file(path.buf, 1 << 16, &o, err)))
		goto out;
	schema = kp_json_str(o, "schema", "");
	array = kp_json_int(o, "array_job", 0);
	merge = kp_json_int(o, "merge_job", 0);
	shards = kp_json_int(o, "shards", 0);
	cluster = kp_json_str(o, "cluster", NULL);
	if (strcmp(schema, "kernelpro.slurm-submission/1") || array <= 0 || merge < 0 || shards < 1 ||
	    shards > MAX_SHARDS ||
	    (cluster && (!*cluster || strlen(cluster) > 64 || !in_set(cluster, "_.-")))) {
		rc =
		    kp_error_set(err, KP_EPARSE, "'%s' is not a kernelpro Slurm submission record", path.buf);
		goto out;
	}
	out->array_job = array;
	out->merge_job = merge;
	out->shards = (long)shards;
	out->cluster = cluster ? kp_xstrdup(cluster) : NULL;
	out->submitted_at = kp_json_num(o, "submitted_at", 0);
out:
	json_decref(o);
	kp_buf_release(&path);
	return rc;
}

/* ---- States ------------------------------------------------------------------------------------- */

#define KP__SLURM_NAME(name) #name,
static const char *const state_names[] = {KP_SLURM_STATES(KP__SLURM_NAME)};
#undef KP__SLURM_NAME

const char *kp_slurm_state_name(enum kp_slurm_state st)
{
	return (size_t)st < KP_ARRAY_SIZE(state_names) ? state_names[st] : "UNKNOWN";
}

enum kp_slurm_state kp_slurm_state_parse(const char *name, size_t len)
{
	size_t n = 0;
	while (n < len && name[n] != ' ')
		n++;
	for (size_t i = 1; i < KP_ARRAY_SIZE(state_names); i++)
		if (i != KP_SLURM_OTHER && strlen(state_names[i]) == n && !memcmp(name, state_names[i], n))
			return (enum kp_slurm_state)i;
	return KP_SLURM_OTHER;
}

int kp_slurm_state_is_final(enum kp_slurm_state st)
{
	switch (st) {
	case KP_SLURM_COMPLETED:
	case KP_SLURM_CANCELLED:
	case KP_SLURM_FAILED:
	case KP_SLURM_TIMEOUT:
	case KP_SLURM_NODE_FAIL:
	case KP_SLURM_PREEMPTED:
	case KP_SLURM_BOOT_FAIL:
	case KP_SLURM_DEADLINE:
	case KP_SLURM_OUT_OF_MEMORY: return 1;
	default: return 0;
	}
}

/* ---- Parsing squeue and sacct ------------------------------------------------------------------- */

void kp_slurm_status_init(struct kp_slurm_status *st)
{
	memset(st, 0, sizeof(*st));
}

void kp_slurm_status_release(struct kp_slurm_status *st)
{
	free(st->v);
	memset(st, 0, sizeof(*st));
}

/* One line split on '|'. */
struct fields {
	const char *p[8];
	size_t n[8];
	int count;
};

static int split_line(const char *line, size_t len, struct fields *f, int want)
{
	size_t start = 0;
	f->count = 0;
	for (size_t i = 0; i <= len; i++) {
		if (i < len && line[i] != '|')
			continue;
		if (f->count == want)
			return -1;
		f->p[f->count] = line + start;
		f->n[f->count++] = i - start;
		start = i + 1;
	}
	return f->count == want ? 0 : -1;
}

static void copy_field(char *dst, size_t cap, const char *s, size_t n)
{
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

static struct kp_slurm_elem *add_elem(struct kp_slurm_status *st, long long job, long task)
{
	struct kp_slurm_elem *e;
	KP_ALLOC_GROW(st->v, st->n + 1, st->alloc);
	e = &st->v[st->n++];
	memset(e, 0, sizeof(*e));
	e->job = job;
	e->task = task;
	e->exit_code = e->exit_signal = -1;
	return e;
}

/* Steps to the next non-empty line at *off: *line and *n; false at the end. `nline` counts from 1. */
static bool next_line(const char *text, size_t len, size_t *off, const char **line, size_t *n, size_t *nline)
{
	while (*off < len) {
		const char *nl = memchr(text + *off, '\n', len - *off);
		*line = text + *off;
		*n = nl ? (size_t)(nl - *line) : len - *off;
		*off += *n + 1;
		++*nline;
		if (*n)
			return true;
	}
	return false;
}

static int bad_line(struct kp_error *err, const char *what, size_t nline, const char *line, size_t n,
                    const char *why)
{
	return kp_error_set(err, KP_EPARSE, "%s output, line %zu ('%.*s'): %s", what, nline,
	                    (int)(n > 80 ? 80 : n), line, why);
}

int kp_slurm_parse_squeue(const char *text, size_t len, struct kp_slurm_status *st, struct kp_error *err)
{
	const char *line;
	size_t off = 0, n, nline = 0;
	while (next_line(text, len, &off, &line, &n, &nline)) {
		struct fields f;
		struct kp_slurm_elem *e;
		long long job, task = -1;
		if (split_line(line, n, &f, 5))
			return bad_line(err, "squeue", nline, line, n, "expected 5 fields (%F|%K|%T|%r|%N)");
		if (!parse_num(f.p[0], f.n[0], INT64_MAX / 2, &job) || job == 0)
			return bad_line(err, "squeue", nline, line, n, "the job id is not a number");
		if (!(f.n[1] == 3 && !memcmp(f.p[1], "N/A", 3)) &&
		    !parse_num(f.p[1], f.n[1], 4000000000LL, &task))
			return bad_line(err, "squeue", nline, line, n, "the array index is not a number");
		if (f.n[2] == 0)
			return bad_line(err, "squeue", nline, line, n, "no state");
		if (st->n >= MAX_ELEMS)
			return kp_error_set(err, KP_ETOOBIG, "squeue output lists more than %d jobs",
			                    MAX_ELEMS);
		e = add_elem(st, job, (long)task);
		e->state = kp_slurm_state_parse(f.p[2], f.n[2]);
		if (!(f.n[3] == 4 && !memcmp(f.p[3], "None", 4)))
			copy_field(e->reason, sizeof(e->reason), f.p[3], f.n[3]);
		copy_field(e->nodes, sizeof(e->nodes), f.p[4], f.n[4]);
	}
	return 0;
}

/* One sacct row before folding: its element, order and what it says. */
struct row {
	struct kp_slurm_elem e;
	size_t order;
	int started;
};

/* "12", "12_3", "12_[3-5,7:2%4]"; steps ("12_3.batch") and het-job parts ("12+0") are skipped (0 rows). */
static int parse_job_field(const char *s, size_t n, long long *job, long long *lo, long long *hi,
                           const char **list, size_t *list_n)
{
	size_t u = 0;
	while (u < n && s[u] >= '0' && s[u] <= '9')
		u++;
	if (!parse_num(s, u, INT64_MAX / 2, job) || *job == 0)
		return -1;
	*list = NULL;
	*list_n = 0;
	if (u == n) {
		*lo = *hi = -1;
		return 0;
	}
	if (s[u] == '.' || s[u] == '+')
		return 1;
	if (s[u] != '_' || u + 1 >= n)
		return -1;
	s += u + 1;
	n -= u + 1;
	if (s[0] == '[') {
		if (n < 3 || s[n - 1] != ']')
			return -1;
		*list = s + 1;
		*list_n = n - 2;
		return 0;
	}
	if (memchr(s, '.', n))
		return 1;
	if (!parse_num(s, n, 4000000000LL, lo))
		return -1;
	*hi = *lo;
	return 0;
}

static int add_rows(struct row **rows, size_t *nrows, size_t *alloc, const struct row *r, long long lo,
                    long long hi, long long step)
{
	for (long long t = lo; t <= hi; t += step) {
		if (*nrows >= MAX_ELEMS)
			return -1;
		KP_ALLOC_GROW(*rows, *nrows + 1, *alloc);
		(*rows)[*nrows] = *r;
		(*rows)[*nrows].e.task = (long)t;
		(*rows)[*nrows].order = *nrows;
		(*nrows)++;
	}
	return 0;
}

/* Expands "3-5,7,9-15:2%4" into rows. */
static int add_range_rows(struct row **rows, size_t *nrows, size_t *alloc, const struct row *r, const char *s,
                          size_t n)
{
	size_t pct = 0;
	while (pct < n && s[pct] != '%')
		pct++;
	n = pct;
	for (size_t off = 0; off < n;) {
		size_t len = 0, dash, colon;
		long long lo, hi, step = 1;
		while (off + len < n && s[off + len] != ',')
			len++;
		for (dash = 0; dash < len && s[off + dash] != '-'; dash++)
			;
		for (colon = 0; colon < len && s[off + colon] != ':'; colon++)
			;
		if (!parse_num(s + off, dash < colon ? dash : colon, 4000000000LL, &lo))
			return -2;
		hi = lo;
		if (dash < len && !parse_num(s + off + dash + 1, colon - dash - 1, 4000000000LL, &hi))
			return -2;
		if (colon < len &&
		    (colon < dash || !parse_num(s + off + colon + 1, len - colon - 1, 4000000000LL, &step) ||
		     step == 0))
			return -2;
		if (hi < lo)
			return -2;
		if (hi - lo >= MAX_ELEMS || add_rows(rows, nrows, alloc, r, lo, hi, step))
			return -1;
		off += len + 1;
	}
	return 0;
}

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	if (x->e.job != y->e.job)
		return x->e.job < y->e.job ? -1 : 1;
	if (x->e.task != y->e.task)
		return x->e.task < y->e.task ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Reads "code:signal". */
static bool parse_exit(const char *s, size_t n, int *code, int *sig)
{
	const char *colon = memchr(s, ':', n);
	long long c, g;
	if (!colon || !parse_num(s, (size_t)(colon - s), 255, &c) ||
	    !parse_num(colon + 1, n - (size_t)(colon - s) - 1, 255, &g))
		return false;
	*code = (int)c;
	*sig = (int)g;
	return true;
}

int kp_slurm_parse_sacct(const char *text, size_t len, struct kp_slurm_status *st, struct kp_error *err)
{
	struct row *rows = NULL;
	size_t nrows = 0, alloc = 0;
	const char *line;
	size_t off = 0, n, nline = 0;
	int rc = 0;
	while (next_line(text, len, &off, &line, &n, &nline)) {
		struct fields f;
		struct row r;
		long long lo = -1, hi = -1;
		const char *list;
		size_t list_n;
		int kind;
		if (split_line(line, n, &f, 4)) {
			rc = bad_line(err, "sacct", nline, line, n,
			              "expected 4 fields (JobID|State|ExitCode|NodeList)");
			goto out;
		}
		memset(&r, 0, sizeof(r));
		kind = parse_job_field(f.p[0], f.n[0], &r.e.job, &lo, &hi, &list, &list_n);
		if (kind < 0) {
			rc = bad_line(err, "sacct", nline, line, n, "the job id is not one Slurm prints");
			goto out;
		}
		if (kind > 0)
			continue;
		if (f.n[1] == 0) {
			rc = bad_line(err, "sacct", nline, line, n, "no state");
			goto out;
		}
		r.e.state = kp_slurm_state_parse(f.p[1], f.n[1]);
		r.e.exit_code = r.e.exit_signal = -1;
		if (f.n[2] && !parse_exit(f.p[2], f.n[2], &r.e.exit_code, &r.e.exit_signal)) {
			rc = bad_line(err, "sacct", nline, line, n, "the exit code is not CODE:SIGNAL");
			goto out;
		}
		/* "None assigned": it never got a node, so it never started. */
		if (f.n[3] && !(f.n[3] == 13 && !memcmp(f.p[3], "None assigned", 13))) {
			copy_field(r.e.nodes, sizeof(r.e.nodes), f.p[3], f.n[3]);
			r.started = 1;
		}
		if (list)
			kind = add_range_rows(&rows, &nrows, &alloc, &r, list, list_n);
		else
			kind = add_rows(&rows, &nrows, &alloc, &r, lo, hi, 1);
		if (kind == -2) {
			rc = bad_line(err, "sacct", nline, line, n,
			              "the array index range is not one Slurm prints");
			goto out;
		}
		if (kind < 0) {
			rc = kp_error_set(err, KP_ETOOBIG, "sacct output lists more than %d jobs", MAX_ELEMS);
			goto out;
		}
	}
	/* Rows of one element in the order sacct printed them (older runs first): the last one is now. */
	if (nrows)
		qsort(rows, nrows, sizeof(*rows), row_cmp);
	for (size_t i = 0; i < nrows;) {
		size_t j = i;
		int started = 0;
		struct kp_slurm_elem *e;
		while (j < nrows && rows[j].e.job == rows[i].e.job && rows[j].e.task == rows[i].e.task)
			started += rows[j++].started;
		if (st->n >= MAX_ELEMS) {
			rc = kp_error_set(err, KP_ETOOBIG, "sacct output lists more than %d jobs", MAX_ELEMS);
			goto out;
		}
		e = add_elem(st, 0, 0);
		*e = rows[j - 1].e;
		e->attempts = started;
		i = j;
	}
out:
	free(rows);
	return rc;
}

/* ---- Asking the cluster ------------------------------------------------------------------------- */

/* Runs a Slurm client in the C locale; the caller looks at how it ended. */
static int run_client(struct kp_child *c, const char *prog, struct kp_error *err)
{
	int rc;
	c->timeout_ms = CHILD_TIMEOUT_MS;
	c->out_cap = CHILD_CAP;
	c->err_cap = 1 << 16;
	kp_strvec_pushl(&c->env, "LC_ALL=C", "SLURM_TIME_FORMAT=standard", NULL);
	c->inherit_env = 1; /* the user's own cluster client (SLURM_CONF, SLURM_CLUSTERS, ...) */
	rc = kp_child_run(c, err);
	if (rc == KP_ENOTOOL) {
		kp_error_clear(err);
		return kp_error_set(err, KP_ENOTOOL,
		                    "'%s' not found: run on a Slurm login node (or give its path)", prog);
	}
	if (!rc && c->out_truncated)
		rc = kp_error_set(err, KP_ETOOBIG, "%s printed more than %u bytes", prog, CHILD_CAP);
	return rc;
}

static int client_failed(const struct kp_child *c, const char *prog, struct kp_error *err)
{
	char how[128], msg[300];
	first_line(c, msg, sizeof(msg));
	return kp_error_set(err, c->timed_out ? KP_ETIMEOUT : KP_ECHILD, "%s %s%s%s", prog,
	                    kp_child_describe(c, how, sizeof(how)), msg[0] ? ": " : "", msg);
}

/*
 * Copies what `from` knows about `job` into v: element K into v[K], or a plain job (shards 0)
 * into v[0]. Applied first with sacct's rows, then with squeue's, whose word on live state wins.
 */
static void overlay(struct kp_slurm_elem *v, long shards, long long job, const struct kp_slurm_status *from,
                    int live)
{
	for (size_t i = 0; i < from->n; i++) {
		const struct kp_slurm_elem *e = &from->v[i];
		struct kp_slurm_elem *d;
		if (e->job != job || (shards ? e->task < 0 || e->task >= shards : e->task != -1))
			continue;
		d = &v[shards ? e->task : 0];
		d->state = e->state;
		if (live) {
			memcpy(d->reason, e->reason, sizeof(d->reason));
			if (e->nodes[0])
				memcpy(d->nodes, e->nodes, sizeof(d->nodes));
		} else {
			*d = *e;
		}
	}
}

int kp_slurm_query(const char *squeue, const char *sacct, long long job, long shards,
                   struct kp_slurm_status *st, struct kp_error *err)
{
	struct kp_child q = KP_CHILD_INIT, a = KP_CHILD_INIT;
	struct kp_slurm_status live = {0}, acct = {0};
	int rc;
	if (job <= 0 || shards < 0 || shards > MAX_SHARDS)
		return kp_error_set(err, KP_EINVAL, "Slurm query: job %lld with %ld shards", job, shards);
	squeue = squeue ? squeue : "squeue";
	sacct = sacct ? sacct : "sacct";
	kp_strvec_pushl(&q.args, squeue, "--noheader", "--array", "--states=all", NULL);
	kp_strvec_pushf(&q.args, "--jobs=%lld", job);
	kp_strvec_push(&q.args, "--format=%F|%K|%T|%r|%N");
	if ((rc = run_client(&q, squeue, err)))
		goto out;
	/* A job slurmctld has forgotten (MinJobAge) is "Invalid job id": nothing live, not an error. */
	if (!kp_child_ok(&q) && !strstr(q.err.buf, "Invalid job id")) {
		rc = client_failed(&q, squeue, err);
		goto out;
	}
	if (kp_child_ok(&q) && (rc = kp_slurm_parse_squeue(q.out.buf, q.out.len, &live, err)))
		goto out;
	kp_strvec_pushl(&a.args, sacct, "--noheader", "--parsable2", "--allocations", "--duplicates", NULL);
	kp_strvec_pushf(&a.args, "--jobs=%lld", job);
	kp_strvec_push(&a.args, "--format=JobID,State,ExitCode,NodeList");
	if ((rc = run_client(&a, sacct, err)))
		goto out;
	if (!kp_child_ok(&a) && !strstr(a.err.buf, "accounting storage is disabled") &&
	    !strstr(a.out.buf, "accounting storage is disabled")) {
		rc = client_failed(&a, sacct, err);
		goto out;
	}
	if (kp_child_ok(&a) && (rc = kp_slurm_parse_sacct(a.out.buf, a.out.len, &acct, err)))
		goto out;
	kp_slurm_status_release(st);
	for (long k = 0; k < (shards ? shards : 1); k++)
		add_elem(st, job, shards ? k : -1);
	overlay(st->v, shards, job, &acct, 0);
	overlay(st->v, shards, job, &live, 1);
out:
	kp_child_release(&q);
	kp_child_release(&a);
	kp_slurm_status_release(&live);
	kp_slurm_status_release(&acct);
	return rc;
}

json_t *kp_slurm_status_json(const struct kp_slurm_status *st)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < st->n; i++) {
		const struct kp_slurm_elem *e = &st->v[i];
		json_t *o = json_object();
		kp_json_set(o, "job", json_integer(e->job));
		kp_json_set(o, "task", json_integer(e->task));
		kp_json_set(o, "state", json_string(kp_slurm_state_name(e->state)));
		kp_json_set(o, "attempts", json_integer(e->attempts));
		kp_json_set(o, "exit_code", e->exit_code >= 0 ? json_integer(e->exit_code) : NULL);
		kp_json_set(o, "exit_signal", e->exit_signal >= 0 ? json_integer(e->exit_signal) : NULL);
		kp_json_set(o, "reason", json_string(e->reason));
		kp_json_set(o, "nodes", json_string(e->nodes));
		json_array_append_new(arr, o);
	}
	return arr;
}
