/* libFuzzer target: verdict documents read by the search (the exec evaluator's output). */
#include "base/setup.h"

#include "kernelpro/search_backends.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_search_eval e;
	struct kp_error err = KP_ERROR_INIT;
	kp_search_eval_init(&e);
	kp_exec_verdict_parse("fuzz.json", (const char *)data, size, &e, &err);
	kp_search_eval_release(&e);
	return 0;
}
