/*
 * The view of one kernel a Lua user tool gets: the `m` table (launch, metrics
 * through m.metric/m.get/m.has, SASS counts, ptxas resources, trace, Stage 1,
 * hardware) and the `t` table of thresholds. Read-only copies: a tool cannot
 * change what the other tools see.
 */
#include "base/setup.h"

#include <math.h>

#include <lauxlib.h>
#include <lua.h>

#include "tools/luatool_impl.h"

const char *const kp__luatool_class_names[5] = {"unknown", "compute", "memory", "latency", "mixed"};

#define SASS_NAME(n) #n,
static const char *const sass_names[] = {KP_SASS_CLASSES(SASS_NAME)};
#undef SASS_NAME

/* ---- The view of the kernel a tool gets (m) ------------------------------------------------- */

/* Integral values go in as Lua integers, so tools print "2", not "2.0". */
static void push_num(lua_State *L, double v)
{
	if (v == floor(v) && fabs(v) < 9e15)
		lua_pushinteger(L, (lua_Integer)v);
	else
		lua_pushnumber(L, v);
}

static int declared(const struct kp_luatool *lt, const char *name)
{
	for (size_t i = 0; i < lt->info.nmetrics; i++)
		if (!strcmp(lt->metrics[i].name, name))
			return 1;
	return 0;
}

/* Looks up argument 1 for m.metric/get/has; 0 and *v set when present. */
static int lookup(lua_State *L, double *v)
{
	struct kp_luatool *lt = kp__luatool_self(L);
	const char *name = luaL_checkstring(L, 1);
	if (!declared(lt, name))
		return luaL_error(L, "metric '%s' is not declared in this tool's metrics or optional_metrics", name);
	return kp_tool_metric_get(lt->in, name, v);
}

/* m.metric(name): the value; a missing metric ends the call with a "missing metric" result. */
static int m_metric(lua_State *L)
{
	double v;
	if (lookup(L, &v)) {
		lua_createtable(L, 0, 1);
		lua_pushvalue(L, 1);
		lua_setfield(L, -2, MISSING_KEY);
		return lua_error(L);
	}
	push_num(L, v);
	return 1;
}

/* m.get(name [, default]): the value, or the default (nil) when missing. */
static int m_get(lua_State *L)
{
	double v;
	if (lookup(L, &v))
		lua_settop(L, 2);
	else
		push_num(L, v);
	return 1;
}

static int m_has(lua_State *L)
{
	double v;
	lua_pushboolean(L, lookup(L, &v) == 0);
	return 1;
}

static void set_num(lua_State *L, const char *key, double v)
{
	if (isnan(v))
		return;
	push_num(L, v);
	lua_setfield(L, -2, key);
}

static void set_str(lua_State *L, const char *key, const char *v)
{
	if (!v)
		return;
	lua_pushstring(L, v);
	lua_setfield(L, -2, key);
}

static void push_dim3(lua_State *L, const unsigned d[3])
{
	lua_createtable(L, 0, 3);
	set_num(L, "x", d[0]);
	set_num(L, "y", d[1]);
	set_num(L, "z", d[2]);
}

static void push_launch(lua_State *L, const struct kp_launch *l)
{
	lua_createtable(L, 0, 6);
	set_num(L, "id", l->id);
	set_str(L, "kernel", l->kernel);
	set_str(L, "name", l->function);
	push_dim3(L, l->grid);
	lua_setfield(L, -2, "grid");
	push_dim3(L, l->block);
	lua_setfield(L, -2, "block");
}

static void push_sass(lua_State *L, const struct kp_sass_func *s)
{
	lua_createtable(L, 0, 4);
	set_str(L, "arch", s->arch);
	set_num(L, "ninstr", s->ninstr);
	lua_createtable(L, 0, KP_SASS_NCLASSES);
	for (size_t i = 0; i < KP_SASS_NCLASSES; i++)
		set_num(L, sass_names[i], s->counts[i]);
	lua_setfield(L, -2, "counts");
	lua_createtable(L, 0, (int)(s->nops < 1024 ? s->nops : 1024));
	for (size_t i = 0; i < s->nops; i++)
		if (s->ops[i].opcode)
			set_num(L, s->ops[i].opcode, s->ops[i].count);
	lua_setfield(L, -2, "ops");
}

static void push_ptxas(lua_State *L, const struct kp_ptxas_func *p)
{
	lua_createtable(L, 0, 8);
	set_num(L, "registers", p->registers);
	set_num(L, "barriers", p->barriers);
	set_num(L, "smem_bytes", (double)p->smem_bytes);
	set_num(L, "cmem_bytes", (double)p->cmem_bytes);
	set_num(L, "stack_frame", (double)p->stack_frame);
	set_num(L, "spill_stores", (double)p->spill_stores);
	set_num(L, "spill_loads", (double)p->spill_loads);
}

