/* The CUDA toolkit's programs (nvcc, ncu, cuobjdump, ...): where kernelpro finds them. */
#ifndef KERNELPRO_TOOLCHAIN_H
#define KERNELPRO_TOOLCHAIN_H

/*
 * A CUDA toolkit program ("nvcc", "ncu", "cuobjdump", ...), looked up in the
 * order the build uses: $CUDA_HOME/bin, else /usr/local/cuda/bin, else PATH.
 * Returns an allocated path (the caller frees it) or NULL when none is found.
 */
char *kp_cuda_tool(const char *tool);

#endif
