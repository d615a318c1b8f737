/* SPDX-License-Identifier: MIT */
/*
 * fuzz_check.c - the oracles the parser targets share.
 */
#include "config.h"

#include "fuzz_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fuzz_fail(const char *target, const char *what, const char *path)
{
	fprintf(stderr, "%s: %s: '%s'\n", target, what, path);
	abort();
}

void fuzz_check_canonical(const char *target, const char *path)
{
	const char *p = path;

	if (p[0] == '/')
		fuzz_fail(target, "a leading '/'", path);
	while (*p != '\0') {
		size_t n = strcspn(p, "/");

		if (n == 0 || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			fuzz_fail(target, "a path that is not canonical", path);
		p += n;
		if (*p == '/') {
			++p;
			if (*p == '\0')
				fuzz_fail(target, "a trailing '/'", path);
		}
	}
}
