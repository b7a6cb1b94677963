/*
 * User tools in Lua 5.4. Each file runs in its own state with a memory cap,
 * an instruction limit and a time limit per call (loading included) and no
 * way to reach files, the OS or other code (no io, os, require, load, dofile,
 * loadfile, string.dump). A limit, once hit, ends the call: pcall cannot
 * catch it; what could run long in C is replaced (luatool_lib.c). Every Lua
 * API use that can raise an error runs inside a protected call, so a broken
 * tool reports "file:line: message" with a traceback and never takes the
 * process down.
 */
#include "base/setup.h"

#include <ctype.h>
#include <math.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "kernelpro/fs.h"
#include "kernelpro/log.h"
#include "tools/luatool.h"

#include "tools/luatool_impl.h"

/* ---- The state: allocator, limits, hook ----------------------------------------------------- */

/* Ends the running call: from now on nothing in it runs (see kp__luatool_charge and the hook). */
static void abort_call(struct kp_luatool *lt, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void abort_call(struct kp_luatool *lt, int line, const char *fmt, ...)
{
	va_list ap;
	size_t n;
	if (line > 0)
		snprintf(lt->abort_msg, sizeof(lt->abort_msg), "%s:%d: ", lt->path, line);
	else
		snprintf(lt->abort_msg, sizeof(lt->abort_msg), "%s: ", lt->path);
	n = strlen(lt->abort_msg);
	va_start(ap, fmt);
	vsnprintf(lt->abort_msg + n, sizeof(lt->abort_msg) - n, fmt, ap);
	va_end(ap);
	lt->aborted = 1;
}

static int past_deadline(const struct kp_luatool *lt)
{
	return lt->deadline > 0 && kp_now() > lt->deadline;
}

/*
 * The allocator: the memory cap, and after the deadline no growth at all, so that a library
 * function building a large result in C stops there (the hook cannot run inside C).
 */
static void *lt_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
	struct kp_luatool *lt = ud;
	size_t old = ptr ? osize : 0;
	void *p;
	if (nsize == 0) {
		lt->mem_used -= old;
		free(ptr);
		return NULL;
	}
	if (nsize > old) {
		if (lt->mem_used + (nsize - old) > lt->lim.mem)
			return NULL;
		if (past_deadline(lt)) {
			if (!lt->aborted)
				abort_call(lt, 0, "time limit exceeded (%ld ms) in %s", lt->lim.time_ms,
					   lt->phase);
			return NULL;
		}
	}
	p = realloc(ptr, nsize);
	if (!p)
		return NULL;
	lt->mem_used = lt->mem_used - old + nsize;
	return p;
}

struct kp_luatool *kp__luatool_self(lua_State *L)
{
	return *(struct kp_luatool **)lua_getextraspace(L);
}

/* The line the tool's own code is at, `level` frames up (C functions skipped); 0 when none. */
static int tool_line(lua_State *L, int level)
{
	lua_Debug ar;
	for (; lua_getstack(L, level, &ar); level++)
		if (lua_getinfo(L, "l", &ar) && ar.currentline > 0)
			return ar.currentline;
	return 0;
}

/* Checks the call's limits; on the first one past, aborts the call. Returns whether it is aborted. */
static int check_limits(lua_State *L, struct kp_luatool *lt, int level)
{
	if (lt->aborted)
		return 1;
	if (lt->count > lt->lim.instr)
		abort_call(lt, tool_line(L, level),
			   "instruction limit exceeded (%ld VM instructions and library steps) in %s", lt->lim.instr,
			   lt->phase);
	else if (past_deadline(lt))
		abort_call(lt, tool_line(L, level), "time limit exceeded (%ld ms) in %s", lt->lim.time_ms,
			   lt->phase);
	else
		return 0;
	/* From now on every instruction raises: nothing the tool does can go on. */
	lua_sethook(L, lua_gethook(L), LUA_MASKCOUNT, 1);
	return 1;
}

static int raise_abort(lua_State *L, const struct kp_luatool *lt)
{
	lua_pushstring(L, lt->abort_msg);
	return lua_error(L);
}

void kp__luatool_charge(lua_State *L, long steps)
{
	struct kp_luatool *lt = kp__luatool_self(L);
	lt->count += steps;
	if (check_limits(L, lt, 1))
		raise_abort(L, lt);
}

