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

/* Parse an octal field; false if it is not well-formed. Base-256 fields
 * count as well-formed (libarchive judges their value). */
static bool octal_field(const uint8_t *f, size_t len, uint64_t *out)
{
	size_t i = 0;
	uint64_t value = 0;

	*out = 0;
	if (f[0] & 0x80)
		return true;

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

bool tar_header_checksum_ok(const uint8_t *h)
{
	uint64_t stored, usum = 0;
	int64_t ssum = 0;
	size_t i;

	if (!octal_field(h + HDR_CHKSUM, 8, &stored) || (h[HDR_CHKSUM] & 0x80))
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
	} fields[] = {
	    {"mode", HDR_MODE, 8},    {"uid", HDR_UID, 8},
	    {"gid", HDR_GID, 8},      {"size", HDR_SIZE, 12},
	    {"mtime", HDR_MTIME, 12},
	};
	char type = tar_header_type(h);
	uint64_t value;
	size_t i;

	/* entry headers only: not pax, GNU long name, volume, ... */
	if (type != '\0' && (type < '0' || type > '7'))
		return NULL;

	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); ++i) {
		if (!octal_field(h + fields[i].offset, fields[i].len, &value))
			return fields[i].name;
	}
	if (type == '3' || type == '4') {
		if (!octal_field(h + HDR_DEVMAJOR, 8, &value))
			return "devmajor";
		if (!octal_field(h + HDR_DEVMINOR, 8, &value))
			return "devminor";
	}
	return NULL;
}
