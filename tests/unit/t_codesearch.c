/*
 * lib/codesearch: the symbol extractor against golden outputs, descriptions, the CUTLASS lookup on a
 * fixture checkout (tests/golden/codesearch/tree), build flags and the cache key they make (the
 * fast path in Python must compute the same), the index and its ranking, the finding -> query map,
 * prompt text within its budget, snippet references, and search memory of snippets that helped.
 */
#include "base/setup.h"

#include <dirent.h>
#include <math.h>

#include "eval/build.h"
#include "kernelpro/codesearch.h"
#include "kernelpro/fs.h"
#include "kernelpro/search.h"
#include "kernelpro/str.h"
#include "kp_test.h"

#define TREE    "tests/golden/codesearch/tree"
#define EXTRACT "tests/golden/codesearch/extract"

/* ---- extractor -------------------------------------------------------------------------------------------
 */

static void dump_symbols(const char *text, size_t len, struct kp_buf *out)
{
	struct kp_cs_symbols s = {0};
	char desc[256];
	kp_cs_describe(text, len, desc, sizeof(desc));
	kp_buf_addf(out, "description: %s\n", desc);
	kp_cs_extract(text, len, 0, &s);
	for (size_t i = 0; i < s.n; i++) {
		const struct kp_cs_symbol *y = &s.v[i];
		kp_buf_addf(out, "%d-%d doc %d %s %s%s%s%s%s%s\n", y->line, y->end_line, y->doc_line,
		            kp_cs_kind_name(y->kind), y->scope, y->scope[0] ? "::" : "", y->name,
		            y->args[0] ? "<" : "", y->args, y->args[0] ? ">" : "");
		if (y->is_template)
			kp_buf_setlen(out, out->len - 1), kp_buf_adds(out, " (template)\n");
	}
	kp_cs_symbols_release(&s);
}

static void test_extract_golden(void **state)
{
	DIR *d = opendir(kp_test_path(EXTRACT));
	struct dirent *de;
	int n = 0;
	assert_non_null(d);
	while ((de = readdir(d))) {
		struct kp_buf in = KP_BUF_INIT, out = KP_BUF_INIT;
		char rel[512], golden[512];
		if (!kp_ends_with(de->d_name, ".hpp"))
			continue;
		snprintf(rel, sizeof(rel), "%s/%s", EXTRACT, de->d_name);
		snprintf(golden, sizeof(golden), "%s/%.*s.expected", EXTRACT, (int)strlen(de->d_name) - 4,
		         de->d_name);
		kp_test_read(rel, &in);
		dump_symbols(in.buf, in.len, &out);
		kp_test_golden(golden, out.buf);
		kp_buf_release(&in);
		kp_buf_release(&out);
		n++;
	}
	closedir(d);
	assert_true(n >= 2);
}

static void test_extract_limits(void **state)
{
	struct kp_cs_symbols s = {0};
	const char *src = "namespace n { struct A {}; struct B {}; struct C {}; }";
	kp_cs_extract(src, strlen(src), 2, &s);
	assert_int_equal(s.n, 2);
	kp_cs_symbols_release(&s);
	/* Nothing at all, an unclosed comment, stray closing braces: no symbol, no crash. */
	kp_cs_extract("", 0, 0, &s);
	kp_cs_extract("/* never closed", 15, 0, &s);
	kp_cs_extract("}}} ;; ) ] struct", 17, 0, &s);
	assert_int_equal(s.n, 0);
	kp_cs_symbols_release(&s);
}

static void test_describe(void **state)
{
	char out[64];
	const char *lic =
	    "/* Copyright (c) someone */\n// Line one of the real text\n// and line two. Not this.\nint x;";
	kp_cs_describe(lic, strlen(lic), out, sizeof(out));
	assert_string_equal(out, "Line one of the real text and line two.");
	kp_cs_describe("#include <x>\nint y; // too late\n", 33, out, sizeof(out));
	assert_string_equal(out, "");
	/* Cut at a word boundary to fit the buffer, with an ellipsis. */
	{
		const char *lng = "/*! \\brief aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj kkkk llll "
		                  "mmmm nnnn oooo */";
		kp_cs_describe(lng, strlen(lng), out, sizeof(out));
		assert_true(strlen(out) < sizeof(out));
		assert_true(kp_ends_with(out, "..."));
		assert_true(kp_starts_with(out, "aaaa bbbb"));
	}
}

