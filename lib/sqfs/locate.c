/* SPDX-License-Identifier: MIT */
/*
 * Finding where an image starts inside a bigger file (sqfs_image_locate):
 * a plain image, an AppImage (an ELF runtime with the image right after
 * it), a SIF container (Singularity / Apptainer), or, failing those, a
 * bounded scan for a superblock.
 *
 * Every field read from the file is hostile: offsets and sizes are checked
 * against the file size with overflow-safe arithmetic before use, and every
 * loop runs over a count that is bounded by the format (ELF's 16-bit
 * counts) or by a constant (SIF descriptors, scan length).
 */
#include "config.h"

#include "sqfs/image.h"
#include "sqfs/error.h"
#include "sqfs/io.h"
#include "sqfs/super.h"
#include "util/le.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* SIF: the global header, and a descriptor (sylabs' SIF specification:
 * fields packed little-endian, without padding). */
#define SIF_HEADER_SIZE 128
#define SIF_MAGIC_AT 32
#define SIF_DESC_SIZE 585
#define SIF_DATA_PARTITION 0x4004
#define SIF_FS_SQUASHFS 1
#define SIF_FS_ENCRYPTED_SQUASHFS 5
#define SIF_PART_PRIMARY_SYSTEM 2
/* More descriptors than any SIF tool makes (48 by default). */
#define SIF_MAX_DESCRIPTORS 4096u

/* How far the last resort looks for a superblock, and in what pieces. */
#define SCAN_CHUNK 65536u

typedef struct {
	sqfs_file_t *file;
	uint64_t size;
	/* Why each way came up empty, "; "-separated. */
	char why[SQFS_ERROR_TEXT_SIZE];
} locate_t;

static void note(locate_t *l, const char *fmt, ...)
{
	size_t len = strlen(l->why);
	va_list ap;

	if (len + 3 >= sizeof(l->why))
		return;
	if (len > 0) {
		memcpy(l->why + len, "; ", 3);
		len += 2;
	}
	va_start(ap, fmt);
	vsnprintf(l->why + len, sizeof(l->why) - len, fmt, ap);
	va_end(ap);
}

/* Read size bytes at offset, only if they lie inside the file. */
static bool read_in(locate_t *l, uint64_t offset, void *buf, size_t size)
{
	if (offset > l->size || l->size - offset < size)
		return false;
	return l->file->read_at(l->file, offset, buf, size) == 0;
}

/* Whether a valid superblock starts at offset: 0, or the superblock's
 * error. */
static int super_at(locate_t *l, uint64_t offset)
{
	uint8_t raw[SQFS_SUPER_SIZE];
	sqfs_super_t super;

	if (offset > l->size || l->size - offset < SQFS_SUPER_SIZE)
		return SQFS_ERROR_TRUNCATED;
	if (l->file->read_at(l->file, offset, raw, sizeof(raw)) != 0)
		return SQFS_ERROR_IO;
	sqfs_super_decode(&super, raw);
	return sqfs_super_validate(&super, l->size - offset);
}

/* ---- ELF (an AppImage's runtime) ----------------------------------------- */

typedef struct {
	bool is64;
	bool big;
} elf_t;

static uint64_t elf_get(const elf_t *e, const uint8_t *p, size_t width)
{
	uint64_t v = 0;

	for (size_t i = 0; i < width; ++i) {
		size_t at = e->big ? i : width - 1 - i;

		v = (v << 8) | p[at];
	}
	return v;
}

/* Extend *end to cover count records of entsize bytes at offset, if they
 * fit the file. */
static bool cover_table(locate_t *l, uint64_t offset, uint64_t count,
			uint64_t entsize, uint64_t *end, const char *what)
{
	uint64_t bytes = count * entsize; /* both < 2^16: no overflow */

	if (count == 0)
		return true;
	if (offset > l->size || l->size - offset < bytes) {
		note(l,
		     "ELF: the %s table (%llu entries at %llu) runs past "
		     "the end of the file",
		     what, (unsigned long long)count,
		     (unsigned long long)offset);
		return false;
	}
	if (offset + bytes > *end)
		*end = offset + bytes;
	return true;
}

