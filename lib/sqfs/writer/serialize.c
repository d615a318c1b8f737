/* SPDX-License-Identifier: MIT */
/*
 * Numbering the inodes and writing the inode and directory tables, from
 * the directory index and the records (doc/scale.md, "Finishing, step by
 * step").
 *
 * The order is that of a post-order walk of the directories (each
 * directory's subdirectories first, by name); a directory's visit numbers
 * and writes its new objects (its non-directory entries, in name order,
 * less the hard-linked objects met earlier in the walk), then the
 * directory itself, so the root is last. A directory's inode needs its
 * parent's number, which comes later in the walk: so the numbers of the
 * directories are counted first (count), then the walk writes (emit).
 *
 * Memory: per directory its group's place and counts; per hard-linked
 * object its link count and, once written, its number and reference. The
 * entries themselves are read from spill files, one directory at a time,
 * and the occurrences of objects links reach are sorted in an external
 * sort of their own.
 *
 * The walk only decides the order; the inodes and listings are encoded
 * into the streams of the metadata pipeline (meta_pipeline_internal.h),
 * which compresses the blocks on worker threads. Every reference kept
 * while writing (a linked object's, a directory node's, the export
 * table's) is virtual, in the pipeline's block numbers: the pipeline
 * fills in the fields inside the tables itself, the root reference is
 * made real at the end, and the export table when it is written
 * (wr_export_t). The directory table must follow the inode table on
 * disk but is made at the same time: it waits in a spill file.
 */
#include "config.h"

#include "sqfs/writer/internal.h"
#include "sqfs/dir_writer_internal.h"
#include "sqfs/inode_internal.h"
#include "sqfs/meta_pipeline_internal.h"
#include "sqfs/io.h"
#include "util/be.h"
#include "util/hash_table.h"
#include "util/le.h"
#include "util/spill.h"

#include <stdlib.h>
#include <string.h>

/*
 * An occurrence of an object a link may reach (a link to it, or its own
 * entry), as a record of the occurrences' sort: object (8) | the rank of
 * its directory in the walk (4) | name | 0 | directory id (4) | is a
 * link (1), integers big-endian, so that the bytes order occurrences by
 * object, then in the walk's order.
 */
#define OCC_FIXED (8 + 4 + 1 + 4 + 1)

typedef struct {
	const char *name;
	uint32_t id;
} subdir_t;

/* A hard-linked object, sorted by object. */
typedef struct {
	uint64_t object;
	uint32_t nlink;
	/* once written */
	uint32_t num;
	uint64_t ref;
	uint8_t itype;
	bool written;
} linked_t;

typedef struct {
	sqfs_writer_t *wr;
	wr_tree_t *t;

	/* Winners, grouped by directory: per directory the group's offset
	 * in groups and its count. */
	spill_file_t *groups;
	uint64_t *grp_off;
	uint32_t *grp_count;
	/* New objects per directory. */
	uint32_t *newcount;

	/* Directories in walk order, each one's rank, and its
	 * subdirectories sorted by name (sub[sub_start[d] ..
	 * sub_start[d + 1])). */
	uint32_t *order;
	uint32_t order_count;
	uint32_t *rank;
	uint32_t *sub_start;
	subdir_t *sub;

	/* Records of objects that links may reach, by sequence number:
	 * store holds them, where maps sequence -> offset + 1 (0: wanted,
	 * not stored yet). */
	spill_file_t *store;
	hash_table_t where;

	extsort_t *occ;
	/* occurrences that are links: no more objects have a link */
	size_t nocc_links;
	linked_t *linked;
	size_t nlinked;

	/* Inodes numbered, and written. */
	uint32_t numbered;
	uint32_t written;
	meta_pipe_t *mp;
	/* the inode and directory tables' streams */
	meta_stream_t *im;
	meta_stream_t *dm;
	dir_writer_t *dw;
	sqfs_inode_t *ino;
	size_t ino_capacity;
	/* exportable: the virtual reference of each inode in number order
	 * (which is the order they are written in) */
	spill_file_t *export_refs;
	uint8_t *buf;
	size_t buf_cap;
} ser_t;

static int spill_words(ser_t *s, spill_file_t *f, int ret, const char *why)
{
	if (ret == SQFS_ERROR_IO && f != NULL)
		return errtext_set(&s->wr->err, ret, "%s", spill_file_error(f));
	if (ret == SQFS_ERROR_IO && why != NULL && why[0] != '\0')
		return errtext_set(&s->wr->err, ret, "%s", why);
	return ret;
}

static int reserve_buf(ser_t *s, size_t size)
{
	if (size > s->buf_cap) {
		uint8_t *p = realloc(s->buf, size);

		if (p == NULL)
			return SQFS_ERROR_ALLOC;
		s->buf = p;
		s->buf_cap = size;
	}
	return 0;
}

/* ---- step 1: resolve ----------------------------------------------------- */

static int compare_occurrences(const void *a, size_t alen, const void *b,
			       size_t blen, void *user)
{
	int r = memcmp(a, b, alen < blen ? alen : blen);

	(void)user;
	return r != 0 ? r : (alen > blen) - (alen < blen);
}