/* ---- CUTLASS lookup and builds ---------------------------------------------------------------------- */

static void test_cutlass_find(void **state)
{
	struct kp_cutlass c;
	struct kp_error err = KP_ERROR_INIT;
	char version[32];

	setenv("CUTLASS_PATH", kp_test_path(TREE), 1);
	KP_ASSERT_OK(kp_cutlass_find(&c, KP_CUTLASS_NO_PYTHON, &err), &err);
	assert_string_equal(c.version, "9.8.7");
	assert_int_equal(c.source, KP_CUTLASS_ENV);
	assert_true(kp_ends_with(c.include, "/tree/include"));
	assert_null(c.util_include);
	assert_non_null(c.examples);
	kp_cutlass_release(&c);

	setenv("CUTLASS_PATH", kp_test_path(EXTRACT), 1);
	assert_int_equal(kp_cutlass_find(&c, KP_CUTLASS_NO_PYTHON, &err), KP_EINVAL);
	assert_non_null(strstr(kp_error_msg(&err), "holds no include/cutlass/cutlass.h"));
	unsetenv("CUTLASS_PATH");

	assert_int_equal(kp_cutlass_parse_version("#define CUTLASS_MAJOR 4\n#define CUTLASS_MINOR 2\n", 44,
	                                          version, sizeof(version), NULL),
	                 KP_EPARSE);
	KP_ASSERT_OK(kp_cutlass_parse_version(
	                 "#define CUTLASS_MAJOR 4\n#define  CUTLASS_MINOR\t2\n#define CUTLASS_PATCH 10\n", 73,
	                 version, sizeof(version), &err),
	             &err);
	assert_string_equal(version, "4.2.10");
}

static void test_build_flags(void **state)
{
	struct kp_cutlass c = {
	    .include = "/c/include", .util_include = "/c/tools/util/include", .version = "4.2.0"};
	struct kp_strvec flags = KP_STRVEC_INIT;
	struct kp_buf key = KP_BUF_INIT;
	const char *cute = "#include \"kp_native.h\"\n  #  include <cute/tensor.hpp>\n"
	                   "using Op = SM90_64x128x16_F32BF16BF16_SS<GMMA::Major::K, GMMA::Major::K>;\n";
	const char *plain =
	    "// #include <cute/tensor.hpp> in a comment is not an include\n__global__ void k() {}\n";
	const char *ptx = "asm volatile(\"wgmma.fence.sync.aligned;\");\n";
	const char *arch = "sm_90";

	assert_true(kp_cutlass_source_uses(cute, strlen(cute)));
	assert_false(kp_cutlass_source_uses(plain, strlen(plain)));
	assert_true(kp_cutlass_source_needs_arch_a(ptx, strlen(ptx)));
	assert_false(kp_cutlass_source_needs_arch_a(plain, strlen(plain)));

	/* A plain source: nothing added, the arch left alone. */
	kp_cutlass_build_flags(&c, plain, strlen(plain), &flags, &arch, &key);
	assert_int_equal(flags.n, 0);
	assert_string_equal(arch, "sm_90");
	assert_int_equal(key.len, 0);
	/* Raw WGMMA PTX without CUTLASS: sm_90a only. */
	kp_cutlass_build_flags(NULL, ptx, strlen(ptx), &flags, &arch, &key);
	assert_string_equal(arch, "sm_90a");
	assert_int_equal(flags.n, 0);
	/* A CuTe source: C++17, relaxed constexpr, both include directories, the version in the key. */
	arch = "sm_90";
	kp_cutlass_build_flags(&c, cute, strlen(cute), &flags, &arch, &key);
	assert_string_equal(arch, "sm_90a");
	assert_int_equal(flags.n, 4);
	assert_string_equal(flags.v[0], "-std=c++17");
	assert_string_equal(flags.v[1], "--expt-relaxed-constexpr");
	assert_string_equal(flags.v[2], "-I/c/include");
	assert_string_equal(flags.v[3], "-I/c/tools/util/include");
	assert_string_equal(key.buf, "cutlass 4.2.0\n");
	/* Another arch is never changed. */
	arch = "sm_80";
	kp_cutlass_build_flags(&c, cute, strlen(cute), &flags, &arch, NULL);
	assert_string_equal(arch, "sm_80");
	kp_strvec_release(&flags);
	kp_buf_release(&key);
}

