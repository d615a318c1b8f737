/* SPDX-License-Identifier: MIT */
/*
 * sparse_bits.c - a bit array whose pages are allocated on first use.
 */
#include "config.h"

#include "util/sparse_bits.h"

#include "sqfs/error.h"

#include <stdlib.h>
#include <string.h>

#define PAGE_BITS ((uint64_t)SPARSE_BITS_PAGE * 8)

int sparse_bits_init(sparse_bits_t *b, uint64_t size)
{
	uint64_t count = size / PAGE_BITS + 1;

	memset(b, 0, sizeof(*b));
	if (count > SIZE_MAX / sizeof(b->pages[0]))
		return SQFS_ERROR_OVERFLOW;
	b->pages = calloc((size_t)count, sizeof(b->pages[0]));
	if (b->pages == NULL)
		return SQFS_ERROR_ALLOC;
	b->page_count = (size_t)count;
	b->size = size;
	return 0;
}

void sparse_bits_cleanup(sparse_bits_t *b)
{
	for (size_t i = 0; i < b->page_count; ++i)
		free(b->pages[i]);
	free(b->pages);
	memset(b, 0, sizeof(*b));
}

bool sparse_bits_get(const sparse_bits_t *b, uint64_t i)
{
	const uint8_t *page;

	if (i >= b->size)
		return false;
	page = b->pages[i / PAGE_BITS];
	if (page == NULL)
		return false;
	i %= PAGE_BITS;
	return (page[i / 8] >> (i % 8)) & 1;
}

int sparse_bits_set(sparse_bits_t *b, uint64_t i)
{
	uint8_t **page;

	if (i >= b->size)
		return SQFS_ERROR_OUT_OF_BOUNDS;
	page = &b->pages[i / PAGE_BITS];
	if (*page == NULL) {
		*page = calloc(1, SPARSE_BITS_PAGE);
		if (*page == NULL)
			return SQFS_ERROR_ALLOC;
	}
	i %= PAGE_BITS;
	(*page)[i / 8] |= (uint8_t)(1u << (i % 8));
	return 0;
}

size_t sparse_bits_bytes(const sparse_bits_t *b)
{
	size_t n = b->page_count * sizeof(b->pages[0]);

	for (size_t i = 0; i < b->page_count; ++i) {
		if (b->pages[i] != NULL)
			n += SPARSE_BITS_PAGE;
	}
	return n;
}
