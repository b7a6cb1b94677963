/*
 * What the optimization loop asks of code search: for each profiling tool whose finding CUTLASS or
 * CuTe has an answer to, the queries that find that answer, and the snippets for a candidate's
 * findings assembled within a token budget (docs/internals/codesearch.md lists the map).
 */
#include "base/setup.h"

#include <jansson.h>

#include "kernelpro/codesearch.h"
#include "kernelpro/json.h"

#define TOOLS_USED     3 /* distinct tools whose queries run for one prompt */
#define HITS_PER_QUERY 2
#define HITS_MAX       8 /* snippets considered for one prompt, before the budget */

struct tool_queries {
	const char *tool;
	const char *queries[4];
};

/* Tool ids are the registry's (docs/internals/design.md, "Tools"); sol_gap (the roofline distance) names no technique, so it has none. */
static const struct tool_queries map[] = {
    {"tensor_cores",
     {"SM90 64x128x16 F32BF16BF16 SS GMMA", "make_tma_atom SM90_TMA_LOAD",
      "KernelTmaWarpSpecialized collective mma sm90", NULL}},
    {"bank_conflicts",
     {"GMMA Layout_K_SW128_Atom swizzle", "Swizzle composition shared memory layout",
      "tile_to_shape swizzle atom", NULL}},
    {"cache_reuse",
     {"SM80_CP_ASYNC_CACHEALWAYS copy", "make_tma_copy SM90_TMA_LOAD", "local_tile tiler coord", NULL}},
    {"coalescing", {"make_tiled_copy Copy_Atom uint128_t", "partition_S partition_D tiled copy", NULL}},
    {"vector_width", {"AutoVectorizingCopy", "UniversalCopy uint128_t", NULL}},
    {"occupancy", {"warpgroup_reg_alloc setmaxnreg", "KernelTmaWarpSpecializedCooperative", NULL}},
    {"warp_stalls",
     {"PipelineTmaAsync producer consumer", "ClusterTransactionBarrier arrive_and_expect_tx",
      "cp_async_wait pipeline mainloop", NULL}},
    {"pipe_balance", {"SM80 16x8x16 F32BF16BF16F32 TN mma", "make_tiled_mma TiledMMA", NULL}},
    {"local_memory", {"make_fragment_like register tensor", "make_tensor_like rmem", NULL}},
    {"grid_waves", {"PersistentTileSchedulerSm90", "StreamK tile scheduler", NULL}},
    {"launch_overhead", {"hopper grouped gemm", "epilogue fusion linear combination bias", NULL}},
    {"instruction_mix", {"FastDivmod", "fast_exp fast_tanh", "NumericConverter round", NULL}},
    {"divergence", {"copy_if predicate identity tensor elem_less", "make_identity_tensor", NULL}},
    {"atomics", {"atomic_add red global reduction", "split k reduction semaphore", NULL}},
};

static const struct tool_queries *entry_for(const char *tool_id);

const char *const *kp_cs_queries_for_tool(const char *tool_id)
{
	const struct tool_queries *e = entry_for(tool_id);
	return e ? e->queries : NULL;
}

const char *const *kp_cs_mapped_tools(void)
{
	static const char *const tools[] = {
	    "tensor_cores",    "bank_conflicts",  "cache_reuse",  "coalescing",   "vector_width",
	    "occupancy",       "warp_stalls",     "pipe_balance", "local_memory", "grid_waves",
	    "launch_overhead", "instruction_mix", "divergence",   "atomics",      NULL};
	_Static_assert(KP_ARRAY_SIZE(tools) == KP_ARRAY_SIZE(map) + 1, "one name per map entry");
	return tools;
}

static const struct tool_queries *entry_for(const char *tool_id)
{
	for (size_t i = 0; tool_id && i < KP_ARRAY_SIZE(map); i++)
		if (!strcmp(map[i].tool, tool_id))
			return &map[i];
	return NULL;
}