/* The end of the ELF file at offset 0: the furthest of the header, the
 * section and program header tables, and the data of every section and
 * segment. */
static bool elf_end(locate_t *l, uint64_t *end)
{
	uint8_t h[64], ent[64];
	uint64_t phoff, shoff, phent, phnum, shent, shnum, hsize;
	size_t ph_min, sh_min;
	elf_t e;

	if (!read_in(l, 0, h, 52)) {
		note(l, "ELF: the header is cut off");
		return false;
	}
	if (h[4] != 1 && h[4] != 2) {
		note(l, "ELF: class %u is neither 32 nor 64-bit", h[4]);
		return false;
	}
	if (h[5] != 1 && h[5] != 2) {
		note(l, "ELF: byte order %u is neither little nor big endian",
		     h[5]);
		return false;
	}
	e.is64 = h[4] == 2;
	e.big = h[5] == 2;
	hsize = e.is64 ? 64 : 52;
	if (e.is64 && !read_in(l, 0, h, 64)) {
		note(l, "ELF: the header is cut off");
		return false;
	}

	if (e.is64) {
		phoff = elf_get(&e, h + 32, 8);
		shoff = elf_get(&e, h + 40, 8);
		phent = elf_get(&e, h + 54, 2);
		phnum = elf_get(&e, h + 56, 2);
		shent = elf_get(&e, h + 58, 2);
		shnum = elf_get(&e, h + 60, 2);
		ph_min = 56;
		sh_min = 64;
	} else {
		phoff = elf_get(&e, h + 28, 4);
		shoff = elf_get(&e, h + 32, 4);
		phent = elf_get(&e, h + 42, 2);
		phnum = elf_get(&e, h + 44, 2);
		shent = elf_get(&e, h + 46, 2);
		shnum = elf_get(&e, h + 48, 2);
		ph_min = 32;
		sh_min = 40;
	}
	if ((phnum > 0 && phent < ph_min) || (shnum > 0 && shent < sh_min)) {
		note(l, "ELF: header table entries too small (%llu, %llu)",
		     (unsigned long long)phent, (unsigned long long)shent);
		return false;
	}

	*end = hsize;
	if (!cover_table(l, phoff, phnum, phent, end, "program header") ||
	    !cover_table(l, shoff, shnum, shent, end, "section header"))
		return false;

	/* at most 65535 of each: the counts are 16 bits */
	for (uint64_t i = 0; i < phnum; ++i) {
		uint64_t off, size;

		if (!read_in(l, phoff + i * phent, ent, ph_min))
			return false;
		off = elf_get(&e, ent + (e.is64 ? 8 : 4), e.is64 ? 8 : 4);
		size = elf_get(&e, ent + (e.is64 ? 32 : 16), e.is64 ? 8 : 4);
		if (size == 0)
			continue;
		if (off > l->size || l->size - off < size) {
			note(l,
			     "ELF: segment %llu runs past the end of the "
			     "file",
			     (unsigned long long)i);
			return false;
		}
		if (off + size > *end)
			*end = off + size;
	}
	for (uint64_t i = 0; i < shnum; ++i) {
		uint64_t type, off, size;

		if (!read_in(l, shoff + i * shent, ent, sh_min))
			return false;
		type = elf_get(&e, ent + 4, 4);
		off = elf_get(&e, ent + (e.is64 ? 24 : 16), e.is64 ? 8 : 4);
		size = elf_get(&e, ent + (e.is64 ? 32 : 20), e.is64 ? 8 : 4);
		/* SHT_NULL and SHT_NOBITS take no room in the file */
		if (type == 0 || type == 8 || size == 0)
			continue;
		if (off > l->size || l->size - off < size) {
			note(l,
			     "ELF: section %llu runs past the end of the "
			     "file",
			     (unsigned long long)i);
			return false;
		}
		if (off + size > *end)
			*end = off + size;
	}
	return true;
}

