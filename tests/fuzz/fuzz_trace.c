/* libFuzzer target: the tracer JSON and nsys stats CSV parsers. */
#include "base/setup.h"

#include "kernelpro/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_trace t = KP_TRACE_INIT;
	struct kp_error err = KP_ERROR_INIT;
	kp_trace_parse_json(&t, "fuzz.json", (const char *)data, size, &err);
	kp_trace_release(&t);
	kp_trace_parse_nsys_csv(&t, "fuzz.csv", (const char *)data, size, &err);
	kp_trace_release(&t);
	return 0;
}