/* The first TOOLS_USED distinct tools of the findings that have queries, in the findings' order. */
static size_t tools_of(const char *findings_json, const struct tool_queries *out[TOOLS_USED])
{
	json_t *arr = findings_json ? json_loads(findings_json, 0, NULL) : NULL;
	size_t n = 0;
	for (size_t i = 0; json_is_array(arr) && i < json_array_size(arr) && n < TOOLS_USED; i++) {
		const json_t *f = json_array_get(arr, i);
		const struct tool_queries *e = entry_for(kp_json_str(f, "tool", kp_json_str(f, "id", NULL)));
		int dup = 0;
		for (size_t k = 0; k < n; k++)
			dup |= out[k] == e;
		if (e && !dup)
			out[n++] = e;
	}
	json_decref(arr);
	return n;
}

static void move_hit(struct kp_cs_hits *to, struct kp_cs_hit *h)
{
	KP_ALLOC_GROW(to->v, to->n + 1, to->alloc);
	to->v[to->n++] = *h;
	memset(h, 0, sizeof(*h));
}

int kp_cs_for_findings(struct kp_cs_index *ix, const char *findings_json, int max_tokens, struct kp_buf *text,
                       struct kp_strvec *refs, struct kp_error *err)
{
	const struct tool_queries *tools[TOOLS_USED];
	struct kp_cs_hits per[TOOLS_USED], all = {0};
	size_t ntools = tools_of(findings_json, tools), max_chars, written = 0;
	struct kp_buf head = KP_BUF_INIT;
	int rc = 0;

	memset(per, 0, sizeof(per));
	for (size_t t = 0; t < ntools && !rc; t++) {
		const struct tool_queries *e = tools[t];
		for (size_t q = 0; e && q < KP_ARRAY_SIZE(e->queries) && e->queries[q] && !rc; q++) {
			struct kp_cs_hits got = {0};
			rc = kp_cs_search(ix, e->queries[q], HITS_PER_QUERY, &got, err);
			for (size_t i = 0; i < got.n; i++) {
				int dup = 0;
				for (size_t k = 0; k < ntools && !dup; k++)
					for (size_t j = 0; j < per[k].n && !dup; j++)
						dup = per[k].v[j].id == got.v[i].id;
				if (!dup)
					move_hit(&per[t], &got.v[i]);
			}
			kp_cs_hits_release(&got);
		}
	}
	/* In turn from each tool, so the most important finding does not take the whole budget. */
	for (size_t r = 0; !rc && all.n < HITS_MAX; r++) {
		int any = 0;
		for (size_t t = 0; t < ntools && all.n < HITS_MAX; t++)
			if (r < per[t].n) {
				move_hit(&all, &per[t].v[r]);
				any = 1;
			}
		if (!any)
			break;
	}
	if (!rc && all.n) {
		kp_buf_adds(&head, "CUTLASS/CuTe code that addresses these findings (");
		for (size_t t = 0; t < ntools; t++)
			kp_buf_addf(&head, "%s%s", t ? ", " : "", tools[t]->tool);
		kp_buf_addf(&head,
		            "); paths are relative to the CUTLASS %s root, and a candidate may #include "
		            "<cute/...> and <cutlass/...> headers:\n\n",
		            kp_cs_index_version(ix));
		max_chars =
		    (size_t)(max_tokens > 0 ? max_tokens : KP_CS_DEFAULT_TOKENS) * KP_CS_CHARS_PER_TOKEN;
		if (head.len < max_chars) {
			struct kp_buf body = KP_BUF_INIT;
			written = kp_cs_format_hits(&all, max_chars - head.len, &body, refs);
			if (written) {
				kp_buf_add(text, head.buf, head.len);
				kp_buf_add(text, body.buf, body.len);
			}
			kp_buf_release(&body);
		}
	}
	for (size_t t = 0; t < TOOLS_USED; t++)
		kp_cs_hits_release(&per[t]);
	kp_cs_hits_release(&all);
	kp_buf_release(&head);
	return rc ? rc : (int)written;
}
