/* SPDX-License-Identifier: MIT */
/*
 * xattr_reader.c - the extended attributes of an inode.
 *
 * An xattr-id entry names a run of (key, value) pairs in the key/value
 * stream; a value is either inline or a reference to a value record
 * elsewhere in the stream. Nothing in the stream is trusted: the list grows
 * only with pairs actually decoded, and the limits Linux puts on what it
 * can list (64 KiB of names, 64 KiB per value) bound the result, so a
 * claimed count or a fan of references to one large value cannot turn a
 * small image into a large allocation.
 */
#include "config.h"

#include "sqfs/error.h"
#include "sqfs/image.h"
#include "sqfs/inode.h"
#include "sqfs/meta_reader.h"
#include "sqfs/super.h"
#include "util/le.h"

#include "image_internal.h"
#include "sqfs/format_internal.h"

#include <stdlib.h>
#include <string.h>

#define KEY_TYPE_VALID_BITS (SQFS_XATTR_TYPE_PREFIX_MASK | SQFS_XATTR_TYPE_OOL)

/* Every listed key takes at least "user.x" plus a NUL. */
#define MAX_PAIRS SQFS_XATTR_MAX_LIST_SIZE

/* Out-of-line records may be shared by many keys; bound the sum. */
#define MAX_TOTAL_VALUES (16u * 1024u * 1024u)

typedef struct {
	sqfs_image_t *img;
	sqfs_meta_reader_t *mr;
	uint64_t kv_start;
	uint64_t kv_end;

	sqfs_xattr_t *list;
	size_t used;
	size_t capacity;
	uint32_t count;

	size_t list_bytes;
	size_t value_bytes;
} xattr_state_t;

static int seek_ref(xattr_state_t *st, uint64_t ref)
{
	if ((ref & 0xFFFF) >= SQFS_META_BLOCK_SIZE ||
	    (ref >> 16) >= st->kv_end - st->kv_start)
		return SQFS_ERROR_OUT_OF_BOUNDS;
	return sqfs_meta_reader_seek(st->mr, st->kv_start + (ref >> 16),
				     (size_t)(ref & 0xFFFF));
}

static int skip_bytes(sqfs_meta_reader_t *mr, size_t size)
{
	uint8_t scratch[512];
	size_t n;
	int ret;

	while (size > 0) {
		n = size < sizeof(scratch) ? size : sizeof(scratch);
		ret = sqfs_meta_reader_read(mr, scratch, n);
		if (ret != 0)
			return ret;
		size -= n;
	}
	return 0;
}

/* Read vsize bytes of value at the reader's position. */
static int read_value_data(xattr_state_t *st, uint32_t vsize, uint8_t **value,
			   size_t *size)
{
	int ret;

	if (vsize > SQFS_XATTR_MAX_VALUE_SIZE)
		return SQFS_ERROR_CORRUPTED;
	if (vsize > MAX_TOTAL_VALUES - st->value_bytes)
		return SQFS_ERROR_LIMIT;

	/* one spare byte: an empty value still gets a pointer, and text
	 * values can be printed as strings */
	*value = malloc((size_t)vsize + 1);
	if (*value == NULL)
		return SQFS_ERROR_ALLOC;
	ret = sqfs_meta_reader_read(st->mr, *value, vsize);
	if (ret != 0) {
		free(*value);
		*value = NULL;
		return ret;
	}
	(*value)[vsize] = '\0';
	*size = vsize;
	st->value_bytes += vsize;
	return 0;
}

/* Read a value record (u32 size, data) at the reader's position. */
static int read_value(xattr_state_t *st, uint8_t **value, size_t *size)
{
	uint8_t raw[4];
	int ret;

	ret = sqfs_meta_reader_read(st->mr, raw, sizeof(raw));
	if (ret != 0)
		return ret;
	return read_value_data(st, get_le32(raw), value, size);
}

/*
 * Follow an out-of-line reference, then come back to where the pair list
 * continues (unless this was the last pair: the list may end exactly at
 * the end of the stream, where no block follows).
 */
static int read_ool_value(xattr_state_t *st, uint64_t ref, bool last,
			  uint8_t **value, size_t *size)
{
	uint64_t block;
	size_t offset;
	int ret;

	sqfs_meta_reader_get_position(st->mr, &block, &offset);

	ret = seek_ref(st, ref);
	if (ret == 0)
		ret = read_value(st, value, size);
	if (ret != 0 || last)
		return ret;

	ret = sqfs_meta_reader_seek(st->mr, block, offset);
	if (ret != 0) {
		free(*value);
		*value = NULL;
	}
	return ret;
}

static int append(xattr_state_t *st, char *key, uint8_t *value, size_t size)
{
	sqfs_xattr_t *grown;
	size_t want;

	if (st->used == st->capacity) {
		want = st->capacity == 0 ? 8 : st->capacity * 2;
		if (want > st->count)
			want = st->count;
		grown = realloc(st->list, want * sizeof(*grown));
		if (grown == NULL)
			return SQFS_ERROR_ALLOC;
		st->list = grown;
		st->capacity = want;
	}

	st->list[st->used].key = key;
	st->list[st->used].value = value;
	st->list[st->used].size = size;
	st->used += 1;
	return 0;
}

