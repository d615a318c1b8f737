/* SPDX-License-Identifier: MIT */
/*
 * inode.c - encoding and decoding the fourteen inode layouts.
 *
 * Reading trusts no count from the image: a variable part (block list,
 * directory index) is read in chunks into a payload that grows only as
 * fast as data actually arrives from the inode table, so a claimed size
 * can never turn into an allocation larger than the table itself.
 */
#include "config.h"

#include "sqfs/error.h"
#include "sqfs/inode.h"
#include "sqfs/meta_reader.h"
#include "sqfs/meta_writer.h"
#include "sqfs/super.h"
#include "util/le.h"
#include "sqfs/format_internal.h"
#include "sqfs/inode_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* largest fixed part after the header: the extended file */
#define MAX_BODY_SIZE 40

/* An empty directory is 3 bytes; the smallest listing adds 21. */

/* Size words read per step; bounds the allocation ahead of real data. */
#define WORD_CHUNK 1024u

sqfs_inode_t *sqfs_inode_alloc(size_t payload_size)
{
	sqfs_inode_t *inode;

	if (payload_size > SIZE_MAX - sizeof(*inode))
		return NULL;
	inode = calloc(1, sizeof(*inode) + payload_size);
	if (inode != NULL)
		inode->payload_size = payload_size;
	return inode;
}

uint32_t *sqfs_inode_block_sizes(const sqfs_inode_t *inode)
{
	/* payload follows a size_t, so it is aligned for uint32_t */
	return (uint32_t *)(uintptr_t)(const void *)inode->payload;
}

uint64_t sqfs_inode_block_count(const sqfs_inode_t *inode, uint32_t block_size)
{
	uint64_t size = inode->data.file.file_size;

	if (block_size == 0)
		return 0;
	if (inode->data.file.fragment_index != SQFS_NO_FRAGMENT)
		return size / block_size;
	return size / block_size + (size % block_size != 0 ? 1 : 0);
}

bool sqfs_inode_type_is_extended(uint16_t type)
{
	return type >= SQFS_INODE_EXT_DIR && type <= SQFS_INODE_EXT_SOCKET;
}

uint16_t sqfs_inode_type_basic(uint16_t type)
{
	if (sqfs_inode_type_is_extended(type))
		return (uint16_t)(type - (SQFS_INODE_EXT_DIR - SQFS_INODE_DIR));
	return type;
}

uint32_t sqfs_inode_mode(const sqfs_inode_t *inode)
{
	uint32_t mode = inode->mode & SQFS_INODE_MODE_MASK;

	switch (sqfs_inode_type_basic(inode->type)) {
	case SQFS_INODE_DIR:
		return mode | S_IFDIR;
	case SQFS_INODE_FILE:
		return mode | S_IFREG;
	case SQFS_INODE_SLINK:
		return mode | S_IFLNK;
	case SQFS_INODE_BDEV:
		return mode | S_IFBLK;
	case SQFS_INODE_CDEV:
		return mode | S_IFCHR;
	case SQFS_INODE_FIFO:
		return mode | S_IFIFO;
	case SQFS_INODE_SOCKET:
		return mode | S_IFSOCK;
	default:
		return mode;
	}
}

bool sqfs_inode_encode_rdev(uint32_t major, uint32_t minor, uint32_t *rdev)
{
	if (major > SQFS_RDEV_MAJOR_MAX || minor > SQFS_RDEV_MINOR_MAX)
		return false;
	*rdev = (major << 8) | (minor & 0xFF) | ((minor & ~0xFFu) << 12);
	return true;
}

void sqfs_inode_decode_rdev(uint32_t rdev, uint32_t *major, uint32_t *minor)
{
	*major = (rdev >> 8) & SQFS_RDEV_MAJOR_MAX;
	*minor = (rdev & 0xFF) | ((rdev >> 12) & 0xFFF00);
}

/* ---- writing ------------------------------------------------------------ */