/* The key the native path builds a CuTe source under; tests/python/test_cutlass_build.py expects the same. */
static void test_build_key_matches_python(void **state)
{
	const char *src = "#include <cute/tensor.hpp>\n";
	const char *flags[] = {"-O3", "-lineinfo", "-std=c++17", "--expt-relaxed-constexpr", "-I/c/include"};
	const char *extras[] = {"cutlass 4.2.0\n"};
	char hex[65];
	KP_ASSERT_OK(kp_build_key(src, strlen(src), flags, 5, "V13.0.88", "sm_90a", extras, 1, hex), NULL);
	assert_string_equal(hex, "cad9c7ad52ec23b42b6386fbb8af2c719fcb2b344f5b262000f74ee193a957b5");
}

/* ---- index and queries ------------------------------------------------------------------------------- */

struct ix_fx {
	char *dir;
	char db[600];
	struct kp_cs_index *ix;
	struct kp_cs_stats st;
};

static int ix_setup(void **state)
{
	struct ix_fx *f = kp_xcalloc(1, sizeof(*f));
	struct kp_cutlass c;
	struct kp_error err = KP_ERROR_INIT;
	f->dir = kp_test_tmpdir();
	snprintf(f->db, sizeof(f->db), "%s/sub/ix.db", f->dir);
	setenv("CUTLASS_PATH", kp_test_path(TREE), 1);
	KP_ASSERT_OK(kp_cutlass_find(&c, KP_CUTLASS_NO_PYTHON, &err), &err);
	unsetenv("CUTLASS_PATH");
	KP_ASSERT_OK(kp_cs_index_build(&c, f->db, &f->st, &err), &err);
	kp_cutlass_release(&c);
	KP_ASSERT_OK(kp_cs_index_open(&f->ix, f->db, &err), &err);
	*state = f;
	return 0;
}

static int ix_teardown(void **state)
{
	struct ix_fx *f = *state;
	kp_cs_index_close(f->ix);
	kp_test_tmpdir_remove(f->dir);
	free(f);
	return 0;
}

static void test_index_counts(void **state)
{
	struct ix_fx *f = *state;
	struct kp_cs_stats st;
	/* 5 headers, 2 example programs; symbols: 3 in mma_fake_sm90 (+ enum), 2 in copy, 2 in swizzle, 2 in
	 * examples */
	assert_int_equal(f->st.files, 5);
	assert_int_equal(f->st.examples, 2);
	assert_int_equal(f->st.symbols, 11);
	kp_cs_index_stats(f->ix, &st);
	assert_int_equal(st.symbols, 11);
	assert_string_equal(kp_cs_index_version(f->ix), "9.8.7");
	assert_true(kp_ends_with(kp_cs_index_root(f->ix), "/tree"));
}

static const struct kp_cs_hit *search1(struct ix_fx *f, const char *q, struct kp_cs_hits *h)
{
	struct kp_error err = KP_ERROR_INIT;
	kp_cs_hits_release(h);
	KP_ASSERT_OK(kp_cs_search(f->ix, q, 5, h, &err), &err);
	assert_true(h->n > 0);
	return &h->v[0];
}

