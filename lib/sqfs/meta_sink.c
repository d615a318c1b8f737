/* SPDX-License-Identifier: MIT */
/*
 * meta_sink.c - the two sinks of the metadata pipeline
 * (meta_sink_internal.h).
 */
#include "config.h"

#include "sqfs/error.h"
#include "sqfs/io.h"
#include "sqfs/meta_sink_internal.h"

#include <stdlib.h>
#include <string.h>

static int file_write(meta_sink_t *base, const void *data, size_t size)
{
	sqfs_file_t *file = ((meta_file_sink_t *)base)->file;

	return file->write_at(file, file->get_size(file), data, size);
}

void meta_file_sink_init(meta_file_sink_t *sink, sqfs_file_t *file)
{
	sink->base.write = file_write;
	sink->file = file;
}

static int memory_write(meta_sink_t *base, const void *data, size_t size)
{
	meta_memory_sink_t *sink = (meta_memory_sink_t *)base;

	if (size > sink->capacity - sink->size) {
		size_t capacity = sink->capacity > 0 ? sink->capacity : 65536;
		uint8_t *grown;

		while (size > capacity - sink->size) {
			if (capacity > SIZE_MAX / 2)
				return SQFS_ERROR_OVERFLOW;
			capacity *= 2;
		}
		grown = realloc(sink->data, capacity);
		if (grown == NULL)
			return SQFS_ERROR_ALLOC;
		sink->data = grown;
		sink->capacity = capacity;
	}
	memcpy(sink->data + sink->size, data, size);
	sink->size += size;
	return 0;
}

void meta_memory_sink_init(meta_memory_sink_t *sink)
{
	memset(sink, 0, sizeof(*sink));
	sink->base.write = memory_write;
}

int meta_memory_sink_write_out(meta_memory_sink_t *sink, sqfs_file_t *file)
{
	int ret = 0;

	if (sink->size > 0)
		ret = file->write_at(file, file->get_size(file), sink->data,
				     sink->size);
	if (ret == 0)
		meta_memory_sink_cleanup(sink);
	return ret;
}

void meta_memory_sink_cleanup(meta_memory_sink_t *sink)
{
	free(sink->data);
	sink->data = NULL;
	sink->size = 0;
	sink->capacity = 0;
}
