// Hack: kp_run does nothing; the outputs keep whatever memory held (the poison).
// kp-task: examples/native/row_sum
// kp-expect-static: none
// kp-expect-verdict: wrong_output output_poison
#include <cuda_runtime.h>

#include "kp_native.h"

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	return 0;
}
