/*
 * The toolchain: where kernelpro finds the CUDA toolkit's programs (nvcc, ncu, cuobjdump, ...) and
 * CUTLASS, nvcc's target for a GPU, and the nvcc flags a candidate that uses CUTLASS builds with
 * (lib/hw: toolchain.c, cutlass.c). The doctor, the evaluator's builds, the profiler and code search all ask here.
 */
#ifndef KERNELPRO_TOOLCHAIN_H
#define KERNELPRO_TOOLCHAIN_H

#include <stddef.h>

#include "kernelpro/buf.h"
#include "kernelpro/error.h"
#include "kernelpro/strvec.h"

/*
 * A CUDA toolkit program ("nvcc", "ncu", "cuobjdump", ...), looked up in the
 * order the build uses: $CUDA_HOME/bin, else /usr/local/cuda/bin, else PATH.
 * Returns an allocated path (the caller frees it) or NULL when none is found.
 */
char *kp_cuda_tool(const char *tool);

/* "sm_90a" for compute capability 9.0 (and 10.0 -> sm_100a), else "sm_XY". Writes into buf. */
const char *kp_arch_for_cc(int major, int minor, char *buf, size_t n);

/*
 * nvcc's target option for `arch`, written into buf: "-gencode=arch=compute_90a,code=sm_90a" for
 * "sm_90a" (SASS for that GPU only: -arch=sm_90a would also compile compute_90 PTX and embed it,
 * a second cicc and ptxas pass, 1.4 s instead of 1.1 s for a small kernel with nvcc 13.0, and
 * nothing kernelpro runs reads embedded PTX), "-arch=compute_90" for "compute_90" (PTX only, as asked).
 * harness/kernelpro/build.py nvcc_target() is the same.
 */
const char *kp_nvcc_target(const char *arch, char *buf, size_t n);

/* ---- Where CUTLASS is --------------------------------------------------------------------------- */

enum kp_cutlass_source {
	KP_CUTLASS_ENV = 0, /* $CUTLASS_PATH */
	KP_CUTLASS_BUNDLED, /* .cutlass beside kernelpro (tools/install-cutlass.sh, `make deps`) */
	KP_CUTLASS_PIP,     /* python3's nvidia-cutlass package (cutlass_library/source) */
};

struct kp_cutlass {
	char *root;         /* holds include/cute and include/cutlass */
	char *include;      /* root/include */
	char *util_include; /* root/tools/util/include, or NULL */
	char *examples;     /* root/examples, or NULL */
	char version[32];   /* "4.2.0", from include/cutlass/version.h */
	enum kp_cutlass_source source;
};

enum kp_cutlass_find_flags {
	KP_CUTLASS_NO_PYTHON = 1 << 0, /* don't start python3 to look for the pip package */
};

#define KP_CUTLASS_INSTALL_HINT                                                                             \
	"run tools/install-cutlass.sh (or 'make deps'), 'pip install nvidia-cutlass', or set CUTLASS_PATH " \
	"to a "                                                                                             \
	"CUTLASS checkout"

/*
 * Finds CUTLASS: $CUTLASS_PATH (which must hold include/cutlass/cutlass.h), else .cutlass found
 * like kernelpro's other data ($KERNELPRO_HOME, then beside the executable), else the headers of
 * python3's nvidia-cutlass package. KP_ENOENT with the install hint when there is none; KP_EINVAL
 * when CUTLASS_PATH is set but holds no CUTLASS. `c` is filled (release it) only on success.
 */
int kp_cutlass_find(struct kp_cutlass *c, unsigned flags, struct kp_error *err);
/* The same answer, found once per process (thread-safe). Borrowed; NULL with err set. */
const struct kp_cutlass *kp_cutlass_cached(struct kp_error *err);
void kp_cutlass_release(struct kp_cutlass *c);
const char *kp_cutlass_source_name(enum kp_cutlass_source s);

/* Reads "MAJOR.MINOR.PATCH" from the text of include/cutlass/version.h. KP_EPARSE when absent. */
int kp_cutlass_parse_version(const char *text, size_t len, char *out, size_t n, struct kp_error *err);

/* ---- Building candidates that use CUTLASS ----------------------------------------------------------- */

/* Does the source #include a cute/ or cutlass/ header? */
int kp_cutlass_source_uses(const char *src, size_t len);
/* Does the source use Hopper-only features (WGMMA, TMA, setmaxnreg) that need sm_90a, not sm_90? */
int kp_cutlass_source_needs_arch_a(const char *src, size_t len);

/*
 * What nvcc needs for `src` beyond the usual flags: for a CUTLASS user, -std=c++17,
 * --expt-relaxed-constexpr and -I for the headers (`c` must then be non-NULL); `*arch` becomes
 * "sm_90a" when it was "sm_90" and the source needs WGMMA/TMA (else it is left alone). Appends to
 * `flags`; `key` gets a line naming the CUTLASS version for the build cache key (may be NULL).
 */
void kp_cutlass_build_flags(const struct kp_cutlass *c, const char *src, size_t len, struct kp_strvec *flags,
                            const char **arch, struct kp_buf *key);

#endif
