/* SPDX-License-Identifier: MIT */
/*
 * stats.h - the packers' statistics at the end of a run.
 */
#ifndef COMMON_STATS_H
#define COMMON_STATS_H

#include "sqfs/writer.h"

#include <stdio.h>

/* Print bytes in and out, the ratio, block and fragment counts, what
 * deduplication and sparse detection saved, inodes and ids. */
void stats_print(FILE *fp, const sqfs_writer_stats_t *st);

#endif /* COMMON_STATS_H */
