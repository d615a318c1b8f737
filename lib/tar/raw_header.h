/* SPDX-License-Identifier: MIT */
/*
 * raw_header.h - a look at the raw 512-byte header behind an entry.
 *
 * libarchive parses the archive; these checks only fill two gaps in what
 * it reports. When it finds a header damaged it says "Damaged tar
 * archive" without naming the entry, and when a numeric field holds
 * garbage ("zz9zz9") it reads it as 0 without a word. Reading the name,
 * the checksum, the type flag and the well-formedness of the numeric
 * fields of the raw header lets the tools name the entry and refuse the
 * garbage. Nothing here is trusted beyond the 512 bytes given.
 */
#ifndef TAR_RAW_HEADER_H
#define TAR_RAW_HEADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TAR_HEADER_SIZE 512

/*
 * The name the header gives ("prefix/name" for ustar), at most size - 1
 * bytes; bytes that are not printable ASCII become '?', so the name is
 * safe to print. Empty if the header has no name.
 */
void tar_header_name(const uint8_t *h, char *buf, size_t size);

/* The type flag (h[156]). */
char tar_header_type(const uint8_t *h);

/* The size field, octal or base-256; 0 if it is not well-formed. */
uint64_t tar_header_size(const uint8_t *h);

/*
 * Where the header after the one at offset at starts: after this header
 * and its data, padded to 512 bytes. False if that is unknown: an old GNU
 * sparse header followed by extension blocks, or an offset beyond 63 bits.
 */
bool tar_header_next(const uint8_t *h, int64_t at, int64_t *next);

/* Whether the stored checksum matches the header (as an unsigned or, as
 * some old tars computed it, a signed byte sum). */
bool tar_header_checksum_ok(const uint8_t *h);

/*
 * Check the numeric fields an entry header has (mode, uid, gid, size,
 * mtime; device numbers for device entries): octal digits with optional
 * leading spaces, ended by a space or NUL, or base-256 with a value that
 * fits 64 bits signed and is not negative (but for mtime). Returns NULL if
 * they are well-formed, else the name of the first bad field. Headers of
 * extension records (pax, GNU long names, ...) are not checked.
 */
const char *tar_header_bad_field(const uint8_t *h);

#endif /* TAR_RAW_HEADER_H */
