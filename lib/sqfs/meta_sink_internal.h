/* SPDX-License-Identifier: MIT */
/*
 * meta_sink_internal.h - where the metadata pipeline puts a table's
 * finished blocks (internal to the library).
 *
 * The pipeline hands a sink each table's blocks in order, on the calling
 * thread, and never reads them back. The inode table goes straight to
 * the end of the image; the directory table must follow it on disk but
 * is made at the same time, so it is held back in a spill file (the
 * directory table of a large tree is big: about 10 bytes per entry
 * compressed, a gigabyte at 10^8 entries).
 */
#ifndef SQFS_META_SINK_INTERNAL_H
#define SQFS_META_SINK_INTERNAL_H

#include "sqfs/predef.h"

typedef struct meta_sink meta_sink_t;

struct meta_sink {
	/* Take size bytes, after everything taken before; 0 or a negative
	 * sqfs_error_t. */
	int (*write)(meta_sink_t *sink, const void *data, size_t size);
};

static inline int meta_sink_write(meta_sink_t *sink, const void *data,
				  size_t size)
{
	return sink->write(sink, data, size);
}

/* Appends at the end of a file. */
typedef struct {
	meta_sink_t base;
	sqfs_file_t *file;
} meta_file_sink_t;

void meta_file_sink_init(meta_file_sink_t *sink, sqfs_file_t *file);

/* Holds everything in a spill file (util/spill.h: in memory up to its
 * buffer, then in $TMPDIR) until meta_spill_sink_write_out. */
typedef struct {
	meta_sink_t base;
	struct spill_file *spill;
} meta_spill_sink_t;

/* SQFS_ERROR_ALLOC with words in why (SPILL_WHY_SIZE bytes) if the
 * buffer cannot be had. */
int meta_spill_sink_init(meta_spill_sink_t *sink, size_t buffer_size,
			 char *why);

/* Append what the sink holds to the end of file; the sink is empty
 * again. A failure of the spill file is SQFS_ERROR_IO, its words in
 * meta_spill_sink_error. */
int meta_spill_sink_write_out(meta_spill_sink_t *sink, sqfs_file_t *file);

/* The words of the spill file's failure, or "". */
const char *meta_spill_sink_error(const meta_spill_sink_t *sink);

/* Free what the sink holds. */
void meta_spill_sink_cleanup(meta_spill_sink_t *sink);

#endif /* SQFS_META_SINK_INTERNAL_H */
