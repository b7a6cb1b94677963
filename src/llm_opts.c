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
	/* The option table bounds each value (llm_opts.h): out of range never gets here. */
	if (kp_arg_given(a, "temperature"))
		cfg->temperature = kp_arg_num(a, "temperature", 0);
	if (kp_arg_given(a, "max-tokens"))
		cfg->max_tokens = kp_arg_int(a, "max-tokens", -1);
	if (kp_arg_given(a, "llm-timeout"))
		cfg->timeout_s = kp_arg_num(a, "llm-timeout", -1);
	if (kp_arg_given(a, "llm-retries"))
		cfg->retries = (int)kp_arg_int(a, "llm-retries", -1);
	return 0;
}

int kp_cli_llm_chosen(const struct kp_llm_config *cfg)
{
	return cfg->provider != KP_LLM_NONE;
}
