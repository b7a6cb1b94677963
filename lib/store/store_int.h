/* Inside lib/store: the migration list and the statement helpers shared by the store's files. */
#ifndef KP_STORE_INT_H
#define KP_STORE_INT_H

#include <sqlite3.h>

#include "kernelpro/store.h"

/*
 * A schema a store file may hold: the run database's (schema.c) or the suite database's
 * (suitedb.c). Each has its own append-only migrations and version; files of one are refused as
 * the other by PRAGMA application_id (0 for run databases, which predate it).
 */
struct kp__store_schema {
	const char *what;             /* "run database": how messages name the file */
	const char *noun;             /* "run": what the file holds */
	int application_id;           /* PRAGMA application_id of its files */
	int wal;                      /* 1: WAL journal; 0: rollback journal (files other hosts open) */
	int version;                  /* the version this build writes */
	int readable;                 /* the oldest version a read-only open accepts */
	const char *const *migrations; /* migrations[i]: version i -> i + 1; `version` entries */
	const char *hint_migrate;     /* how to migrate an older file: "kernelpro optimize --resume" */
};

extern const struct kp__store_schema kp__run_schema;

/* Opens `path` holding `schema` (kp_store_open is this with the run database's schema). */
int kp__store_open_schema(struct kp_store **out, const char *path, unsigned flags,
			  const struct kp__store_schema *schema, struct kp_error *err);

struct kp_store {
	sqlite3 *db;
	char *path;
	const char *what; /* the schema's name for messages */
	int readonly;
	int in_tx;
	int version; /* the schema as opened (after any migration): the reads follow its tables */
};

/* Prepares `sql`; on failure sets err with the statement's purpose and SQLite's message. */
int kp__store_prepare(struct kp_store *s, const char *sql, sqlite3_stmt **st, struct kp_error *err);
/* Steps a statement that returns no rows (SQLITE_DONE expected), then finalizes it. */
int kp__store_step_done(struct kp_store *s, sqlite3_stmt *st, const char *what, struct kp_error *err);
/* Binds a double, or NULL when it is NaN or infinite. */
void kp__store_bind_real(sqlite3_stmt *st, int i, double v);
/* Binds a string, or NULL. */
void kp__store_bind_text(sqlite3_stmt *st, int i, const char *v);
/* A column as a double, NAN when NULL. */
double kp__store_col_real(sqlite3_stmt *st, int i);
int kp__store_fail(struct kp_store *s, const char *what, struct kp_error *err);

#endif
