/* SPDX-License-Identifier: MIT */
/*
 * stat.c - --stat: everything an inode holds.
 *
 * Debian's rdsquashfs format: "Label: value" lines, the fields common to
 * all inodes first (the link count for all but basic files, which store
 * none, and the xattr index for extended ones), then those of the type.
 * Times are in UTC and English whatever the locale, so that the output
 * can be compared.
 */
#include "config.h"

#include "rdsquashfs.h"
#include "common/print.h"
#include "util/le.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static const char *type_name(uint16_t type)
{
	static const char *names[] = {
	    "unknown",
	    "directory",
	    "file",
	    "symbolic link",
	    "block device",
	    "character device",
	    "named pipe",
	    "socket",
	    "extended directory",
	    "extended file",
	    "extended symbolic link",
	    "extended block device",
	    "extended character device",
	    "extended named pipe",
	    "extended socket",
	};

	return type < sizeof(names) / sizeof(names[0]) ? names[type] : names[0];
}

static void print_time(uint32_t mtime)
{
	static const char *days[] = {"Sun", "Mon", "Tue", "Wed",
				     "Thu", "Fri", "Sat"};
	static const char *months[] = {"Jan", "Feb", "Mar", "Apr",
				       "May", "Jun", "Jul", "Aug",
				       "Sep", "Oct", "Nov", "Dec"};
	time_t t = (time_t)mtime;
	struct tm tm;

	if (gmtime_r(&t, &tm) == NULL || tm.tm_wday < 0 || tm.tm_wday > 6 ||
	    tm.tm_mon < 0 || tm.tm_mon > 11) {
		printf("Last modified: %" PRIu32 "\n", mtime);
		return;
	}
	printf("Last modified: %s, %02d %s %d %02d:%02d:%02d +0000 (%" PRIu32
	       ")\n",
	       days[tm.tm_wday], tm.tm_mday, months[tm.tm_mon],
	       tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec, mtime);
}

static void print_dir_index(const sqfs_inode_t *inode)
{
	const uint8_t *p = inode->payload;
	size_t left = inode->payload_size;

	printf("Directory index entries: %u\n",
	       (unsigned int)inode->data.dir.index_count);

	/* on-disk form: offset into the listing, block, name size - 1,
	 * name; whatever does not fit the payload is not shown */
	for (unsigned int i = 0; i < inode->data.dir.index_count; ++i) {
		uint32_t index, block, len;

		if (left < 12)
			break;
		index = get_le32(p);
		block = get_le32(p + 4);
		len = get_le32(p + 8);
		if (len >= left - 12)
			break;
		++len;
		printf("\t'%.*s' -> block %" PRIu32 ", header offset %" PRIu32
		       "\n",
		       (int)len, (const char *)p + 12, block, index);
		p += 12 + len;
		left -= 12 + len;
	}
}

static void print_file(const sqfs_inode_t *inode, bool extended)
{
	/* the words the inode holds, as stored: --stat shows the inode even
	 * where its list does not match its size */
	size_t count = inode->payload_size / sizeof(uint32_t);
	const uint32_t *words = sqfs_inode_block_sizes(inode);

	printf("Fragment index: 0x%" PRIX32 "\n",
	       inode->data.file.fragment_index);
	printf("Fragment offset: %" PRIu32 "\n",
	       inode->data.file.fragment_offset);
	printf("File size: %" PRIu64 "\n", inode->data.file.file_size);
	if (extended)
		printf("Sparse: %" PRIu64 "\n", inode->data.file.sparse);
	printf("Blocks start: %" PRIu64 "\n", inode->data.file.blocks_start);
	printf("Block count: %zu\n", count);

	for (size_t i = 0; i < count; ++i) {
		uint32_t word = words[i];

		printf("\tBlock #%zu size: %" PRIu32 " (%s)\n", i,
		       word & 0x00FFFFFFu,
		       (word & 0x01000000u) ? "uncompressed" : "compressed");
	}
}

int rd_stat(rd_ctx_t *ctx)
{
	const char *path = ctx->opt->cmdpath;
	uint32_t uid, gid, major, minor;
	sqfs_inode_t *inode;
	uint16_t type;
	bool extended;
	char name[260];
	int ret;

	if (rd_resolve(ctx, path, &inode) != 0)
		return -1;
	ret = sqfs_image_inode_owner(ctx->img, inode, &uid, &gid);
	if (ret != 0) {
		rd_image_error(ctx, path);
		free(inode);
		return -1;
	}
	type = sqfs_inode_type_basic(inode->type);
	extended = sqfs_inode_type_is_extended(inode->type);
	rd_path_basename(path, name, sizeof(name));

	printf("Name: %s\n", name);
	printf("Inode type: %s\n", type_name(inode->type));
	printf("Inode number: %" PRIu32 "\n", inode->inode_number);
	printf("Access: 0%o\n", (unsigned int)inode->mode);
	printf("UID: %" PRIu32 " (index = %u)\n", uid,
	       (unsigned int)inode->uid_idx);
	printf("GID: %" PRIu32 " (index = %u)\n", gid,
	       (unsigned int)inode->gid_idx);
	print_time(inode->mtime);
	if (extended || type != SQFS_INODE_FILE)
		printf("Hard link count: %" PRIu32 "\n", inode->nlink);
	if (extended)
		printf("Xattr index: 0x%" PRIX32 "\n", inode->xattr_index);

	switch (type) {
	case SQFS_INODE_DIR:
		printf("Start block: %" PRIu32 "\n",
		       inode->data.dir.start_block);
		printf("Offset: %u\n", (unsigned int)inode->data.dir.offset);
		printf("Listing size: %" PRIu32 "\n", inode->data.dir.size);
		printf("Parent inode: %" PRIu32 "\n",
		       inode->data.dir.parent_inode);
		if (extended)
			print_dir_index(inode);
		break;
	case SQFS_INODE_FILE:
		print_file(inode, extended);
		break;
	case SQFS_INODE_SLINK:
		printf("Link target: %.*s\n",
		       (int)inode->data.slink.target_size,
		       (const char *)inode->payload);
		break;
	case SQFS_INODE_BDEV:
	case SQFS_INODE_CDEV:
		sqfs_inode_decode_rdev(inode->data.dev.rdev, &major, &minor);
		printf("Device number: %" PRIu32 ":%" PRIu32 " (%" PRIu32 ")\n",
		       major, minor, inode->data.dev.rdev);
		break;
	default:
		break;
	}
	free(inode);
	return 0;
}
