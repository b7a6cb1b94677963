/*
 * Code search over CUTLASS/CuTe (found by the toolchain, toolchain.h): a full-text index (SQLite FTS5, in the cache directory, one per CUTLASS version) of its
 * headers and examples, ranked queries, and what the optimization loop asks of it: queries for the
 * profiling tools' findings and prompt text within a token budget. docs/internals/codesearch.md.
 */
#ifndef KERNELPRO_CODESEARCH_H
#define KERNELPRO_CODESEARCH_H

#include <stddef.h>

#include "kernelpro/buf.h"
#include "kernelpro/error.h"
#include "kernelpro/strvec.h"
#include "kernelpro/toolchain.h" /* struct kp_cutlass: the CUTLASS the index is of */

/* ---- The symbol extractor (outside data: any C++ text) ------------------------------------------------ */

enum kp_cs_kind {
	KP_CS_FILE = 0, /* a header: its summary */
	KP_CS_EXAMPLE,  /* an example program: its one-line description */
	KP_CS_CLASS,    /* struct, class, union (templates included) */
	KP_CS_FUNCTION, /* a function or function template defined at namespace scope */
	KP_CS_ALIAS,    /* using NAME = ...; at namespace scope */
	KP_CS_ENUM,
	KP_CS_KIND_COUNT,
};

const char *kp_cs_kind_name(enum kp_cs_kind k);

struct kp_cs_symbol {
	enum kp_cs_kind kind;
	char name[128];  /* "make_tma_atom", "MMA_Traits" */
	char scope[128]; /* namespace path: "cute", "cutlass::arch"; "" at global scope */
	char args[160];  /* template arguments of a specialization ("SM90_TMA_LOAD"), else "" */
	int is_template;
	int line;     /* first line (the template<...> line when there is one), 1-based */
	int end_line; /* last line of the definition */
	int doc_line; /* first line of the comment right above it, or == line */
};

struct kp_cs_symbols {
	struct kp_cs_symbol *v;
	size_t n, alloc;
};

/*
 * Extracts the namespace-scope classes, function definitions, aliases and enums of a C++ source.
 * Never fails on malformed input (it finds what it can); at most `max` symbols (0: no limit).
 */
void kp_cs_extract(const char *text, size_t len, size_t max, struct kp_cs_symbols *out);
void kp_cs_symbols_release(struct kp_cs_symbols *s);

/*
 * The one-line description of a file: the first sentence of its first comment that is not a
 * licence, without doc markup (\file, \brief, @brief). Empty when it has none. Writes to out.
 */
void kp_cs_describe(const char *text, size_t len, char *out, size_t n);

/* ---- The index -------------------------------------------------------------------------------------------
 */

struct kp_cs_index;

struct kp_cs_stats {
	long files, examples, symbols;
	double seconds;
	char path[512]; /* the index database */
};

/*
 * The index file for a CUTLASS version: <cache>/codesearch/cutlass-<version>.db (cache:
 * $KERNELPRO_CACHE, else kp_cache_dir()). Appends to out.
 */
int kp_cs_index_path(const char *version, struct kp_buf *out, struct kp_error *err);

/*
 * (Re)builds the index of `c` (its include/, tools/util/include and examples/) at `db_path`
 * (NULL: kp_cs_index_path). Written to a temporary file and renamed into place, so readers never
 * see half an index.
 */
int kp_cs_index_build(const struct kp_cutlass *c, const char *db_path, struct kp_cs_stats *st,
                      struct kp_error *err);

/*
 * Indexes any directory tree (`root`; its .h .hpp .cuh .inl .cu .cpp files: files under an
 * "examples" component are example programs), labelled `version`. For tests and other libraries.
 */
int kp_cs_index_build_dir(const char *root, const char *version, const char *db_path, struct kp_cs_stats *st,
                          struct kp_error *err);

/* Opens an index read-only. KP_ENOENT (saying how to build it) when there is none. */
int kp_cs_index_open(struct kp_cs_index **out, const char *db_path, struct kp_error *err);
/*
 * Opens the index of the CUTLASS kp_cutlass_cached() finds, building it first when missing.
 * KP_ENOENT with the install hint when there is no CUTLASS.
 */
int kp_cs_index_open_default(struct kp_cs_index **out, struct kp_error *err);
void kp_cs_index_close(struct kp_cs_index *ix);
/* What the index was built from ("4.2.0", the root path) and its counts. Borrowed. */
const char *kp_cs_index_version(const struct kp_cs_index *ix);
const char *kp_cs_index_root(const struct kp_cs_index *ix);
void kp_cs_index_stats(const struct kp_cs_index *ix, struct kp_cs_stats *st);