static int add_occurrence(ser_t *s, uint64_t object, uint32_t dir,
			  const char *name, size_t len, bool is_link)
{
	uint8_t rec[OCC_FIXED + 256];
	int ret;

	if (len > 256)
		return SQFS_ERROR_INTERNAL;
	put_be64(rec, object);
	put_be32(rec + 8, s->rank[dir]);
	memcpy(rec + 12, name, len);
	rec[12 + len] = 0;
	put_be32(rec + 13 + len, dir);
	rec[17 + len] = is_link;
	ret = extsort_add(s->occ, rec, OCC_FIXED + len);
	if (ret != 0)
		return errtext_set(&s->wr->err, ret, "%s",
				   extsort_error(s->occ));
	s->nocc_links += is_link;
	return 0;
}

static int append_record(spill_file_t *f, const void *rec, size_t len)
{
	uint8_t word[4];
	int ret;

	put_le32(word, (uint32_t)len);
	ret = spill_file_append(f, word, 4);
	if (ret == 0)
		ret = spill_file_append(f, rec, len);
	return ret;
}

/* Every record, winner or not, that a link may reach goes to the store. */
static int maybe_store(ser_t *s, const void *rec, size_t len,
		       const wr_record_t *r)
{
	uint64_t off;
	int ret;

	if (!hash_table_get(&s->where, r->seq, &off) || off != 0)
		return 0;
	off = spill_file_size(s->store);
	ret = append_record(s->store, rec, len);
	if (ret != 0)
		return spill_words(s, s->store, ret, NULL);
	return hash_table_put(&s->where, r->seq, off + 1);
}

/* The winner of a name: into its directory's group, and counted. */
static int take_winner(ser_t *s, const void *rec, size_t len,
		       const wr_record_t *r)
{
	uint64_t object;
	int ret;

	if (r->kind == WR_REC_GONE ||
	    (wr_node(s->t, r->parent)->flags & NODE_DEAD) ||
	    !wr_node_is_dir(wr_node(s->t, r->parent)))
		return 0;
	/* a directory of the same name outranks the records */
	if (wr_tree_lookup(s->t, r->parent, r->name, r->name_len) != NODE_NIL)
		return 0;

	if (s->grp_count[r->parent] == 0)
		s->grp_off[r->parent] = spill_file_size(s->groups);
	else if (s->grp_count[r->parent] == UINT32_MAX)
		return SQFS_ERROR_OVERFLOW;
	ret = append_record(s->groups, rec, len);
	if (ret != 0)
		return spill_words(s, s->groups, ret, NULL);
	s->grp_count[r->parent] += 1;

	if (r->kind == WR_REC_LINK) {
		object = r->bound != 0 ? r->bound
				       : wr_links_result(&s->wr->links, r->seq);
		if (object == WR_LINK_BROKEN)
			return SQFS_ERROR_INTERNAL;
		return add_occurrence(s, object, r->parent, r->name,
				      r->name_len, true);
	}
	if (hash_table_get(&s->where, r->seq, NULL))
		return add_occurrence(s, r->seq, r->parent, r->name,
				      r->name_len, false);
	s->newcount[r->parent] += 1;
	return 0;
}

static int resolve(ser_t *s)
{
	extsort_t *sorter = s->wr->entries.sorter;
	wr_links_t *links = &s->wr->links;
	wr_entries_t *e = &s->wr->entries;
	uint8_t *prev = NULL;
	size_t prev_len = 0, prev_cap = 0, len;
	char why[SPILL_WHY_SIZE];
	const void *rec;
	wr_record_t r;
	int ret;

	/* The records' merge has its buffers (wr_mem_share) while the
	 * groups are made: each spill buffer here takes a 32nd. */
	ret = spill_file_create(wr_mem_share(s->wr, 1, 32), &s->groups, why);
	if (ret == 0)
		ret = spill_file_create(wr_mem_share(s->wr, 1, 32), &s->store,
					why);
	if (ret != 0)
		return spill_words(s, NULL, ret, why);
	{
		extsort_desc_t desc;

		memset(&desc, 0, sizeof(desc));
		desc.mem_limit = wr_mem_share(s->wr, 1, 16);
		desc.cmp = compare_occurrences;
		ret = extsort_create(&desc, &s->occ);
		if (ret != 0)
			return ret;
	}

	/* the objects links may reach */
	for (size_t i = 0; i < e->nbound; ++i) {
		ret = hash_table_put(&s->where, e->bound[i], 0);
		if (ret != 0)
			return ret;
	}
	/* the map has them now */
	free(e->bound);
	e->bound = NULL;
	e->nbound = 0;
	e->bound_cap = 0;
	for (size_t i = 0; i < links->count; ++i) {
		const wr_unbound_t *u = &links->list[i];

		if (u->live && u->result != WR_LINK_BROKEN) {
			ret = hash_table_put(&s->where, u->result, 0);
			if (ret != 0)
				return ret;
		}
	}

	ret = extsort_finish(sorter);
	if (ret != 0)
		return errtext_set(&s->wr->err, ret, "%s",
				   extsort_error(sorter));

	/* records of one name come together, oldest first: the last one
	 * of a run of equal keys wins */
	for (;;) {
		int more = extsort_next(sorter, &rec, &len);

		if (more < 0) {
			ret = errtext_set(&s->wr->err, more, "%s",
					  extsort_error(sorter));
			break;
		}
		if (more > 0) {
			ret = wr_record_decode(rec, len, &r);
			if (ret == 0)
				ret = maybe_store(s, rec, len, &r);
			if (ret != 0)
				break;
		}
		if (prev != NULL) {
			wr_record_t pr;
			bool same = false;

			ret = wr_record_decode(prev, prev_len, &pr);
			if (ret != 0)
				break;
			if (more > 0)
				same = pr.parent == r.parent &&
				       pr.name_len == r.name_len &&
				       memcmp(pr.name, r.name, r.name_len) == 0;
			if (!same) {
				ret = take_winner(s, prev, prev_len, &pr);
				if (ret != 0)
					break;
			}
		}
		if (more == 0)
			break;
		if (len > prev_cap) {
			uint8_t *p = realloc(prev, len);

			if (p == NULL) {
				ret = SQFS_ERROR_ALLOC;
				break;
			}
			prev = p;
			prev_cap = len;
		}
		memcpy(prev, rec, len);
		prev_len = len;
	}
	free(prev);
	return ret;
}

