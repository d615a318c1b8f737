/* SPDX-License-Identifier: MIT */
/*
 * meta_sink.c - the two sinks of the metadata pipeline
 * (meta_sink_internal.h).
 */
#include "config.h"

#include "sqfs/error.h"
#include "sqfs/io.h"
#include "sqfs/meta_sink_internal.h"
#include "util/spill.h"

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

static int spill_write(meta_sink_t *base, const void *data, size_t size)
{
	meta_spill_sink_t *sink = (meta_spill_sink_t *)base;

	return spill_file_append(sink->spill, data, size);
}

int meta_spill_sink_init(meta_spill_sink_t *sink, size_t buffer_size, char *why)
{
	memset(sink, 0, sizeof(*sink));
	sink->base.write = spill_write;
	return spill_file_create(buffer_size, &sink->spill, why);
}

int meta_spill_sink_write_out(meta_spill_sink_t *sink, sqfs_file_t *file)
{
	uint64_t size = spill_file_size(sink->spill), done = 0;
	size_t chunk_size = 1u << 20;
	uint8_t *chunk;
	int ret = 0;

	if (size < chunk_size)
		chunk_size = (size_t)size;
	if (size == 0)
		return 0;
	chunk = malloc(chunk_size);
	if (chunk == NULL)
		return SQFS_ERROR_ALLOC;
	while (ret == 0 && done < size) {
		size_t n = size - done < chunk_size ? (size_t)(size - done)
						    : chunk_size;

		ret = spill_file_read_at(sink->spill, done, chunk, n);
		if (ret == 0)
			ret = file->write_at(file, file->get_size(file), chunk,
					     n);
		done += n;
	}
	free(chunk);
	if (ret == 0)
		ret = spill_file_reset(sink->spill);
	return ret;
}

const char *meta_spill_sink_error(const meta_spill_sink_t *sink)
{
	return sink->spill != NULL ? spill_file_error(sink->spill) : "";
}

void meta_spill_sink_cleanup(meta_spill_sink_t *sink)
{
	spill_file_destroy(sink->spill);
	sink->spill = NULL;
}
