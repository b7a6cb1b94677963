// Wrong: the output is zeroed and nothing else; every reference value is under atol.
// kp-task: tests/adversarial/tasks/nat_softmax_wide
// kp-expect-static: none
// kp-expect-verdict: wrong_output constant_output
// kp-also: --allow constant_output => wrong_output partial_match
#include <cuda_runtime.h>

#include "kp_native.h"

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	return (int)cudaMemsetAsync(out[0].data, 0, (size_t)out[0].numel * sizeof(float), stream);
}
