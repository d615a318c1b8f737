/* SPDX-License-Identifier: MIT */
/*
 * file_memory.c - an sqfs_file_t kept in a growable buffer, for tests and
 * for programs that build small images without touching the disk.
 */
#include "config.h"

#include "sqfs/error.h"
#include "sqfs/io.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
	sqfs_file_t base;
	uint8_t *data;
	size_t size;
	size_t capacity;
	unsigned int flags;
} memory_file_t;

static void memory_destroy(sqfs_file_t *base)
{
	memory_file_t *file = (memory_file_t *)base;

	free(file->data);
	free(file);
}

/* Nothing to make durable, nothing to fail on release. */
static int memory_sync(sqfs_file_t *base)
{
	(void)base;
	return 0;
}

static int memory_close(sqfs_file_t *base)
{
	memory_destroy(base);
	return 0;
}

static int memory_read_at(sqfs_file_t *base, uint64_t offset, void *buffer,
			  size_t size)
{
	memory_file_t *file = (memory_file_t *)base;

	if (offset > file->size || size > file->size - offset)
		return SQFS_ERROR_OUT_OF_BOUNDS;
	if (size > 0)
		memcpy(buffer, file->data + offset, size);
	return 0;
}

static int memory_resize(memory_file_t *file, uint64_t size)
{
	if (size > SIZE_MAX / 2)
		return SQFS_ERROR_OVERFLOW;

	if (size > file->capacity) {
		size_t capacity = file->capacity > 0 ? file->capacity : 4096;
		uint8_t *data;

		while (capacity < size)
			capacity *= 2;
		data = realloc(file->data, capacity);
		if (data == NULL)
			return SQFS_ERROR_ALLOC;
		file->data = data;
		file->capacity = capacity;
	}
	if (size > file->size)
		memset(file->data + file->size, 0, (size_t)size - file->size);
	file->size = (size_t)size;
	return 0;
}

static int memory_write_at(sqfs_file_t *base, uint64_t offset,
			   const void *buffer, size_t size)
{
	memory_file_t *file = (memory_file_t *)base;
	int ret;

	if (file->flags & SQFS_FILE_OPEN_READ_ONLY)
		return SQFS_ERROR_UNSUPPORTED;
	if (offset > UINT64_MAX - size)
		return SQFS_ERROR_OVERFLOW;
	if (offset + size > file->size) {
		ret = memory_resize(file, offset + size);
		if (ret != 0)
			return ret;
	}
	if (size > 0)
		memcpy(file->data + offset, buffer, size);
	return 0;
}

static uint64_t memory_get_size(const sqfs_file_t *base)
{
	return ((const memory_file_t *)base)->size;
}

static int memory_truncate(sqfs_file_t *base, uint64_t size)
{
	memory_file_t *file = (memory_file_t *)base;

	if (file->flags & SQFS_FILE_OPEN_READ_ONLY)
		return SQFS_ERROR_UNSUPPORTED;
	return memory_resize(file, size);
}

int sqfs_file_open_memory(sqfs_file_t **out, const void *data, size_t size,
			  unsigned int flags)
{
	memory_file_t *file;

	if (data == NULL && size > 0)
		return SQFS_ERROR_ARG_INVALID;
	if (flags & ~(unsigned int)(SQFS_FILE_OPEN_READ_ONLY |
				    SQFS_FILE_OPEN_OVERWRITE))
		return SQFS_ERROR_ARG_INVALID;

	file = calloc(1, sizeof(*file));
	if (file == NULL)
		return SQFS_ERROR_ALLOC;

	file->base.destroy = memory_destroy;
	file->base.read_at = memory_read_at;
	file->base.write_at = memory_write_at;
	file->base.get_size = memory_get_size;
	file->base.truncate = memory_truncate;
	file->base.sync = memory_sync;
	file->base.close = memory_close;
	file->flags = flags;

	if (size > 0) {
		/* resize checks the flags only on writes, so copy directly */
		if (memory_resize(file, size) != 0) {
			free(file);
			return SQFS_ERROR_ALLOC;
		}
		memcpy(file->data, data, size);
	}

	*out = &file->base;
	return 0;
}

const uint8_t *sqfs_file_memory_data(const sqfs_file_t *base, size_t *size)
{
	const memory_file_t *file = (const memory_file_t *)base;

	if (base == NULL || base->destroy != memory_destroy)
		return NULL;
	*size = file->size;
	/* an empty file still answers with a valid pointer */
	return file->data != NULL ? file->data : (const uint8_t *)"";
}