/* ---- step 2: count ------------------------------------------------------- */

static int compare_subdirs(const void *a, const void *b)
{
	/* strcmp compares as unsigned char: the on-disk order */
	return strcmp(((const subdir_t *)a)->name, ((const subdir_t *)b)->name);
}

/* Subdirectory lists by name, the walk order, ranks, directory nlinks. */
static int walk_dirs(ser_t *s)
{
	wr_tree_t *t = s->t;
	uint32_t count = t->node_count, *cursor, *stack;
	size_t depth;

	s->sub_start = calloc((size_t)count + 1, sizeof(uint32_t));
	s->sub = malloc(((size_t)count + 1) * sizeof(subdir_t));
	s->order = malloc(((size_t)count + 1) * sizeof(uint32_t));
	s->rank = calloc((size_t)count + 1, sizeof(uint32_t));
	cursor = malloc(((size_t)count + 1) * sizeof(uint32_t));
	stack = malloc(((size_t)count + 1) * sizeof(uint32_t));
	if (s->sub_start == NULL || s->sub == NULL || s->order == NULL ||
	    s->rank == NULL || cursor == NULL || stack == NULL) {
		free(cursor);
		free(stack);
		return SQFS_ERROR_ALLOC;
	}

	for (uint32_t id = 0; id < count; ++id) {
		wr_node_t *n = wr_node(t, id);

		n->nlink = (n->flags & NODE_DEAD) ? 0 : 2;
		n->num = 0;
	}
	for (uint32_t id = 1; id < count; ++id) {
		wr_node_t *n = wr_node(t, id);

		if (n->flags & NODE_DEAD)
			continue;
		s->sub_start[n->parent + 1] += 1;
		wr_node(t, n->parent)->nlink += 1;
	}
	for (uint32_t i = 0; i < count; ++i)
		s->sub_start[i + 1] += s->sub_start[i];
	memcpy(cursor, s->sub_start, (size_t)count * sizeof(uint32_t));
	for (uint32_t id = 1; id < count; ++id) {
		wr_node_t *n = wr_node(t, id);
		subdir_t *sd;

		if (n->flags & NODE_DEAD)
			continue;
		sd = &s->sub[cursor[n->parent]++];
		sd->name = n->name;
		sd->id = id;
	}
	for (uint32_t id = 0; id < count; ++id) {
		uint32_t n = s->sub_start[id + 1] - s->sub_start[id];

		if (n > 1)
			qsort(s->sub + s->sub_start[id], n, sizeof(subdir_t),
			      compare_subdirs);
	}

	/* post-order: a directory after all its subdirectories */
	depth = 1;
	stack[0] = NODE_ROOT;
	cursor[NODE_ROOT] = s->sub_start[NODE_ROOT];
	while (depth > 0) {
		uint32_t d = stack[depth - 1];

		if (cursor[d] < s->sub_start[d + 1]) {
			uint32_t c = s->sub[cursor[d]++].id;

			cursor[c] = s->sub_start[c];
			stack[depth++] = c;
			continue;
		}
		s->rank[d] = s->order_count;
		s->order[s->order_count++] = d;
		depth -= 1;
	}
	free(cursor);
	free(stack);
	return 0;
}

/* The object's first occurrence (in the walk's order) numbers it in its
 * directory; an object with a link gets its link count. */
static int count_object(ser_t *s, uint64_t object, uint32_t first_dir,
			uint64_t count, bool any_link)
{
	s->newcount[first_dir] += 1;
	if (any_link) {
		linked_t *l;

		if (count > UINT32_MAX)
			return SQFS_ERROR_OVERFLOW;
		if (s->nlinked >= s->nocc_links)
			return SQFS_ERROR_INTERNAL;
		l = &s->linked[s->nlinked++];
		l->object = object;
		l->nlink = (uint32_t)count;
	}
	return 0;
}