/* The payload of an extended directory must be exactly index_count
 * entries that the reader accepts. */
static int check_dir_index(const sqfs_inode_t *inode)
{
	uint32_t listing = inode->data.dir.size - SQFS_DIR_SIZE_EMPTY;
	uint32_t index, start, prev_index = 0, prev_start = 0;
	size_t pos = 0, count = 0, name_size;
	const uint8_t *p;

	while (pos < inode->payload_size) {
		if (inode->payload_size - pos < SQFS_DIR_INDEX_HEADER_SIZE)
			return SQFS_ERROR_ARG_INVALID;
		p = inode->payload + pos;
		index = get_le32(p);
		start = get_le32(p + 4);
		name_size = (size_t)get_le32(p + 8) + 1;
		if (name_size > SQFS_NAME_MAX ||
		    name_size >
			inode->payload_size - pos - SQFS_DIR_INDEX_HEADER_SIZE)
			return SQFS_ERROR_ARG_INVALID;
		if (index >= listing ||
		    (count > 0 && (index <= prev_index || start < prev_start)))
			return SQFS_ERROR_ARG_INVALID;
		prev_index = index;
		prev_start = start;
		pos += SQFS_DIR_INDEX_HEADER_SIZE + name_size;
		++count;
	}
	return count == inode->data.dir.index_count ? 0
						    : SQFS_ERROR_ARG_INVALID;
}

static int check_dir(const sqfs_inode_t *inode, bool ext)
{
	uint32_t size = inode->data.dir.size;

	if (inode->data.dir.offset >= SQFS_META_BLOCK_SIZE)
		return SQFS_ERROR_OVERFLOW;
	if (size < SQFS_DIR_SIZE_EMPTY ||
	    (size > SQFS_DIR_SIZE_EMPTY && size < SQFS_DIR_SIZE_MIN))
		return SQFS_ERROR_ARG_INVALID;
	if (ext)
		return check_dir_index(inode);
	if (size > 0xFFFF || inode->data.dir.index_count != 0 ||
	    inode->payload_size != 0)
		return SQFS_ERROR_OVERFLOW;
	return 0;
}

static int check_file(const sqfs_inode_t *inode, bool ext)
{
	if (inode->payload_size % sizeof(uint32_t) != 0)
		return SQFS_ERROR_ARG_INVALID;
	if (ext)
		return inode->data.file.file_size >> 63 ? SQFS_ERROR_OVERFLOW
							: 0;
	if (inode->data.file.blocks_start > UINT32_MAX ||
	    inode->data.file.file_size > UINT32_MAX ||
	    inode->data.file.sparse != 0 || inode->nlink != 1)
		return SQFS_ERROR_OVERFLOW;
	return 0;
}

static int check_slink(const sqfs_inode_t *inode)
{
	uint32_t size = inode->data.slink.target_size;

	if (size > SQFS_MAX_SYMLINK_SIZE)
		return SQFS_ERROR_OVERFLOW;
	if (size == 0 || inode->payload_size < size ||
	    memchr(inode->payload, 0, size) != NULL)
		return SQFS_ERROR_ARG_INVALID;
	return 0;
}

static int check_inode(const sqfs_inode_t *inode)
{
	bool ext = sqfs_inode_type_is_extended(inode->type);

	if (inode->type < SQFS_INODE_DIR || inode->type > SQFS_INODE_EXT_SOCKET)
		return SQFS_ERROR_ARG_INVALID;
	if ((inode->mode & ~SQFS_INODE_MODE_MASK) != 0 ||
	    inode->inode_number == 0)
		return SQFS_ERROR_ARG_INVALID;
	if (!ext && inode->xattr_index != SQFS_NO_XATTR)
		return SQFS_ERROR_OVERFLOW;

	switch (sqfs_inode_type_basic(inode->type)) {
	case SQFS_INODE_DIR:
		return check_dir(inode, ext);
	case SQFS_INODE_FILE:
		return check_file(inode, ext);
	case SQFS_INODE_SLINK:
		return check_slink(inode);
	default:
		return 0;
	}
}

