/* kernelpro codesearch: ranked CUTLASS/CuTe snippets for a query, and (re)building the index. */
#include "base/setup.h"

#include "cli.h"
#include "kernelpro/codesearch.h"
#include "kernelpro/json.h"

static const struct kp_opt search_opts[] = {
    {"limit", 'n', KP_OPT_INT, "N:1..1000", "how many hits", "10"},
    {"lines", 0, KP_OPT_INT, "N:0..", "lines of each snippet to print (0: none; --json gives them all)", "12"},
    {"db", 0, KP_OPT_STR, "FILE", "search this index file instead of the one for the CUTLASS found", NULL},
    KP_OPT_TABLE_END,
};

static int open_index(const struct kp_args *args, struct kp_cs_index **ix, struct kp_error *err)
{
	const char *db = kp_arg_str(args, "db");
	return db ? kp_cs_index_open(ix, db, err) : kp_cs_index_open_default(ix, err);
}

static json_t *hit_json(const struct kp_cs_hit *h)
{
	json_t *o = json_object();
	kp_json_set(o, "name", json_string(h->name));
	kp_json_set(o, "kind", json_string(kp_cs_kind_name(h->kind)));
	kp_json_set(o, "path", json_string(h->path));
	kp_json_set(o, "line", json_integer(h->line));
	kp_json_set(o, "end_line", json_integer(h->end_line));
	kp_json_set(o, "summary", json_string(h->summary));
	kp_json_set(o, "snippet", json_string(h->snippet));
	kp_json_set(o, "score", kp_json_real(h->score));
	return o;
}

static void print_hit(struct kp_cli *cli, const struct kp_cs_hit *h, long lines)
{
	const char *p = h->snippet;
	fprintf(cli->out, "%s%s:%d%s  %s  (%s)\n", kp_cli_color(cli, "bold"), h->path, h->line,
	        kp_cli_reset(cli), h->name, kp_cs_kind_name(h->kind));
	if (h->summary[0])
		fprintf(cli->out, "    %s%s%s\n", kp_cli_color(cli, "dim"), h->summary, kp_cli_reset(cli));
	for (long i = 0; i < lines && p && *p; i++) {
		const char *e = strchr(p, '\n');
		int n = e ? (int)(e - p) : (int)strlen(p);
		fprintf(cli->out, "    %5d | %.*s\n", h->line + (int)i, n, p);
		p = e ? e + 1 : NULL;
	}
	fputc('\n', cli->out);
}

static int run_search(struct kp_cli *cli, const struct kp_args *args)
{
	struct kp_error err = KP_ERROR_INIT;
	struct kp_cs_index *ix = NULL;
	struct kp_cs_hits hits = {0};
	struct kp_strvec words = KP_STRVEC_INIT;
	/* The option table bounds both (1..1000, 0..): out of range never gets here. */
	long limit = kp_arg_int(args, "limit", 10), lines = kp_arg_int(args, "lines", 12);
	char *query;
	int rc;

	if (!kp_arg_npos(args)) {
		kp_cli_error(cli,
		             "give a query: kernelpro codesearch WORDS... (or 'kernelpro codesearch index')");
		return KP_EXIT_USAGE;
	}
	for (size_t i = 0; i < kp_arg_npos(args); i++)
		kp_strvec_push(&words, kp_arg_pos(args, i));
	query = kp_strvec_join(&words, " ");
	if ((rc = open_index(args, &ix, &err)) || (rc = kp_cs_search(ix, query, (int)limit, &hits, &err))) {
		rc = kp_cli_fail(cli, &err);
		goto out;
	}
	if (cli->json) {
		json_t *o = json_object(), *a = json_array();
		struct kp_cs_stats st;
		kp_cs_index_stats(ix, &st);
		for (size_t i = 0; i < hits.n; i++)
			json_array_append_new(a, hit_json(&hits.v[i]));
		kp_json_set(o, "query", json_string(query));
		kp_json_set(o, "cutlass_version", json_string(kp_cs_index_version(ix)));
		kp_json_set(o, "root",
		            kp_cs_index_root(ix) ? json_string(kp_cs_index_root(ix)) : json_null());
		kp_json_set(o, "index", json_string(st.path));
		kp_json_set(o, "hits", a);
		kp_cli_print_json_new(cli, o);
	} else if (!hits.n) {
		fprintf(cli->out, "nothing in CUTLASS %s matches '%s'\n", kp_cs_index_version(ix), query);
	} else {
		for (size_t i = 0; i < hits.n; i++)
			print_hit(cli, &hits.v[i], lines);
		fprintf(cli->out, "%zu hit%s in CUTLASS %s (%s)\n", hits.n, hits.n == 1 ? "" : "s",
		        kp_cs_index_version(ix), kp_cs_index_root(ix) ? kp_cs_index_root(ix) : "?");
	}
	rc = KP_EXIT_OK;
out:
	kp_cs_hits_release(&hits);
	kp_cs_index_close(ix);
	kp_strvec_release(&words);
	free(query);
	return rc;
}