static bool try_elf(locate_t *l, uint64_t *offset, char *found)
{
	uint64_t end;
	int ret;

	if (!elf_end(l, &end))
		return false;
	ret = super_at(l, end);
	if (ret != 0) {
		note(l, "ELF: no image where the executable ends (%llu): %s",
		     (unsigned long long)end, sqfs_error_string(ret));
		return false;
	}
	*offset = end;
	snprintf(found, SQFS_ERROR_TEXT_SIZE,
		 "an image after an ELF executable (an AppImage) at %llu",
		 (unsigned long long)end);
	return true;
}

/* ---- SIF ----------------------------------------------------------------- */

static bool try_sif(locate_t *l, uint64_t *offset, char *found)
{
	uint8_t h[SIF_HEADER_SIZE], d[SIF_DESC_SIZE];
	uint64_t total, desc_off, best = 0;
	bool have = false, primary = false, encrypted = false;
	int64_t stotal, sdoff;

	if (!read_in(l, 0, h, sizeof(h))) {
		note(l, "SIF: the global header is cut off");
		return false;
	}
	stotal = (int64_t)get_le64(h + 88);
	sdoff = (int64_t)get_le64(h + 96);
	if (stotal < 0 || sdoff < SIF_HEADER_SIZE) {
		note(l,
		     "SIF: descriptor count %lld or offset %lld out of range",
		     (long long)stotal, (long long)sdoff);
		return false;
	}
	total = (uint64_t)stotal;
	desc_off = (uint64_t)sdoff;
	if (total > SIF_MAX_DESCRIPTORS) {
		note(l, "SIF: %llu descriptors, more than %u",
		     (unsigned long long)total, SIF_MAX_DESCRIPTORS);
		return false;
	}
	if (desc_off > l->size ||
	    (l->size - desc_off) / SIF_DESC_SIZE < total) {
		note(l,
		     "SIF: %llu descriptors at %llu run past the end of the "
		     "file",
		     (unsigned long long)total, (unsigned long long)desc_off);
		return false;
	}

	for (uint64_t i = 0; i < total; ++i) {
		uint32_t type, fstype, parttype;
		int64_t off, size;

		if (!read_in(l, desc_off + i * SIF_DESC_SIZE, d, sizeof(d)))
			return false;
		type = get_le32(d);
		fstype = get_le32(d + 201);
		parttype = get_le32(d + 205);
		if (d[4] == 0 || type != SIF_DATA_PARTITION)
			continue;
		if (fstype == SIF_FS_ENCRYPTED_SQUASHFS)
			encrypted = true;
		if (fstype != SIF_FS_SQUASHFS)
			continue;
		off = (int64_t)get_le64(d + 17);
		size = (int64_t)get_le64(d + 25);
		if (off < 0 || size < SQFS_SUPER_SIZE ||
		    (uint64_t)off > l->size ||
		    l->size - (uint64_t)off < (uint64_t)size) {
			note(l,
			     "SIF: squashfs partition %llu (%lld bytes at "
			     "%lld) lies outside the file",
			     (unsigned long long)i, (long long)size,
			     (long long)off);
			continue;
		}
		if (super_at(l, (uint64_t)off) != 0) {
			note(l,
			     "SIF: squashfs partition %llu at %lld holds no "
			     "valid superblock",
			     (unsigned long long)i, (long long)off);
			continue;
		}
		/* the primary system partition wins, else the first */
		if (!have ||
		    (!primary && parttype == SIF_PART_PRIMARY_SYSTEM)) {
			best = (uint64_t)off;
			primary = parttype == SIF_PART_PRIMARY_SYSTEM;
			have = true;
		}
	}
	if (!have) {
		note(l, "SIF: no squashfs partition%s",
		     encrypted ? " but an encrypted one, which this library "
				 "cannot read"
			       : "");
		return false;
	}
	*offset = best;
	snprintf(found, SQFS_ERROR_TEXT_SIZE,
		 "the %ssquashfs partition of a SIF container at %llu",
		 primary ? "primary " : "", (unsigned long long)best);
	return true;
}

/* ---- the last resort ----------------------------------------------------- */

