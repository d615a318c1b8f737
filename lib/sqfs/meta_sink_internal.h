/* SPDX-License-Identifier: MIT */
/*
 * meta_sink_internal.h - where the metadata pipeline puts a table's
 * finished blocks (internal to the library).
 *
 * The pipeline hands a sink each table's blocks in order, on the calling
 * thread, and never reads them back. The inode table goes straight to
 * the end of the image; the directory table must follow it on disk but
 * is made at the same time, so it is held back: today in memory, and a
 * temporary file would serve as well (only the directory table of a
 * large tree is big: about 30 bytes per entry).
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

/* Holds everything in memory until meta_memory_sink_write_out. */
typedef struct {
	meta_sink_t base;
	uint8_t *data;
	size_t size;
	size_t capacity;
} meta_memory_sink_t;

void meta_memory_sink_init(meta_memory_sink_t *sink);

/* Append what the sink holds to the end of file, and free it. */
int meta_memory_sink_write_out(meta_memory_sink_t *sink, sqfs_file_t *file);

/* Free what the sink holds. */
void meta_memory_sink_cleanup(meta_memory_sink_t *sink);

#endif /* SQFS_META_SINK_INTERNAL_H */
