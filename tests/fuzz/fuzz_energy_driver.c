/* Fuzz target: the kp-energy driver's stdout (JSON from another process) through kp_energy_parse_driver_output. */
#include "base/setup.h"

#include "kernelpro/energy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_energy_measurement m[4];
	struct kp_error err = KP_ERROR_INIT;
	size_t n = 0;
	if (kp_energy_parse_driver_output((const char *)data, size, m, 4, &n, &err) == 0) {
		/* Whatever was accepted must be usable: summaries are finite or NAN, windows within bounds. */
		for (size_t i = 0; i < n; i++)
			if (m[i].nwindows < 0 || m[i].nwindows > KP_ENERGY_MAX_WINDOWS)
				__builtin_trap();
	}
	return 0;
}
