/* SPDX-License-Identifier: MIT */
/*
 * fuzz_image.c - libFuzzer target for the image reader.
 *
 * Each input is an image in memory, run through the whole reader API by
 * the hostile-image exerciser (open, tables, walk, every file read up to
 * a byte cap, xattrs, listings, lookups). A sanitizer report or an
 * internal inconsistency (turned into an abort) is a finding; any error
 * code is a fine answer.
 */
#include "config.h"

#include "hostile/exercise.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* small caps: sparse and shared blocks make any size cheap to
	 * claim, and an input should take milliseconds */
	hostile_limits_t lim = {1u << 20, 512, NULL};
	hostile_result_t res;
	sqfs_file_t *file;

	if (sqfs_file_open_memory(&file, data, size,
				  SQFS_FILE_OPEN_READ_ONLY) != 0)
		return 0;
	if (hostile_exercise(file, &lim, &res) != 0) {
		fprintf(stderr, "fuzz_image: inconsistency: %s\n",
			res.inconsistency);
		abort();
	}
	sqfs_file_destroy(file);
	return 0;
}