/*
 * Every HOOK_STEP instructions and at every function call (C functions included, so a loop of
 * expensive library calls is seen between them): the instruction and time limits. Once the call
 * is aborted, only instructions raise (a message handler or library function may still return).
 */
static void hook(lua_State *L, lua_Debug *ar)
{
	struct kp_luatool *lt = kp__luatool_self(L);
	if (ar->event == LUA_HOOKCOUNT) {
		if (lt->aborted)
			raise_abort(L, lt);
		lt->count += HOOK_STEP;
	} else if (lt->aborted) {
		return;
	}
	if (check_limits(L, lt, ar->event == LUA_HOOKCOUNT ? 0 : 1) && ar->event == LUA_HOOKCOUNT)
		raise_abort(L, lt);
}

/* Starts one call: a fresh budget, the deadline, the hook. */
static void call_begin(struct kp_luatool *lt, const char *phase)
{
	lt->phase = phase;
	lt->count = 0;
	lt->aborted = 0;
	lt->abort_msg[0] = '\0';
	lt->deadline = kp_now() + (double)lt->lim.time_ms / 1000.0;
	lua_sethook(lt->L, hook, LUA_MASKCOUNT | LUA_MASKCALL, HOOK_STEP);
}

static void call_end(struct kp_luatool *lt)
{
	lua_sethook(lt->L, NULL, 0, 0);
	lt->deadline = 0;
}

static int panic(lua_State *L)
{
	KP_BUG("unprotected Lua error: %s", lua_tostring(L, -1) ? lua_tostring(L, -1) : "?");
}

/* Message handler: a traceback for errors, the missing-metric marker passed through untouched. */
static int msgh(lua_State *L)
{
	const char *msg;
	if (kp__luatool_self(L)->aborted)
		return 1;
	if (lua_istable(L, 1)) {
		lua_pushliteral(L, MISSING_KEY);
		if (lua_rawget(L, 1) != LUA_TNIL) {
			lua_pop(L, 1);
			return 1;
		}
		lua_pop(L, 1);
	}
	msg = lua_type(L, 1) == LUA_TSTRING ? lua_tostring(L, 1) : NULL;
	if (!msg)
		msg = lua_pushfstring(L, "line %d: error object is a %s value", tool_line(L, 1),
				      luaL_typename(L, 1));
	luaL_traceback(L, L, msg, 1);
	return 1;
}

/* print() goes to the debug log, never to the terminal. */
static int lua_print(lua_State *L)
{
	luaL_Buffer b;
	int n = lua_gettop(L);
	luaL_buffinit(L, &b);
	for (int i = 1; i <= n; i++) {
		if (i > 1)
			luaL_addchar(&b, '\t');
		luaL_tolstring(L, i, NULL);
		luaL_addvalue(&b);
	}
	luaL_pushresult(&b);
	kp_debug("%s: %.*s", kp__luatool_self(L)->path, STR_CAP, lua_tostring(L, -1));
	return 0;
}

/* Protected: opens the allowed libraries and removes what could reach outside the sandbox. */
static int open_sandbox(lua_State *L)
{
	static const luaL_Reg libs[] = {
		{LUA_GNAME, luaopen_base},        {LUA_STRLIBNAME, luaopen_string}, {LUA_TABLIBNAME, luaopen_table},
		{LUA_MATHLIBNAME, luaopen_math},  {LUA_UTF8LIBNAME, luaopen_utf8},  {NULL, NULL},
	};
	static const char *const removed[] = {"dofile", "loadfile", "load", "require", "collectgarbage", NULL};
	for (const luaL_Reg *l = libs; l->func; l++) {
		luaL_requiref(L, l->name, l->func, 1);
		lua_pop(L, 1);
	}
	lua_pushglobaltable(L);
	for (const char *const *r = removed; *r; r++) {
		lua_pushnil(L);
		lua_setfield(L, -2, *r);
	}
	lua_pushcfunction(L, lua_print);
	lua_setfield(L, -2, "print");
	lua_getfield(L, -1, LUA_STRLIBNAME);
	lua_pushnil(L);
	lua_setfield(L, -2, "dump");
	lua_pop(L, 2);
	kp__luatool_bound_libs(L);
	/* Kept alive so that reading the missing-metric marker after an error never allocates. */
	lua_pushliteral(L, MISSING_KEY);
	lua_setfield(L, LUA_REGISTRYINDEX, MISSING_KEY);
	return 0;
}