/* Link counts of linked objects, the directory of each one's first
 * occurrence (which numbers it), and every directory's number. */
static int count_objects(ser_t *s)
{
	uint64_t object = 0, count = 0;
	uint32_t first_dir = 0;
	bool any_link = false;
	const void *rec = NULL;
	size_t len = 0;
	int ret;

	/* an object with a link has a link occurrence of its own */
	s->linked = calloc(s->nocc_links + 1, sizeof(s->linked[0]));
	if (s->linked == NULL)
		return SQFS_ERROR_ALLOC;

	ret = extsort_finish(s->occ);
	for (;;) {
		const uint8_t *p;
		int more;

		more = ret == 0 ? extsort_next(s->occ, &rec, &len) : ret;
		if (more < 0)
			return errtext_set(&s->wr->err, more, "%s",
					   extsort_error(s->occ));
		p = rec;
		if (more > 0 && len < OCC_FIXED)
			return SQFS_ERROR_CORRUPTED;
		if (count > 0 && (more == 0 || get_be64(p) != object)) {
			ret =
			    count_object(s, object, first_dir, count, any_link);
			if (ret != 0)
				return ret;
			count = 0;
		}
		if (more == 0)
			break;
		if (count == 0) {
			object = get_be64(p);
			first_dir = get_be32(p + len - 5);
			any_link = false;
		}
		if (first_dir >= s->t->node_count)
			return SQFS_ERROR_INTERNAL;
		any_link = any_link || p[len - 1] != 0;
		count += 1;
	}
	/* read to its end: the sort holds nothing any more */
	extsort_destroy(s->occ);
	s->occ = NULL;

	for (uint32_t k = 0; k < s->order_count; ++k) {
		uint32_t d = s->order[k];

		if ((uint64_t)s->numbered + s->newcount[d] + 1 >
		    UINT32_MAX - 16)
			return SQFS_ERROR_OVERFLOW;
		s->numbered += s->newcount[d];
		wr_node(s->t, d)->num = ++s->numbered;
	}
	return 0;
}

static linked_t *find_linked(const ser_t *s, uint64_t object)
{
	size_t lo = 0, hi = s->nlinked;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->linked[mid].object < object)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < s->nlinked && s->linked[lo].object == object)
		return &s->linked[lo];
	return NULL;
}

/* ---- step 3: emit -------------------------------------------------------- */

static sqfs_inode_t *scratch_inode(ser_t *s, size_t payload_size)
{
	if (s->ino == NULL || s->ino_capacity < payload_size) {
		size_t cap = s->ino_capacity * 2;

		if (cap < payload_size)
			cap = payload_size;
		if (cap < 64)
			cap = 64;
		free(s->ino);
		s->ino = sqfs_inode_alloc(cap);
		if (s->ino == NULL) {
			s->ino_capacity = 0;
			return NULL;
		}
		s->ino_capacity = cap;
	}

	memset(s->ino, 0, offsetof(sqfs_inode_t, payload));
	s->ino->payload_size = payload_size;
	return s->ino;
}

static void fill_common(sqfs_inode_t *ino, uint16_t mode, uint16_t uid_idx,
			uint16_t gid_idx, uint32_t mtime, uint32_t xattr,
			uint32_t num, uint32_t nlink, uint16_t type,
			uint16_t ext_type, bool ext)
{
	ino->type = ext ? ext_type : type;
	ino->mode = mode & 07777;
	ino->uid_idx = uid_idx;
	ino->gid_idx = gid_idx;
	ino->mtime = mtime;
	ino->inode_number = num;
	ino->nlink = nlink;
	ino->xattr_index = xattr;
}

/* Write ino at the inode table's current position: *ref gets it. */
static int emit_inode(ser_t *s, sqfs_inode_t *ino, uint32_t num, uint64_t *ref)
{
	uint64_t block;
	uint32_t offset;
	int ret;

	meta_stream_position(s->im, &block, &offset);
	if (block > (UINT64_MAX >> 16))
		return SQFS_ERROR_OVERFLOW;
	if (num != s->written + 1)
		return SQFS_ERROR_INTERNAL;

	ret = inode_write_stream(s->im, ino);
	if (ret != 0)
		return ret;

	*ref = (block << 16) | offset;
	if (s->export_refs != NULL) {
		uint8_t word[8];

		put_le64(word, *ref);
		ret = spill_file_append(s->export_refs, word, sizeof(word));
		if (ret != 0)
			return spill_words(s, s->export_refs, ret, NULL);
	}
	s->written += 1;
	return 0;
}