static void test_ranking(void **state)
{
	struct ix_fx *f = *state;
	struct kp_cs_hits h = {0};
	const struct kp_cs_hit *x;
	struct kp_error err = KP_ERROR_INIT;

	/* A symbol named exactly comes first, with its path, line and doc comment. */
	x = search1(f, "make_tma_atom", &h);
	assert_string_equal(x->name, "cute::make_tma_atom");
	assert_int_equal(x->kind, KP_CS_FUNCTION);
	assert_string_equal(x->path, "include/cute/atom/copy_fake_sm90_tma.hpp");
	assert_string_equal(x->summary,
	                    "Builds a TMA copy atom for a global tensor and a shared-memory layout.");
	assert_non_null(strstr(x->snippet, "make_tma_atom(CopyOp const& op"));
	/* Words: split identifiers, every word before some; wgmma finds CuTe's GMMA. */
	x = search1(f, "tma load", &h);
	assert_string_equal(x->name, "cute::SM90_TMA_LOAD");
	x = search1(f, "wgmma 64x128x16 bf16", &h);
	assert_string_equal(x->name, "cute::SM90::GMMA::MMA_64x128x16_F32BF16BF16_SS");
	x = search1(f, "swizzle bank conflicts", &h);
	assert_true(!strcmp(x->name, "include/cute/swizzle_fake.hpp") || !strcmp(x->name, "cute::Swizzle"));
	/* Example programs, with their description or one made from the path. */
	x = search1(f, "warp specialized hopper gemm example", &h);
	assert_int_equal(x->kind, KP_CS_EXAMPLE);
	assert_string_equal(x->summary,
	                    "Fixture example: a warp-specialized Hopper GEMM with TMA loads and GMMA.");
	x = search1(f, "tiled copy fake", &h);
	assert_string_equal(x->path, "examples/cute/tutorial/tiled_copy_fake.cu");
	for (size_t i = 0; i < h.n; i++)
		if (h.v[i].kind == KP_CS_EXAMPLE)
			assert_string_equal(h.v[i].summary, "example cute tutorial: tiled copy fake");
	/* Scores fall; a query of FTS5 syntax characters is only words; no word at all is an error. */
	for (size_t i = 1; i < h.n; i++)
		assert_true(h.v[i - 1].score >= h.v[i].score);
	kp_cs_hits_release(&h);
	KP_ASSERT_OK(kp_cs_search(f->ix, "\"swizzle\" OR ( NEAR(", 5, &h, &err), &err);
	assert_true(h.n > 0);
	kp_cs_hits_release(&h);
	assert_int_equal(kp_cs_search(f->ix, "the of and", 5, &h, &err), KP_EINVAL);
	assert_int_equal(kp_cs_search(f->ix, "zzzqqq", 5, &h, NULL), 0);
	assert_int_equal(h.n, 0);
	kp_cs_hits_release(&h);
}

static void test_open_errors(void **state)
{
	struct kp_cs_index *ix = NULL;
	struct kp_error err = KP_ERROR_INIT;
	char *dir = kp_test_tmpdir();
	char path[600];
	assert_int_equal(kp_cs_index_open(&ix, "/no/such/index.db", &err), KP_ENOENT);
	assert_non_null(strstr(kp_error_msg(&err), "kernelpro codesearch index"));
	snprintf(path, sizeof(path), "%s/empty.db", dir);
	KP_ASSERT_OK(kp_write_file_atomic(path, "", 0, &err), &err);
	kp_error_clear(&err);
	assert_int_not_equal(kp_cs_index_open(&ix, path, &err), 0);
	assert_null(ix);
	kp_test_tmpdir_remove(dir);
}

/* ---- the loop's side --------------------------------------------------------------------------------------
 */

