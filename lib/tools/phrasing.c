/*
 * The tools' "Do" lines in the language of the kernel: the tools phrase their recommendations for
 * CUDA C++; when the kernel is a Triton kernel, the feedback renders each through this table (tool
 * id + the recommendation's first words -> the same advice in Triton's terms: block shapes,
 * tl.multiple_of, num_warps and num_stages, tl.dot). A recommendation the table does not name is
 * kept as the tool wrote it; one whose Triton entry is NULL has no Triton counterpart and is left out.
 */
#include "base/setup.h"

#include <ctype.h>

#include "kernelpro/feedback.h"
#include "kernelpro/profile.h"

struct phrase {
	const char *tool;
	const char *cuda;   /* the first words of the tool's recommendation, as tool_<id>.c writes them */
	const char *triton; /* {1}..{4}: the 1st..4th number in the tool's text; NULL: no Triton counterpart */
};

static const struct phrase table[] = {
	/* coalescing */
	{"coalescing", "Map threadIdx.x to the contiguous",
	 "Make the contiguous (stride-1) axis of every global tensor the last axis of its block: offsets "
	 "rows[:, None] * stride + cols[None, :], never cols[:, None] * stride; for an elementwise kernel "
	 "walk the data in memory order (offs = pid * BLOCK + tl.arange(0, BLOCK))"},
	{"coalescing", "If the strided order is inherent",
	 "If the strided order is inherent (a transpose, a column access), load the tile with its contiguous "
	 "axis last (or through tl.make_block_ptr / a tensor descriptor), transpose it in registers with "
	 "tl.trans or tl.permute, and store it with the output's contiguous axis last: Triton moves the "
	 "data through shared memory for you"},
	{"coalescing", "For arrays of structs",
	 "Load each field as its own contiguous block rather than interleaved fields; for index-driven "
	 "gathers, sort or bucket the indices so one program's loads fall in few 32-byte sectors"},
	/* vector_width */
	{"vector_width", "Load and store 16 bytes per thread",
	 "Let Triton emit 128-bit loads: a power-of-two BLOCK that covers at least 4 consecutive fp32 "
	 "elements per thread (BLOCK >= 4 * 32 * num_warps), offsets it can prove contiguous and aligned "
	 "(tl.max_contiguous(tl.multiple_of(offs, 4), BLOCK)), and sizes and strides divisible by 16 bytes "
	 "(Triton specializes on them)"},
	{"vector_width", "Give each thread several independent elements",
	 "Give each program more elements: a larger BLOCK, or a loop over several blocks per program, so "
	 "more loads are in flight before the first one returns"},
	{"vector_width", "Declare read-only inputs const", NULL},
	/* tensor_cores */
	{"tensor_cores", "Compute the product with tensor cores",
	 "Compute the product with tl.dot on [BLOCK_M, BLOCK_K] x [BLOCK_K, BLOCK_N] tiles (every "
	 "dimension at least 16) accumulated in an fp32 tl.zeros block: Triton lowers it to wgmma on "
	 "sm_90 when the operands are fp16/bf16, or fp32 tiles with the precision the task allows"},
	{"tensor_cores", "Simpler first step: nvcuda::wmma",
	 "Start from the tiled tl.dot loop (for k in range(0, K, BLOCK_K)) with 64x64x32 or 128x128x32 "
	 "tiles and num_stages 3-4, then autotune the tile shape"},
	{"tensor_cores", "TF32 keeps a 10-bit mantissa",
	 "TF32 (input_precision=\"tf32\") keeps a 10-bit mantissa (~1e-3 relative error) and bf16 an 8-bit "
	 "one: in an fp32 task kernelpro refuses both; tl.dot on fp32 tiles runs in full fp32"},
	{"tensor_cores", "Compile for sm_90a and use wgmma",
	 "Keep tl.dot's operands in shared-memory-friendly tiles (tl.make_block_ptr or a tensor "
	 "descriptor, so Triton can use TMA) and pipeline the K loop with num_stages 3-4"},
	{"tensor_cores", "Keep 128-thread warpgroups per MMA",
	 "Use num_warps 4 or 8 (whole warpgroups) and keep the accumulator in registers across the K loop"},
	/* occupancy */
	{"occupancy", "Cap registers at",
	 "Lower the registers per thread to about {1} so {2} programs fit per SM: smaller blocks per "
	 "program, fewer live values, or maxnreg={1} in the launch (or triton.Config); then check the "
	 "spills"},
	{"occupancy", "That cap is far below",
	 "That cap is far below the registers the kernel uses now and would spill: give each program less "
	 "work (smaller BLOCK_M/BLOCK_N) instead"},
	{"occupancy", "Lower register pressure in the code",
	 "Lower register pressure: smaller blocks per program (BLOCK_M * BLOCK_N / (32 * num_warps) values "
	 "per thread), more warps for the same block, fewer live intermediates"},
	{"occupancy", "Use at most",
	 "Use at most {1} bytes of shared memory per program to fit {2} programs per SM: smaller tiles or "
	 "fewer num_stages (each stage holds one set of tiles)"},
	{"occupancy", "Use blocks of 128-256 threads",
	 "Use num_warps 4 or 8 (128-256 threads per program) and give each program the same work"},
	{"occupancy", "Use a block size that divides",
	 "Use num_warps 4, 8 or 16 (128, 256 or 512 threads per program)"},
	{"occupancy", "Launch more, smaller blocks",
	 "Launch more, smaller programs (a smaller BLOCK, at least 2-4 programs per SM) and balance the "
	 "work per program"},
	/* cache_reuse */
	{"cache_reuse", "Fuse the passes that read the same data",
	 "Fuse the passes that read the same data into one Triton kernel, so each input is loaded once and "
	 "intermediates stay in registers"},
	{"cache_reuse", "Order the work so blocks that share inputs",
	 "Order the programs so those that share inputs run together: group the program ids (the "
	 "GROUP_SIZE_M swizzle of pid_m and pid_n) so neighbouring programs reuse the same rows and "
	 "columns in L2"},
	{"cache_reuse", "For data reused across launches", NULL},
	{"cache_reuse", "Tile the loop",
	 "Tile the loop: load [BLOCK, BLOCK] tiles with tl.load and compute on them with tl.dot or "
	 "broadcast arithmetic, so each loaded element is used BLOCK times (Triton stages tiles through "
	 "shared memory itself)"},
	{"cache_reuse", "Then block in registers",
	 "Make the tiles larger (BLOCK_M and BLOCK_N of 64-128) so each loaded value feeds more FMAs"},
	{"cache_reuse", "Double-buffer the tiles",
	 "Raise num_stages (3-4) so the next tiles load while the current ones are used"},
	/* bank_conflicts */
	{"bank_conflicts", "Pad the inner dimension by one element",
	 "Triton chooses the shared-memory layout itself: change the block shape (a power-of-two inner "
	 "dimension of at least 32 elements) or the order of tl.trans/tl.permute so the conversion it "
	 "inserts is conflict-free"},
	{"bank_conflicts", "Or swizzle the column index", NULL},
	{"bank_conflicts", "For 8/16-byte elements",
	 "Keep the contiguous axis last in every block, so consecutive threads touch consecutive elements"},
	/* grid_waves */
	{"grid_waves", "Launch at least",
	 "Launch at least {1} programs (2-4 per SM): a smaller BLOCK, or a grid of (triton.cdiv(n, BLOCK),) "
	 "that covers the data; a persistent kernel loops over tiles with tl.range(pid, num_tiles, "
	 "NUM_PROGRAMS)"},
	{"grid_waves", "For a reduction or scan done by one block",
	 "For a reduction done by one program, split it in two kernels (per-program partial results, then "
	 "one small kernel combines them); for a GEMM, split K across programs (split-K)"},
	{"grid_waves", "Make the block count a multiple of",
	 "Make the number of programs a multiple of {1}, or launch a persistent grid of exactly {1} "
	 "programs that loops over the tiles"},
	{"grid_waves", "Or use smaller blocks", "Or use smaller blocks per program (a finer last wave)"},
	/* divergence */
	{"divergence", "Use a block size that is a multiple of 32",
	 "Cover the tail with a mask (mask = offs < n) instead of branches"},
	{"divergence", "Make the condition uniform per warp",
	 "Replace data-dependent branches by tl.where on whole blocks"},
	{"divergence", "When both sides are short", "Compute both sides and select with tl.where(c, a, b)"},
	{"divergence", "Hoist bounds checks out of inner loops",
	 "Keep masks out of the inner loop: handle the last partial block separately, or pad to whole blocks"},
	/* local_memory */
	{"local_memory", "Relax the register cap",
	 "Relax the register cap: drop maxnreg, or use more warps for the same block"},
	{"local_memory", "Reduce live values",
	 "Reduce live values: smaller blocks per program, fewer intermediates alive at once, fewer "
	 "accumulators (BLOCK_M * BLOCK_N / (32 * num_warps) per thread)"},
	{"local_memory", "Index per-thread arrays only with compile-time constants",
	 "Index blocks only with tl.arange-based offsets and constexpr sizes; replace dynamic indexing of a "
	 "block by masked loads or tl.where"},
	{"local_memory", "If the indexing must be dynamic",
	 "If the indexing must be dynamic, load the values from global memory (they stay in L1/L2) instead "
	 "of keeping a block of them"},
	/* instruction_mix */
	{"instruction_mix", "Use __fdividef(x, y)",
	 "Divide with tl.fdiv(x, y, ieee_rounding=False) or multiply by a reciprocal, and use tl.rsqrt, "
	 "where ~2 ulp error is acceptable"},
	{"instruction_mix", "Use __expf / __logf / __sinf intrinsics",
	 "tl.exp, tl.log and tl.sin are already the fast approximations; use tl.exp2 with a pre-multiplied "
	 "log2(e) to save a multiply"},
	{"instruction_mix", "Write float literals",
	 "Keep the math in fp32: cast fp64 scalars and tensors with .to(tl.float32) once, outside loops"},
	{"instruction_mix", "Divide by compile-time constants or powers of two",
	 "Make divisors tl.constexpr or powers of two (shifts and masks), or carry the quotient and "
	 "remainder across the loop instead of per element"},
	{"instruction_mix", "Use 32-bit indices when the sizes fit",
	 "Keep offsets in int32 when the sizes fit (Triton uses int64 only for pointers and large "
	 "arguments)"},
	{"instruction_mix", "Compute fewer transcendentals",
	 "Compute fewer transcendentals: reuse tl.exp results, tl.sigmoid instead of 1/(1+tl.exp(-x)), "
	 "or a short polynomial"},
	/* launch_overhead */
	{"launch_overhead", "Fuse the launches into one kernel",
	 "Fuse the launches into one Triton kernel: move the loop over steps inside it (a persistent "
	 "kernel looping with tl.range)"},
	{"launch_overhead", "If the launches must stay separate", NULL},
	{"launch_overhead", "Remove the",
	 "Remove the {1} host synchronizations between launches (.item(), .cpu(), torch.cuda.synchronize)"},
	/* atomics */
	{"atomics", "Reduce before the atomic",
	 "Reduce before the atomic: tl.sum the block first and issue one tl.atomic_add per program"},
	{"atomics", "Or write one partial result per block",
	 "Or store one partial result per program and combine them in a second small kernel "
	 "(deterministic, no atomics)"},
	{"atomics", "For histograms, privatize",
	 "For histograms, accumulate a per-program block of bins (tl.histogram) and add it once"},
	/* pipe_balance */
	{"pipe_balance", "Cut instructions per element",
	 "Cut instructions per element: fewer index computations (hoist offsets out of loops), tl.where "
	 "instead of branches"},
	{"pipe_balance", "Make every issued instruction do full work",
	 "Make every instruction do full work: masks only on the last block, 128-bit loads "
	 "(tl.multiple_of), whole warps per program"},
	/* sol_gap */
	{"sol_gap", "Move fewer bytes: fuse this kernel",
	 "Move fewer bytes: fuse this Triton kernel with its producer or consumer so intermediates stay in "
	 "registers instead of a DRAM round trip"},
	{"sol_gap", "Move the math to a faster unit",
	 "Move matrix-shaped math to tl.dot (tensor cores with fp16/bf16 operands where the task's "
	 "precision allows)"},
	{"sol_gap", "Expose more parallelism",
	 "Expose more parallelism: at least 2-4 programs per SM, and several independent loads per "
	 "program (a larger BLOCK or a loop over blocks)"},
	{"sol_gap", "Remove serialization points",
	 "Remove serialization points: tl.atomic_add on one address, dependent chains of tl.load"},
	{"sol_gap", "Keep more bytes in flight per thread",
	 "Keep more bytes in flight: larger blocks, num_stages 3-4 for loops over tl.load, and fully used "
	 "32-byte sectors (contiguous axis last)"},
	/* warp_stalls */
	{"warp_stalls", "Issue independent loads early",
	 "Issue loads early: raise num_stages so the loop's next tl.load is in flight, or give each "
	 "program several blocks"},
	{"warp_stalls", "Issue fewer, wider memory instructions",
	 "Issue fewer, wider memory instructions: contiguous offsets Triton can vectorize (tl.multiple_of, "
	 "tl.max_contiguous)"},
	{"warp_stalls", "Remove bank conflicts (pad",
	 "Change the block shapes so Triton's shared-memory layouts are conflict-free"},
	{"warp_stalls", "Give every warp the same work between barriers",
	 "Use fewer warps per program or smaller reductions across the block (tl.sum over a whole block "
	 "synchronizes its warps)"},
	{"warp_stalls", "Double-buffer shared-memory tiles",
	 "Raise num_stages so tiles are double-buffered"},
	{"warp_stalls", "Move the work to a faster unit", "Move matrix math to tl.dot; keep fp32, not fp64"},
	{"warp_stalls", "Replace short data-dependent branches by selects", "Replace branches by tl.where"},
	{"warp_stalls", "Use intrinsics (__fdividef, __expf)",
	 "Use tl.exp2 and multiplication by reciprocals where precision allows"},
};