/* ---- Reading the tool table (inside a protected call) --------------------------------------- */

static char *dup_capped(const char *s, size_t len)
{
	return kp_xstrndup(s, len > STR_CAP ? STR_CAP : len);
}

/* table[key] (raw: no metamethods run from C) pushed; returns its type. */
static int rawfield(lua_State *L, int idx, const char *key)
{
	lua_pushstring(L, key);
	return lua_rawget(L, idx < 0 ? idx - 1 : idx);
}

static char *opt_string(lua_State *L, int idx, const char *key, const char *what, int required)
{
	size_t len;
	const char *s;
	int ty = rawfield(L, idx, key);
	if (ty == LUA_TNIL && !required) {
		lua_pop(L, 1);
		return NULL;
	}
	if (ty != LUA_TSTRING)
		luaL_error(L, "%s: '%s' must be a string", what, key);
	s = lua_tolstring(L, -1, &len);
	if (required && !len)
		luaL_error(L, "%s: '%s' must not be empty", what, key);
	lua_pop(L, 1);
	return dup_capped(s, len);
}

static int valid_ident(const char *s)
{
	size_t n = strlen(s);
	if (!n || n > 40 || !islower((unsigned char)s[0]))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!islower((unsigned char)s[i]) && !isdigit((unsigned char)s[i]) && s[i] != '_')
			return 0;
	return 1;
}

static int valid_metric(const char *s)
{
	size_t n = strlen(s);
	if (!n || n > 200)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_.:", s[i]))
			return 0;
	return 1;
}

