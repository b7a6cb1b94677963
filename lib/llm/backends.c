/* The one table of LLM backends: a spec's PROVIDER word, or a provider id, to its operations. */
#include "base/setup.h"

#include "llm/backend.h"

static const struct kp_llm_backend *const backends[] = {
	&kp_llm_backend_openai,
	&kp_llm_backend_anthropic,
	&kp_llm_backend_exec,
	&kp_llm_backend_replay,
};

const struct kp_llm_backend *kp_llm_backend_get(enum kp_llm_provider id)
{
	for (size_t i = 0; i < KP_ARRAY_SIZE(backends); i++)
		if (backends[i]->id == id)
			return backends[i];
	return NULL;
}

const struct kp_llm_backend *kp_llm_backend_find(const char *word, size_t len)
{
	for (size_t i = 0; i < KP_ARRAY_SIZE(backends); i++)
		for (const char *const *w = backends[i]->words; *w; w++)
			if (strlen(*w) == len && !strncmp(*w, word, len))
				return backends[i];
	return NULL;
}

void kp_llm_backend_list(struct kp_buf *out, int with_arg)
{
	size_t total = 0, k = 0;
	for (size_t i = 0; i < KP_ARRAY_SIZE(backends); i++)
		for (const char *const *w = backends[i]->words; *w; w++)
			total++;
	for (size_t i = 0; i < KP_ARRAY_SIZE(backends); i++)
		for (const char *const *w = backends[i]->words; *w; w++, k++) {
			if (k)
				kp_buf_adds(out, k + 1 == total ? " or " : ", ");
			kp_buf_adds(out, *w);
			if (with_arg)
				kp_buf_addf(out, ":%s", backends[i]->arg);
		}
}

const char *kp_llm_provider_name(enum kp_llm_provider p)
{
	const struct kp_llm_backend *be = kp_llm_backend_get(p);
	return be ? be->name : "none";
}
