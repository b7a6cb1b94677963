/* Slurm settings: the table of keys, reading them from JSON and the command line, writing them back. */
#include "base/setup.h"

#include "kernelpro/json.h"
#include "kernelpro/slurm_settings.h"
#include "kernelpro/str.h"
#include "suite/slurm_int.h"

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
    {"nodes", K_COUNT, offsetof(struct kp_slurm_settings, nodes), 1, KP__SLURM_MAX_SHARDS},
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
	case K_NAME: return kp__slurm_check_name(k->name, v, "_.-", err);
	case K_PARTITION: return kp__slurm_check_name(k->name, v, "_.-,", err);
	case K_TIME: return kp__slurm_check_time(k->name, v, err);
	case K_PATH: return kp__slurm_check_abs_path(k->name, v, err);
	case K_MODULES: return kp__slurm_check_module(v, err);
	case K_ENV: return kp__slurm_check_env(v, err);
	case K_SBATCH: return kp__slurm_check_sbatch_arg(v, err);
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
				kp_error_prefix(err, "%s", what);
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

int kp_slurm_settings_check(const struct kp_slurm_settings *s, struct kp_error *err)
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
	return rc;
}

json_t *kp_slurm_settings_to_json(const struct kp_slurm_settings *s)
{
	json_t *o = json_object();
	for (size_t i = 0; i < KP_ARRAY_SIZE(keys); i++) {
		const struct key *k = &keys[i];
		const void *at = (const char *)s + k->off;
		const struct kp_strvec *list = at;
		json_t *v;
		switch (k->kind) {
		case K_COUNT: v = json_integer(*(const long *)at); break;
		case K_BOOL: v = json_boolean(*(const int *)at); break;
		case K_MODULES:
		case K_SBATCH:
			v = json_array();
			for (size_t j = 0; j < list->n; j++)
				json_array_append_new(v, json_string(list->v[j]));
			break;
		case K_ENV:
			v = json_object();
			for (size_t j = 0; j < list->n; j++) {
				const char *eq = strchr(list->v[j], '=');
				char *name = kp_xstrndup(list->v[j], (size_t)(eq - list->v[j]));
				kp_json_set(v, name, json_string(eq + 1));
				free(name);
			}
			break;
		default: v = *(char *const *)at ? json_string(*(char *const *)at) : NULL;
		}
		if (v)
			kp_json_set(o, k->name, v);
	}
	return o;
}
