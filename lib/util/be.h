/* SPDX-License-Identifier: MIT */
/*
 * be.h - big-endian loads and stores at any alignment.
 *
 * Not for the image (SquashFS is little-endian: le.h): for the keys of
 * what the writer sorts in spill files, which are compared with memcmp,
 * so that their numbers must put the most significant byte first.
 */
#ifndef UTIL_BE_H
#define UTIL_BE_H

#include <stdint.h>

static inline void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void put_be32(uint8_t *p, uint32_t v)
{
	for (int i = 3; i >= 0; --i, v >>= 8)
		p[i] = (uint8_t)v;
}

static inline void put_be64(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; --i, v >>= 8)
		p[i] = (uint8_t)v;
}

static inline uint16_t get_be16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static inline uint32_t get_be32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
	       ((uint32_t)p[2] << 8) | p[3];
}

static inline uint64_t get_be64(const uint8_t *p)
{
	return ((uint64_t)get_be32(p) << 32) | get_be32(p + 4);
}

#endif /* UTIL_BE_H */
