/*
 * LLM configuration: where it comes from (file, environment, command line, a resumed run), the
 * PROVIDER:MODEL spec (each backend reads its own part), the JSON config file, the price table.
 */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/str.h"
#include "llm/backend.h"

void kp_llm_config_init(struct kp_llm_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	kp_strvec_init(&cfg->exec_argv);
	cfg->temperature = NAN;
	cfg->max_tokens = -1;
	cfg->timeout_s = -1;
	cfg->retries = -1;
	cfg->backoff_s = -1;
	cfg->backoff_max_s = -1;
	cfg->parallel = -1;
	cfg->price.input = -1;
	cfg->price.output = -1;
}

void kp_llm_config_release(struct kp_llm_config *cfg)
{
	free(cfg->model);
	free(cfg->base_url);
	free(cfg->api_key_env);
	free(cfg->max_tokens_field);
	free(cfg->replay_dir);
	free(cfg->record_dir);
	free(cfg->anthropic_version);
	kp_strvec_release(&cfg->exec_argv);
	cfg->model = cfg->base_url = cfg->api_key_env = cfg->max_tokens_field = NULL;
	cfg->replay_dir = cfg->record_dir = cfg->anthropic_version = NULL;
}

static void set_str(char **dst, const char *s)
{
	free(*dst);
	*dst = s ? kp_xstrdup(s) : NULL;
}

/* spec as PROVIDER:MODEL (kp_llm_spec_resolve has read other tools' names). */
static int parse_resolved(struct kp_llm_config *cfg, const char *spec, struct kp_error *err)
{
	const char *colon = spec ? strchr(spec, ':') : NULL;
	const struct kp_llm_backend *be;
	struct kp_buf list = KP_BUF_INIT;
	char word[32];
	int rc;

	if (!colon || colon == spec || !colon[1]) {
		kp_llm_backend_list(&list, 1);
		rc = kp_error_set(err, KP_EINVAL, "llm: '%s' is not PROVIDER:MODEL; use %s", spec ? spec : "", list.buf);
		kp_buf_release(&list);
		return rc;
	}
	be = kp_llm_backend_find(spec, (size_t)(colon - spec));
	if (!be) {
		kp_llm_backend_list(&list, 0);
		rc = kp_error_set(err, KP_EINVAL, "llm: unknown provider '%.*s'; use %s", (int)(colon - spec), spec,
				  list.buf);
		kp_buf_release(&list);
		return rc;
	}
	snprintf(word, sizeof(word), "%.*s", (int)(colon - spec), spec); /* a known word: short */
	cfg->provider = be->id;
	return be->parse_spec(cfg, word, colon + 1, err);
}

int kp_llm_config_parse_spec(struct kp_llm_config *cfg, const char *given, struct kp_error *err)
{
	struct kp_buf resolved = KP_BUF_INIT;
	int rc = given ? kp_llm_spec_resolve(given, &resolved, err) : 0;

	if (!rc)
		rc = parse_resolved(cfg, given ? resolved.buf : NULL, err);
	kp_buf_release(&resolved);
	return rc;
}

void kp_llm_config_format_spec(const struct kp_llm_config *cfg, struct kp_buf *out)
{
	const struct kp_llm_backend *be = kp_llm_backend_get(cfg->provider);
	if (be)
		be->format_spec(cfg, out);
}

int kp_llm_config_resume(struct kp_llm_config *cfg, long done)
{
	const struct kp_llm_backend *be = kp_llm_backend_get(cfg->provider);
	return be && be->resume ? be->resume(cfg, done) : 0;
}

/* --- Where a configuration comes from -------------------------------------------------------- */

/* $KERNELPRO_LLM_CONFIG, else the user's llm.json when it exists; NULL: none. Allocated. */
static char *default_config_path(void)
{
	return kp_config_file("KERNELPRO_LLM_CONFIG", "llm.json");
}

int kp_llm_config_load(struct kp_llm_config *cfg, const struct kp_llm_sources *src, struct kp_error *err)
{
	const char *env = getenv("KERNELPRO_LLM");
	char *path = src->file ? kp_xstrdup(src->file) : default_config_path();
	int rc = 0;

	if (path)
		rc = kp_llm_config_load_file(cfg, path, err);
	free(path);
	if (!rc && !src->spec && env && *env) {
		rc = kp_llm_config_parse_spec(cfg, env, err);
		if (rc)
			kp_error_prefix(err, "KERNELPRO_LLM");
	}
	if (!rc && src->spec)
		rc = kp_llm_config_parse_spec(cfg, src->spec, err);
	if (!rc && cfg->provider == KP_LLM_NONE && src->fallback_spec && *src->fallback_spec)
		rc = kp_llm_config_parse_spec(cfg, src->fallback_spec, err);
	return rc;
}