/* Encode the fixed part after the header; returns its size. */
static size_t encode_body(const sqfs_inode_t *inode, uint8_t *p)
{
	const bool ext = sqfs_inode_type_is_extended(inode->type);

	switch (inode->type) {
	case SQFS_INODE_DIR:
		put_le32(p, inode->data.dir.start_block);
		put_le32(p + 4, inode->nlink);
		put_le16(p + 8, (uint16_t)inode->data.dir.size);
		put_le16(p + 10, inode->data.dir.offset);
		put_le32(p + 12, inode->data.dir.parent_inode);
		return 16;
	case SQFS_INODE_EXT_DIR:
		put_le32(p, inode->nlink);
		put_le32(p + 4, inode->data.dir.size);
		put_le32(p + 8, inode->data.dir.start_block);
		put_le32(p + 12, inode->data.dir.parent_inode);
		put_le16(p + 16, inode->data.dir.index_count);
		put_le16(p + 18, inode->data.dir.offset);
		put_le32(p + 20, inode->xattr_index);
		return 24;
	case SQFS_INODE_FILE:
		put_le32(p, (uint32_t)inode->data.file.blocks_start);
		put_le32(p + 4, inode->data.file.fragment_index);
		put_le32(p + 8, inode->data.file.fragment_offset);
		put_le32(p + 12, (uint32_t)inode->data.file.file_size);
		return 16;
	case SQFS_INODE_EXT_FILE:
		put_le64(p, inode->data.file.blocks_start);
		put_le64(p + 8, inode->data.file.file_size);
		put_le64(p + 16, inode->data.file.sparse);
		put_le32(p + 24, inode->nlink);
		put_le32(p + 28, inode->data.file.fragment_index);
		put_le32(p + 32, inode->data.file.fragment_offset);
		put_le32(p + 36, inode->xattr_index);
		return 40;
	case SQFS_INODE_SLINK:
	case SQFS_INODE_EXT_SLINK:
		/* the extended xattr field follows the target */
		put_le32(p, inode->nlink);
		put_le32(p + 4, inode->data.slink.target_size);
		return 8;
	case SQFS_INODE_BDEV:
	case SQFS_INODE_CDEV:
	case SQFS_INODE_EXT_BDEV:
	case SQFS_INODE_EXT_CDEV:
		put_le32(p, inode->nlink);
		put_le32(p + 4, inode->data.dev.rdev);
		if (!ext)
			return 8;
		put_le32(p + 8, inode->xattr_index);
		return 12;
	default:
		put_le32(p, inode->nlink);
		if (!ext)
			return 4;
		put_le32(p + 4, inode->xattr_index);
		return 8;
	}
}

static int write_block_sizes(meta_stream_t *ms, const sqfs_inode_t *inode)
{
	const uint32_t *words = (const uint32_t *)(const void *)inode->payload;
	size_t count = inode->payload_size / sizeof(uint32_t);
	uint8_t buf[WORD_CHUNK * sizeof(uint32_t)];
	size_t i, n;
	int ret;

	while (count > 0) {
		n = count < WORD_CHUNK ? count : WORD_CHUNK;
		for (i = 0; i < n; ++i)
			put_le32(buf + i * sizeof(uint32_t), words[i]);
		ret = meta_stream_append(ms, buf, n * sizeof(uint32_t));
		if (ret != 0)
			return ret;
		words += n;
		count -= n;
	}
	return 0;
}

/*
 * Declare the fields that hold directory-table block numbers: the start
 * of the listing, and each directory index entry's block. ahead counts
 * from the inode's first byte; the index is the payload, after the body.
 */
