/* Functions that kernelpro code must not call (after git's banned.h): each has a safer replacement. */
#ifndef KP_BANNED_H
#define KP_BANNED_H

/* Use kp_buf_adds/kp_buf_addf, or snprintf with a checked result. */
#define KP_BANNED(func) sorry_##func##_is_a_banned_function

#undef strcpy
#define strcpy(x, y) KP_BANNED(strcpy)
#undef strcat
#define strcat(x, y) KP_BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) KP_BANNED(strncpy)
#undef strncat
#define strncat(x, y, n) KP_BANNED(strncat)
#undef sprintf
#define sprintf(...) KP_BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) KP_BANNED(vsprintf)
#undef strtok
#define strtok(x, y) KP_BANNED(strtok)
/* Use strtol/strtod with end-pointer and range checks (kp_parse_long/kp_parse_double). */
#undef atoi
#define atoi(x) KP_BANNED(atoi)
#undef atol
#define atol(x) KP_BANNED(atol)
#undef atof
#define atof(x) KP_BANNED(atof)
/* Use kp_child: argv vectors, no shell. */
#undef system
#define system(x) KP_BANNED(system)
#undef popen
#define popen(x, y) KP_BANNED(popen)
#undef gmtime
#define gmtime(t) KP_BANNED(gmtime)
#undef localtime
#define localtime(t) KP_BANNED(localtime)
#undef mktemp
#define mktemp(x) KP_BANNED(mktemp)

#endif