static void test_query_map(void **state)
{
	/* The registry's tool ids (docs/internals/design.md): every one with a CUTLASS technique has queries; sol_gap names none. */
	static const char *const tools[] = {
	    "coalescing",     "vector_width",    "cache_reuse",  "occupancy",      "warp_stalls",
	    "bank_conflicts", "tensor_cores",    "pipe_balance", "divergence",     "grid_waves",
	    "local_memory",   "instruction_mix", "atomics",      "launch_overhead"};
	const char *const *m = kp_cs_mapped_tools();
	size_t n = 0;
	for (size_t i = 0; i < KP_ARRAY_SIZE(tools); i++) {
		const char *const *q = kp_cs_queries_for_tool(tools[i]);
		assert_non_null(q);
		assert_non_null(q[0]);
	}
	for (; m[n]; n++)
		assert_non_null(kp_cs_queries_for_tool(m[n]));
	assert_int_equal(n, KP_ARRAY_SIZE(tools));
	assert_null(kp_cs_queries_for_tool("sol_gap"));
	assert_null(kp_cs_queries_for_tool("no_such_tool"));
	assert_null(kp_cs_queries_for_tool(NULL));
	/* The examples. */
	assert_non_null(strstr(kp_cs_queries_for_tool("tensor_cores")[0], "SM90"));
	assert_non_null(strstr(kp_cs_queries_for_tool("tensor_cores")[2], "WarpSpecialized"));
	assert_non_null(strstr(kp_cs_queries_for_tool("bank_conflicts")[0], "SW128"));
	assert_non_null(strstr(kp_cs_queries_for_tool("cache_reuse")[0], "CP_ASYNC"));
	assert_non_null(strstr(kp_cs_queries_for_tool("cache_reuse")[1], "TMA"));
}

static const char findings[] = "[{\"tool\": \"sol_gap\", \"severity\": \"high\"},"
                               " {\"tool\": \"tensor_cores\", \"title\": \"matrix FLOPs on FFMA\"},"
                               " {\"tool\": \"bank_conflicts\"}, {\"tool\": \"tensor_cores\"}]";

static void test_for_findings_budget(void **state)
{
	struct ix_fx *f = *state;
	struct kp_error err = KP_ERROR_INIT;
	int last = -1;

	for (int tokens = 10; tokens <= 3000; tokens = tokens * 2 + 7) {
		struct kp_buf text = KP_BUF_INIT;
		struct kp_strvec refs = KP_STRVEC_INIT;
		int n = kp_cs_for_findings(f->ix, findings, tokens, &text, &refs, &err);
		assert_true(n >= 0);
		assert_int_equal((size_t)n, refs.n);
		assert_true(text.len <= (size_t)tokens * KP_CS_CHARS_PER_TOKEN);
		assert_true(n >= last); /* a bigger budget never shows fewer snippets */
		last = n;
		if (n) {
			assert_non_null(strstr(text.buf, "(tensor_cores, bank_conflicts)"));
			assert_non_null(strstr(text.buf, "CUTLASS 9.8.7"));
			assert_non_null(strstr(text.buf, "```cpp\n"));
		} else {
			assert_int_equal(text.len, 0);
		}
		if (tokens > 1000) {
			/* Both findings are answered, the first with the GMMA atom. */
			assert_non_null(strstr(text.buf, "### include/cute/arch/mma_fake_sm90.hpp:"));
			assert_non_null(strstr(text.buf, "Swizzle"));
		}
		kp_buf_release(&text);
		kp_strvec_release(&refs);
	}
	assert_true(last >= 2);
	/* Findings no query maps, or no findings: nothing. */
	{
		struct kp_buf text = KP_BUF_INIT;
		assert_int_equal(kp_cs_for_findings(f->ix, "[{\"tool\": \"sol_gap\"}]", 0, &text, NULL, &err),
		                 0);
		assert_int_equal(kp_cs_for_findings(f->ix, NULL, 0, &text, NULL, &err), 0);
		assert_int_equal(kp_cs_for_findings(f->ix, "not json", 0, &text, NULL, &err), 0);
		assert_int_equal(text.len, 0);
		kp_buf_release(&text);
	}
}

