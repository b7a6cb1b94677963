/* Reads the shared LLM options: config file, then $KERNELPRO_LLM, then the command line. */
#include "base/setup.h"

#include "kernelpro/fs.h"
#include "llm_opts.h"

static char *default_config_path(void)
{
	const char *env = getenv("KERNELPRO_LLM_CONFIG");
	const char *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");
	char *p;
	if (env && *env)
		return kp_xstrdup(env);
	if (xdg && *xdg)
		p = kp_xasprintf("%s/kernelpro/llm.json", xdg);
	else if (home && *home)
		p = kp_xasprintf("%s/.config/kernelpro/llm.json", home);
	else
		return NULL;
	if (kp_path_exists(p))
		return p;
	free(p);
	return NULL;
}

int kp_cli_llm_config(const struct kp_args *a, struct kp_llm_config *cfg, struct kp_error *err)
{
	const char *file = kp_arg_str(a, "llm-config");
	const char *spec = kp_arg_str(a, "llm");
	const char *env = getenv("KERNELPRO_LLM");
	char *path = file ? kp_xstrdup(file) : default_config_path();
	int rc = 0;

	kp_llm_config_init(cfg);
	if (path)
		rc = kp_llm_config_load_file(cfg, path, err);
	free(path);
	if (!rc && !spec && env && *env) {
		rc = kp_llm_config_parse_spec(cfg, env, err);
		if (rc)
			kp_error_prefix(err, "KERNELPRO_LLM: ");
	}
	if (!rc && spec)
		rc = kp_llm_config_parse_spec(cfg, spec, err);
	if (rc)
		return rc;
	if (kp_arg_str(a, "record")) {
		free(cfg->record_dir);
		cfg->record_dir = kp_xstrdup(kp_arg_str(a, "record"));
	}
	if (kp_arg_given(a, "temperature")) {
		cfg->temperature = kp_arg_num(a, "temperature", 0);
		if (cfg->temperature < 0 || cfg->temperature > 2)
			return kp_error_set(err, KP_EINVAL, "--temperature must be between 0 and 2");
	}
	if (kp_arg_given(a, "max-tokens"))
		cfg->max_tokens = kp_arg_int(a, "max-tokens", -1);
	if (kp_arg_given(a, "llm-timeout"))
		cfg->timeout_s = kp_arg_num(a, "llm-timeout", -1);
	if (kp_arg_given(a, "llm-retries"))
		cfg->retries = (int)kp_arg_int(a, "llm-retries", -1);
	if (kp_arg_given(a, "max-total-tokens"))
		cfg->max_total_tokens = kp_arg_int(a, "max-total-tokens", -1);
	if (kp_arg_given(a, "max-cost"))
		cfg->max_cost_usd = kp_arg_num(a, "max-cost", -1);
	if ((kp_arg_given(a, "max-tokens") && cfg->max_tokens <= 0) ||
	    (kp_arg_given(a, "llm-timeout") && cfg->timeout_s <= 0) ||
	    (kp_arg_given(a, "llm-retries") && cfg->retries < 0))
		return kp_error_set(err, KP_EINVAL, "--max-tokens and --llm-timeout must be > 0, --llm-retries >= 0");
	return 0;
}

int kp_cli_llm_chosen(const struct kp_llm_config *cfg)
{
	return cfg->provider != KP_LLM_NONE;
}