/* --- Config file ------------------------------------------------------------------------------ */

static int want_num(const json_t *v, const char *path, const char *key, double lo, double *out,
		    struct kp_error *err)
{
	if (!json_is_number(v) || json_number_value(v) < lo)
		return kp_error_set(err, KP_EINVAL, "%s: '%s' must be a number >= %g", path, key, lo);
	*out = json_number_value(v);
	return 0;
}

static int want_str(const json_t *v, const char *path, const char *key, const char **out, struct kp_error *err)
{
	if (!json_is_string(v) || !*json_string_value(v))
		return kp_error_set(err, KP_EINVAL, "%s: '%s' must be a non-empty string", path, key);
	*out = json_string_value(v);
	return 0;
}

static int load_price(struct kp_llm_config *cfg, const json_t *v, const char *path, struct kp_error *err)
{
	const char *key;
	json_t *x;
	if (!json_is_object(v))
		return kp_error_set(err, KP_EINVAL, "%s: 'price' must be {\"input\": USD, \"output\": USD} per million tokens",
				    path);
	json_object_foreach((json_t *)v, key, x) {
		double d = 0;
		if (strcmp(key, "input") && strcmp(key, "output"))
			return kp_error_set(err, KP_EINVAL, "%s: 'price' has unknown key '%s' (input, output)", path, key);
		if (want_num(x, path, key, 0, &d, err))
			return KP_EINVAL;
		if (!strcmp(key, "input"))
			cfg->price.input = d;
		else
			cfg->price.output = d;
	}
	return 0;
}

/* Keys holding a string or a number, by where they go. */
static char **str_field(struct kp_llm_config *cfg, const char *key)
{
	if (!strcmp(key, "base_url"))
		return &cfg->base_url;
	if (!strcmp(key, "api_key_env"))
		return &cfg->api_key_env;
	if (!strcmp(key, "record"))
		return &cfg->record_dir;
	if (!strcmp(key, "replay"))
		return &cfg->replay_dir;
	if (!strcmp(key, "anthropic_version"))
		return &cfg->anthropic_version;
	if (!strcmp(key, "max_tokens_field"))
		return &cfg->max_tokens_field;
	return NULL;
}

static double *num_field(struct kp_llm_config *cfg, const char *key)
{
	if (!strcmp(key, "temperature"))
		return &cfg->temperature;
	if (!strcmp(key, "timeout_s"))
		return &cfg->timeout_s;
	if (!strcmp(key, "backoff_s"))
		return &cfg->backoff_s;
	if (!strcmp(key, "backoff_max_s"))
		return &cfg->backoff_max_s;
	return NULL;
}

static int load_int(struct kp_llm_config *cfg, const char *key, const json_t *v, const char *path,
		    struct kp_error *err)
{
	long long x = json_is_integer(v) ? json_integer_value(v) : -1;
	if (x < 0 || x > 1000000000000LL)
		return kp_error_set(err, KP_EINVAL, "%s: '%s' must be a whole number >= 0", path, key);
	if (!strcmp(key, "max_tokens"))
		cfg->max_tokens = (long)x;
	else if (!strcmp(key, "retries"))
		cfg->retries = (int)(x > 100 ? 100 : x);
	else
		cfg->parallel = (int)(x > 256 ? 256 : x);
	return 0;
}

static int load_key(struct kp_llm_config *cfg, const char *key, const json_t *v, const char *path,
		    struct kp_error *err)
{
	const char *s = NULL;
	char **sf;
	double *nf;