/* ---- Queries ---------------------------------------------------------------------------------------------
 */

struct kp_cs_hit {
	long id; /* entry id in the index */
	enum kp_cs_kind kind;
	char *name;         /* qualified: "cute::make_tma_atom"; the path for files */
	char *path;         /* relative to the CUTLASS root: "include/cute/atom/copy_traits_sm90_tma.hpp" */
	int line, end_line; /* the snippet's lines in that file */
	char *summary;      /* one line: the doc comment's first sentence, or the file's description */
	char *snippet;      /* the code (at most KP_CS_SNIPPET_LINES lines) */
	double score;       /* higher is better */
};

struct kp_cs_hits {
	struct kp_cs_hit *v;
	size_t n, alloc;
};

#define KP_CS_SNIPPET_LINES 40

void kp_cs_hits_release(struct kp_cs_hits *h);

/*
 * Ranked search. The query is words (identifiers split at '_', '::' and case changes; stemmed):
 * entries with every word rank first, then entries with some, each group by BM25 weighted toward
 * names. At most `limit` hits (<= 0: 10), appended to `out`. A query with no usable word is
 * KP_EINVAL.
 */
int kp_cs_search(struct kp_cs_index *ix, const char *query, int limit, struct kp_cs_hits *out,
                 struct kp_error *err);

/* ---- For the optimization loop
 * ------------------------------------------------------------------------------ */

/* The queries that show how CUTLASS/CuTe addresses a tool's finding (NULL-terminated; NULL: none). */
const char *const *kp_cs_queries_for_tool(const char *tool_id);
/* Every tool id with queries, NULL-terminated (for tests and docs). */
const char *const *kp_cs_mapped_tools(void);

/*
 * Prompt text budgets, tokens estimated as 4 characters each: the optimize prompt's snippets (the
 * prompt's code-search slot holds 8,000 characters) and one answer to "search:" (the programmer
 * passes at most 6,000 characters of an answer back).
 */
#define KP_CS_DEFAULT_TOKENS  2000
#define KP_CS_ANSWER_TOKENS   1400
#define KP_CS_CHARS_PER_TOKEN 4

/*
 * Snippets for the findings of a profiled candidate (`findings_json`: the array the tools produce,
 * [{tool, ...}], most important first): the queries of up to three distinct tools, the best new
 * hits taken in turn from each, formatted with path:line headers into `text` without exceeding
 * max_tokens (<= 0: KP_CS_DEFAULT_TOKENS). `refs` (may be NULL) gets one kp_cs_ref line per snippet
 * shown. Nothing is appended when no finding maps to a query or nothing fits. Returns how many
 * snippets it added; a negative code only on a database error.
 */
int kp_cs_for_findings(struct kp_cs_index *ix, const char *findings_json, int max_tokens, struct kp_buf *text,
                       struct kp_strvec *refs, struct kp_error *err);

/* The answer to the model's "search: QUERY": the top hits, formatted the same way, within max_tokens. */
int kp_cs_answer(struct kp_cs_index *ix, const char *query, int max_tokens, struct kp_buf *text,
                 struct kp_strvec *refs, struct kp_error *err);

/*
 * Formats hits as prompt text ("### path:line `name` (kind)" + summary + a fenced block) without
 * exceeding max_chars in total; a snippet that does not fit whole is cut at a line boundary, one
 * that cannot keep KP_CS_MIN_SNIPPET characters is left out. Returns how many were written.
 */
#define KP_CS_MIN_SNIPPET 160
size_t kp_cs_format_hits(const struct kp_cs_hits *h, size_t max_chars, struct kp_buf *text,
                         struct kp_strvec *refs);

/*
 * A reference to a snippet, as search memory keeps it: "NAME @ PATH:LINE". kp_cs_ref_parse splits
 * one (outside data: memory rows) into its name and location; KP_EPARSE when it is not one.
 */
void kp_cs_ref_format(const struct kp_cs_hit *h, struct kp_buf *out);
int kp_cs_ref_parse(const char *ref, char *name, size_t name_len, char *where, size_t where_len);
/* Does `source` use the snippet named by `ref` (its last name component, as a whole identifier)? */
int kp_cs_ref_used(const char *ref, const char *source);

#endif
