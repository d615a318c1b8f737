/* SPDX-License-Identifier: MIT */
/*
 * malloc_tune.h - keep malloc from holding memory the packers gave back.
 */
#ifndef COMMON_MALLOC_TUNE_H
#define COMMON_MALLOC_TUNE_H

/*
 * For a tool that packs an image, before the writer is made. glibc's
 * malloc serves blocks of 128 KiB and more with mmap, until one of them
 * is freed: it then raises that threshold to the freed block's size (up
 * to 32 MiB), and later blocks below it come from the heap, where the
 * holes that growing and freeing them leaves stay resident. The writer's
 * spilled runs' filters, sort buffers and indexes are such blocks: with
 * --mem 26M, 10^7 entries peaked at 41 MiB with the threshold moving and
 * at 35 MiB with it fixed, in the same time. So it is fixed at 128 KiB.
 * A process-wide setting, for the tools only: the library leaves the
 * caller's malloc alone. Does nothing on other C libraries.
 */
void tool_malloc_tune(void);

#endif /* COMMON_MALLOC_TUNE_H */