static void push_trace(lua_State *L, const struct kp_trace *t)
{
	lua_createtable(L, 0, 7);
	set_num(L, "nevents", (double)t->nevents);
	set_num(L, "nkernels", (double)t->nkernels);
	set_num(L, "kernel_ns", (double)t->kernel_ns);
	set_num(L, "span_ns", (double)t->span_ns);
	set_num(L, "gap_ns", (double)t->gap_ns);
	set_num(L, "nsyncs", (double)t->nsyncs);
	set_num(L, "nmemcpys", (double)t->nmemcpys);
}

static void push_stage1(lua_State *L, const struct kp_stage1 *s)
{
	lua_createtable(L, 0, 20);
	set_str(L, "bound", (unsigned)s->bound < KP_ARRAY_SIZE(kp__luatool_class_names) ? kp__luatool_class_names[s->bound] : "unknown");
	set_str(L, "precision", s->precision);
	set_num(L, "time_s", s->time_s);
	set_num(L, "flops", s->flops);
	set_num(L, "flops_fp32", s->flops_fp32);
	set_num(L, "flops_fp64", s->flops_fp64);
	set_num(L, "flops_tensor", s->flops_tensor);
	set_num(L, "dram_bytes", s->dram_bytes);
	set_num(L, "min_bytes", s->min_bytes);
	set_num(L, "ai", s->ai);
	set_num(L, "compute_peak", s->compute_peak);
	set_num(L, "memory_peak", s->memory_peak);
	set_num(L, "achieved_flops", s->achieved_flops);
	set_num(L, "achieved_bw", s->achieved_bw);
	set_num(L, "compute_frac", s->compute_frac);
	set_num(L, "memory_frac", s->memory_frac);
	set_num(L, "floor_time_s", s->floor_time_s);
}

static void push_hw(lua_State *L, const struct kp_hw *hw)
{
	lua_createtable(L, 0, 14);
	set_str(L, "key", hw->spec.key);
	set_str(L, "name", hw->spec.name);
	set_num(L, "sm_count", hw->spec.sm_count);
	set_num(L, "dram_bw", hw->dram_bw);
	set_num(L, "fp32", hw->fp32);
	set_num(L, "fp64", hw->fp64);
	set_num(L, "tf32_tc", hw->tf32_tc);
	set_num(L, "bf16_tc", hw->bf16_tc);
	set_num(L, "l2_bytes", hw->spec.l2_bytes);
	set_num(L, "smem_per_sm", hw->spec.smem_per_sm);
	set_num(L, "regs_per_sm", hw->spec.regs_per_sm);
	set_num(L, "max_threads_per_sm", hw->spec.max_threads_per_sm);
	lua_pushboolean(L, hw->calibrated);
	lua_setfield(L, -2, "calibrated");
}

void kp__luatool_push_m(lua_State *L, const struct kp_tool_input *in)
{
	const struct kp_kernel_profile *p = in->profile;
	lua_createtable(L, 0, 10);
	lua_pushcfunction(L, m_metric);
	lua_setfield(L, -2, "metric");
	lua_pushcfunction(L, m_get);
	lua_setfield(L, -2, "get");
	lua_pushcfunction(L, m_has);
	lua_setfield(L, -2, "has");
	lua_pushboolean(L, in->energy);
	lua_setfield(L, -2, "energy");
#define SUB(cond, push, field)                                                                    \
	if (cond) {                                                                               \
		push;                                                                             \
		lua_setfield(L, -2, field);                                                       \
	}
	SUB(p && p->launch, push_launch(L, p->launch), "launch");
	SUB(p && p->sass, push_sass(L, p->sass), "sass");
	SUB(p && p->ptxas, push_ptxas(L, p->ptxas), "ptxas");
	SUB(p && p->trace, push_trace(L, p->trace), "trace");
	SUB(in->stage1, push_stage1(L, in->stage1), "stage1");
	SUB(in->hw, push_hw(L, in->hw), "hw");
#undef SUB
}

void kp__luatool_push_t(lua_State *L, const struct kp_luatool *lt, const double *t)
{
	lua_createtable(L, 0, (int)lt->info.nthresholds);
	for (size_t i = 0; i < lt->info.nthresholds; i++) {
		push_num(L, t[i]);
		lua_setfield(L, -2, lt->thresholds[i].name);
	}
}
