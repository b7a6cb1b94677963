/* A build's toolchain (nvcc from toolchain.h, its version, the target arch, the flags) and the
 * content-addressed build cache of shared libraries. harness/kernelpro/build.py computes the
 * same keys for the fast path. */
#ifndef KP_EVAL_BUILD_H
#define KP_EVAL_BUILD_H

#include <stddef.h>

#include "kernelpro/error.h"
#include "kernelpro/eval.h"
#include "kernelpro/strvec.h"
#include "kernelpro/toolchain.h" /* kp_arch_for_cc, kp_nvcc_target */

struct kp_toolchain {
	char *nvcc;              /* absolute path */
	char *version;           /* last line of `nvcc --version` */
	char *arch;              /* "sm_90a" */
	char *cache;             /* the build cache directory */
	struct kp_strvec flags;  /* "-O3", "-lineinfo", then opts->nvcc_flags */
};

/* Finds nvcc (opts, $CUDA_HOME, /usr/local/cuda, PATH), its version (cached per path), the arch
 * (opts, else the GPU's, else sm_90) and the cache directory. KP_ENOTOOL when nvcc is missing. */
int kp_toolchain_resolve(struct kp_toolchain *tc, const struct kp_eval_opts *o, int gpu, struct kp_error *err);
void kp_toolchain_release(struct kp_toolchain *tc);

/*
 * The cache key: SHA-256 of
 *   "kernelpro-build-v2\n" "arch=<arch>\n" "nvcc=<version>\n" ("flag=<f>\n")*
 *   ("extra=<sha256 hex of extra>\n")* "source-bytes=<n>\n" <source>
 * Flags must not contain newlines (KP_EINVAL).
 */
int kp_build_key(const char *src, size_t len, const char *const *flags, size_t nflags, const char *version,
		 const char *arch, const char *const *extras, size_t nextras, char hex[65]);

struct kp_build {
	char key[65];
	char *lib;       /* <cache>/<key>/lib.so once built */
	int ok;          /* the library exists */
	int cached;      /* it was there already */
	int timed_out;
	char *log;       /* nvcc's output when it failed (whole, capped at 1 MiB) */
	double seconds;
};

void kp_build_release(struct kp_build *b);

/*
 * Builds `src` into a shared library with
 *   nvcc -shared -Xcompiler -fPIC <kp_nvcc_target(arch)> <flags> [-I<include_dir>] -o lib.so <name>.cu
 * in a fresh directory under the cache, then renames it to <cache>/<key>. `extras` are texts the
 * build depends on besides the source (the ABI header). A source that includes cute/ or cutlass/
 * headers also gets -std=c++17 --expt-relaxed-constexpr -I<CUTLASS>, and one that uses WGMMA/TMA
 * sm_90a for sm_90 (kp_cutlass_build_flags; the CUTLASS version joins the key); with no CUTLASS
 * found such a source fails to build with a log that says how to install it. Returns 0 whether nvcc succeeded or not
 * (b->ok says); a negative code only when the build could not be attempted.
 */
int kp_build_so(const struct kp_toolchain *tc, const char *src, size_t len, const char *name,
		const char *include_dir, const char *const *extras, size_t nextras, double timeout_s,
		struct kp_build *b, struct kp_error *err);

#endif
