/* The run database schema as a list of migrations, and the names of its persisted enums. */
#include "base/setup.h"

#include "kernelpro/store.h"
#include "store/store_int.h"

/*
 * migrations[i] takes a database from schema version i to i + 1. Released migrations are never
 * edited: a change to the schema is a new entry at the end (and KP_STORE_SCHEMA_VERSION + 1).
 */
static const char *const migrations[] = {
	/* 0 -> 1: the first schema. */
	"CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);\n"
	"CREATE TABLE counters (name TEXT PRIMARY KEY, value REAL NOT NULL);\n"
	"CREATE TABLE sessions (\n"
	"  id INTEGER PRIMARY KEY, started REAL NOT NULL, updated REAL NOT NULL,\n"
	"  elapsed_s REAL NOT NULL DEFAULT 0, pid INTEGER, argv TEXT,\n"
	"  ended INTEGER NOT NULL DEFAULT 0, end_reason TEXT);\n"
	"CREATE TABLE nodes (\n"
	"  id INTEGER PRIMARY KEY, parent INTEGER REFERENCES nodes(id),\n"
	"  kind INTEGER NOT NULL, depth INTEGER NOT NULL,\n"
	"  evaluated INTEGER NOT NULL DEFAULT 0, outcome INTEGER NOT NULL DEFAULT -1,\n"
	"  speedup REAL, time_ms REAL, energy_j REAL, reward REAL,\n"
	"  visits INTEGER NOT NULL DEFAULT 0, sum_r REAL NOT NULL DEFAULT 0, max_r REAL,\n"
	"  fail_depth INTEGER NOT NULL DEFAULT 0, expansions INTEGER NOT NULL DEFAULT 0,\n"
	"  dead INTEGER NOT NULL DEFAULT 0, created REAL NOT NULL, summary TEXT);\n"
	"CREATE INDEX nodes_parent ON nodes(parent);\n"
	"CREATE TABLE candidates (\n"
	"  node_id INTEGER PRIMARY KEY REFERENCES nodes(id), lang TEXT NOT NULL,\n"
	"  sha256 TEXT NOT NULL, source TEXT NOT NULL);\n"
	"CREATE TABLE evaluations (\n"
	"  id INTEGER PRIMARY KEY, node_id INTEGER NOT NULL REFERENCES nodes(id),\n"
	"  session INTEGER, outcome INTEGER NOT NULL,\n"
	"  time_ms REAL, time_std_ms REAL, ref_time_ms REAL, speedup REAL, energy_j REAL,\n"
	"  wall_s REAL, log TEXT, verdict_json TEXT, created REAL NOT NULL);\n"
	"CREATE INDEX evaluations_node ON evaluations(node_id);\n"
	"CREATE TABLE profiles (node_id INTEGER PRIMARY KEY REFERENCES nodes(id), json TEXT NOT NULL);\n"
	"CREATE TABLE feedback (node_id INTEGER PRIMARY KEY REFERENCES nodes(id), text TEXT NOT NULL);\n"
	"CREATE TABLE findings (\n"
	"  id INTEGER PRIMARY KEY, node_id INTEGER NOT NULL REFERENCES nodes(id), seq INTEGER NOT NULL,\n"
	"  tool TEXT, severity TEXT, title TEXT, json TEXT NOT NULL);\n"
	"CREATE INDEX findings_node ON findings(node_id);\n"
	"CREATE TABLE prompts (\n"
	"  id INTEGER PRIMARY KEY, parent_id INTEGER, node_id INTEGER, mode TEXT NOT NULL,\n"
	"  round INTEGER NOT NULL DEFAULT 0, sha256 TEXT NOT NULL, text TEXT NOT NULL, created REAL NOT NULL);\n"
	"CREATE TABLE responses (\n"
	"  id INTEGER PRIMARY KEY, prompt_id INTEGER NOT NULL REFERENCES prompts(id), text TEXT,\n"
	"  error TEXT, tokens_in INTEGER NOT NULL DEFAULT 0, tokens_out INTEGER NOT NULL DEFAULT 0,\n"
	"  cost REAL NOT NULL DEFAULT 0, latency_s REAL, created REAL NOT NULL);\n"
	"CREATE TABLE memory (\n"
	"  id INTEGER PRIMARY KEY, family TEXT, kind INTEGER NOT NULL, key TEXT NOT NULL,\n"
	"  text TEXT NOT NULL, outcome INTEGER NOT NULL DEFAULT 0, gain REAL, node_id INTEGER,\n"
	"  run TEXT, created REAL NOT NULL, tries INTEGER NOT NULL DEFAULT 1,\n"
	"  wins INTEGER NOT NULL DEFAULT 0);\n"
	"CREATE UNIQUE INDEX memory_unique ON memory(kind, key, text, IFNULL(family, ''));\n",
	/*
	 * 1 -> 2: sessions.elapsed_s is the session's own time. Schema 1 sessions stored the run's
	 * total so far (the time of every earlier session plus their own), so a run's total grew with
	 * each resume; each becomes its own time again: what it stored less what the earlier ones had.
	 */
	"CREATE TEMP TABLE kp_own_time AS SELECT s.id AS id, MAX(0, s.elapsed_s - IFNULL(\n"
	"  (SELECT SUM(p.elapsed_s) FROM sessions p WHERE p.id < s.id), 0)) AS own FROM sessions s;\n"
	"UPDATE sessions SET elapsed_s = (SELECT own FROM kp_own_time WHERE kp_own_time.id = sessions.id);\n"
	"DROP TABLE kp_own_time;\n",
	/* 2 -> 3: each candidate's format, as a search may switch languages from node to node. */
	"ALTER TABLE candidates ADD COLUMN format TEXT;\n",
	/*
	 * 3 -> 4: the tune action (docs/tune.md): one row per version tuned, and each variant's
	 * measurement keyed as lib/tune's result cache keys it, so a resumed tuning measures nothing twice.
	 */
	"CREATE TABLE tunings (\n"
	"  node_id INTEGER PRIMARY KEY REFERENCES nodes(id), session INTEGER, status TEXT NOT NULL,\n"
	"  strategy TEXT NOT NULL, budget INTEGER NOT NULL, seed INTEGER NOT NULL, derive TEXT,\n"
	"  gpu TEXT, space_json TEXT, trials_json TEXT, children_json TEXT,\n"
	"  untuned_point TEXT, untuned_ms REAL, best_point TEXT, best_ms REAL,\n"
	"  trials INTEGER NOT NULL DEFAULT 0, evaluated INTEGER NOT NULL DEFAULT 0,\n"
	"  cache_hits INTEGER NOT NULL DEFAULT 0, wall_s REAL, gpu_s REAL, note TEXT,\n"
	"  started REAL NOT NULL, ended REAL);\n"
	"CREATE TABLE tune_results (\n"
	"  space TEXT NOT NULL, point TEXT NOT NULL, gpu TEXT NOT NULL,\n"
	"  node_id INTEGER REFERENCES nodes(id), status TEXT NOT NULL, seconds REAL,\n"
	"  created REAL NOT NULL, PRIMARY KEY (space, point, gpu));\n",
};

