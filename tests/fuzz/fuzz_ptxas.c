/* libFuzzer target: the ptxas -v report parser. */
#include "base/setup.h"

#include "kernelpro/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_ptxas p = KP_PTXAS_INIT;
	struct kp_error err = KP_ERROR_INIT;
	if (kp_ptxas_parse(&p, "fuzz.txt", (const char *)data, size, &err) == 0)
		kp_ptxas_find(&p, "k");
	kp_ptxas_release(&p);
	return 0;
}
