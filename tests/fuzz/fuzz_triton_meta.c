/* Fuzz target: Triton's cache metadata (kp_triton_meta_parse, one kernel's JSON) and a profile's
 * triton.json (kp_triton_meta_load); what loads must describe itself without reading past a field. */
#include "base/setup.h"

#include "kernelpro/buf.h"
#include "kernelpro/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_triton_kernel k;
	struct kp_triton_meta m;
	struct kp_buf b = KP_BUF_INIT;

	if (kp_triton_meta_parse(&k, "fuzz", (const char *)data, size, NULL) == 0)
		kp_triton_describe(&k, &b);
	if (kp_triton_meta_load(&m, "fuzz", (const char *)data, size, NULL) == 0) {
		for (size_t i = 0; i < m.n; i++)
			kp_triton_describe(&m.kernels[i], &b);
		kp_triton_meta_release(&m);
	}
	kp_buf_release(&b);
	return 0;
}
