/* Finding the CUDA toolkit's programs, for the doctor, the evaluator's compiler and the profiler. */
#include "base/setup.h"

#include <unistd.h>

#include "kernelpro/buf.h"
#include "kernelpro/child.h"
#include "kernelpro/toolchain.h"

char *kp_cuda_tool(const char *tool)
{
	struct kp_buf p = KP_BUF_INIT;
	const char *home = getenv("CUDA_HOME");
	if (home && *home) {
		kp_buf_addf(&p, "%s/bin/%s", home, tool);
		if (access(p.buf, X_OK) == 0)
			return kp_buf_detach(&p, NULL);
		kp_buf_reset(&p);
	}
	kp_buf_addf(&p, "/usr/local/cuda/bin/%s", tool);
	if (access(p.buf, X_OK) == 0)
		return kp_buf_detach(&p, NULL);
	kp_buf_release(&p);
	return kp_which(tool);
}
