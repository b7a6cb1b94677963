/* libFuzzer target: the threshold config parser (kp_toolset_load_config) and --threshold assignments. */
#include "base/setup.h"

#include "kernelpro/tools.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct kp_toolset *ts;
	struct kp_error err = KP_ERROR_INIT;
	char *text;
	if (!ts && kp_toolset_open(&ts, NULL, &err))
		abort();
	kp_toolset_load_config(ts, "fuzz.conf", (const char *)data, size, &err);
	/* the same bytes as one command-line assignment */
	text = kp_xstrndup((const char *)data, size);
	kp_error_clear(&err);
	kp_toolset_override(ts, text, &err);
	free(text);
	return 0;
}