static void test_answer_and_format(void **state)
{
	struct ix_fx *f = *state;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf text = KP_BUF_INIT;
	struct kp_strvec refs = KP_STRVEC_INIT;
	struct kp_cs_hits h = {0};
	struct kp_cs_hit one = {0};

	assert_true(kp_cs_answer(f->ix, "make_tma_atom", KP_CS_ANSWER_TOKENS, &text, &refs, &err) > 0);
	assert_true(kp_starts_with(text.buf, "### include/cute/atom/copy_fake_sm90_tma.hpp:"));
	assert_string_equal(refs.v[0], "cute::make_tma_atom @ include/cute/atom/copy_fake_sm90_tma.hpp:16");
	kp_buf_reset(&text);
	assert_int_equal(kp_cs_answer(f->ix, "zzzqqq", 100, &text, NULL, &err), 0);
	assert_non_null(strstr(text.buf, "No CUTLASS/CuTe code matches 'zzzqqq'"));

	/* A long snippet is cut at a line boundary and says how many lines are left out. */
	one.name = "n";
	one.path = "p.hpp";
	one.line = 3;
	one.summary = "";
	one.snippet = "line 1 xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n"
	              "line 2 xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n"
	              "line 3 xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n"
	              "line 4 xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n"
	              "line 5 xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx";
	h.v = &one;
	h.n = 1;
	kp_buf_reset(&text);
	assert_int_equal(kp_cs_format_hits(&h, 300, &text, NULL), 1);
	assert_true(text.len <= 300);
	assert_non_null(strstr(text.buf, "line 2"));
	assert_null(strstr(text.buf, "line 5"));
	assert_non_null(strstr(text.buf, "// ... "));
	assert_true(kp_ends_with(text.buf, "\n```\n\n"));
	kp_buf_reset(&text);
	assert_int_equal(kp_cs_format_hits(&h, 150, &text, NULL),
	                 0); /* room for less than KP_CS_MIN_SNIPPET */
	assert_int_equal(text.len, 0);
	kp_buf_release(&text);
	kp_strvec_release(&refs);
}

static void test_refs(void **state)
{
	char name[64], where[64];
	const char *tma = "cute::make_tma_atom @ include/cute/atom/copy_traits_sm90_tma.hpp:1357";
	const char *spec = "cute::MMA_Traits<SM90_64x128x16_F32BF16BF16_SS<A, B>> @ include/x.hpp:9";
	const char *hdr = "include/cute/tensor.hpp @ include/cute/tensor.hpp:1";

	KP_ASSERT_OK(kp_cs_ref_parse(tma, name, sizeof(name), where, sizeof(where)), NULL);
	assert_string_equal(name, "cute::make_tma_atom");
	assert_string_equal(where, "include/cute/atom/copy_traits_sm90_tma.hpp:1357");
	assert_int_equal(kp_cs_ref_parse("no reference here", name, sizeof(name), where, sizeof(where)),
	                 KP_EPARSE);
	assert_int_equal(kp_cs_ref_parse("x @ path:12a", name, sizeof(name), where, sizeof(where)),
	                 KP_EPARSE);
	assert_int_equal(kp_cs_ref_parse(" @ path:1", name, sizeof(name), where, sizeof(where)), KP_EPARSE);
	assert_int_equal(kp_cs_ref_parse("x @ path:", name, sizeof(name), where, sizeof(where)), KP_EPARSE);

	assert_true(kp_cs_ref_used(tma, "auto t = make_tma_atom(SM90_TMA_LOAD{}, g, s, tile);"));
	assert_false(kp_cs_ref_used(tma, "auto t = make_tma_atom_A_sm90(x);"));
	assert_false(kp_cs_ref_used(tma, "auto t = my_make_tma_atom(x);"));
	assert_true(kp_cs_ref_used(spec, "MMA_Traits<X> t;"));
	assert_true(kp_cs_ref_used(hdr, "#include <cute/tensor.hpp>\n"));
	assert_false(kp_cs_ref_used(hdr, "#include <cute/layout.hpp>\n"));
	assert_false(kp_cs_ref_used("garbage", "garbage"));
	assert_false(kp_cs_ref_used(tma, NULL));
}