static int write_file(ser_t *s, const wr_record_t *r, uint32_t num,
		      uint32_t nlink, uint64_t *ref, uint8_t *itype)
{
	const file_data_t *fd = &r->data;
	uint64_t size = fd->size, sparse = fd->sparse_bytes;
	sqfs_inode_t *ino;
	uint32_t *sizes;
	bool ext;

	if ((uint64_t)fd->block_count * sizeof(uint32_t) > (uint64_t)SIZE_MAX)
		return SQFS_ERROR_OVERFLOW;

	ino = scratch_inode(s, (size_t)fd->block_count * sizeof(uint32_t));
	if (ino == NULL)
		return SQFS_ERROR_ALLOC;

	ext = r->xattr != SQFS_NO_XATTR || nlink > 1 || size > 0xFFFFFFFFu ||
	      fd->blocks_start > 0xFFFFFFFFu || sparse != 0;
	fill_common(ino, r->mode, r->uid_idx, r->gid_idx, r->mtime, r->xattr,
		    num, nlink, SQFS_INODE_FILE, SQFS_INODE_EXT_FILE, ext);

	if (size == 0) {
		ino->data.file.fragment_index = SQFS_NO_FRAGMENT;
	} else {
		ino->data.file.blocks_start = fd->blocks_start;
		ino->data.file.fragment_index = fd->fragment_index;
		ino->data.file.fragment_offset = fd->fragment_offset;
		ino->data.file.file_size = size;
		/* As mksquashfs: an all-sparse file still counts one
		 * byte as stored. */
		ino->data.file.sparse = sparse < size ? sparse : size - 1;
	}

	if (sqfs_inode_block_count(ino, s->wr->opt.block_size) !=
	    fd->block_count)
		return SQFS_ERROR_INTERNAL;
	sizes = sqfs_inode_block_sizes(ino);
	for (uint32_t i = 0; i < fd->block_count; ++i)
		sizes[i] = wr_record_block_size(r, i);
	*itype = (uint8_t)ino->type;
	return emit_inode(s, ino, num, ref);
}

/* Write the inode of a non-directory object. */
static int write_object(ser_t *s, const wr_record_t *r, uint32_t num,
			uint32_t nlink, uint64_t *ref, uint8_t *itype)
{
	bool ext = r->xattr != SQFS_NO_XATTR;
	sqfs_inode_t *ino;

	switch (r->kind) {
	case WR_REC_FILE:
		return write_file(s, r, num, nlink, ref, itype);
	case WR_REC_SLINK:
		ino = scratch_inode(s, r->text_len + 1);
		if (ino == NULL)
			return SQFS_ERROR_ALLOC;
		fill_common(ino, r->mode, r->uid_idx, r->gid_idx, r->mtime,
			    r->xattr, num, nlink, SQFS_INODE_SLINK,
			    SQFS_INODE_EXT_SLINK, ext);
		ino->data.slink.target_size = (uint32_t)r->text_len;
		memcpy(ino->payload, r->text, r->text_len);
		ino->payload[r->text_len] = '\0';
		break;
	case WR_REC_DEV:
		ino = scratch_inode(s, 0);
		if (ino == NULL)
			return SQFS_ERROR_ALLOC;
		if ((r->mode & S_IFMT) == S_IFBLK)
			fill_common(ino, r->mode, r->uid_idx, r->gid_idx,
				    r->mtime, r->xattr, num, nlink,
				    SQFS_INODE_BDEV, SQFS_INODE_EXT_BDEV, ext);
		else
			fill_common(ino, r->mode, r->uid_idx, r->gid_idx,
				    r->mtime, r->xattr, num, nlink,
				    SQFS_INODE_CDEV, SQFS_INODE_EXT_CDEV, ext);
		ino->data.dev.rdev = r->rdev;
		break;
	case WR_REC_IPC:
		ino = scratch_inode(s, 0);
		if (ino == NULL)
			return SQFS_ERROR_ALLOC;
		if ((r->mode & S_IFMT) == S_IFIFO)
			fill_common(ino, r->mode, r->uid_idx, r->gid_idx,
				    r->mtime, r->xattr, num, nlink,
				    SQFS_INODE_FIFO, SQFS_INODE_EXT_FIFO, ext);
		else
			fill_common(ino, r->mode, r->uid_idx, r->gid_idx,
				    r->mtime, r->xattr, num, nlink,
				    SQFS_INODE_SOCKET, SQFS_INODE_EXT_SOCKET,
				    ext);
		break;
	default:
		return SQFS_ERROR_INTERNAL;
	}
	*itype = (uint8_t)ino->type;
	return emit_inode(s, ino, num, ref);
}

/* The record of object seq from the store (into s->buf). */
static int load_object(ser_t *s, uint64_t seq, wr_record_t *r)
{
	uint8_t word[4];
	uint64_t off;
	size_t len;
	int ret;

	if (!hash_table_get(&s->where, seq, &off) || off == 0)
		return SQFS_ERROR_INTERNAL;
	off -= 1;
	ret = spill_file_read_at(s->store, off, word, 4);
	if (ret != 0)
		return spill_words(s, s->store, ret, NULL);
	len = get_le32(word);
	ret = reserve_buf(s, len);
	if (ret == 0)
		ret = spill_file_read_at(s->store, off + 4, s->buf, len);
	if (ret != 0)
		return spill_words(s, s->store, ret, NULL);
	return wr_record_decode(s->buf, len, r);
}

