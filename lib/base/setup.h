/* Included first by every kernelpro .c file: feature macros, then the banned-function list. */
#ifndef KP_SETUP_H
#define KP_SETUP_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernelpro/alloc.h"
#include "kernelpro/error.h"

#include "base/banned.h"

#endif
