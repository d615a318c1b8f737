/* SPDX-License-Identifier: MIT */
/*
 * record.c - encoding and ordering the writer's records (see record.h).
 */
#include "config.h"

#include "sqfs/writer/record.h"
#include "sqfs/error.h"
#include "util/be.h"

#include <string.h>

#define FIXED_SIZE 15u
#define FILE_SIZE 36u

static size_t payload_size(const wr_record_t *r)
{
	switch (r->kind) {
	case WR_REC_FILE:
		return FILE_SIZE + (size_t)r->data.block_count * 4u;
	case WR_REC_DEV:
		return 4;
	case WR_REC_LINK:
		return 8 + r->text_len;
	case WR_REC_SLINK:
		return r->text_len;
	default:
		return 0;
	}
}

size_t wr_record_size(const wr_record_t *r)
{
	return 4 + r->name_len + 1 + 8 + FIXED_SIZE + payload_size(r);
}

void wr_record_encode(const wr_record_t *r, uint8_t *out)
{
	uint8_t *p = out;

	put_be32(p, r->parent);
	memcpy(p + 4, r->name, r->name_len);
	p += 4 + r->name_len;
	*(p++) = 0;
	put_be64(p, r->seq);
	p += 8;

	p[0] = r->kind;
	put_be16(p + 1, r->mode);
	put_be16(p + 3, r->uid_idx);
	put_be16(p + 5, r->gid_idx);
	put_be32(p + 7, r->mtime);
	put_be32(p + 11, r->xattr);
	p += FIXED_SIZE;

	switch (r->kind) {
	case WR_REC_FILE:
		put_be64(p, r->data.size);
		put_be64(p + 8, r->data.blocks_start);
		put_be64(p + 16, r->data.sparse_bytes);
		put_be32(p + 24, r->data.fragment_index);
		put_be32(p + 28, r->data.fragment_offset);
		put_be32(p + 32, r->data.block_count);
		p += FILE_SIZE;
		for (uint32_t i = 0; i < r->data.block_count; ++i, p += 4)
			put_be32(p, r->data.block_sizes[i]);
		break;
	case WR_REC_DEV:
		put_be32(p, r->rdev);
		break;
	case WR_REC_LINK:
		put_be64(p, r->bound);
		memcpy(p + 8, r->text, r->text_len);
		break;
	case WR_REC_SLINK:
		memcpy(p, r->text, r->text_len);
		break;
	default:
		break;
	}
}

/* Length of the key prefix (parent, name, terminator) of a record, or 0
 * if it has none. */
static size_t key_prefix(const uint8_t *rec, size_t len)
{
	const uint8_t *nul;

	if (len < 5)
		return 0;
	nul = memchr(rec + 4, 0, len - 4);
	return nul == NULL ? 0 : (size_t)(nul - rec) + 1;
}

int wr_record_decode(const void *rec, size_t len, wr_record_t *r)
{
	const uint8_t *p = rec, *end = p + len;
	size_t kp = key_prefix(p, len), rest;

	memset(r, 0, sizeof(*r));
	if (kp == 0 || len - kp < 8 + FIXED_SIZE)
		return SQFS_ERROR_CORRUPTED;
	r->parent = get_be32(p);
	r->name = (const char *)p + 4;
	r->name_len = kp - 5;
	r->seq = get_be64(p + kp);
	p += kp + 8;

	r->kind = p[0];
	r->mode = get_be16(p + 1);
	r->uid_idx = get_be16(p + 3);
	r->gid_idx = get_be16(p + 5);
	r->mtime = get_be32(p + 7);
	r->xattr = get_be32(p + 11);
	p += FIXED_SIZE;
	rest = (size_t)(end - p);

	switch (r->kind) {
	case WR_REC_FILE:
		if (rest < FILE_SIZE)
			return SQFS_ERROR_CORRUPTED;
		r->data.size = get_be64(p);
		r->data.blocks_start = get_be64(p + 8);
		r->data.sparse_bytes = get_be64(p + 16);
		r->data.fragment_index = get_be32(p + 24);
		r->data.fragment_offset = get_be32(p + 28);
		r->data.block_count = get_be32(p + 32);
		if ((rest - FILE_SIZE) / 4 != r->data.block_count ||
		    (rest - FILE_SIZE) % 4 != 0)
			return SQFS_ERROR_CORRUPTED;
		r->blocks_raw = p + FILE_SIZE;
		return 0;
	case WR_REC_DEV:
		if (rest != 4)
			return SQFS_ERROR_CORRUPTED;
		r->rdev = get_be32(p);
		return 0;
	case WR_REC_LINK:
		if (rest < 8)
			return SQFS_ERROR_CORRUPTED;
		r->bound = get_be64(p);
		r->text = (const char *)p + 8;
		r->text_len = rest - 8;
		return 0;
	case WR_REC_SLINK:
		r->text = (const char *)p;
		r->text_len = rest;
		return 0;
	case WR_REC_IPC:
	case WR_REC_GONE:
		return rest == 0 ? 0 : SQFS_ERROR_CORRUPTED;
	default:
		return SQFS_ERROR_CORRUPTED;
	}
}

uint32_t wr_record_block_size(const wr_record_t *r, uint32_t i)
{
	return get_be32(r->blocks_raw + (size_t)i * 4u);
}

size_t wr_record_key(uint32_t parent, const char *name, size_t len,
		     uint8_t *out)
{
	put_be32(out, parent);
	memcpy(out + 4, name, len);
	out[4 + len] = 0;
	return 4 + len + 1;
}

uint64_t wr_record_key_hash(const uint8_t *key, size_t klen)
{
	/* FNV-1a with a finaliser, as the directory index's hash */
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < klen; ++i) {
		h ^= key[i];
		h *= 0x100000001b3ull;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h;
}

int wr_record_cmp(const void *a, size_t alen, const void *b, size_t blen,
		  void *user)
{
	size_t ka = key_prefix(a, alen), kb = key_prefix(b, blen);
	size_t n;
	int r;

	(void)user;
	/* the key and the sequence number after it */
	ka = ka + 8 <= alen ? ka + 8 : alen;
	kb = kb + 8 <= blen ? kb + 8 : blen;
	n = ka < kb ? ka : kb;
	r = memcmp(a, b, n);
	if (r != 0)
		return r;
	return ka < kb ? -1 : (ka > kb);
}

uint64_t wr_record_hash(const void *rec, size_t len, void *user)
{
	(void)user;
	return wr_record_key_hash(rec, key_prefix(rec, len));
}

int wr_record_key_cmp(const void *key, size_t klen, const void *rec, size_t len,
		      void *user)
{
	size_t kr = key_prefix(rec, len), n = klen < kr ? klen : kr;
	int r;

	(void)user;
	r = memcmp(key, rec, n);
	if (r != 0)
		return r;
	return klen < kr ? -1 : (klen > kr);
}
