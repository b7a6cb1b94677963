/* Internals of lib/codesearch shared by its files: the open index and the word splitter. */
#ifndef KP_CS_INT_H
#define KP_CS_INT_H

#include <pthread.h>
#include <sqlite3.h>

#include "kernelpro/codesearch.h"

struct kp_cs_index {
	sqlite3 *db;
	pthread_mutex_t mu; /* one query at a time: the programmer's threads share an index */
	char *path, *version, *root;
	struct kp_cs_stats stats;
};

/*
 * Appends the words of the identifiers in s, lowercased and split at '_', '::' and case changes
 * ("KernelTmaWarpSpecialized" -> "kernel tma warp specialized", "SM90_TMA" -> "sm90 tma").
 */
void kp__cs_split_words(const char *s, struct kp_buf *out);

#endif