/* A non-directory entry of the directory being written: its object's
 * inode if this is the object's first occurrence, and its listing entry's
 * number, reference and type. */
static int emit_entry(ser_t *s, const wr_record_t *r, uint32_t *num,
		      uint64_t *ref, uint8_t *itype)
{
	uint64_t object = r->seq;
	wr_record_t obj;
	linked_t *l;
	int ret;

	if (r->kind == WR_REC_LINK)
		object = r->bound != 0 ? r->bound
				       : wr_links_result(&s->wr->links, r->seq);

	l = find_linked(s, object);
	if (l == NULL) {
		if (r->kind == WR_REC_LINK)
			return SQFS_ERROR_INTERNAL;
		*num = s->written + 1;
		return write_object(s, r, *num, 1, ref, itype);
	}
	if (!l->written) {
		if (r->kind == WR_REC_LINK) {
			ret = load_object(s, object, &obj);
			if (ret != 0)
				return ret;
			r = &obj;
		}
		l->num = s->written + 1;
		ret = write_object(s, r, l->num, l->nlink, &l->ref, &l->itype);
		if (ret != 0)
			return ret;
		l->written = true;
	}
	*num = l->num;
	*ref = l->ref;
	*itype = l->itype;
	return 0;
}

static int write_dir_inode(ser_t *s, uint32_t id, bool empty)
{
	wr_node_t *n = wr_node(s->t, id);
	const uint8_t *index = NULL;
	size_t index_size = 0, index_count = 0;
	uint64_t size = 3, dref;
	sqfs_inode_t *ino;
	bool ext;

	if (empty) {
		/* An empty directory has no listing; point at where the
		 * next one would go, as mksquashfs does. */
		uint64_t block;
		uint32_t offset;

		meta_stream_position(s->dm, &block, &offset);
		dref = (block << 16) | offset;
	} else {
		size = dir_writer_get_size(s->dw);
		if (size > 0xFFFFFFFFu - 3u)
			return SQFS_ERROR_OVERFLOW;
		size += 3;
		dref = dir_writer_get_dir_reference(s->dw);
		index = dir_writer_get_index(s->dw, &index_size, &index_count);
	}

	if ((dref >> 16) > 0xFFFFFFFFu || index_count > 0xFFFF)
		return SQFS_ERROR_OVERFLOW;

	ext = n->xattr != SQFS_NO_XATTR || size > 0xFFFF || index_count > 0;

	ino = scratch_inode(s, index_size);
	if (ino == NULL)
		return SQFS_ERROR_ALLOC;
	fill_common(ino, n->mode, n->uid_idx, n->gid_idx, n->mtime, n->xattr,
		    n->num, n->nlink, SQFS_INODE_DIR, SQFS_INODE_EXT_DIR, ext);
	ino->data.dir.start_block = (uint32_t)(dref >> 16);
	ino->data.dir.offset = (uint16_t)(dref & 0xFFFF);
	ino->data.dir.size = (uint32_t)size;
	ino->data.dir.parent_inode =
	    id == NODE_ROOT ? s->numbered + 1 : wr_node(s->t, n->parent)->num;
	ino->data.dir.index_count = (uint16_t)index_count;
	if (index_size > 0)
		memcpy(ino->payload, index, index_size);

	if (n->num != s->written + 1)
		return SQFS_ERROR_INTERNAL;
	n->itype = (uint8_t)ino->type;
	return emit_inode(s, ino, n->num, &n->ref);
}

/* Reads a directory's group of records back, in pages. */
typedef struct {
	spill_file_t *file;
	uint64_t pos;
	uint32_t left;
	uint8_t *page;
	size_t fill;
	size_t at;
	uint8_t *big;
} group_reader_t;

#define GROUP_PAGE (64u << 10)

/* The next record of the group: 1, or 0 at its end. */
static int group_next(ser_t *s, group_reader_t *g, wr_record_t *r)
{
	size_t avail, len;
	int ret;

	if (g->left == 0)
		return 0;

	for (;;) {
		avail = g->fill - g->at;
		if (avail >= 4 &&
		    avail >= 4 + (size_t)get_le32(g->page + g->at))
			break;

		/* what is left to the front */
		memmove(g->page, g->page + g->at, avail);
		g->fill = avail;
		g->at = 0;

		if (avail >= 4 && 4 + (size_t)get_le32(g->page) > GROUP_PAGE) {
			/* larger than a page: a buffer of its own */
			len = get_le32(g->page);
			free(g->big);
			g->big = malloc(len);
			if (g->big == NULL)
				return SQFS_ERROR_ALLOC;
			memcpy(g->big, g->page + 4, avail - 4);
			ret = spill_file_read_at(g->file, g->pos,
						 g->big + (avail - 4),
						 len - (avail - 4));
			if (ret != 0)
				return spill_words(s, g->file, ret, NULL);
			g->pos += len - (avail - 4);
			g->fill = 0;
			g->left -= 1;
			ret = wr_record_decode(g->big, len, r);
			return ret != 0 ? ret : 1;
		}

		len = GROUP_PAGE - g->fill;
		if ((uint64_t)len > spill_file_size(g->file) - g->pos)
			len = (size_t)(spill_file_size(g->file) - g->pos);
		if (len == 0)
			return SQFS_ERROR_CORRUPTED;
		ret =
		    spill_file_read_at(g->file, g->pos, g->page + g->fill, len);
		if (ret != 0)
			return spill_words(s, g->file, ret, NULL);
		g->pos += len;
		g->fill += len;
	}

	len = get_le32(g->page + g->at);
	ret = wr_record_decode(g->page + g->at + 4, len, r);
	if (ret != 0)
		return ret;
	g->at += 4 + len;
	g->left -= 1;
	return 1;
}

