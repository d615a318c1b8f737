/* SPDX-License-Identifier: MIT */
/*
 * stats.c - the packers' statistics at the end of a run.
 */
#include "config.h"

#include "common/stats.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The lines that are a plain count, in the order printed. */
static const struct {
	const char *label;
	size_t offset;
} counts[] = {
    {"Image size:                 ", offsetof(sqfs_writer_stats_t, image_size)},
    {"Data blocks written:        ",
     offsetof(sqfs_writer_stats_t, data_blocks)},
    {"Fragment blocks written:    ",
     offsetof(sqfs_writer_stats_t, fragment_blocks)},
    {"Duplicate blocks omitted:   ",
     offsetof(sqfs_writer_stats_t, duplicate_blocks)},
    {"Duplicate fragments omitted:",
     offsetof(sqfs_writer_stats_t, duplicate_fragments)},
    {"Sparse blocks omitted:      ",
     offsetof(sqfs_writer_stats_t, sparse_blocks)},
    {"Files:                      ", offsetof(sqfs_writer_stats_t, files)},
    {"Inodes:                     ", offsetof(sqfs_writer_stats_t, inodes)},
    {"Unique owner and group ids: ", offsetof(sqfs_writer_stats_t, ids)},
};

void stats_print(FILE *fp, const sqfs_writer_stats_t *st)
{
	fprintf(fp, "Data bytes read:             %llu\n",
		(unsigned long long)st->bytes_in);
	fprintf(fp, "Data bytes written:          %llu\n",
		(unsigned long long)st->bytes_written);
	if (st->bytes_in > 0)
		fprintf(fp, "Data compression ratio:      %.1f%%\n",
			100.0 * (double)st->bytes_written /
			    (double)st->bytes_in);
	else
		fprintf(fp, "Data compression ratio:      -\n");
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); ++i) {
		uint64_t value;

		memcpy(&value, (const char *)st + counts[i].offset,
		       sizeof(value));
		fprintf(fp, "%s %llu\n", counts[i].label,
			(unsigned long long)value);
	}
}