static int refer_dir_blocks(meta_stream_t *ms, const sqfs_inode_t *inode)
{
	const size_t body = SQFS_INODE_HEADER_SIZE;
	/* the index follows the extended body's 24 bytes (encode_body) */
	size_t pos = 0, head = body + 24;
	const uint8_t *p;
	int ret;

	if (inode->type == SQFS_INODE_DIR)
		return meta_stream_refer(ms, body, inode->data.dir.start_block);
	if (inode->type != SQFS_INODE_EXT_DIR)
		return 0;
	ret = meta_stream_refer(ms, body + 8, inode->data.dir.start_block);
	/* check_dir_index has walked this payload already */
	while (ret == 0 && pos < inode->payload_size) {
		p = inode->payload + pos;
		ret = meta_stream_refer(ms, head + pos + 4, get_le32(p + 4));
		pos += SQFS_DIR_INDEX_HEADER_SIZE + (size_t)get_le32(p + 8) + 1;
	}
	return ret;
}

int inode_write_stream(meta_stream_t *ms, const sqfs_inode_t *inode)
{
	uint8_t buf[SQFS_INODE_HEADER_SIZE + MAX_BODY_SIZE];
	size_t size;
	int ret;

	if (ms == NULL || inode == NULL)
		return SQFS_ERROR_ARG_INVALID;
	ret = check_inode(inode);
	if (ret != 0)
		return ret;

	put_le16(buf, inode->type);
	put_le16(buf + 2, inode->mode);
	put_le16(buf + 4, inode->uid_idx);
	put_le16(buf + 6, inode->gid_idx);
	put_le32(buf + 8, inode->mtime);
	put_le32(buf + 12, inode->inode_number);
	size = SQFS_INODE_HEADER_SIZE +
	       encode_body(inode, buf + SQFS_INODE_HEADER_SIZE);

	ret = refer_dir_blocks(ms, inode);
	if (ret == 0)
		ret = meta_stream_append(ms, buf, size);
	if (ret != 0)
		return ret;

	switch (inode->type) {
	case SQFS_INODE_FILE:
	case SQFS_INODE_EXT_FILE:
		return write_block_sizes(ms, inode);
	case SQFS_INODE_SLINK:
	case SQFS_INODE_EXT_SLINK:
		ret = meta_stream_append(ms, inode->payload,
					 inode->data.slink.target_size);
		if (ret != 0 || inode->type == SQFS_INODE_SLINK)
			return ret;
		put_le32(buf, inode->xattr_index);
		return meta_stream_append(ms, buf, 4);
	case SQFS_INODE_EXT_DIR:
		return meta_stream_append(ms, inode->payload,
					  inode->payload_size);
	default:
		return 0;
	}
}

int sqfs_inode_write(sqfs_meta_writer_t *mw, const sqfs_inode_t *inode)
{
	meta_writer_stream_t ms;

	if (mw == NULL)
		return SQFS_ERROR_ARG_INVALID;
	meta_writer_stream_init(&ms, mw);
	return inode_write_stream(&ms.base, inode);
}

/* ---- reading ------------------------------------------------------------ */

/* Body sizes after the header, by type (index 0 unused). */
static const uint8_t body_size[] = {
    0, 16, 16, 8, 8, 8, 4, 4, 24, 40, 8, 12, 12, 8, 8,
};

/* Make room for at least need bytes of payload, doubling as it fills. */
static int reserve_payload(sqfs_inode_t **inode, size_t *capacity, size_t need)
{
	size_t cap = *capacity;
	sqfs_inode_t *grown;

	if (need <= cap)
		return 0;
	while (cap < need)
		cap = cap < 256 ? 256 : cap * 2;
	if (cap > SIZE_MAX - sizeof(**inode))
		return SQFS_ERROR_ALLOC;

	grown = realloc(*inode, sizeof(**inode) + cap);
	if (grown == NULL)
		return SQFS_ERROR_ALLOC;
	*inode = grown;
	*capacity = cap;
	return 0;
}

