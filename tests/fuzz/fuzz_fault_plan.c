/* Fuzz target: the KP_FAULT plan (kp_fault_plan), then one of each hook's counts. */
#include "base/setup.h"

#include "kernelpro/fault.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char spec[512];
	struct kp_error err = KP_ERROR_INIT;
	size_t n = size < sizeof(spec) - 1 ? size : sizeof(spec) - 1;

	memcpy(spec, data, n);
	spec[n] = '\0';
	if (kp_fault_plan(spec, &err) == 0)
		for (int k = 0; k < KP_FAULT_KIND_COUNT; k++)
			kp_fault_hit((enum kp_fault_kind)k);
	kp_fault_plan(NULL, &err);
	return 0;
}
