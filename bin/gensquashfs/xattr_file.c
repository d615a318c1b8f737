/* SPDX-License-Identifier: MIT */
/*
 * xattr_file.c - extended attributes from a file (--xattr-file) in the
 * form `getfattr --dump` writes:
 *
 *     # file: PATH
 *     user.key="text"
 *     user.bin=0x00ff01
 *     security.selinux=0sc3lzdGVtX3U6b2JqZWN0X3I6YmluX3Q6czAA
 *
 * PATH is a path in the image (made canonical: a leading '/' or "./",
 * empty and "." components dropped; ".." refused), with getfattr's octal
 * escapes (\NNN) for unusual bytes. A value is quoted
 * text (\" \\ and \NNN escapes), 0x hex, 0s base64, or nothing (empty).
 * Keys are checked against what the image can hold as the file is read,
 * and every complaint names the file and the line.
 */
#include "config.h"

#include "gensquashfs.h"
#include "common/xattr_text.h"
#include "common/print.h"
#include "sqfs/xattr.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	const char *name;
	size_t line;
	gs_entries_t *entries;
	/* the entry the "# file:" line named, or NULL before the first */
	gs_entry_t *cur;
	gs_path_index_t index;
} xattr_file_t;

static int bad(xattr_file_t *xf, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int bad(xattr_file_t *xf, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gs_text_verror(xf->name, xf->line, fmt, ap);
	va_end(ap);
	return -1;
}

static int oom(void)
{
	tool_error(NULL, "out of memory");
	return -1;
}

/* getfattr's \NNN octal escapes, in place; a backslash not followed by
 * three octal digits stays. Returns the new length. */
static size_t unescape_octal(char *s)
{
	char *in = s, *out = s;

	while (*in != '\0') {
		if (in[0] == '\\' && in[1] >= '0' && in[1] <= '3' &&
		    in[2] >= '0' && in[2] <= '7' && in[3] >= '0' &&
		    in[3] <= '7') {
			*out++ = (char)((in[1] - '0') * 64 + (in[2] - '0') * 8 +
					(in[3] - '0'));
			in += 4;
			continue;
		}
		*out++ = *in++;
	}
	*out = '\0';
	return (size_t)(out - s);
}

/* The entry of path; the index over the list is made at the first
 * "# file:" line (a dump of a whole tree names every entry). */
static int find_entry(xattr_file_t *xf, const char *path, gs_entry_t **out)
{
	const gs_entries_t *e = xf->entries;
	size_t *slot;

	if (xf->index.slots == NULL) {
		if (gs_path_index_reserve(&xf->index, e) != 0)
			return oom();
		/* a path given twice (a listing's directory): the later
		 * entry is the one whose attributes win */
		for (size_t i = 0; i < e->count; ++i)
			*gs_path_index_slot(&xf->index, e, e->list[i].path) = i;
	}
	slot = gs_path_index_slot(&xf->index, e, path);
	*out = *slot != SIZE_MAX ? &xf->entries->list[*slot] : NULL;
	return 0;
}

static int file_line(xattr_file_t *xf, char *p)
{
	p += strlen("# file:");
	p += strspn(p, " \t");
	unescape_octal(p);
	if (gs_path_canonical(p) == NULL)
		return bad(xf, "'..' in the path '%s'", p);
	if (find_entry(xf, p, &xf->cur) != 0)
		return -1;
	if (xf->cur == NULL)
		return bad(xf, "no entry '%s' in the image", p[0] ? p : "/");
	if (xf->cur->hard_link)
		return bad(xf,
			   "'%s' is a hard link: its xattrs are those of "
			   "'%s'",
			   p, xf->cur->target);
	return 0;
}

/* The value text v decoded into out (room for strlen(v) bytes); -1 after
 * printing why. */
static int decode_value(xattr_file_t *xf, const char *v, uint8_t *out,
			size_t *size)
{
	size_t n = 0, len = strlen(v);
	const char *at;

	if (len == 0) {
		*size = 0;
		return 0;
	}
	if (v[0] == '"') {
		if (len < 2 || v[len - 1] != '"')
			return bad(xf, "unterminated quote in the value");
		for (size_t i = 1; i + 1 < len; ++i) {
			if (v[i] == '\\' && i + 2 < len &&
			    (v[i + 1] == '"' || v[i + 1] == '\\')) {
				out[n++] = (uint8_t)v[++i];
			} else if (v[i] == '\\' && i + 4 < len &&
				   v[i + 1] >= '0' && v[i + 1] <= '3' &&
				   v[i + 2] >= '0' && v[i + 2] <= '7' &&
				   v[i + 3] >= '0' && v[i + 3] <= '7') {
				out[n++] = (uint8_t)((v[i + 1] - '0') * 64 +
						     (v[i + 2] - '0') * 8 +
						     (v[i + 3] - '0'));
				i += 3;
			} else {
				out[n++] = (uint8_t)v[i];
			}
		}
	} else if (v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
		ssize_t got = xattr_text_hex(v + 2, out, &at);

		if (got < 0 && *at == '\0')
			return bad(xf, "an odd number of hex digits");
		if (got < 0)
			return bad(xf, "'%c%c' is not hex", at[0], at[1]);
		n = (size_t)got;
	} else if (v[0] == '0' && (v[1] == 's' || v[1] == 'S')) {
		ssize_t got = xattr_text_base64(v + 2, out, &at);

		if (got < 0)
			return bad(xf, "'%c' is not base64", *at);
		n = (size_t)got;
	} else {
		return bad(xf, "a value is quoted, 0x hex or 0s base64: '%s'",
			   v);
	}
	*size = n;
	return 0;
}

static int value_line(xattr_file_t *xf, char *p)
{
	char *eq = strchr(p, '='), *key;
	const char *why;
	sqfs_xattr_t x;
	uint8_t *value;
	size_t size;
	gs_entry_t *e = xf->cur;

	if (e == NULL)
		return bad(xf, "an xattr before any '# file:' line");
	if (eq != NULL)
		*eq = '\0';
	value = malloc(eq != NULL ? strlen(eq + 1) + 1 : 1);
	key = strdup(p);
	if (value == NULL || key == NULL) {
		free(value);
		free(key);
		return oom();
	}
	size = 0;
	if (eq != NULL && decode_value(xf, eq + 1, value, &size) != 0)
		goto fail;

	x.key = key;
	x.value = value;
	x.size = size;
	if (sqfs_xattr_check(&x, &why) != 0) {
		bad(xf, "xattr '%s': %s", key, why);
		goto fail;
	}

	/* a key given again replaces the value */
	if (gs_entry_set_xattr(e, key, value, size) != 0)
		return oom();
	return 0;
fail:
	free(value);
	free(key);
	return -1;
}

static int xattr_line(void *user, size_t line, char *text)
{
	xattr_file_t *xf = user;

	xf->line = line;
	if (strncmp(text, "# file:", 7) == 0)
		return file_line(xf, text);
	if (text[0] == '#')
		return 0;
	return value_line(xf, text);
}

int gs_apply_xattr_stream(FILE *fp, const char *name, gs_entries_t *entries)
{
	xattr_file_t xf = {0};
	int ret;

	xf.name = name;
	xf.entries = entries;
	/* "# file:" lines are not comments here: every line is read */
	ret = gs_text_lines_all(fp, name, xattr_line, &xf);
	gs_path_index_free(&xf.index);
	return ret;
}

int gs_apply_xattr_file(const char *name, gs_entries_t *entries)
{
	FILE *fp = gs_text_open(name);
	int ret;

	if (fp == NULL)
		return -1;
	ret = gs_apply_xattr_stream(fp, name, entries);
	fclose(fp);
	return ret;
}