static int check_size_word(uint32_t word, uint32_t block_size)
{
	if ((word & SQFS_SIZE_WORD_RESERVED) != 0 ||
	    word == SQFS_SIZE_WORD_RAW ||
	    (word & SQFS_SIZE_WORD_LENGTH) > block_size)
		return SQFS_ERROR_CORRUPTED;
	return 0;
}

static int read_block_sizes(sqfs_meta_reader_t *mr, const sqfs_super_t *super,
			    sqfs_inode_t **inode, size_t *capacity)
{
	uint8_t buf[WORD_CHUNK * sizeof(uint32_t)];
	uint64_t count = sqfs_inode_block_count(*inode, super->block_size);
	size_t done = 0, n, i;
	uint32_t word;
	int ret;

	/* a table of at most 2^32 md-blocks cannot list more words */
	if (count > UINT32_MAX || count > SIZE_MAX / sizeof(uint32_t))
		return SQFS_ERROR_CORRUPTED;

	while (done < count) {
		n = count - done < WORD_CHUNK ? (size_t)(count - done)
					      : WORD_CHUNK;
		ret = sqfs_meta_reader_read(mr, buf, n * sizeof(uint32_t));
		if (ret != 0)
			return ret;

		ret = reserve_payload(inode, capacity,
				      (done + n) * sizeof(uint32_t));
		if (ret != 0)
			return ret;

		for (i = 0; i < n; ++i) {
			word = get_le32(buf + i * sizeof(uint32_t));
			ret = check_size_word(word, super->block_size);
			if (ret != 0)
				return ret;
			sqfs_inode_block_sizes(*inode)[done + i] = word;
		}
		done += n;
	}
	(*inode)->payload_size = done * sizeof(uint32_t);
	return 0;
}

static int check_file_fields(const sqfs_inode_t *inode,
			     const sqfs_super_t *super)
{
	uint32_t frag = inode->data.file.fragment_index;
	uint64_t tail;

	if (super->block_size == 0)
		return SQFS_ERROR_CORRUPTED;
	if (inode->data.file.file_size >> 63)
		return SQFS_ERROR_CORRUPTED;
	if (frag == SQFS_NO_FRAGMENT)
		return 0;

	tail = inode->data.file.file_size % super->block_size;
	if (frag >= super->fragment_entry_count || tail == 0)
		return SQFS_ERROR_CORRUPTED;
	/* the tail must fit in a fragment block of at most block_size */
	if (inode->data.file.fragment_offset > super->block_size - tail)
		return SQFS_ERROR_CORRUPTED;
	return 0;
}

static int read_slink(sqfs_meta_reader_t *mr, sqfs_inode_t **inode,
		      size_t *capacity)
{
	uint32_t size = (*inode)->data.slink.target_size;
	uint8_t buf[4];
	int ret;

	if (size == 0 || size > SQFS_MAX_SYMLINK_SIZE)
		return SQFS_ERROR_CORRUPTED;
	ret = reserve_payload(inode, capacity, (size_t)size + 1);
	if (ret != 0)
		return ret;

	ret = sqfs_meta_reader_read(mr, (*inode)->payload, size);
	if (ret != 0)
		return ret;
	if (memchr((*inode)->payload, 0, size) != NULL)
		return SQFS_ERROR_CORRUPTED;
	(*inode)->payload[size] = 0;
	(*inode)->payload_size = (size_t)size + 1;

	if ((*inode)->type == SQFS_INODE_EXT_SLINK) {
		ret = sqfs_meta_reader_read(mr, buf, sizeof(buf));
		if (ret != 0)
			return ret;
		(*inode)->xattr_index = get_le32(buf);
	}
	return 0;
}

