/* libFuzzer target: the SASS loop-shape reader (cuobjdump, nvdisasm, ncu source page) of lib/tools/sass_shape.c. */
#include "base/setup.h"

#include "kernelpro/tools.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_sass_shape s;
	/* the function name is the input's first line, so the fuzzer can reach the body */
	const char *nl = memchr(data, '\n', size);
	char *name = kp_xstrndup((const char *)data, nl ? (size_t)(nl - (const char *)data) : size);
	kp_sass_shape_read(&s, (const char *)data, size, name);
	kp_sass_shape_is_product(&s);
	free(name);
	return 0;
}
