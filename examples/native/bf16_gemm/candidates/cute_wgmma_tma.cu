/*
 * y = x W^T in bf16 with fp32 accumulation, written with CuTe for sm_90a: TMA loads of 128x64 tiles
 * of x and W into 128-byte-swizzled shared memory, a 5-stage ring of stages guarded by mbarriers,
 * one producer warpgroup that issues the TMA copies, and two consumer warpgroups that each run
 * 64x128x16 WGMMAs straight from shared memory into registers. Needs M and N multiples of 128 and
 * K a multiple of 64 (the task's 4096^3 is); other shapes return cudaErrorInvalidValue.
 *
 * Build: nvcc -std=c++17 --expt-relaxed-constexpr -arch=sm_90a -I<cutlass>/include (kernelpro adds
 * these when a source includes cute/ or cutlass/ headers).
 */
#include "kp_native.h"

#include <cuda_runtime.h>

#include <cute/tensor.hpp>
#include <cutlass/arch/barrier.h>
#include <cutlass/numeric_types.h>

using namespace cute;

namespace kp_gemm { /* named: an anonymous namespace around a kernel template trips nvcc's host stubs */

using Elem = cutlass::bfloat16_t;

constexpr int kTileM = 128, kTileN = 128, kTileK = 64, kStages = 5;
constexpr int kConsumers = 2;                        /* warpgroups doing the math: 64 rows of the tile each */
constexpr int kThreads = 128 * (1 + kConsumers);     /* warpgroup 0 feeds the others */

using TileShapeA = Shape<Int<kTileM>, Int<kTileK>, Int<kStages>>;
using TileShapeB = Shape<Int<kTileN>, Int<kTileK>, Int<kStages>>;
/* K-major operands: 64 bf16 = 128 bytes of K per row, the width of the 128-byte swizzle. */
using SmemLayoutA = decltype(tile_to_shape(GMMA::Layout_K_SW128_Atom<Elem>{}, TileShapeA{}));
using SmemLayoutB = decltype(tile_to_shape(GMMA::Layout_K_SW128_Atom<Elem>{}, TileShapeB{}));

struct Smem {
	alignas(1024) Elem a[cosize_v<SmemLayoutA>];
	alignas(1024) Elem b[cosize_v<SmemLayoutB>];
	alignas(8) uint64_t full[kStages];   /* TMA has landed a stage */
	alignas(8) uint64_t empty[kStages];  /* the consumers are done reading a stage */
};

using Mma = decltype(make_tiled_mma(SM90_64x128x16_F32BF16BF16_SS<GMMA::Major::K, GMMA::Major::K>{},
				    Layout<Shape<Int<kConsumers>, _1, _1>>{}));

template <class TmaA, class TmaB>
__global__ void __launch_bounds__(kThreads, 1)
gemm_kernel(int M, int N, int K, CUTE_GRID_CONSTANT TmaA const tma_a, CUTE_GRID_CONSTANT TmaB const tma_b,
	    Elem *__restrict__ y)
{
	extern __shared__ __align__(1024) unsigned char smem_raw[];
	Smem &smem = *reinterpret_cast<Smem *>(smem_raw);
	using Full = cutlass::arch::ClusterTransactionBarrier;
	using Empty = cutlass::arch::ClusterBarrier;

	const int warpgroup = threadIdx.x / 128;
	const int k_tiles = K / kTileK;

	if (threadIdx.x == 0) {
		for (int s = 0; s < kStages; ++s) {
			Full::init(&smem.full[s], 1);
			Empty::init(&smem.empty[s], 128 * kConsumers);
		}
		cutlass::arch::fence_barrier_init();
	}
	__syncthreads();

	/* The whole problem as TMA coordinate tensors; this block's tiles of it. */
	Tensor mA = tma_a.get_tma_tensor(make_shape(M, K));
	Tensor mB = tma_b.get_tma_tensor(make_shape(N, K));
	auto tiler = make_shape(Int<kTileM>{}, Int<kTileN>{}, Int<kTileK>{});
	auto coord = make_coord(blockIdx.x, blockIdx.y, _);
	Tensor gA = local_tile(mA, tiler, coord, Step<_1, X, _1>{}); /* (128, 64, k) */
	Tensor gB = local_tile(mB, tiler, coord, Step<X, _1, _1>{}); /* (128, 64, k) */
	Tensor sA = make_tensor(make_smem_ptr(smem.a), SmemLayoutA{}); /* (128, 64, stage) */
	Tensor sB = make_tensor(make_smem_ptr(smem.b), SmemLayoutB{});

	if (warpgroup == 0) {
		/* Producer: one thread keeps the ring full. */
		if (threadIdx.x == 0) {
			auto [tAgA, tAsA] = tma_partition(tma_a, Int<0>{}, Layout<_1>{}, group_modes<0, 2>(sA),
							  group_modes<0, 2>(gA));
			auto [tBgB, tBsB] = tma_partition(tma_b, Int<0>{}, Layout<_1>{}, group_modes<0, 2>(sB),
							  group_modes<0, 2>(gB));
			constexpr uint32_t stage_bytes = (kTileM + kTileN) * kTileK * sizeof(Elem);
			/* What each stage's two TMA copies write: the mbarrier waits for exactly these bytes. */
			static_assert((decltype(size<0>(tAsA))::value + decltype(size<0>(tBsB))::value) * sizeof(Elem) ==
					      stage_bytes,
				      "the TMA boxes are the tiles");
			int stage = 0;
			uint32_t phase = 1; /* the first pass finds every stage empty */
			for (int k = 0; k < k_tiles; ++k) {
				Empty::wait(&smem.empty[stage], phase);
				Full::arrive_and_expect_tx(&smem.full[stage], stage_bytes);
				copy(tma_a.with(smem.full[stage]), tAgA(_, k), tAsA(_, stage));
				copy(tma_b.with(smem.full[stage]), tBgB(_, k), tBsB(_, stage));
				if (++stage == kStages) {
					stage = 0;
					phase ^= 1;
				}
			}
		}
		return;
	}

	/* Consumers: warpgroups 1 and 2 own rows [0, 64) and [64, 128) of the tile. */
	Mma mma;
	const int t = threadIdx.x - 128;
	auto thr = mma.get_thread_slice(t);
	Tensor tCsA = thr.partition_A(sA); /* (MMA, MMA_M, MMA_K, stage) */
	Tensor tCsB = thr.partition_B(sB); /* (MMA, MMA_N, MMA_K, stage) */
	Tensor tCrA = thr.make_fragment_A(tCsA); /* shared-memory descriptors, not registers */
	Tensor tCrB = thr.make_fragment_B(tCsB);
	Tensor mC = make_tensor(make_gmem_ptr(y), make_shape(M, N), make_stride(N, Int<1>{}));
	Tensor gC = local_tile(mC, tiler, coord, Step<_1, _1, X>{}); /* (128, 128) */
	Tensor tCgC = thr.partition_C(gC);
	Tensor acc = thr.make_fragment_C(tCgC);
	clear(acc);
	/* Per warpgroup: one 64-row MMA block in M, 4 k-blocks of 16 per 64-wide stage, 64 fp32 per thread. */
	CUTE_STATIC_ASSERT_V(size<1>(tCsA) == Int<1>{} && size<2>(tCsA) == Int<kTileK / 16>{});
	CUTE_STATIC_ASSERT_V(size<1>(tCsB) == Int<1>{} && size(acc) == Int<64>{});
	static_assert(decltype(size(Mma{}))::value == 128 * kConsumers, "two consumer warpgroups");

	int stage = 0, prev = 0;
	uint32_t phase = 0;
	for (int k = 0; k < k_tiles; ++k) {
		Full::wait(&smem.full[stage], phase);
		warpgroup_fence_operand(acc);
		warpgroup_arrive();
		gemm(mma, tCrA(_, _, _, stage), tCrB(_, _, _, stage), acc);
		warpgroup_commit_batch();
		/* Keep this tile's WGMMAs in flight; the previous tile's are done, so its stage is free. */
		warpgroup_wait<1>();
		warpgroup_fence_operand(acc);
		if (k > 0)
			Empty::arrive(&smem.empty[prev]);
		prev = stage;
		if (++stage == kStages) {
			stage = 0;
			phase ^= 1;
		}
	}
	warpgroup_wait<0>();
	warpgroup_fence_operand(acc);

	for (int i = 0; i < size(acc); ++i)
		tCgC(i) = Elem(acc(i));
}

} // namespace kp_gemm