_Static_assert(KP_ARRAY_SIZE(migrations) == KP_STORE_SCHEMA_VERSION,
	       "one migration per schema version");

const struct kp__store_schema kp__run_schema = {
	.what = "run database",
	.noun = "run",
	.application_id = 0,
	.wal = 1,
	.version = KP_STORE_SCHEMA_VERSION,
	.readable = KP_STORE_SCHEMA_READABLE,
	.migrations = migrations,
	.hint_migrate = "kernelpro optimize --resume",
};

#define KP__NAME(n, s) s,
static const char *const outcome_names[] = {KP_OUTCOMES(KP__NAME)};
static const char *const kind_names[] = {KP_NODE_KINDS(KP__NAME)};
static const char *const dead_texts[] = {KP_DEAD_REASONS(KP__NAME)};
static const char *const memory_kind_names[] = {KP_MEMORY_KINDS(KP__NAME)};
#undef KP__NAME

const char *kp_outcome_name(enum kp_outcome o)
{
	return o >= 0 && o < KP_OUTCOME_COUNT ? outcome_names[o] : "none";
}

enum kp_outcome kp_outcome_parse(const char *name)
{
	for (int i = 0; name && i < KP_OUTCOME_COUNT; i++)
		if (!strcmp(outcome_names[i], name))
			return (enum kp_outcome)i;
	return KP_OUTCOME_NONE;
}

const char *kp_node_kind_name(enum kp_node_kind k)
{
	return k >= 0 && k < KP_NODE_KIND_COUNT ? kind_names[k] : "unknown";
}

const char *kp_dead_reason_text(enum kp_dead_reason r)
{
	return r >= 0 && r < KP_DEAD_COUNT ? dead_texts[r] : "unknown";
}

const char *kp_store_memory_kind_name(enum kp_store_memory_kind k)
{
	return k >= 0 && k < KP_MEM_KIND_COUNT ? memory_kind_names[k] : "unknown";
}

const char *kp_store_memory_outcome_name(enum kp_store_memory_outcome o)
{
	switch (o) {
	case KP_MEMO_WORKED:
		return "worked";
	case KP_MEMO_FAILED:
		return "failed";
	default:
		return "unknown";
	}
}
