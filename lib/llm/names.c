/*
 * Model names as other tools write them, read as PROVIDER:MODEL: a bare name of a known family
 * ("gpt-4o", as KernelAgent takes them) and litellm's "provider/model" ("openai/gpt-4o").
 * docs/llm.md, "Model names", is the mapping; change both together.
 */
#include "base/setup.h"

#include "kernelpro/llm.h"
#include "kernelpro/str.h"

/* A bare model name's provider, from its family; NULL: no family we know. */
static const char *family_provider(const char *name)
{
	static const char *const openai[] = {"gpt-", "chatgpt-", "codex-"};
	for (size_t i = 0; i < KP_ARRAY_SIZE(openai); i++)
		if (kp_starts_with(name, openai[i]) && name[strlen(openai[i])])
			return "openai";
	if (name[0] == 'o' && name[1] >= '1' && name[1] <= '9') /* o1, o3-mini, o4-mini */
		return "openai";
	if (kp_starts_with(name, "claude-") && name[7])
		return "anthropic";
	return NULL;
}

int kp_llm_spec_resolve(const char *spec, struct kp_buf *out, struct kp_error *err)
{
	const char *colon = strchr(spec, ':'), *slash = strchr(spec, '/'), *prov;

	kp_buf_reset(out);
	if (colon && (!slash || colon < slash)) { /* PROVIDER:MODEL already (exec:/bin/x, replay:dir/) */
		kp_buf_adds(out, spec);
		return 0;
	}
	if (slash) {
		size_t n = (size_t)(slash - spec);
		if (!slash[1] || !((n == 6 && !strncmp(spec, "openai", 6)) || (n == 9 && !strncmp(spec, "anthropic", 9))))
			return kp_error_set(err, KP_EINVAL,
					    "llm: '%s' names no provider kernelpro talks to ('%.*s/'); a model that "
					    "an OpenAI-compatible server (vLLM, OpenRouter, LiteLLM) serves under that "
					    "name is openai:%s (docs/llm.md, \"Model names\")",
					    spec, (int)n, spec, spec);
		kp_buf_addf(out, "%.*s:%s", (int)n, spec, slash + 1);
		return 0;
	}
	prov = family_provider(spec);
	if (!prov)
		return kp_error_set(err, KP_EINVAL,
				    "llm: '%s' is not PROVIDER:MODEL and no model family kernelpro knows (gpt-*, o1..o9*, "
				    "claude-*); name the provider: openai:%s for an OpenAI-compatible server, "
				    "anthropic:MODEL, exec:PROGRAM, replay:DIR or replay-hash:DIR",
				    spec, *spec ? spec : "MODEL");
	kp_buf_addf(out, "%s:%s", prov, spec);
	return 0;
}