	if ((sf = str_field(cfg, key))) {
		if (want_str(v, path, key, &s, err))
			return KP_EINVAL;
		set_str(sf, s);
		if (sf == &cfg->replay_dir && cfg->provider == KP_LLM_NONE)
			cfg->provider = KP_LLM_REPLAY;
	} else if ((nf = num_field(cfg, key))) {
		double d = 0;
		if (want_num(v, path, key, 0, &d, err))
			return KP_EINVAL;
		*nf = d;
	} else if (!strcmp(key, "max_tokens") || !strcmp(key, "retries") || !strcmp(key, "parallel")) {
		return load_int(cfg, key, v, path, err);
	} else if (!strcmp(key, "llm")) {
		if (want_str(v, path, key, &s, err))
			return KP_EINVAL;
		if (kp_llm_config_parse_spec(cfg, s, err)) {
			kp_error_prefix(err, "%s", path);
			return KP_EINVAL;
		}
	} else if (!strcmp(key, "replay_mode")) {
		if (want_str(v, path, key, &s, err))
			return KP_EINVAL;
		if (!strcmp(s, "order"))
			cfg->replay_mode = KP_LLM_REPLAY_ORDER;
		else if (!strcmp(s, "hash"))
			cfg->replay_mode = KP_LLM_REPLAY_HASH;
		else
			return kp_error_set(err, KP_EINVAL, "%s: 'replay_mode' must be \"order\" or \"hash\"", path);
	} else if (!strcmp(key, "no_key")) {
		if (!json_is_boolean(v))
			return kp_error_set(err, KP_EINVAL, "%s: 'no_key' must be true or false", path);
		cfg->no_key = json_is_true(v);
	} else if (!strcmp(key, "exec")) {
		size_t i;
		json_t *a;
		if (!json_is_array(v) || !json_array_size(v))
			return kp_error_set(err, KP_EINVAL, "%s: 'exec' must be a list of strings: [\"program\", \"arg\", ...]",
					    path);
		kp_strvec_release(&cfg->exec_argv);
		json_array_foreach(v, i, a) {
			if (!json_is_string(a))
				return kp_error_set(err, KP_EINVAL, "%s: 'exec' item %zu is not a string", path, i);
			kp_strvec_push(&cfg->exec_argv, json_string_value(a));
		}
		cfg->provider = KP_LLM_EXEC;
	} else if (!strcmp(key, "price")) {
		return load_price(cfg, v, path, err);
	} else if (!strcmp(key, "max_total_tokens") || !strcmp(key, "max_cost_usd")) {
		/* Retired: one owner for limits (docs/internals/llm.md). Said, not ignored, so no one relies on it. */
		return kp_error_set(err, KP_EINVAL,
				    "%s: '%s' is no longer an LLM setting: a run's limits are optimize's --tokens N and "
				    "--cost USD (docs/runs.md); remove it",
				    path, key);
	} else if (strstr(key, "key") || strstr(key, "token") || strstr(key, "secret")) {
		return kp_error_set(err, KP_EINVAL,
				    "%s: '%s' is refused: keys are read only from the environment; "
				    "set \"api_key_env\" to the name of the variable that holds it",
				    path, key);
	} else {
		return kp_error_set(err, KP_EINVAL, "%s: unknown key '%s' (docs/llm.md lists the keys)", path, key);
	}
	return 0;
}

int kp_llm_config_load_file(struct kp_llm_config *cfg, const char *path, struct kp_error *err)
{
	json_t *root = NULL, *v;
	const char *key;
	int rc = kp_json_load_file(path, 1u << 20, &root, err);
	if (rc)
		return rc;
	if (!json_is_object(root)) {
		rc = kp_error_set(err, KP_EINVAL, "%s: must hold one JSON object", path);
		goto out;
	}
	json_object_foreach(root, key, v) {
		rc = load_key(cfg, key, v, path, err);
		if (rc)
			goto out;
	}
out:
	json_decref(root);
	return rc;
}

/* --- Prices --------------------------------------------------------------------------------------- */

/*
 * USD per million tokens (input, output), from the providers' public price
 * pages in 2025. They change: a run that caps cost should set "price" in its
 * config file (docs/llm.md). Matched by the longest prefix of the model name
 * after any "vendor/" part (OpenRouter, LiteLLM).
 */
static const struct {
	const char *prefix;
	double input, output;
} price_table[] = {
	{"gpt-4o", 2.50, 10.00},
	{"gpt-4o-mini", 0.15, 0.60},
	{"gpt-4.1", 2.00, 8.00},
	{"gpt-4.1-mini", 0.40, 1.60},
	{"gpt-4.1-nano", 0.10, 0.40},
	{"gpt-5", 1.25, 10.00},
	{"gpt-5-mini", 0.25, 2.00},
	{"gpt-5-nano", 0.05, 0.40},
	{"o3", 2.00, 8.00},
	{"o3-mini", 1.10, 4.40},
	{"o4-mini", 1.10, 4.40},
	{"claude-opus-4", 15.00, 75.00},
	{"claude-opus-4-5", 5.00, 25.00},
	{"claude-sonnet-4", 3.00, 15.00},
	{"claude-3-7-sonnet", 3.00, 15.00},
	{"claude-3-5-sonnet", 3.00, 15.00},
	{"claude-haiku-4-5", 1.00, 5.00},
	{"claude-3-5-haiku", 0.80, 4.00},
	{"deepseek-chat", 0.27, 1.10},
	{"deepseek-reasoner", 0.55, 2.19},
};

int kp_llm_price_lookup(const char *model, struct kp_llm_price *out)
{
	const char *slash;
	size_t best = 0;
	int found = 0;
	if (!model)
		return 0;
	slash = strrchr(model, '/');
	if (slash)
		model = slash + 1;
	for (size_t i = 0; i < KP_ARRAY_SIZE(price_table); i++) {
		size_t n = strlen(price_table[i].prefix);
		if (n > best && !strncmp(model, price_table[i].prefix, n)) {
			best = n;
			out->input = price_table[i].input;
			out->output = price_table[i].output;
			found = 1;
		}
	}
	return found;
}