static const struct kp_opt index_opts[] = {
    {"root", 0, KP_OPT_STR, "DIR", "index this directory tree instead of the CUTLASS found (needs --db)",
     NULL},
    {"db", 0, KP_OPT_STR, "FILE", "write the index here instead of the cache directory", NULL},
    KP_OPT_TABLE_END,
};

static int run_index(struct kp_cli *cli, const struct kp_args *args)
{
	struct kp_error err = KP_ERROR_INIT;
	struct kp_cutlass c;
	struct kp_cs_stats st;
	const char *root = kp_arg_str(args, "root"), *db = kp_arg_str(args, "db");
	const char *version;
	int have_c = 0, rc;

	if (root && !db) {
		kp_cli_error(cli, "--root needs --db FILE: the cache holds indexes of CUTLASS versions only");
		return KP_EXIT_USAGE;
	}
	if (root) {
		version = "local";
		rc = kp_cs_index_build_dir(root, version, db, &st, &err);
	} else {
		if ((rc = kp_cutlass_find(&c, 0, &err)))
			return kp_cli_fail(cli, &err);
		have_c = 1;
		version = c.version;
		rc = kp_cs_index_build(&c, db, &st, &err);
	}
	if (rc) {
		rc = kp_cli_fail(cli, &err);
		goto out;
	}
	if (cli->json) {
		json_t *o = json_object();
		kp_json_set(o, "index", json_string(st.path));
		kp_json_set(o, "cutlass_version", json_string(version));
		kp_json_set(o, "root", json_string(have_c ? c.root : root));
		kp_json_set(o, "source",
		            have_c ? json_string(kp_cutlass_source_name(c.source)) : json_null());
		kp_json_set(o, "files", json_integer(st.files));
		kp_json_set(o, "examples", json_integer(st.examples));
		kp_json_set(o, "symbols", json_integer(st.symbols));
		kp_json_set(o, "seconds", kp_json_real(st.seconds));
		kp_cli_print_json_new(cli, o);
	} else {
		fprintf(cli->out, "indexed %s%s%s (%s): %ld headers, %ld examples, %ld symbols in %.1f s\n",
		        root ? "" : "CUTLASS ", root ? "" : version, root ? root : "",
		        have_c ? c.root : "--root", st.files, st.examples, st.symbols, st.seconds);
		fprintf(cli->out, "index: %s\n", st.path);
	}
	rc = KP_EXIT_OK;
out:
	if (have_c)
		kp_cutlass_release(&c);
	return rc;
}

static const struct kp_cmd cs_index = {
    .name = "index",
    .summary = "(Re)build the code-search index of the CUTLASS found (or of --root DIR)",
    .usage = "[--json] [--root DIR --db FILE]",
    .description =
        "CUTLASS is looked for in $CUTLASS_PATH, then kernelpro's .cutlass (tools/install-cutlass.sh),\n"
        "then python3's nvidia-cutlass package. The index goes to\n"
        "<cache>/codesearch/cutlass-<version>.db unless --db says otherwise.",
    .flags = KP_CMD_JSON,
    .opts = index_opts,
    .max_args = 0,
    .run = run_index,
	.examples = "kernelpro codesearch index\n"
		    "kernelpro codesearch index --root ~/src/cutlass --db cutlass.db",
};

static const struct kp_cmd *const cs_subs[] = {&cs_index, NULL};

const struct kp_cmd kp_cmd_codesearch = {
    .name = "codesearch",
    .summary = "Search CUTLASS/CuTe headers and examples: ranked snippets with paths and lines",
    .usage = "[--json] [-n N] [--lines N] [--db FILE] WORDS...  |  codesearch index",
    .description =
        "Words are matched against names (split at '_', '::' and case changes), paths, summaries and\n"
        "code; entries with every word rank first. The index is built on first use.\n"
        "docs/codesearch.md has examples.",
    .flags = KP_CMD_JSON,
    .opts = search_opts,
    .max_args = -1,
    .subs = cs_subs,
    .run = run_search,
	.examples = "kernelpro codesearch shared memory swizzle\n"
		    "kernelpro codesearch -n 3 --lines 20 TiledMma\n"
		    "kernelpro codesearch index   # rebuild the index",
};