static int check_dir_fields(const sqfs_inode_t *inode)
{
	uint32_t size = inode->data.dir.size;

	if (size < SQFS_DIR_SIZE_EMPTY ||
	    (size > SQFS_DIR_SIZE_EMPTY && size < SQFS_DIR_SIZE_MIN))
		return SQFS_ERROR_CORRUPTED;
	if (inode->data.dir.offset >= SQFS_META_BLOCK_SIZE)
		return SQFS_ERROR_CORRUPTED;
	return 0;
}

/*
 * Each index entry must land inside the listing, after the one before, in
 * a block no earlier than the one before.
 */
static int read_dir_index(sqfs_meta_reader_t *mr, sqfs_inode_t **inode,
			  size_t *capacity)
{
	uint32_t listing = (*inode)->data.dir.size - SQFS_DIR_SIZE_EMPTY;
	uint32_t count = (*inode)->data.dir.index_count;
	uint32_t i, index, start, prev_index = 0, prev_start = 0;
	size_t pos = 0, name_size;
	uint8_t *entry;
	int ret;

	for (i = 0; i < count; ++i) {
		ret = reserve_payload(inode, capacity,
				      pos + SQFS_DIR_INDEX_HEADER_SIZE);
		if (ret != 0)
			return ret;
		entry = (*inode)->payload + pos;
		ret = sqfs_meta_reader_read(mr, entry,
					    SQFS_DIR_INDEX_HEADER_SIZE);
		if (ret != 0)
			return ret;

		index = get_le32(entry);
		start = get_le32(entry + 4);
		name_size = (size_t)get_le32(entry + 8) + 1;
		if (name_size == 0 || name_size > SQFS_NAME_MAX ||
		    index >= listing)
			return SQFS_ERROR_CORRUPTED;
		if (i > 0 && (index <= prev_index || start < prev_start))
			return SQFS_ERROR_CORRUPTED;
		prev_index = index;
		prev_start = start;

		pos += SQFS_DIR_INDEX_HEADER_SIZE;
		ret = reserve_payload(inode, capacity, pos + name_size);
		if (ret != 0)
			return ret;
		ret = sqfs_meta_reader_read(mr, (*inode)->payload + pos,
					    name_size);
		if (ret != 0)
			return ret;
		pos += name_size;
	}
	(*inode)->payload_size = pos;
	return 0;
}

static void decode_body(sqfs_inode_t *inode, const uint8_t *p)
{
	switch (inode->type) {
	case SQFS_INODE_DIR:
		inode->data.dir.start_block = get_le32(p);
		inode->nlink = get_le32(p + 4);
		inode->data.dir.size = get_le16(p + 8);
		inode->data.dir.offset = get_le16(p + 10);
		inode->data.dir.parent_inode = get_le32(p + 12);
		break;
	case SQFS_INODE_EXT_DIR:
		inode->nlink = get_le32(p);
		inode->data.dir.size = get_le32(p + 4);
		inode->data.dir.start_block = get_le32(p + 8);
		inode->data.dir.parent_inode = get_le32(p + 12);
		inode->data.dir.index_count = get_le16(p + 16);
		inode->data.dir.offset = get_le16(p + 18);
		inode->xattr_index = get_le32(p + 20);
		break;
	case SQFS_INODE_FILE:
		inode->data.file.blocks_start = get_le32(p);
		inode->data.file.fragment_index = get_le32(p + 4);
		inode->data.file.fragment_offset = get_le32(p + 8);
		inode->data.file.file_size = get_le32(p + 12);
		inode->nlink = 1;
		break;
	case SQFS_INODE_EXT_FILE:
		inode->data.file.blocks_start = get_le64(p);
		inode->data.file.file_size = get_le64(p + 8);
		inode->data.file.sparse = get_le64(p + 16);
		inode->nlink = get_le32(p + 24);
		inode->data.file.fragment_index = get_le32(p + 28);
		inode->data.file.fragment_offset = get_le32(p + 32);
		inode->xattr_index = get_le32(p + 36);
		break;
	case SQFS_INODE_SLINK:
	case SQFS_INODE_EXT_SLINK:
		inode->nlink = get_le32(p);
		inode->data.slink.target_size = get_le32(p + 4);
		break;
	case SQFS_INODE_BDEV:
	case SQFS_INODE_CDEV:
	case SQFS_INODE_EXT_BDEV:
	case SQFS_INODE_EXT_CDEV:
		inode->nlink = get_le32(p);
		inode->data.dev.rdev = get_le32(p + 4);
		if (sqfs_inode_type_is_extended(inode->type))
			inode->xattr_index = get_le32(p + 8);
		break;
	default:
		inode->nlink = get_le32(p);
		if (sqfs_inode_type_is_extended(inode->type))
			inode->xattr_index = get_le32(p + 4);
		break;
	}
}

