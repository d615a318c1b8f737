/* SPDX-License-Identifier: MIT */
/*
 * count_uncompress.h - counting the blocks an image's readers unpack, in
 * every thread: the image's compressor (and every copy the readers make
 * of it for their threads) is wrapped so that each uncompress call is
 * counted. One image at a time.
 */
#ifndef TESTS_READER_COUNT_UNCOMPRESS_H
#define TESTS_READER_COUNT_UNCOMPRESS_H

#include "sqfs/image.h"

/* Wrap img's compressor and start counting from zero. */
void count_uncompress(sqfs_image_t *img);

/* The blocks unpacked since count_uncompress. */
unsigned long uncompress_count(void);

/* Unwrap img's compressor; returns the blocks unpacked since
 * count_uncompress. */
unsigned long stop_counting(sqfs_image_t *img);

#endif