static int read_pair(xattr_state_t *st, bool last)
{
	uint8_t header[4], raw[8], name[SQFS_XATTR_MAX_KEY_SIZE];
	size_t name_size, plen = 0, size = 0;
	uint8_t *value = NULL;
	unsigned int type;
	uint32_t vsize;
	const char *prefix;
	char *key;
	int ret;

	ret = sqfs_meta_reader_read(st->mr, header, sizeof(header));
	if (ret != 0)
		return ret;
	type = get_le16(header);
	name_size = get_le16(header + 2);

	if ((type & ~KEY_TYPE_VALID_BITS) != 0)
		return SQFS_ERROR_CORRUPTED;
	prefix = xattr_prefix(type & SQFS_XATTR_TYPE_PREFIX_MASK);
	if (prefix != NULL)
		plen = strlen(prefix);
	if (name_size == 0 || name_size > SQFS_XATTR_MAX_KEY_SIZE - plen)
		return SQFS_ERROR_CORRUPTED;

	ret = sqfs_meta_reader_read(st->mr, name, name_size);
	if (ret == 0)
		ret = sqfs_meta_reader_read(st->mr, raw, 4);
	if (ret != 0)
		return ret;
	vsize = get_le32(raw);

	/* skipping a pair steps over vsize bytes, so an out-of-line value
	 * must claim exactly the size of its reference */
	if ((type & SQFS_XATTR_TYPE_OOL) && vsize != sizeof(raw))
		return SQFS_ERROR_CORRUPTED;

	if (prefix == NULL) {
		if (vsize > SQFS_XATTR_MAX_VALUE_SIZE)
			return SQFS_ERROR_CORRUPTED;
		return skip_bytes(st->mr, vsize);
	}

	/* a key is a C string in the list, as Linux lists it */
	if (memchr(name, '\0', name_size) != NULL)
		return SQFS_ERROR_CORRUPTED;
	if (plen + name_size + 1 > SQFS_XATTR_MAX_LIST_SIZE - st->list_bytes)
		return SQFS_ERROR_LIMIT;

	if (type & SQFS_XATTR_TYPE_OOL) {
		ret = sqfs_meta_reader_read(st->mr, raw, sizeof(raw));
		if (ret == 0)
			ret = read_ool_value(st, get_le64(raw), last, &value,
					     &size);
	} else {
		ret = read_value_data(st, vsize, &value, &size);
	}
	if (ret != 0)
		return ret;

	key = malloc(plen + name_size + 1);
	if (key == NULL) {
		free(value);
		return SQFS_ERROR_ALLOC;
	}
	memcpy(key, prefix, plen);
	memcpy(key + plen, name, name_size);
	key[plen + name_size] = '\0';

	ret = append(st, key, value, size);
	if (ret != 0) {
		free(key);
		free(value);
		return ret;
	}
	st->list_bytes += plen + name_size + 1;
	return 0;
}

int sqfs_image_read_xattrs(sqfs_image_t *img, const sqfs_inode_t *inode,
			   sqfs_xattr_t **list, size_t *count)
{
	xattr_id_entry_t ent;
	xattr_state_t st;
	uint32_t i;
	int ret;

	if (img == NULL || inode == NULL || list == NULL || count == NULL)
		return SQFS_ERROR_ARG_INVALID;
	*list = NULL;
	*count = 0;
	errtext_begin(image_errtext(img));

	if (inode->xattr_index == SQFS_NO_XATTR)
		return 0;
	ret = image_xattr_id(img, inode->xattr_index, &ent);
	if (ret == SQFS_ERROR_OUT_OF_BOUNDS)
		return errtext_set(image_errtext(img), ret,
				   "inode %u: xattr index %u is past the "
				   "xattr id table",
				   inode->inode_number, inode->xattr_index);
	if (ret != 0)
		return errtext_set(image_errtext(img), ret,
				   "inode %u: xattr id table entry %u: %s",
				   inode->inode_number, inode->xattr_index,
				   sqfs_error_string(ret));
	if (ent.count == 0)
		return 0;
	if (ent.count > MAX_PAIRS)
		return errtext_set(image_errtext(img), SQFS_ERROR_LIMIT,
				   "inode %u: %u xattrs, more than %u",
				   inode->inode_number, ent.count,
				   (unsigned int)MAX_PAIRS);

	memset(&st, 0, sizeof(st));
	st.img = img;
	st.count = ent.count;
	st.mr = image_kv_reader(img, &st.kv_start, &st.kv_end);
	if (st.mr == NULL)
		return SQFS_ERROR_INTERNAL;

	ret = seek_ref(&st, ent.ref);
	for (i = 0; ret == 0 && i < ent.count; ++i)
		ret = read_pair(&st, i + 1 == ent.count);

	if (ret != 0) {
		sqfs_xattr_list_free(st.list, st.used);
		return errtext_end(image_errtext(img), ret, "inode %u: xattrs",
				   inode->inode_number);
	}
	*list = st.list;
	*count = st.used;
	return 0;
}
