/* Reads the shared LLM options: the sources through lib/llm, then the settings given on the command line. */
#include "base/setup.h"

#include "llm_opts.h"

int kp_cli_llm_config(const struct kp_args *a, const char *fallback_spec, struct kp_llm_config *cfg,
		      struct kp_error *err)
{
	struct kp_llm_sources src = {kp_arg_str(a, "llm-config"), kp_arg_str(a, "llm"), fallback_spec};
	int rc;

	kp_llm_config_init(cfg);
	if ((rc = kp_llm_config_load(cfg, &src, err)))
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
