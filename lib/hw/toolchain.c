/* Finding the CUDA toolkit's programs, for the doctor, the evaluator's compiler and the profiler, and
 * nvcc's target for a GPU. */
#include "base/setup.h"

#include <unistd.h>

#include "kernelpro/buf.h"
#include "kernelpro/child.h"
#include "kernelpro/str.h"
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

const char *kp_arch_for_cc(int major, int minor, char *buf, size_t n)
{
	/* The 'a' targets unlock wgmma/TMA (sm_90a) and tcgen05 (sm_100a); they run only on that exact GPU,
	 * which is the one we evaluate on. */
	snprintf(buf, n, "sm_%d%d%s", major, minor, (major == 9 && minor == 0) || (major == 10 && minor == 0) ? "a" : "");
	return buf;
}

const char *kp_nvcc_target(const char *arch, char *buf, size_t n)
{
	if (kp_starts_with(arch, "sm_"))
		snprintf(buf, n, "-gencode=arch=compute_%s,code=%s", arch + 3, arch);
	else
		snprintf(buf, n, "-arch=%s", arch);
	return buf;
}
