/* SPDX-License-Identifier: MIT */
/*
 * exercise.h - drive the whole reader API over one untrusted image.
 *
 * Shared by the hostile-image checker (read_image) and the libFuzzer
 * target: both open an image, walk it, read every file and xattr, list
 * every directory and resolve every path, and tell a clean rejection
 * (any error code from the library) from an internal inconsistency (the
 * library contradicting itself or its contract), which is a bug whatever
 * the image holds.
 */
#ifndef HOSTILE_EXERCISE_H
#define HOSTILE_EXERCISE_H

#include "sqfs/squashfs.h"

#include <stdio.h>

typedef struct {
	/* Most file bytes to read over the whole image (sparse and shared
	 * blocks let a small image claim terabytes). */
	uint64_t byte_cap;
	/* Most path resolutions and name lookups. */
	unsigned long lookup_cap;
	/* If not NULL, every path the walk finds is printed here as "D path"
	 * (directory), "F path" (regular file) or "O path" (anything else),
	 * unless it holds a control character. */
	FILE *paths;
} hostile_limits_t;

typedef struct {
	unsigned long entries, dirs, files, links, xattrs, lookups;
	uint64_t bytes;
	/* First error code the library returned, and where (0/NULL: none). */
	int error;
	const char *stage;
	/* Non-empty if the library contradicted itself. */
	char inconsistency[256];
} hostile_result_t;

/*
 * Exercise the reader API on file. Returns 0 if the image was read or
 * rejected cleanly, -1 on an internal inconsistency (described in
 * res->inconsistency).
 */
int hostile_exercise(sqfs_file_t *file, const hostile_limits_t *lim,
		     hostile_result_t *res);

#endif /* HOSTILE_EXERCISE_H */
