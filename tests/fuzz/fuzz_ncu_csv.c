/* libFuzzer target: the ncu raw and details page parsers on arbitrary bytes. */
#include "base/setup.h"

#include "kernelpro/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_ncu_report r = KP_NCU_REPORT_INIT;
	struct kp_error err = KP_ERROR_INIT;
	if (kp_ncu_parse_raw(&r, "fuzz.csv", (const char *)data, size, &err) == 0) {
		for (size_t i = 0; i < r.nlaunches; i++) {
			double v;
			kp_launch_get(&r.launches[i], "gpu__time_duration.sum", &v);
		}
	}
	kp_ncu_parse_details(&r, "fuzz.csv", (const char *)data, size, &err);
	kp_ncu_report_release(&r);
	return 0;
}