static int check_header(const sqfs_inode_t *inode, const sqfs_super_t *super)
{
	if (inode->type < SQFS_INODE_DIR || inode->type > SQFS_INODE_EXT_SOCKET)
		return SQFS_ERROR_CORRUPTED;
	if ((inode->mode & ~SQFS_INODE_MODE_MASK) != 0)
		return SQFS_ERROR_CORRUPTED;
	if (inode->uid_idx >= super->id_count ||
	    inode->gid_idx >= super->id_count)
		return SQFS_ERROR_CORRUPTED;
	if (inode->inode_number == 0 ||
	    inode->inode_number > super->inode_count)
		return SQFS_ERROR_CORRUPTED;
	return 0;
}

static int read_payload(sqfs_meta_reader_t *mr, const sqfs_super_t *super,
			sqfs_inode_t **inode, size_t *capacity)
{
	int ret;

	switch (sqfs_inode_type_basic((*inode)->type)) {
	case SQFS_INODE_DIR:
		ret = check_dir_fields(*inode);
		if (ret == 0 && (*inode)->type == SQFS_INODE_EXT_DIR)
			ret = read_dir_index(mr, inode, capacity);
		return ret;
	case SQFS_INODE_FILE:
		ret = check_file_fields(*inode, super);
		if (ret == 0)
			ret = read_block_sizes(mr, super, inode, capacity);
		return ret;
	case SQFS_INODE_SLINK:
		return read_slink(mr, inode, capacity);
	default:
		return 0;
	}
}

int sqfs_inode_read(sqfs_meta_reader_t *mr, const sqfs_super_t *super,
		    sqfs_inode_t **out)
{
	uint8_t buf[SQFS_INODE_HEADER_SIZE + MAX_BODY_SIZE];
	size_t capacity = 0;
	sqfs_inode_t *inode;
	int ret;

	if (mr == NULL || super == NULL || out == NULL)
		return SQFS_ERROR_ARG_INVALID;

	ret = sqfs_meta_reader_read(mr, buf, SQFS_INODE_HEADER_SIZE);
	if (ret != 0)
		return ret;

	inode = sqfs_inode_alloc(0);
	if (inode == NULL)
		return SQFS_ERROR_ALLOC;
	inode->type = get_le16(buf);
	inode->mode = get_le16(buf + 2);
	inode->uid_idx = get_le16(buf + 4);
	inode->gid_idx = get_le16(buf + 6);
	inode->mtime = get_le32(buf + 8);
	inode->inode_number = get_le32(buf + 12);
	inode->xattr_index = SQFS_NO_XATTR;

	ret = check_header(inode, super);
	if (ret != 0)
		goto fail;

	ret = sqfs_meta_reader_read(mr, buf + SQFS_INODE_HEADER_SIZE,
				    body_size[inode->type]);
	if (ret != 0)
		goto fail;
	decode_body(inode, buf + SQFS_INODE_HEADER_SIZE);

	ret = read_payload(mr, super, &inode, &capacity);
	if (ret != 0)
		goto fail;

	*out = inode;
	return 0;
fail:
	free(inode);
	return ret;
}
