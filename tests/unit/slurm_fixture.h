/* What t_slurm.c and t_slurm_script.c both need: stand-in programs (fake sbatch, module, kernelpro)
 * written as executable files, and paths in a test's directory. */
#ifndef KP_TEST_SLURM_FIXTURE_H
#define KP_TEST_SLURM_FIXTURE_H

#include <sys/stat.h>

#include "kp_test.h"
#include "kernelpro/fs.h"

static inline void write_exec(const char *path, const char *text)
{
	struct kp_error err = KP_ERROR_INIT;
	KP_ASSERT_OK(kp_write_file_atomic(path, text, strlen(text), &err), &err);
	assert_int_equal(chmod(path, 0755), 0);
}

static inline char *join(const char *dir, const char *name)
{
	return kp_xasprintf("%s/%s", dir, name);
}

#endif
