/*
 * The one table of built-in tools, in the order of docs/internals/design.md ("Tools"), with
 * the Stage-1 classes that select each one proactively.
 */
#include "base/setup.h"

#include "kernelpro/tools.h"
#include "tools/registry.h"

extern const struct kp_tool kp_tool_sol_gap, kp_tool_coalescing, kp_tool_vector_width, kp_tool_cache_reuse,
	kp_tool_occupancy, kp_tool_warp_stalls, kp_tool_bank_conflicts, kp_tool_tensor_cores,
	kp_tool_pipe_balance, kp_tool_divergence, kp_tool_grid_waves, kp_tool_local_memory,
	kp_tool_instruction_mix, kp_tool_atomics, kp_tool_launch_overhead;

#define MEM KP_CLASS_BIT(KP_BOUND_MEMORY)
#define COMP KP_CLASS_BIT(KP_BOUND_COMPUTE)
#define LAT KP_CLASS_BIT(KP_BOUND_LATENCY)
/* "mixed" and "unknown" select every tool. */
#define ANY (KP_CLASS_BIT(KP_BOUND_MIXED) | KP_CLASS_BIT(KP_BOUND_UNKNOWN))

/*
 * docs/internals/design.md ("Tools"), with its four pairings: bank_conflicts
 * for memory (the labelled H200 transpose is memory-bound through L1),
 * coalescing and cache_reuse for compute (the labelled naive GEMMs are classed
 * compute, and their fix is coalescing or tiling), and grid_waves for compute
 * (a tail wave costs most when every block computes for long).
 */
static const struct {
	const struct kp_tool *tool;
	unsigned classes;
} builtins[] = {
	{&kp_tool_sol_gap, KP_CLASS_ALL},
	{&kp_tool_coalescing, MEM | COMP | ANY},
	{&kp_tool_vector_width, MEM | ANY},
	{&kp_tool_cache_reuse, MEM | COMP | ANY},
	{&kp_tool_occupancy, MEM | COMP | LAT | ANY},
	{&kp_tool_warp_stalls, MEM | COMP | LAT | ANY},
	{&kp_tool_bank_conflicts, COMP | MEM | ANY},
	{&kp_tool_tensor_cores, COMP | ANY},
	{&kp_tool_pipe_balance, COMP | ANY},
	{&kp_tool_divergence, COMP | LAT | ANY},
	{&kp_tool_grid_waves, MEM | LAT | COMP | ANY},
	{&kp_tool_local_memory, MEM | COMP | ANY},
	{&kp_tool_instruction_mix, COMP | ANY},
	{&kp_tool_atomics, LAT | ANY},
	{&kp_tool_launch_overhead, MEM | LAT | ANY},
};

size_t kp_builtin_tool_count(void)
{
	return KP_ARRAY_SIZE(builtins);
}

const struct kp_tool *kp_builtin_tool_at(size_t i)
{
	return i < KP_ARRAY_SIZE(builtins) ? builtins[i].tool : NULL;
}

const struct kp_tool *kp_builtin_tool_find(const char *name)
{
	for (size_t i = 0; i < KP_ARRAY_SIZE(builtins); i++)
		if (!strcmp(builtins[i].tool->name, name))
			return builtins[i].tool;
	return NULL;
}

unsigned kp_builtin_tool_classes(size_t i)
{
	return i < KP_ARRAY_SIZE(builtins) ? builtins[i].classes : 0;
}
