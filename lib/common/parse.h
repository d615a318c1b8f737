/* SPDX-License-Identifier: MIT */
/*
 * parse.h - numbers and sizes given on the command line.
 *
 * Each parser returns NULL on success or a short reason for the user
 * ("not a number", "too large", ...), which the caller prints as
 * "tool: option: reason".
 */
#ifndef COMMON_PARSE_H
#define COMMON_PARSE_H

#include <stdint.h>

/* A decimal number from 0 to max, nothing else around it. */
const char *parse_uint(const char *str, uint64_t max, uint64_t *out);

/* A count from 1 to max: -j, -Q and the like. */
const char *parse_count(const char *str, uint64_t max, uint64_t *out);

/* An octal number from 0 to max. */
const char *parse_octal(const char *str, uint64_t max, uint64_t *out);

/* A decimal number of bytes, optionally followed by K, M or G (binary
 * multiples, either case), from 0 to max. */
const char *parse_size(const char *str, uint64_t max, uint64_t *out);

/* A data block size: a power of two from 4 KiB to 1 MiB. */
const char *parse_block_size(const char *str, uint32_t *out);

/* A device block size: at least 1024 bytes. */
const char *parse_dev_block_size(const char *str, uint32_t *out);

#endif /* COMMON_PARSE_H */