/* Search memory: a snippet shown to a generation and used by a faster correct child is remembered. */
static void test_memory_snippets(void **state)
{
	struct kp_error err = KP_ERROR_INIT;
	char *dir = kp_test_tmpdir();
	char db[600];
	struct kp_store *s = NULL;
	struct kp_memory m;
	struct kp_search_params p;
	struct kp_search_child gen = {0};
	struct kp_tree t;
	struct kp_node_row r;
	struct kp_buf out = KP_BUF_INIT;
	const char *ref = "cute::make_tma_atom @ include/cute/atom/copy_traits_sm90_tma.hpp:1357";
	const char *parent = "__global__ void k() { plain(); }\n";
	const char *child = "auto tma = make_tma_atom(SM90_TMA_LOAD{}, mA, sA, tile);\n";

	snprintf(db, sizeof(db), "%s/run.db", dir);
	KP_ASSERT_OK(kp_store_open(&s, db, KP_STORE_CREATE, &err), &err);
	m = (struct kp_memory){s, NULL, "gemm", "test-run"};
	kp_search_params_default(&p);
	kp_tree_init(&t);
	for (long id = 1; id <= 4; id++) {
		kp_node_row_init(&r);
		r.id = id;
		r.parent = id == 1 ? 0 : id == 4 ? 2 : id - 1;
		r.kind = id == 1 ? KP_NODE_ROOT : id == 2 ? KP_NODE_INITIAL : KP_NODE_REFINE;
		KP_ASSERT_OK(kp_store_node_insert(s, &r, "cuda", "x", &err), &err);
		kp_tree_add(&t, &r);
	}
	kp_tree_record(&t, &p, 0, KP_OUTCOME_CORRECT, 1, NAN);
	kp_tree_record(&t, &p, 1, KP_OUTCOME_CORRECT, 1.0, NAN);
	kp_tree_record(&t, &p, 2, KP_OUTCOME_CORRECT, 1.8, NAN); /* #3: faster, uses the snippet */
	kp_tree_record(&t, &p, 3, KP_OUTCOME_CORRECT, 0.9, NAN); /* #4: slower, uses it too */
	kp_search_child_add_query(&gen, "snippets for the findings", ref);
	KP_ASSERT_OK(kp_memory_code_paths(&m, &gen, 3, &err), &err);
	KP_ASSERT_OK(kp_memory_learn(&m, &t, &p, 3, child, parent, NULL, NULL, "slower", &err), &err);
	KP_ASSERT_OK(kp_memory_render(&m, &t, 2, KP_PROG_OPTIMIZE, NULL, 2000, &out, &err), &err);
	assert_null(strstr(out.buf, "helped"));
	KP_ASSERT_OK(kp_memory_learn(&m, &t, &p, 2, child, parent, NULL, NULL, "tma", &err), &err);
	kp_buf_reset(&out);
	KP_ASSERT_OK(kp_memory_render(&m, &t, 2, KP_PROG_OPTIMIZE, NULL, 2000, &out, &err), &err);
	assert_non_null(strstr(
	    out.buf,
	    "- code-search snippet cute::make_tma_atom @ include/cute/atom/copy_traits_sm90_tma.hpp:1357 "
	    "helped: used by #3, correct at 1.80x"));
	assert_non_null(
	    strstr(out.buf, "- code search \"snippets for the findings\" found: cute::make_tma_atom"));
	kp_buf_release(&out);
	kp_search_child_release(&gen);
	kp_tree_release(&t);
	kp_store_close(s);
	kp_test_tmpdir_remove(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_extract_golden),
	    cmocka_unit_test(test_extract_limits),
	    cmocka_unit_test(test_describe),
	    cmocka_unit_test(test_cutlass_find),
	    cmocka_unit_test(test_build_flags),
	    cmocka_unit_test(test_build_key_matches_python),
	    cmocka_unit_test_setup_teardown(test_index_counts, ix_setup, ix_teardown),
	    cmocka_unit_test_setup_teardown(test_ranking, ix_setup, ix_teardown),
	    cmocka_unit_test(test_open_errors),
	    cmocka_unit_test(test_query_map),
	    cmocka_unit_test_setup_teardown(test_for_findings_budget, ix_setup, ix_teardown),
	    cmocka_unit_test_setup_teardown(test_answer_and_format, ix_setup, ix_teardown),
	    cmocka_unit_test(test_refs),
	    cmocka_unit_test(test_memory_snippets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