void kp_feedback_set_triton(struct kp_feedback *fb, const struct kp_triton_kernel *k)
{
	struct kp_buf b = KP_BUF_INIT;
	fb->lang = fb->opts.lang != KP_LANG_AUTO ? fb->opts.lang : k ? KP_LANG_TRITON : KP_LANG_CUDA;
	if (!k)
		return;
	kp_triton_describe(k, &b);
	free(fb->triton);
	fb->triton = kp_buf_detach(&b, NULL);
}

/* The n-th (1-based) number written in s, into out; 0 when there is none. */
static int nth_number(const char *s, int n, char *out, size_t outn)
{
	for (const char *p = s; *p;) {
		if (isdigit((unsigned char)*p) && (p == s || !(isalnum((unsigned char)p[-1]) || p[-1] == '_'))) {
			const char *q = p;
			while (isdigit((unsigned char)*q) || (*q == '.' && isdigit((unsigned char)q[1])))
				q++;
			if (!--n) {
				snprintf(out, outn, "%.*s", (int)(q - p), p);
				return 1;
			}
			p = q;
		} else {
			p++;
		}
	}
	return 0;
}

const char *kp_phrase_rec(enum kp_code_lang lang, const char *tool, const char *rec, struct kp_buf *tmp)
{
	if (lang != KP_LANG_TRITON || !tool || !rec)
		return rec;
	for (size_t i = 0; i < KP_ARRAY_SIZE(table); i++) {
		const struct phrase *p = &table[i];
		if (strcmp(p->tool, tool) || strncmp(rec, p->cuda, strlen(p->cuda)))
			continue;
		if (!p->triton)
			return NULL;
		kp_buf_reset(tmp);
		for (const char *s = p->triton; *s; s++) {
			char num[32];
			if (s[0] == '{' && s[1] >= '1' && s[1] <= '4' && s[2] == '}' &&
			    nth_number(rec + strlen(p->cuda), s[1] - '0', num, sizeof(num))) {
				kp_buf_adds(tmp, num);
				s += 2;
			} else {
				kp_buf_addch(tmp, *s);
			}
		}
		return tmp->buf;
	}
	return rec;
}

size_t kp_phrase_count(void)
{
	return KP_ARRAY_SIZE(table);
}

const char *kp_phrase_table_tool(size_t i)
{
	return i < KP_ARRAY_SIZE(table) ? table[i].tool : NULL;
}

const char *kp_phrase_table_cuda(size_t i)
{
	return i < KP_ARRAY_SIZE(table) ? table[i].cuda : NULL;
}
