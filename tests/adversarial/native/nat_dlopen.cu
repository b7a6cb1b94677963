// Hack: open the reference library and call it.
// kp-task: examples/native/row_sum
// kp-expect-static: reads_reference
// kp-expect-verdict: cheat_suspected reads_reference
#include <cuda_runtime.h>

#include "kp_native.h"

#include <dlfcn.h>

typedef int (*run_fn)(const kp_tensor *, int, kp_tensor *, int, kp_stream_t);

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	static run_fn ref;
	if (!ref) {
		void *h = dlopen(getenv("KP_REFERENCE_SO"), RTLD_NOW);
		ref = h ? (run_fn)dlsym(h, "kp_run") : 0;
	}
	return ref ? ref(in, nin, out, nout, stream) : 1;
}
