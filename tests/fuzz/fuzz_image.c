/* SPDX-License-Identifier: MIT */
/*
 * fuzz_image.c - libFuzzer target for the image reader.
 *
 * Each input is an image in memory, run through the whole reader API by
 * the hostile-image exerciser (open, tables, walk, every file read up to
 * a byte cap, xattrs, listings, lookups). A sanitizer report or an
 * internal inconsistency (turned into an abort) is a finding; any error
 * code is a fine answer. sqfs_image_locate runs on every input too.
 */
#include "config.h"

#include "hostile/exercise.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * sqfs_image_locate on the same input (an ELF, a SIF container or a
 * prefix before an image are all just bytes to it): whatever it answers,
 * an offset it gives must hold a superblock that fits the file, and a
 * failure must say why.
 */
static void check_locate(sqfs_file_t *file, size_t size)
{
	char why[SQFS_ERROR_TEXT_SIZE];
	uint8_t raw[SQFS_SUPER_SIZE];
	sqfs_super_t super;
	uint64_t off = 0;
	int ret;

	ret = sqfs_image_locate(file, 1u << 16, &off, why);
	if (ret == 0) {
		if (off > size || size - off < SQFS_SUPER_SIZE ||
		    file->read_at(file, off, raw, sizeof(raw)) != 0) {
			fprintf(stderr, "fuzz_image: located at %llu of %zu\n",
				(unsigned long long)off, size);
			abort();
		}
		sqfs_super_decode(&super, raw);
		if (sqfs_super_validate(&super, size - off) != 0) {
			fprintf(stderr, "fuzz_image: invalid at %llu: %s\n",
				(unsigned long long)off, why);
			abort();
		}
	} else if (ret != SQFS_ERROR_SUPER_MAGIC || why[0] == '\0') {
		fprintf(stderr, "fuzz_image: locate gave %d, '%s'\n", ret, why);
		abort();
	}
}

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
	check_locate(file, size);
	if (hostile_exercise(file, &lim, &res) != 0) {
		fprintf(stderr, "fuzz_image: inconsistency: %s\n",
			res.inconsistency);
		abort();
	}
	sqfs_file_destroy(file);
	return 0;
}
