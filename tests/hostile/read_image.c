/* SPDX-License-Identifier: MIT */
/*
 * read_image.c - run the whole reader API over one (hostile) image.
 *
 * Usage: read_image [-c BYTES] [-p] IMAGE
 *
 * Prints one status line: "ok: ..." when everything read, "rejected at
 * STAGE: ERROR ..." when the library refused part of it, "INCONSISTENT:
 * ..." when it contradicted itself. Exit status 0 for the first two, 3 for
 * an inconsistency, 2 if the image file cannot be opened at all. -c caps
 * the file bytes read over the whole image (default 64 MiB); -p prints
 * each path the walk finds first ("D dir", "F file", "O other").
 */
#include "config.h"

#include "exercise.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_counts(const hostile_result_t *res)
{
	printf("entries=%lu dirs=%lu files=%lu links=%lu xattrs=%lu "
	       "bytes=%llu lookups=%lu\n",
	       res->entries, res->dirs, res->files, res->links, res->xattrs,
	       (unsigned long long)res->bytes, res->lookups);
}

int main(int argc, char **argv)
{
	hostile_limits_t lim = {64ull << 20, 20000, NULL};
	hostile_result_t res;
	sqfs_file_t *file;
	const char *path = NULL;
	char *end;
	int i, ret;

	for (i = 1; i < argc; ++i) {
		if (strcmp(argv[i], "-c") == 0 && i + 1 < argc) {
			lim.byte_cap = strtoull(argv[++i], &end, 10);
			if (*end != '\0')
				goto usage;
		} else if (strcmp(argv[i], "-p") == 0) {
			lim.paths = stdout;
		} else if (path == NULL && argv[i][0] != '-') {
			path = argv[i];
		} else {
			goto usage;
		}
	}
	if (path == NULL)
		goto usage;
	ret = sqfs_file_open(&file, path, SQFS_FILE_OPEN_READ_ONLY);
	if (ret != 0) {
		fprintf(stderr, "read_image: %s: %s\n", path,
			sqfs_error_string(ret));
		return 2;
	}
	ret = hostile_exercise(file, &lim, &res);
	sqfs_file_destroy(file);
	if (ret != 0) {
		printf("INCONSISTENT: %s; ", res.inconsistency);
		print_counts(&res);
		return 3;
	}
	if (res.error != 0)
		printf("rejected at %s: %s; ", res.stage,
		       sqfs_error_string(res.error));
	else
		printf("ok: ");
	print_counts(&res);
	return 0;
usage:
	fprintf(stderr, "usage: read_image [-c BYTES] [-p] IMAGE\n");
	return 2;
}
