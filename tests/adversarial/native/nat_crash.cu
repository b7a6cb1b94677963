// Crash: a host-side NULL write (segfault). The next evaluation must still work.
// kp-task: examples/native/row_sum
// kp-expect-static: none
// kp-expect-verdict: runtime_error
#include <cuda_runtime.h>

#include "kp_native.h"

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	volatile int *p = 0;
	*p = 1;
	return 0;
}
