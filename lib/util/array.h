/* SPDX-License-Identifier: MIT */
/*
 * array.h - a growable array of fixed-size items, for the writers that
 * collect records of unknown count (directory entries, xattr pairs).
 */
#ifndef UTIL_ARRAY_H
#define UTIL_ARRAY_H

#include <stddef.h>

typedef struct {
	void *data;
	/* Items in use and items allocated. */
	size_t count;
	size_t capacity;
} array_t;

/*
 * Make room for extra more items of item_size bytes, doubling the capacity
 * as needed. Returns 0, SQFS_ERROR_OVERFLOW if the size would not fit a
 * size_t, or SQFS_ERROR_ALLOC.
 */
int array_reserve(array_t *arr, size_t item_size, size_t extra);

/* Append size bytes to an array of bytes (item size 1). */
int array_append_bytes(array_t *arr, const void *data, size_t size);

/* Free the items and zero the array. */
void array_cleanup(array_t *arr);

#endif /* UTIL_ARRAY_H */
