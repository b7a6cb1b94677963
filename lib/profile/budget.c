/*
 * The memory cap of the profile parsers. Parsed data takes several times its text (an ncu raw
 * page: 48 bytes per value of ~10 characters), so a big or hostile file is refused with a clear
 * error before it takes all of the machine's memory.
 */
#include "base/setup.h"

#include "kernelpro/profile.h"
#include "kernelpro/str.h"
#include "profile/budget.h"

#define MIB ((size_t)1 << 20)

static int over(struct kp_pbudget *b, int line, struct kp_error *err)
{
	size_t mb = b->cap / MIB;
	char where[32] = "";
	if (line > 0)
		snprintf(where, sizeof(where), ":%d", line);
	return kp_error_set(
	    err, KP_ETOOBIG,
	    "%s%s: parsing it needs more than the %zu MiB allowed for profile data "
	    "(KERNELPRO_PROFILE_MEM_MB); raise it (e.g. KERNELPRO_PROFILE_MEM_MB=%zu) or profile "
	    "fewer launches (kernelpro profile -c N, -k NAME)",
	    b->what, where, mb, mb * 4);
}

int kp_pbudget_init(struct kp_pbudget *b, const char *what, size_t len, struct kp_error *err)
{
	const char *env = getenv("KERNELPRO_PROFILE_MEM_MB");
	long mb = KP_PROFILE_MEM_MB;
	b->what = what;
	b->used = 0;
	if (env && *env && (kp_parse_long(env, &mb) || mb <= 0 || (unsigned long)mb > SIZE_MAX / MIB))
		return kp_error_set(
		    err, KP_EINVAL,
		    "KERNELPRO_PROFILE_MEM_MB='%s' is not a positive number of MiB (default %d)", env,
		    KP_PROFILE_MEM_MB);
	b->cap = (size_t)mb * MIB;
	return kp_pbudget_add(b, len + 1, 0, err);
}

int kp_pbudget_add(struct kp_pbudget *b, size_t n, int line, struct kp_error *err)
{
	if (n > b->cap - b->used)
		return over(b, line, err);
	b->used += n;
	return 0;
}
