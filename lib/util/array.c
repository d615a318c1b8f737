/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "util/array.h"
#include "sqfs/error.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int array_reserve(array_t *arr, size_t item_size, size_t extra)
{
	size_t cap = arr->capacity;
	void *data;

	if (extra <= cap - arr->count)
		return 0;
	if (extra > SIZE_MAX / item_size - arr->count)
		return SQFS_ERROR_OVERFLOW;
	while (extra > cap - arr->count) {
		if (cap > SIZE_MAX / item_size / 2)
			cap = SIZE_MAX / item_size;
		else
			cap = cap < 16 ? 16 : cap * 2;
	}
	data = realloc(arr->data, cap * item_size);
	if (data == NULL)
		return SQFS_ERROR_ALLOC;
	arr->data = data;
	arr->capacity = cap;
	return 0;
}

int array_append_bytes(array_t *arr, const void *data, size_t size)
{
	int ret = array_reserve(arr, 1, size);

	if (ret != 0)
		return ret;
	if (size > 0)
		memcpy((uint8_t *)arr->data + arr->count, data, size);
	arr->count += size;
	return 0;
}

void array_cleanup(array_t *arr)
{
	free(arr->data);
	arr->data = NULL;
	arr->count = 0;
	arr->capacity = 0;
}