/* A directory's visit: its new objects' inodes and its listing, in name
 * order (its records merged with its subdirectories), then its inode. */
static int emit_dir(ser_t *s, uint32_t id, group_reader_t *g)
{
	uint32_t si = s->sub_start[id], send = s->sub_start[id + 1];
	bool empty = s->grp_count[id] == 0 && si == send;
	wr_record_t r;
	int have, ret;

	g->pos = s->grp_off[id];
	g->left = s->grp_count[id];
	g->fill = 0;
	g->at = 0;

	if (!empty) {
		ret = dir_writer_begin(s->dw);
		if (ret != 0)
			return ret;
	}
	have = group_next(s, g, &r);
	while (have > 0 || si < send) {
		const wr_node_t *sd =
		    si < send ? wr_node(s->t, s->sub[si].id) : NULL;
		uint32_t num;
		uint64_t ref;
		uint8_t itype;
		char name[257];

		if (have > 0) {
			memcpy(name, r.name, r.name_len);
			name[r.name_len] = '\0';
		}
		if (sd != NULL && (have <= 0 || strcmp(sd->name, name) < 0)) {
			ret = dir_writer_add_entry(s->dw, sd->name, sd->num,
						   sd->ref, sd->itype);
			si += 1;
		} else {
			ret = emit_entry(s, &r, &num, &ref, &itype);
			if (ret == 0)
				ret = dir_writer_add_entry(s->dw, name, num,
							   ref, itype);
			if (ret == 0)
				have = group_next(s, g, &r);
		}
		if (ret != 0)
			return ret;
	}
	if (have < 0)
		return have;
	if (!empty) {
		ret = dir_writer_end(s->dw);
		if (ret != 0)
			return ret;
	}
	return write_dir_inode(s, id, empty);
}

void wr_export_cleanup(wr_export_t *exp)
{
	spill_file_destroy(exp->refs);
	free(exp->block_pos);
	memset(exp, 0, sizeof(*exp));
}

int wr_export_fill(void *user, uint64_t first, uint64_t *refs, size_t count)
{
	wr_export_t *exp = user;
	uint8_t raw[8 * 1024];
	int ret;

	if (count > sizeof(raw) / 8 || first + count > exp->count)
		return SQFS_ERROR_INTERNAL;
	ret = spill_file_read_at(exp->refs, first * 8, raw, count * 8);
	if (ret != 0)
		return ret;
	for (size_t i = 0; i < count; ++i) {
		uint64_t vref = get_le64(raw + i * 8), block = vref >> 16;

		if (block >= exp->block_count)
			return SQFS_ERROR_INTERNAL;
		refs[i] = (exp->block_pos[block] << 16) | (vref & 0xFFFF);
	}
	return 0;
}

/* Keep what the export table needs past the pipeline: the positions of
 * the inode table's blocks. */
static int keep_export(ser_t *s, wr_export_t *exp)
{
	uint64_t blocks = meta_pipe_block_count(s->mp, META_PIPE_INODES);

	if (blocks > SIZE_MAX / sizeof(uint64_t))
		return SQFS_ERROR_OVERFLOW;
	exp->block_pos =
	    malloc((size_t)(blocks > 0 ? blocks : 1) * sizeof(uint64_t));
	if (exp->block_pos == NULL)
		return SQFS_ERROR_ALLOC;
	for (uint64_t b = 0; b < blocks; ++b) {
		uint64_t ref;
		int ret =
		    meta_pipe_resolve(s->mp, META_PIPE_INODES, b << 16, &ref);

		if (ret != 0)
			return ret;
		exp->block_pos[b] = ref >> 16;
	}
	exp->block_count = blocks;
	exp->count = s->numbered;
	exp->refs = s->export_refs;
	s->export_refs = NULL;
	return 0;
}