static bool try_scan(locate_t *l, uint64_t limit, uint64_t *offset, char *found)
{
	uint8_t *buf = malloc(SCAN_CHUNK + 3);
	uint64_t pos = 1, stop;
	bool ok = false;

	if (buf == NULL) {
		note(l, "scan: out of memory");
		return false;
	}
	stop = l->size < SQFS_SUPER_SIZE ? 0 : l->size - SQFS_SUPER_SIZE + 1;
	if (stop > limit)
		stop = limit;

	/* chunks overlap by 3 bytes so that no magic is cut in two */
	while (!ok && pos < stop) {
		size_t n =
		    stop - pos > SCAN_CHUNK ? SCAN_CHUNK : (size_t)(stop - pos);

		if (!read_in(l, pos, buf, n + 3))
			break;
		for (size_t i = 0; i < n; ++i) {
			if (buf[i] != 'h' || memcmp(buf + i, "hsqs", 4) != 0)
				continue;
			if (super_at(l, pos + i) == 0) {
				*offset = pos + i;
				ok = true;
				break;
			}
		}
		pos += n;
	}
	free(buf);
	if (!ok) {
		note(l, "no valid superblock in the first %llu bytes",
		     (unsigned long long)(stop < limit ? l->size : limit));
		return false;
	}
	snprintf(found, SQFS_ERROR_TEXT_SIZE,
		 "a superblock at %llu, found by a scan",
		 (unsigned long long)*offset);
	return true;
}

int sqfs_image_locate(sqfs_file_t *file, uint64_t scan_limit, uint64_t *offset,
		      char *why)
{
	char found[SQFS_ERROR_TEXT_SIZE];
	uint8_t magic[SIF_MAGIC_AT + 10];
	locate_t l;
	int ret;

	if (why != NULL)
		why[0] = '\0';
	if (file == NULL || offset == NULL) {
		if (why != NULL)
			snprintf(why, SQFS_ERROR_TEXT_SIZE,
				 "sqfs_image_locate: no file or offset");
		return SQFS_ERROR_ARG_INVALID;
	}

	memset(&l, 0, sizeof(l));
	l.file = file;
	l.size = file->get_size(file);
	memset(magic, 0, sizeof(magic));
	if (l.size > 0) {
		size_t n =
		    l.size < sizeof(magic) ? (size_t)l.size : sizeof(magic);

		if (file->read_at(file, 0, magic, n) != 0) {
			if (why != NULL)
				snprintf(why, SQFS_ERROR_TEXT_SIZE,
					 "reading the start of the file");
			return SQFS_ERROR_IO;
		}
	}

	ret = super_at(&l, 0);
	if (ret == 0) {
		*offset = 0;
		if (why != NULL)
			snprintf(why, SQFS_ERROR_TEXT_SIZE,
				 "a plain image at 0");
		return 0;
	}
	if (memcmp(magic, "hsqs", 4) == 0)
		note(&l, "a superblock at 0 that is not valid: %s",
		     sqfs_error_string(ret));

	if ((memcmp(magic,
		    "\x7f"
		    "ELF",
		    4) == 0 &&
	     try_elf(&l, offset, found)) ||
	    (memcmp(magic + SIF_MAGIC_AT, "SIF_MAGIC", 10) == 0 &&
	     try_sif(&l, offset, found)) ||
	    (scan_limit > 0 && try_scan(&l, scan_limit, offset, found))) {
		if (why != NULL)
			snprintf(why, SQFS_ERROR_TEXT_SIZE, "%s", found);
		return 0;
	}

	if (memcmp(magic, "hsqs", 4) != 0 &&
	    memcmp(magic,
		   "\x7f"
		   "ELF",
		   4) != 0 &&
	    memcmp(magic + SIF_MAGIC_AT, "SIF_MAGIC", 10) != 0 &&
	    scan_limit == 0)
		note(&l, "neither an image, an ELF executable nor a SIF "
			 "container");
	if (why != NULL)
		snprintf(why, SQFS_ERROR_TEXT_SIZE, "%s", l.why);
	return SQFS_ERROR_SUPER_MAGIC;
}
