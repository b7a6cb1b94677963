/*
 * The programmer's modes and their names, on their own so the search core can name a child's
 * mode without lib/programmer (the search drives the programmer through an interface).
 */
#ifndef KERNELPRO_MODE_H
#define KERNELPRO_MODE_H

#include <string.h>

#include "kernelpro/error.h"

enum kp_prog_mode {
	KP_PROG_INITIAL = 0, /* first version from the reference */
	KP_PROG_DEBUG,       /* repair a candidate that failed */
	KP_PROG_OPTIMIZE,    /* make a correct candidate faster */
};

#define KP_PROG_NMODES (KP_PROG_OPTIMIZE + 1)

/* "initial", "debug", "optimize"; "?" for anything else. Persisted (run databases): never renamed. */
static inline const char *kp_prog_mode_name(enum kp_prog_mode m)
{
	static const char *const names[KP_PROG_NMODES] = {
		[KP_PROG_INITIAL] = "initial",
		[KP_PROG_DEBUG] = "debug",
		[KP_PROG_OPTIMIZE] = "optimize",
	};
	return (unsigned)m < KP_PROG_NMODES ? names[m] : "?";
}

/* The mode named s into *out: 0, or KP_EINVAL (out untouched) when s names none. */
static inline int kp_prog_mode_parse(const char *s, enum kp_prog_mode *out)
{
	for (int m = 0; s && m < KP_PROG_NMODES; m++)
		if (!strcmp(s, kp_prog_mode_name((enum kp_prog_mode)m))) {
			*out = (enum kp_prog_mode)m;
			return 0;
		}
	return KP_EINVAL;
}

#endif