int wr_write_tables(sqfs_writer_t *wr, wr_export_t *exp)
{
	sqfs_file_t *file = wr->file;
	meta_file_sink_t inode_sink;
	meta_spill_sink_t dir_sink;
	char why[SPILL_WHY_SIZE];
	meta_pipe_desc_t desc;
	group_reader_t g;
	uint32_t count;
	ser_t s;
	int ret;

	memset(&s, 0, sizeof(s));
	memset(&g, 0, sizeof(g));
	memset(exp, 0, sizeof(*exp));
	memset(&dir_sink, 0, sizeof(dir_sink));
	s.wr = wr;
	s.t = &wr->tree;
	hash_table_init(&s.where);
	count = s.t->node_count;

	s.grp_off = calloc((size_t)count + 1, sizeof(s.grp_off[0]));
	s.grp_count = calloc((size_t)count + 1, sizeof(s.grp_count[0]));
	s.newcount = calloc((size_t)count + 1, sizeof(s.newcount[0]));
	if (s.grp_off == NULL || s.grp_count == NULL || s.newcount == NULL) {
		ret = SQFS_ERROR_ALLOC;
		goto out;
	}

	/* the walk first: the occurrences sort by it */
	ret = walk_dirs(&s);
	if (ret == 0)
		ret = resolve(&s);
	if (ret == 0)
		ret = count_objects(&s);
	if (ret != 0)
		goto out;

	/* the inode table goes after the data at once; the directory table
	 * must follow it, so it waits in a spill file */
	meta_file_sink_init(&inode_sink, file);
	ret = meta_spill_sink_init(&dir_sink, wr_mem_share(wr, 1, 32), why);
	if (ret == 0 && (wr->opt.flags & SQFS_WRITER_EXPORTABLE))
		ret = spill_file_create(wr_mem_share(wr, 1, 64), &s.export_refs,
					why);
	if (ret != 0) {
		ret = spill_words(&s, NULL, ret, why);
		goto out;
	}

	memset(&desc, 0, sizeof(desc));
	/* -noI: both tables raw */
	desc.cmp =
	    (wr->opt.flags & SQFS_WRITER_UNCOMPRESSED_INODES) ? NULL : wr->cmp;
	desc.sinks[META_PIPE_INODES] = &inode_sink.base;
	desc.sinks[META_PIPE_DIRS] = &dir_sink.base;
	desc.num_workers = wr->opt.num_jobs;
	ret = meta_pipe_create(&desc, &s.mp);
	if (ret != 0)
		goto out;
	s.im = meta_pipe_stream(s.mp, META_PIPE_INODES);
	s.dm = meta_pipe_stream(s.mp, META_PIPE_DIRS);
	ret = dir_writer_create(s.dm, &s.dw);
	if (ret != 0)
		goto out;

	wr->super.inode_table_start = file->get_size(file);

	g.file = s.groups;
	g.page = malloc(GROUP_PAGE);
	if (g.page == NULL) {
		ret = SQFS_ERROR_ALLOC;
		goto out;
	}
	for (uint32_t k = 0; ret == 0 && k < s.order_count; ++k)
		ret = emit_dir(&s, s.order[k], &g);
	if (ret == 0 && s.written != s.numbered)
		ret = SQFS_ERROR_INTERNAL;
	if (ret == 0)
		ret = meta_pipe_finish(s.mp);
	if (ret == SQFS_ERROR_IO && meta_spill_sink_error(&dir_sink)[0] != 0)
		ret = spill_words(&s, NULL, ret,
				  meta_spill_sink_error(&dir_sink));
	if (ret != 0)
		goto out;

	wr->super.directory_table_start = file->get_size(file);
	if (wr->super.directory_table_start - wr->super.inode_table_start !=
	    meta_pipe_table_size(s.mp, META_PIPE_INODES)) {
		ret = SQFS_ERROR_INTERNAL;
		goto out;
	}
	ret = meta_spill_sink_write_out(&dir_sink, file);
	if (ret == SQFS_ERROR_IO && meta_spill_sink_error(&dir_sink)[0] != 0)
		ret = spill_words(&s, NULL, ret,
				  meta_spill_sink_error(&dir_sink));
	if (ret == 0)
		ret = meta_pipe_resolve(s.mp, META_PIPE_INODES,
					wr_node(s.t, NODE_ROOT)->ref,
					&wr->super.root_inode_ref);
	if (ret == 0 && s.export_refs != NULL)
		ret = keep_export(&s, exp);
	if (ret != 0)
		goto out;

	wr->super.inode_count = s.numbered;
	wr->stats.inodes = s.numbered;
	wr->stats.inode_table_bytes =
	    wr->super.directory_table_start - wr->super.inode_table_start;
	wr->stats.directory_table_bytes =
	    file->get_size(file) - wr->super.directory_table_start;
out:
	if (ret != 0)
		wr_export_cleanup(exp);
	free(g.page);
	free(g.big);
	if (s.dw != NULL)
		dir_writer_destroy(s.dw);
	meta_pipe_destroy(s.mp);
	meta_spill_sink_cleanup(&dir_sink);
	spill_file_destroy(s.export_refs);
	free(s.ino);
	free(s.buf);
	extsort_destroy(s.occ);
	free(s.linked);
	free(s.order);
	free(s.rank);
	free(s.sub_start);
	free(s.sub);
	free(s.grp_off);
	free(s.grp_count);
	free(s.newcount);
	hash_table_cleanup(&s.where);
	spill_file_destroy(s.groups);
	spill_file_destroy(s.store);
	return ret;
}
