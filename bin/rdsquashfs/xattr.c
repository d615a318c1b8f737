/* SPDX-License-Identifier: MIT */
/*
 * xattr.c - --xattr: the extended attributes of an entry.
 *
 * One KEY=VALUE a line, in the image's order, as Debian's rdsquashfs
 * prints them: text as it is (terminating NULs dropped), anything with
 * control characters as 0x and upper-case hex digits. A NUL inside the
 * value also makes it hex (Debian's tool would cut the value there).
 */
#include "config.h"

#include "rdsquashfs.h"
#include "common/print.h"

#include <stdio.h>

static bool is_text(const uint8_t *v, size_t size)
{
	for (size_t i = 0; i < size; ++i) {
		uint8_t c = v[i];

		if (c == 0x7f || c == 0)
			return false;
		if (c < 0x20 && !(c >= '\t' && c <= '\r'))
			return false;
	}
	return true;
}

static void print_xattr(const sqfs_xattr_t *x)
{
	const uint8_t *v = x->value;
	size_t len = x->size;

	while (len > 0 && v[len - 1] == 0)
		--len;

	printf("%s=", x->key);
	if (is_text(v, len)) {
		fwrite(v, 1, len, stdout);
	} else {
		fputs("0x", stdout);
		for (size_t i = 0; i < x->size; ++i)
			printf("%02X", v[i]);
	}
	putchar('\n');
}

int rd_xattr(rd_ctx_t *ctx)
{
	sqfs_image_source_t *src = NULL;
	const sqfs_entry_t *e;

	if (rd_entry_at(ctx, ctx->opt->cmdpath, SQFS_SOURCE_NO_DATA, &src,
			&e) != 0) {
		sqfs_image_source_destroy(src);
		return -1;
	}
	for (size_t i = 0; i < e->xattr_count; ++i)
		print_xattr(&e->xattrs[i]);
	sqfs_image_source_destroy(src);
	return 0;
}