using namespace kp_gemm;

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	if (nin != 2 || nout != 1 || in[0].ndim != 2 || in[1].ndim != 2 || out[0].ndim != 2)
		return (int)cudaErrorInvalidValue;
	const int M = (int)in[0].shape[0], K = (int)in[0].shape[1], N = (int)in[1].shape[0];
	if (in[1].shape[1] != K || out[0].shape[0] != M || out[0].shape[1] != N || M % kTileM || N % kTileN ||
	    K % kTileK)
		return (int)cudaErrorInvalidValue;

	/* x is (M, K) and W is (N, K), both row-major: K is the contiguous mode of each. */
	Tensor mA = make_tensor(make_gmem_ptr(static_cast<const Elem *>(in[0].data)), make_shape(M, K),
				make_stride(K, Int<1>{}));
	Tensor mB = make_tensor(make_gmem_ptr(static_cast<const Elem *>(in[1].data)), make_shape(N, K),
				make_stride(K, Int<1>{}));
	auto tma_a = make_tma_atom(SM90_TMA_LOAD{}, mA, SmemLayoutA{}(_, _, 0), make_shape(Int<kTileM>{}, Int<kTileK>{}));
	auto tma_b = make_tma_atom(SM90_TMA_LOAD{}, mB, SmemLayoutB{}(_, _, 0), make_shape(Int<kTileN>{}, Int<kTileK>{}));

	auto kernel = gemm_kernel<decltype(tma_a), decltype(tma_b)>;
	const int smem_bytes = (int)sizeof(Smem);
	cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes);
	if (e != cudaSuccess)
		return (int)e;
	dim3 grid(M / kTileM, N / kTileN);
	kernel<<<grid, kThreads, smem_bytes, (cudaStream_t)stream>>>(M, N, K, tma_a, tma_b,
								     static_cast<Elem *>(out[0].data));
	return (int)cudaGetLastError();
}