/* A list of strings at table[key] (or one string); calls fn for each. Returns the count. */
static size_t each_string(lua_State *L, int idx, const char *key, const char *what, size_t max,
			  void (*fn)(lua_State *L, struct kp_luatool *lt, const char *s, void *ud), void *ud)
{
	struct kp_luatool *lt = kp__luatool_self(L);
	size_t n = 0;
	int ty = rawfield(L, idx, key);
	if (ty == LUA_TNIL) {
		lua_pop(L, 1);
		return 0;
	}
	if (ty == LUA_TSTRING) {
		fn(L, lt, lua_tostring(L, -1), ud);
		lua_pop(L, 1);
		return 1;
	}
	if (ty != LUA_TTABLE)
		luaL_error(L, "%s: '%s' must be a list of strings", what, key);
	for (lua_Integer i = 1;; i++) {
		ty = lua_rawgeti(L, -1, i);
		if (ty == LUA_TNIL) {
			lua_pop(L, 1);
			break;
		}
		if (ty != LUA_TSTRING)
			luaL_error(L, "%s: '%s[%d]' must be a string", what, key, (int)i);
		if (++n > max)
			luaL_error(L, "%s: '%s' has more than %d entries", what, key, (int)max);
		fn(L, lt, lua_tostring(L, -1), ud);
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
	return n;
}

static void add_metric(lua_State *L, struct kp_luatool *lt, const char *s, void *ud)
{
	unsigned flags = *(unsigned *)ud;
	if (!valid_metric(s))
		luaL_error(L, "%s: metric name '%s' is not a valid ncu metric name", lt->path, s);
	for (size_t i = 0; i < lt->info.nmetrics; i++)
		if (!strcmp(lt->metrics[i].name, s))
			return;
	if (lt->info.nmetrics >= MAX_METRICS)
		luaL_error(L, "%s: more than %d metrics", lt->path, MAX_METRICS);
	lt->metrics[lt->info.nmetrics].name = kp_xstrdup(s);
	lt->metrics[lt->info.nmetrics].flags = flags;
	lt->info.nmetrics++;
}

static void add_source(lua_State *L, struct kp_luatool *lt, const char *s, void *ud)
{
	unsigned bit = kp_tool_source_parse(s);
	if (!bit)
		luaL_error(L, "%s: unknown source '%s' (one of ncu, sass, ptxas, trace)", lt->path, s);
	*(unsigned *)ud |= bit;
}

static void add_class(lua_State *L, struct kp_luatool *lt, const char *s, void *ud)
{
	if (!strcmp(s, "all")) {
		*(unsigned *)ud |= KP_CLASS_ALL;
		return;
	}
	for (size_t i = 0; i < KP_ARRAY_SIZE(kp__luatool_class_names); i++)
		if (!strcmp(s, kp__luatool_class_names[i])) {
			*(unsigned *)ud |= KP_CLASS_BIT(i);
			return;
		}
	luaL_error(L, "%s: unknown class '%s' (compute, memory, latency, mixed, unknown or all)", lt->path, s);
}

static int cmp_threshold(const void *a, const void *b)
{
	return strcmp(((const struct kp_threshold *)a)->name, ((const struct kp_threshold *)b)->name);
}

static void read_thresholds(lua_State *L, struct kp_luatool *lt)
{
	size_t n = 0;
	if (rawfield(L, -1, "thresholds") == LUA_TNIL) {
		lua_pop(L, 1);
		goto done;
	}
	if (!lua_istable(L, -1))
		luaL_error(L, "%s: 'thresholds' must be a table of name = number or name = {default = number, ...}", lt->path);
	lua_pushnil(L);
	while (lua_next(L, -2)) {
		struct kp_threshold *th;
		const char *name;
		if (lua_type(L, -2) != LUA_TSTRING || !valid_ident(lua_tostring(L, -2)))
			luaL_error(L, "%s: threshold names must be lowercase identifiers", lt->path);
		if (n >= MAX_THRESHOLDS)
			luaL_error(L, "%s: more than %d thresholds", lt->path, MAX_THRESHOLDS);
		name = lua_tostring(L, -2);
		th = &lt->thresholds[n];
		th->name = kp_xstrdup(name);
		n++;
		lt->info.nthresholds = n;
		if (lua_type(L, -1) == LUA_TNUMBER) {
			th->def = lua_tonumber(L, -1);
		} else if (lua_istable(L, -1)) {
			if (rawfield(L, -1, "default") != LUA_TNUMBER)
				luaL_error(L, "%s: threshold '%s' needs a numeric 'default'", lt->path, name);
			th->def = lua_tonumber(L, -1);
			lua_pop(L, 1);
			th->unit = opt_string(L, -1, "unit", lt->path, 0);
			th->doc = opt_string(L, -1, "doc", lt->path, 0);
		} else {
			luaL_error(L, "%s: threshold '%s' must be a number or {default = number, unit = ..., doc = ...}",
				   lt->path, name);
		}
		if (!isfinite(th->def))
			luaL_error(L, "%s: threshold '%s' must be finite", lt->path, name);
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
	qsort(lt->thresholds, n, sizeof(*lt->thresholds), cmp_threshold);
done:
	lt->info.thresholds = lt->thresholds;
}

static int function_ref(lua_State *L, struct kp_luatool *lt, const char *key)
{
	if (rawfield(L, -1, key) != LUA_TFUNCTION)
		luaL_error(L, "%s: '%s' must be a function(m, t)", lt->path, key);
	return luaL_ref(L, LUA_REGISTRYINDEX);
}

/* Protected: runs the chunk (function at index 1) and reads the tool table it returns. */
static int load_protected(lua_State *L)
{
	struct kp_luatool *lt = kp__luatool_self(L);
	unsigned req = 0, opt = KP_TM_OPTIONAL;

	lua_pushcfunction(L, msgh);
	lua_insert(L, 1);
	if (lua_pcall(L, 0, 1, 1) != LUA_OK)
		return lua_error(L);
	if (!lua_istable(L, -1))
		luaL_error(L, "%s: the file must return a table {name = ..., description = ..., metrics = {...}, "
			      "thresholds = {...}, trigger = function(m, t), analyze = function(m, t)}",
			   lt->path);
	lt->name = opt_string(L, -1, "name", lt->path, 1);
	if (!valid_ident(lt->name))
		luaL_error(L, "%s: name '%s' must be a lowercase identifier ([a-z][a-z0-9_]*, at most 40 characters)",
			   lt->path, lt->name);
	lt->description = opt_string(L, -1, "description", lt->path, 1);
	lt->details = opt_string(L, -1, "details", lt->path, 0);
	lt->info.name = lt->name;
	lt->info.description = lt->description;
	lt->info.details = lt->details ? lt->details : lt->description;
	lt->info.origin = lt->path;
	if (!each_string(L, -1, "source", lt->path, 4, add_source, &lt->info.sources))
		lt->info.sources = KP_SRC_NCU;
	each_string(L, -1, "needs", lt->path, 4, add_source, &lt->info.needs);
	each_string(L, -1, "classes", lt->path, 6, add_class, &lt->info.classes);
	each_string(L, -1, "metrics", lt->path, MAX_METRICS, add_metric, &req);
	each_string(L, -1, "optional_metrics", lt->path, MAX_METRICS, add_metric, &opt);
	lt->info.metrics = lt->metrics;
	read_thresholds(L, lt);
	lt->ref_trigger = function_ref(L, lt, "trigger");
	lt->ref_analyze = function_ref(L, lt, "analyze");
	return 0;
}

/* Why a protected call failed: the limit that ended it, the memory cap, or the tool's error. */
static void failure_text(struct kp_luatool *lt, int status, struct kp_buf *msg)
{
	const char *e = lua_type(lt->L, -1) == LUA_TSTRING ? lua_tostring(lt->L, -1) : NULL;
	if (lt->aborted)
		kp_buf_adds(msg, lt->abort_msg);
	else if (status == LUA_ERRMEM)
		kp_buf_addf(msg, "%s: memory limit (%zu bytes) exceeded in %s", lt->path, lt->lim.mem, lt->phase);
	else if (e && !strncmp(e, lt->path, strlen(lt->path)))
		kp_buf_addf(msg, "%.*s", 4 * STR_CAP, e);
	else /* error("x", 0), an error object that is no string, a path Lua shortened: name the file */
		kp_buf_addf(msg, "%s: %.*s", lt->path, 4 * STR_CAP, e ? e : "unknown Lua error");
}

int kp_luatool_load_mem(struct kp_luatool **out, const char *path, const char *text, size_t len,
			const struct kp_luatool_limits *lim, struct kp_error *err)
{
	struct kp_luatool *lt = kp_xcalloc(1, sizeof(*lt));
	struct kp_buf chunk = KP_BUF_INIT;
	int rc, status;

	*out = NULL;
	lt->path = kp_xstrdup(path);
	lt->lim.instr = lim && lim->instr > 0 ? lim->instr : KP_LUA_INSTR_LIMIT;
	lt->lim.mem = lim && lim->mem > 0 ? lim->mem : KP_LUA_MEM_LIMIT;
	lt->lim.time_ms = lim && lim->time_ms > 0 ? lim->time_ms : KP_LUA_TIME_LIMIT_MS;
	lt->ref_trigger = lt->ref_analyze = LUA_NOREF;
	lt->metrics = kp_xcalloc(MAX_METRICS + 1, sizeof(*lt->metrics));
	lt->thresholds = kp_xcalloc(MAX_THRESHOLDS + 1, sizeof(*lt->thresholds));
	lt->phase = "loading";
	lt->L = lua_newstate(lt_alloc, lt);
	if (!lt->L) {
		rc = kp_error_set(err, KP_ENOMEM, "%s: cannot create a Lua state", path);
		goto fail;
	}
	*(struct kp_luatool **)lua_getextraspace(lt->L) = lt;
	lua_atpanic(lt->L, panic);
	kp_buf_addf(&chunk, "@%s", path);
	call_begin(lt, "loading");
	/* Libraries first (allocation can fail: protected), then the text-only chunk, then the table. */
	lua_pushcfunction(lt->L, open_sandbox);
	status = lua_pcall(lt->L, 0, 0, 0);
	if (status == LUA_OK)
		status = luaL_loadbufferx(lt->L, text, len, chunk.buf, "t");
	if (status == LUA_OK) {
		lua_pushcfunction(lt->L, load_protected);
		lua_insert(lt->L, -2);
		status = lua_pcall(lt->L, 1, 0, 0);
	}
	call_end(lt);
	if (status != LUA_OK) {
		struct kp_buf msg = KP_BUF_INIT;
		failure_text(lt, status, &msg);
		rc = kp_error_set(err, KP_ELUA, "%s", msg.buf);
		kp_buf_release(&msg);
		goto fail;
	}
	lua_settop(lt->L, 0);
	kp_buf_release(&chunk);
	*out = lt;
	return 0;
fail:
	kp_buf_release(&chunk);
	kp_luatool_free(lt);
	return rc;
}

int kp_luatool_load(struct kp_luatool **out, const char *path, const struct kp_luatool_limits *lim,
		    struct kp_error *err)
{
	struct kp_buf src = KP_BUF_INIT;
	int rc;
	*out = NULL;
	if ((rc = kp_read_file(path, SOURCE_CAP, &src, err)) == 0)
		rc = kp_luatool_load_mem(out, path, src.buf, src.len, lim, err);
	kp_buf_release(&src);
	return rc;
}

void kp_luatool_free(struct kp_luatool *lt)
{
	if (!lt)
		return;
	if (lt->L)
		lua_close(lt->L);
	for (size_t i = 0; i < lt->info.nmetrics; i++)
		free((char *)lt->metrics[i].name);
	for (size_t i = 0; i < lt->info.nthresholds; i++) {
		free((char *)lt->thresholds[i].name);
		free((char *)lt->thresholds[i].unit);
		free((char *)lt->thresholds[i].doc);
	}
	free(lt->metrics);
	free(lt->thresholds);
	free(lt->name);
	free(lt->description);
	free(lt->details);
	free(lt->path);
	free(lt);
}

const struct kp_tool_info *kp_luatool_info(const struct kp_luatool *lt)
{
	return &lt->info;
}

/* ---- Findings from analyze's result --------------------------------------------------------- */

static void to_rec(lua_State *L, struct kp_luatool *lt, const char *s, void *ud)
{
	kp_finding_rec(ud, "%.*s", STR_CAP, s);
}

static void to_explainer(lua_State *L, struct kp_luatool *lt, const char *s, void *ud)
{
	kp_finding_explained_by(ud, s);
}

static double opt_number(lua_State *L, int idx, const char *key, const char *what)
{
	int ty = rawfield(L, idx, key);
	double v = NAN;
	if (ty == LUA_TNUMBER)
		v = lua_tonumber(L, -1);
	else if (ty != LUA_TNIL)
		luaL_error(L, "%s: '%s' must be a number", what, key);
	lua_pop(L, 1);
	return v;
}

static void read_evidence(lua_State *L, struct kp_finding *f, const char *what)
{
	if (rawfield(L, -1, "evidence") == LUA_TNIL) {
		lua_pop(L, 1);
		return;
	}
	if (!lua_istable(L, -1))
		luaL_error(L, "%s: 'evidence' must be a list of {metric = ..., value = ..., threshold = ...}", what);
	for (lua_Integer i = 1; lua_rawgeti(L, -1, i) != LUA_TNIL; i++) {
		char *metric, *unit;
		double v, th;
		if (i > MAX_EVIDENCE)
			luaL_error(L, "%s: more than %d evidence entries", what, MAX_EVIDENCE);
		if (!lua_istable(L, -1))
			luaL_error(L, "%s: evidence[%d] must be a table", what, (int)i);
		v = opt_number(L, -1, "value", what);
		if (isnan(v))
			luaL_error(L, "%s: evidence[%d].value must be a number", what, (int)i);
		th = opt_number(L, -1, "threshold", what);
		metric = opt_string(L, -1, "metric", what, 1);
		unit = opt_string(L, -1, "unit", what, 0);
		kp_finding_evidence(f, metric, v, th, unit);
		free(metric);
		free(unit);
		lua_pop(L, 1);
	}
	lua_pop(L, 2);
}

/* Converts the finding table on top of the stack into one finding in lt->out. */
static void read_finding(lua_State *L, struct kp_luatool *lt, int index)
{
	char what[64];
	struct kp_finding *f;
	char *title, *sev, *s;
	double gain;

	snprintf(what, sizeof(what), "finding %d", index);
	lua_pushfstring(L, "%s: analyze returned %s", lt->path, what);
	lua_insert(L, -2);
	{
		const char *w = lua_tostring(L, -2);
		if (!lua_istable(L, -1))
			luaL_error(L, "%s: a finding must be a table", w);
		title = opt_string(L, -1, "title", w, 1);
		sev = opt_string(L, -1, "severity", w, 0);
		f = kp_finding_new(lt->out, KP_SEV_NONE, "%s", title);
		free(title);
		if (sev && kp_finding_severity_parse(sev, &f->severity)) {
			free(sev);
			luaL_error(L, "%s: 'severity' must be low, medium, high or critical", w);
		}
		free(sev);
		if ((s = opt_string(L, -1, "cause", w, 0)))
			kp_finding_cause(f, "%s", s);
		free(s);
		read_evidence(L, f, w);
		each_string(L, -1, "recommendations", w, MAX_RECS, to_rec, f);
		each_string(L, -1, "explained_by", w, 32, to_explainer, f);
		gain = opt_number(L, -1, "gain", w);
		if (!isnan(gain) && (gain < 0 || gain > 1))
			luaL_error(L, "%s: 'gain' must be between 0 and 1 (a fraction of the kernel's time)", w);
		s = opt_string(L, -1, "gain_basis", w, 0);
		if (s)
			kp_finding_gain(f, gain, "%s", s);
		else
			kp_finding_gain(f, gain, NULL);
		free(s);
	}
	lua_pop(L, 2);
}

/* Protected: m and t built, trigger called, analyze called, its result converted. */
static int run_protected(lua_State *L)
{
	struct kp_luatool *lt = kp__luatool_self(L);
	int st;

	lua_settop(L, 0);
	lua_pushcfunction(L, msgh);         /* 1 */
	kp__luatool_push_m(L, lt->in);                  /* 2 */
	kp__luatool_push_t(L, lt, lt->t);               /* 3 */
	lt->phase = "trigger";
	lua_rawgeti(L, LUA_REGISTRYINDEX, lt->ref_trigger);
	lua_pushvalue(L, 2);
	lua_pushvalue(L, 3);
	if ((st = lua_pcall(L, 2, 1, 1)) != LUA_OK)
		return lua_error(L);
	if (!lua_toboolean(L, -1))
		return 0;
	lua_pop(L, 1);
	lt->phase = "analyze";
	lua_rawgeti(L, LUA_REGISTRYINDEX, lt->ref_analyze);
	lua_pushvalue(L, 2);
	lua_pushvalue(L, 3);
	if ((st = lua_pcall(L, 2, 1, 1)) != LUA_OK)
		return lua_error(L);
	if (lua_isnil(L, -1) || (lua_isboolean(L, -1) && !lua_toboolean(L, -1)))
		return 0;
	if (!lua_istable(L, -1))
		return luaL_error(L, "%s: analyze must return a finding, a list of findings, or nil", lt->path);
	if (rawfield(L, -1, "title") != LUA_TNIL) {
		lua_pop(L, 1);
		read_finding(L, lt, 1);
		return 0;
	}
	lua_pop(L, 1);
	for (lua_Integer i = 1; lua_rawgeti(L, -1, i) != LUA_TNIL; i++) {
		if (i > MAX_FINDINGS)
			return luaL_error(L, "%s: analyze returned more than %d findings", lt->path, MAX_FINDINGS);
		read_finding(L, lt, (int)i);
	}
	return 0;
}

/* After a failed call: 1 with the metric name pushed when the error is the missing-metric marker. */
static int missing_name(lua_State *L)
{
	if (!lua_istable(L, -1))
		return 0;
	lua_pushliteral(L, MISSING_KEY); /* interned at load: no allocation */
	if (lua_rawget(L, -2) == LUA_TSTRING)
		return 1;
	lua_pop(L, 1);
	return 0;
}

enum kp_tool_status kp_luatool_run(struct kp_luatool *lt, const struct kp_tool_input *in, const double *t,
				   struct kp_findings *out, struct kp_buf *msg)
{
	lua_State *L = lt->L;
	enum kp_tool_status result = KP_TOOL_SILENT;
	int status;

	lt->in = in;
	lt->t = t;
	lt->out = out;
	lua_settop(L, 0);
	call_begin(lt, "trigger");
	lua_pushcfunction(L, run_protected);
	status = lua_pcall(L, 0, 0, 0);
	call_end(lt);
	if (status == LUA_OK) {
		result = out->n ? KP_TOOL_FIRED : KP_TOOL_SILENT;
	} else if (status == LUA_ERRRUN && !lt->aborted && missing_name(L)) {
		kp_buf_addf(msg, "missing metric '%s'", lua_tostring(L, -1));
		result = KP_TOOL_MISSING;
	} else {
		failure_text(lt, status, msg);
		result = KP_TOOL_FAILED;
	}
	lua_settop(L, 0);
	lua_gc(L, LUA_GCCOLLECT);
	lt->in = NULL;
	lt->t = NULL;
	lt->out = NULL;
	return result;
}
