/* SPDX-License-Identifier: MIT */
/*
 * raw_header.c - a look at the raw 512-byte header behind an entry.
 */
#include "config.h"

#include "tar/raw_header.h"

#include <string.h>

/* Field offsets and sizes of the ustar header (also v7 and GNU). */
#define HDR_NAME 0
#define HDR_NAME_LEN 100
#define HDR_MODE 100
#define HDR_UID 108
#define HDR_GID 116
#define HDR_SIZE 124
#define HDR_MTIME 136
#define HDR_CHKSUM 148
#define HDR_TYPE 156
#define HDR_MAGIC 257
#define HDR_DEVMAJOR 329
#define HDR_DEVMINOR 337
#define HDR_PREFIX 345
/* old GNU sparse headers: extension blocks follow */
#define HDR_GNU_ISEXTENDED 482
#define HDR_PREFIX_LEN 155

static size_t append_field(char *buf, size_t pos, size_t size,
			   const uint8_t *field, size_t len)
{
	size_t i;

	for (i = 0; i < len && field[i] != '\0' && pos + 1 < size; ++i) {
		uint8_t c = field[i];

		buf[pos++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	return pos;
}

void tar_header_name(const uint8_t *h, char *buf, size_t size)
{
	size_t pos = 0;

	if (size == 0)
		return;

	/* POSIX ustar has a prefix; the GNU format uses that space for
	 * other things and says "ustar  " */
	if (memcmp(h + HDR_MAGIC, "ustar\0", 6) == 0 && h[HDR_PREFIX] != '\0') {
		pos = append_field(buf, pos, size, h + HDR_PREFIX,
				   HDR_PREFIX_LEN);
		if (pos + 1 < size)
			buf[pos++] = '/';
	}
	pos = append_field(buf, pos, size, h + HDR_NAME, HDR_NAME_LEN);
	buf[pos] = '\0';
}

char tar_header_type(const uint8_t *h)
{
	return (char)h[HDR_TYPE];
}

/*
 * A base-256 field (GNU): the top bit of the first byte set, the rest a
 * two's complement big-endian number whose sign is the next bit. Well
 * formed if the value fits 64 bits signed and, unless negative values are
 * allowed, is not negative; libarchive would clamp or pass such values on.
 */
static bool base256_ok(const uint8_t *f, size_t len, bool negative_ok)
{
	bool negative = (f[0] & 0x40) != 0;
	/* bits of the value beyond the lowest 63 must copy the sign */
	uint8_t fill = negative ? 0xff : 0x00;
	size_t i, extra;

	if (negative && !negative_ok)
		return false;
	if (len <= 8) {
		/* 62 bits of value at most: always fits */
		return true;
	}
	extra = len - 8;
	if ((uint8_t)(f[0] | 0x80) != (uint8_t)(fill | 0x80))
		return false;
	for (i = 1; i < extra; ++i) {
		if (f[i] != fill)
			return false;
	}
	/* the top bit of the first of the last 8 bytes is the sign bit */
	return ((f[extra] & 0x80) != 0) == negative;
}

/* Parse an octal field; false if it is not well-formed. Base-256 fields
 * are checked for range only (libarchive reads their value). */
static bool octal_field(const uint8_t *f, size_t len, uint64_t *out,
			bool negative_ok)
{
	size_t i = 0;
	uint64_t value = 0;

	*out = 0;
	if (f[0] & 0x80)
		return base256_ok(f, len, negative_ok);

	while (i < len && f[i] == ' ')
		++i;
	while (i < len && f[i] >= '0' && f[i] <= '7') {
		if (value >> 60)
			return false;
		value = value * 8 + (uint64_t)(f[i] - '0');
		++i;
	}
	while (i < len && (f[i] == ' ' || f[i] == '\0'))
		++i;
	*out = value;
	return i == len;
}

uint64_t tar_header_size(const uint8_t *h)
{
	const uint8_t *f = h + HDR_SIZE;
	uint64_t value = 0;
	size_t i;

	if (!(f[0] & 0x80))
		return octal_field(f, 12, &value, false) ? value : 0;
	if (!base256_ok(f, 12, false))
		return 0;
	for (i = 4; i < 12; ++i)
		value = value << 8 | f[i];
	return value;
}

bool tar_header_next(const uint8_t *h, int64_t at, int64_t *next)
{
	uint64_t span = tar_header_size(h);

	if (tar_header_type(h) == 'S' && h[HDR_GNU_ISEXTENDED] != 0)
		return false;
	if (at < 0 || span > (uint64_t)INT64_MAX - TAR_HEADER_SIZE - 511)
		return false;
	span = TAR_HEADER_SIZE + (span + 511) / 512 * 512;
	if (span > (uint64_t)(INT64_MAX - at))
		return false;
	*next = at + (int64_t)span;
	return true;
}

bool tar_header_checksum_ok(const uint8_t *h)
{
	uint64_t stored, usum = 0;
	int64_t ssum = 0;
	size_t i;

	if (!octal_field(h + HDR_CHKSUM, 8, &stored, false) ||
	    (h[HDR_CHKSUM] & 0x80))
		return false;

	for (i = 0; i < TAR_HEADER_SIZE; ++i) {
		uint8_t c =
		    (i >= HDR_CHKSUM && i < HDR_CHKSUM + 8) ? ' ' : h[i];

		usum += c;
		ssum += (int8_t)c;
	}
	return stored == usum || (int64_t)stored == ssum;
}

const char *tar_header_bad_field(const uint8_t *h)
{
	static const struct {
		const char *name;
		size_t offset;
		size_t len;
		/* times before 1970 are times; nothing else is negative */
		bool negative_ok;
	} fields[] = {
	    {"mode", HDR_MODE, 8, false},   {"uid", HDR_UID, 8, false},
	    {"gid", HDR_GID, 8, false},	    {"size", HDR_SIZE, 12, false},
	    {"mtime", HDR_MTIME, 12, true},
	};
	char type = tar_header_type(h);
	uint64_t value;
	size_t i;

	/* entry headers only: not pax, GNU long name, volume, ... */
	if (type != '\0' && (type < '0' || type > '7'))
		return NULL;

	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); ++i) {
		if (!octal_field(h + fields[i].offset, fields[i].len, &value,
				 fields[i].negative_ok))
			return fields[i].name;
	}
	if (type == '3' || type == '4') {
		if (!octal_field(h + HDR_DEVMAJOR, 8, &value, false))
			return "devmajor";
		if (!octal_field(h + HDR_DEVMINOR, 8, &value, false))
			return "devminor";
	}
	return NULL;
}
