/* SPDX-License-Identifier: MIT */
/*
 * sparse_bits.h - a bit array over a large range (one bit or two per inode
 * number of an image), whose pages are allocated when a bit in them is
 * first set.
 *
 * A reader that must recognise an inode met again (a loop, a directory
 * hard link, two inodes claiming one number) needs something per number;
 * a bit is the least that can be, and a hostile image that claims 2^32
 * inodes costs only the pages of the numbers it actually names (plus the
 * table of page pointers: 8 bytes per 32768 bits, 2 MiB at most for
 * 2^33 bits). Not thread safe.
 */
#ifndef UTIL_SPARSE_BITS_H
#define UTIL_SPARSE_BITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
	/* Pages of SPARSE_BITS_PAGE bytes, NULL until a bit is set. */
	uint8_t **pages;
	size_t page_count;
	uint64_t size;
} sparse_bits_t;

/* Bytes of one page. */
#define SPARSE_BITS_PAGE 4096u

/* Bits 0 .. size - 1, all clear. Returns 0, SQFS_ERROR_ALLOC, or
 * SQFS_ERROR_OVERFLOW when the page table would not fit a size_t. */
int sparse_bits_init(sparse_bits_t *b, uint64_t size);

/* Free the pages (the array may be initialised again). */
void sparse_bits_cleanup(sparse_bits_t *b);

/* Whether bit i is set (false for i past the end). */
bool sparse_bits_get(const sparse_bits_t *b, uint64_t i);

/* Set bit i: 0, SQFS_ERROR_OUT_OF_BOUNDS past the end, SQFS_ERROR_ALLOC. */
int sparse_bits_set(sparse_bits_t *b, uint64_t i);

/* Bytes the pages take (for tests and statistics). */
size_t sparse_bits_bytes(const sparse_bits_t *b);

#endif /* UTIL_SPARSE_BITS_H */
