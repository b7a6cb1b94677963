/* Inside lib/store: the migration list and the statement helpers shared by the store's files. */
#ifndef KP_STORE_INT_H
#define KP_STORE_INT_H

#include <sqlite3.h>

#include "kernelpro/store.h"

size_t kp__store_migration_count(void);
const char *kp__store_migration(size_t i);

struct kp_store {
	sqlite3 *db;
	char *path;
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
