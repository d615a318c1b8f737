/* SPDX-License-Identifier: MIT */
/*
 * stats.c - the packers' statistics at the end of a run.
 */
#include "config.h"

#include "common/stats.h"

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
	fprintf(fp, "Image size:                  %llu\n",
		(unsigned long long)st->image_size);
	fprintf(fp, "Data blocks written:         %llu\n",
		(unsigned long long)st->data_blocks);
	fprintf(fp, "Fragment blocks written:     %llu\n",
		(unsigned long long)st->fragment_blocks);
	fprintf(fp, "Duplicate blocks omitted:    %llu\n",
		(unsigned long long)st->duplicate_blocks);
	fprintf(fp, "Duplicate fragments omitted: %llu\n",
		(unsigned long long)st->duplicate_fragments);
	fprintf(fp, "Sparse blocks omitted:       %llu\n",
		(unsigned long long)st->sparse_blocks);
	fprintf(fp, "Files:                       %llu\n",
		(unsigned long long)st->files);
	fprintf(fp, "Inodes:                      %llu\n",
		(unsigned long long)st->inodes);
	fprintf(fp, "Unique owner and group ids:  %llu\n",
		(unsigned long long)st->ids);
}
