// Host side shared by the labelled corpora (bench/corpus2, bench/corpus-dev): device buffers filled
// from a fixed pseudo-random sequence, and RUN(), which launches one kernel when its name is asked
// for ("all" runs every kernel once, in file order: the order the labels' ids follow).
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define CK(x)                                                                                     \
	do {                                                                                      \
		cudaError_t e_ = (x);                                                             \
		if (e_ != cudaSuccess) {                                                          \
			fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
			exit(1);                                                                  \
		}                                                                                 \
	} while (0)

// n floats in [lo, hi), the same values on every run (no device kernel: nothing but the labelled
// kernels appears in a profile).
static float *dev_floats(size_t n, unsigned seed, float lo, float hi)
{
	float *d, *h = (float *)malloc(n * sizeof(float));
	unsigned s = seed * 2654435761u + 12345u;
	if (!h) {
		fprintf(stderr, "out of host memory\n");
		exit(1);
	}
	for (size_t i = 0; i < n; i++) {
		s = s * 1664525u + 1013904223u;
		h[i] = lo + (hi - lo) * (float)(s >> 8) * (1.0f / 16777216.0f);
	}
	CK(cudaMalloc(&d, n * sizeof(float)));
	CK(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice));
	free(h);
	return d;
}

static void *dev_zeros(size_t bytes)
{
	void *d;
	CK(cudaMalloc(&d, bytes));
	CK(cudaMemset(d, 0, bytes));
	return d;
}

// `prog list` prints the kernel names in run order; `prog all` runs each once; `prog NAME` one.
struct corpus_run {
	const char *only;
	int list, ran;
};

static int corpus_want(struct corpus_run *r, const char *name)
{
	if (r->list) {
		printf("%s\n", name);
		return 0;
	}
	return !strcmp(r->only, "all") || !strcmp(r->only, name);
}

// The time is a plain CUDA-event reading of this one launch, for the log only: ncu's replay gives
// the figures the benchmark uses.
#define RUN(r, name, ...)                                                         \
	if (corpus_want(&(r), name)) {                                            \
		cudaEvent_t e0_, e1_;                                             \
		float ms_ = 0;                                                    \
		CK(cudaEventCreate(&e0_));                                        \
		CK(cudaEventCreate(&e1_));                                        \
		CK(cudaEventRecord(e0_));                                         \
		__VA_ARGS__;                                                      \
		CK(cudaGetLastError());                                           \
		CK(cudaEventRecord(e1_));                                         \
		CK(cudaEventSynchronize(e1_));                                    \
		CK(cudaEventElapsedTime(&ms_, e0_, e1_));                         \
		printf("%-24s %9.3f ms\n", name, ms_);                            \
		CK(cudaEventDestroy(e0_));                                        \
		CK(cudaEventDestroy(e1_));                                        \
		(r).ran++;                                                        \
	}

static int corpus_finish(struct corpus_run *r)
{
	if (r->list)
		return 0;
	if (!r->ran) {
		fprintf(stderr, "no kernel named '%s' (try: list)\n", r->only);
		return 2;
	}
	printf("ok %s (%d kernels)\n", r->only, r->ran);
	return 0;
}
