/* SPDX-License-Identifier: MIT */
/*
 * malloc_tune.c - keep malloc from holding memory the packers gave back.
 */
#include "config.h"

#include "common/malloc_tune.h"

#include <stdlib.h> /* defines __GLIBC__ with glibc */

#if defined(__GLIBC__)
#include <malloc.h>
#endif

void tool_malloc_tune(void)
{
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD)
	/* setting it stops glibc's dynamic threshold */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
}
