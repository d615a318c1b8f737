/* SPDX-License-Identifier: MIT */
/*
 * Numbering the inodes and writing the inode and directory tables.
 *
 * Directories are visited in post-order (subdirectories first, in sorted
 * order); a visit numbers the directory's non-directory children, in
 * sorted order, then the directory itself, so the root is last. The first
 * pass only numbers (a directory inode needs its parent's number, which
 * comes later); the second pass repeats the same walk and writes each
 * inode in number order, so a directory's listing can always refer to its
 * children's inodes, which are already written.
 *
 * The walk (walk, number_dir, emit_dir) only decides the order; the
 * emission (write_*) encodes each record into the streams of the
 * metadata pipeline (meta_pipeline_internal.h), which compresses the
 * blocks on worker threads. Every reference kept while writing (a node's
 * ref, the export table) is virtual, in the pipeline's block numbers; the
 * pipeline fills in the fields of the tables itself, and the root
 * reference and the export table are made real at the end.
 */
#include "config.h"

#include "sqfs/writer/internal.h"
#include "sqfs/dir_writer_internal.h"
#include "sqfs/inode_internal.h"
#include "sqfs/meta_pipeline_internal.h"
#include "sqfs/io.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
	const char *name;
	uint32_t id;
} child_t;

typedef struct {
	uint32_t dir;
	uint32_t cursor;
} frame_t;

typedef struct {
	sqfs_writer_t *wr;
	wr_tree_t *t;
	/* Children of node i: children[start[i] .. start[i + 1]). */
	uint32_t *start;
	child_t *children;
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
	uint64_t *export_table;
} ser_t;

static int compare_children(const void *a, const void *b)
{
	/* strcmp compares as unsigned char: the on-disk order. */
	return strcmp(((const child_t *)a)->name, ((const child_t *)b)->name);
}

/* The node a directory entry stands for: a link's final target. */
static wr_node_t *entry_object(const ser_t *s, uint32_t id)
{
	wr_node_t *n = wr_node(s->t, id);

	if (n->flags & NODE_HARDLINK)
		return wr_node(s->t, n->num);
	return n;
}

static int build_children(ser_t *s)
{
	wr_tree_t *t = s->t;
	uint32_t count = t->node_count;

	s->start = calloc((size_t)count + 1, sizeof(s->start[0]));
	s->children = malloc(((size_t)count + 1) * sizeof(s->children[0]));
	if (s->start == NULL || s->children == NULL)
		return SQFS_ERROR_ALLOC;

	for (uint32_t id = 0; id < count; ++id) {
		wr_node_t *n = wr_node(t, id);

		if (!(n->flags & NODE_HARDLINK))
			n->num = 0;
		/* a replaced object still reached through a link bound to it
		 * has no entry of its own */
		if (n->flags & NODE_DEAD)
			n->nlink = 0;
		else
			n->nlink = wr_node_is_dir(n) ? 2 : 1;
	}

	for (uint32_t id = 1; id < count; ++id) {
		wr_node_t *n = wr_node(t, id);

		if (n->flags & NODE_DEAD)
			continue;
		s->start[n->parent + 1] += 1;
		if (wr_node_is_dir(n))
			wr_node(t, n->parent)->nlink += 1;
		if (n->flags & NODE_HARDLINK)
			wr_node(t, n->num)->nlink += 1;
	}

	for (uint32_t i = 0; i < count; ++i)
		s->start[i + 1] += s->start[i];

	/* Place each child at its parent's cursor, then shift the cursors
	 * (now at each range's end) back to the starts. */
	for (uint32_t id = 1; id < count; ++id) {
		wr_node_t *n = wr_node(t, id);
		child_t *c;

		if (n->flags & NODE_DEAD)
			continue;
		c = &s->children[s->start[n->parent]++];
		c->name = n->name;
		c->id = id;
	}
	for (uint32_t i = count; i > 0; --i)
		s->start[i] = s->start[i - 1];
	s->start[0] = 0;

	for (uint32_t id = 0; id < count; ++id) {
		uint32_t n = s->start[id + 1] - s->start[id];

		if (n > 1) {
			qsort(s->children + s->start[id], n,
			      sizeof(s->children[0]), compare_children);
		}
	}
	return 0;
}

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

static void fill_common(sqfs_inode_t *ino, const wr_node_t *n, uint16_t type,
			uint16_t ext_type, bool ext)
{
	ino->type = ext ? ext_type : type;
	ino->mode = n->mode & 07777;
	ino->uid_idx = n->uid_idx;
	ino->gid_idx = n->gid_idx;
	ino->mtime = n->mtime;
	ino->inode_number = n->num;
	ino->nlink = n->nlink;
	ino->xattr_index = n->xattr;
}

static int emit_inode(ser_t *s, wr_node_t *n, sqfs_inode_t *ino)
{
	uint64_t block;
	uint32_t offset;
	int ret;

	meta_stream_position(s->im, &block, &offset);
	if (block > (UINT64_MAX >> 16))
		return SQFS_ERROR_OVERFLOW;

	ret = inode_write_stream(s->im, ino);
	if (ret != 0)
		return ret;

	n->ref = (block << 16) | offset;
	n->itype = (uint8_t)ino->type;
	if (s->export_table != NULL)
		s->export_table[n->num - 1] = n->ref;
	s->written += 1;
	return 0;
}

static int write_file(ser_t *s, wr_node_t *n)
{
	const file_data_t *fd = n->data.file;
	uint64_t size = fd->size, sparse = fd->sparse_bytes;
	sqfs_inode_t *ino;
	bool ext;

	if ((uint64_t)fd->block_count * sizeof(uint32_t) > (uint64_t)SIZE_MAX)
		return SQFS_ERROR_OVERFLOW;

	ino = scratch_inode(s, (size_t)fd->block_count * sizeof(uint32_t));
	if (ino == NULL)
		return SQFS_ERROR_ALLOC;

	ext = n->xattr != SQFS_NO_XATTR || n->nlink > 1 || size > 0xFFFFFFFFu ||
	      fd->blocks_start > 0xFFFFFFFFu || sparse != 0;
	fill_common(ino, n, SQFS_INODE_FILE, SQFS_INODE_EXT_FILE, ext);

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
	if (fd->block_count > 0) {
		memcpy(sqfs_inode_block_sizes(ino), fd->block_sizes,
		       (size_t)fd->block_count * sizeof(uint32_t));
	}
	return emit_inode(s, n, ino);
}

static int write_object(ser_t *s, wr_node_t *n)
{
	bool ext = n->xattr != SQFS_NO_XATTR;
	sqfs_inode_t *ino;
	size_t len;

	switch (n->mode & S_IFMT) {
	case S_IFREG:
		return write_file(s, n);
	case S_IFLNK:
		len = strlen(n->data.target);
		ino = scratch_inode(s, len + 1);
		if (ino == NULL)
			return SQFS_ERROR_ALLOC;
		fill_common(ino, n, SQFS_INODE_SLINK, SQFS_INODE_EXT_SLINK,
			    ext);
		ino->data.slink.target_size = (uint32_t)len;
		memcpy(ino->payload, n->data.target, len + 1);
		break;
	case S_IFBLK:
	case S_IFCHR:
		ino = scratch_inode(s, 0);
		if (ino == NULL)
			return SQFS_ERROR_ALLOC;
		if ((n->mode & S_IFMT) == S_IFBLK)
			fill_common(ino, n, SQFS_INODE_BDEV,
				    SQFS_INODE_EXT_BDEV, ext);
		else
			fill_common(ino, n, SQFS_INODE_CDEV,
				    SQFS_INODE_EXT_CDEV, ext);
		ino->data.dev.rdev = n->data.rdev;
		break;
	case S_IFIFO:
		ino = scratch_inode(s, 0);
		if (ino == NULL)
			return SQFS_ERROR_ALLOC;
		fill_common(ino, n, SQFS_INODE_FIFO, SQFS_INODE_EXT_FIFO, ext);
		break;
	case S_IFSOCK:
		ino = scratch_inode(s, 0);
		if (ino == NULL)
			return SQFS_ERROR_ALLOC;
		fill_common(ino, n, SQFS_INODE_SOCKET, SQFS_INODE_EXT_SOCKET,
			    ext);
		break;
	default:
		return SQFS_ERROR_INTERNAL;
	}
	return emit_inode(s, n, ino);
}

static int write_dir(ser_t *s, uint32_t id)
{
	wr_node_t *n = wr_node(s->t, id);
	uint32_t first = s->start[id], end = s->start[id + 1];
	const uint8_t *index = NULL;
	size_t index_size = 0, index_count = 0;
	uint64_t size = 3, dref;
	sqfs_inode_t *ino;
	bool ext;
	int ret;

	if (first == end) {
		/* An empty directory has no listing; point at where the
		 * next one would go, as mksquashfs does. */
		uint64_t block;
		uint32_t offset;

		meta_stream_position(s->dm, &block, &offset);
		dref = (block << 16) | offset;
	} else {
		ret = dir_writer_begin(s->dw);
		for (uint32_t i = first; ret == 0 && i < end; ++i) {
			const child_t *c = &s->children[i];
			const wr_node_t *obj = entry_object(s, c->id);

			ret = dir_writer_add_entry(s->dw, c->name, obj->num,
						   obj->ref, obj->itype);
		}
		if (ret == 0)
			ret = dir_writer_end(s->dw);
		if (ret != 0)
			return ret;

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
	fill_common(ino, n, SQFS_INODE_DIR, SQFS_INODE_EXT_DIR, ext);
	ino->data.dir.start_block = (uint32_t)(dref >> 16);
	ino->data.dir.offset = (uint16_t)(dref & 0xFFFF);
	ino->data.dir.size = (uint32_t)size;
	ino->data.dir.parent_inode =
	    id == NODE_ROOT ? s->numbered + 1 : wr_node(s->t, n->parent)->num;
	ino->data.dir.index_count = (uint16_t)index_count;
	if (index_size > 0)
		memcpy(ino->payload, index, index_size);

	return emit_inode(s, n, ino);
}

/* A directory's visit in the numbering pass. */
static int number_dir(ser_t *s, uint32_t id)
{
	for (uint32_t i = s->start[id]; i < s->start[id + 1]; ++i) {
		wr_node_t *n = wr_node(s->t, s->children[i].id);
		wr_node_t *obj = entry_object(s, s->children[i].id);

		if (!wr_node_is_dir(n) && obj->num == 0)
			obj->num = ++s->numbered;
	}
	wr_node(s->t, id)->num = ++s->numbered;
	return 0;
}

/* A directory's visit in the writing pass: the same order. */
static int emit_dir(ser_t *s, uint32_t id)
{
	int ret;

	for (uint32_t i = s->start[id]; i < s->start[id + 1]; ++i) {
		wr_node_t *n = wr_node(s->t, s->children[i].id);
		wr_node_t *obj = entry_object(s, s->children[i].id);

		/* A shared object is written at its first occurrence,
		 * which got the next number in the first pass. */
		if (wr_node_is_dir(n) || obj->num != s->written + 1)
			continue;
		ret = write_object(s, obj);
		if (ret != 0)
			return ret;
	}

	if (wr_node(s->t, id)->num != s->written + 1)
		return SQFS_ERROR_INTERNAL;
	return write_dir(s, id);
}

static int walk(ser_t *s, int (*visit)(ser_t *, uint32_t))
{
	size_t depth = 1, capacity = 64;
	frame_t *stack = malloc(capacity * sizeof(stack[0]));
	int ret = 0;

	if (stack == NULL)
		return SQFS_ERROR_ALLOC;
	stack[0].dir = NODE_ROOT;
	stack[0].cursor = s->start[NODE_ROOT];

	while (depth > 0) {
		frame_t *top = &stack[depth - 1];
		uint32_t sub = NODE_NIL;

		while (top->cursor < s->start[top->dir + 1]) {
			uint32_t c = s->children[top->cursor++].id;

			if (wr_node_is_dir(wr_node(s->t, c))) {
				sub = c;
				break;
			}
		}

		if (sub == NODE_NIL) {
			ret = visit(s, top->dir);
			if (ret != 0)
				break;
			depth -= 1;
			continue;
		}

		if (depth == capacity) {
			frame_t *grown;

			capacity *= 2;
			grown = realloc(stack, capacity * sizeof(stack[0]));
			if (grown == NULL) {
				ret = SQFS_ERROR_ALLOC;
				break;
			}
			stack = grown;
		}
		stack[depth].dir = sub;
		stack[depth].cursor = s->start[sub];
		depth += 1;
	}

	free(stack);
	return ret;
}

/* The pipeline's virtual references made real: the root's, the export
 * table's. */
static int resolve_refs(ser_t *s)
{
	int ret;

	ret = meta_pipe_resolve(s->mp, META_PIPE_INODES,
				wr_node(s->t, NODE_ROOT)->ref,
				&s->wr->super.root_inode_ref);
	for (uint32_t i = 0;
	     ret == 0 && s->export_table != NULL && i < s->numbered; ++i) {
		ret =
		    meta_pipe_resolve(s->mp, META_PIPE_INODES,
				      s->export_table[i], &s->export_table[i]);
	}
	return ret;
}

int wr_write_tables(sqfs_writer_t *wr, uint64_t **export_table)
{
	sqfs_file_t *file = wr->file;
	meta_file_sink_t inode_sink;
	meta_memory_sink_t dir_sink;
	meta_pipe_desc_t desc;
	ser_t s;
	int ret;

	memset(&s, 0, sizeof(s));
	s.wr = wr;
	s.t = &wr->tree;
	*export_table = NULL;
	/* the inode table goes after the data at once; the directory table
	 * must follow it, so it is held back until the end */
	meta_file_sink_init(&inode_sink, file);
	meta_memory_sink_init(&dir_sink);

	ret = build_children(&s);
	if (ret != 0)
		goto out;

	ret = walk(&s, number_dir);
	if (ret != 0)
		goto out;

	if (wr->opt.flags & SQFS_WRITER_EXPORTABLE) {
		s.export_table = calloc(s.numbered, sizeof(uint64_t));
		if (s.export_table == NULL) {
			ret = SQFS_ERROR_ALLOC;
			goto out;
		}
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

	ret = walk(&s, emit_dir);
	if (ret == 0 && s.written != s.numbered)
		ret = SQFS_ERROR_INTERNAL;
	if (ret == 0)
		ret = meta_pipe_finish(s.mp);
	if (ret != 0)
		goto out;

	wr->super.directory_table_start = file->get_size(file);
	if (wr->super.directory_table_start - wr->super.inode_table_start !=
	    meta_pipe_table_size(s.mp, META_PIPE_INODES)) {
		ret = SQFS_ERROR_INTERNAL;
		goto out;
	}
	ret = meta_memory_sink_write_out(&dir_sink, file);
	if (ret == 0)
		ret = resolve_refs(&s);
	if (ret != 0)
		goto out;

	wr->super.inode_count = s.numbered;
	wr->stats.inodes = s.numbered;
	wr->stats.inode_table_bytes =
	    wr->super.directory_table_start - wr->super.inode_table_start;
	wr->stats.directory_table_bytes =
	    file->get_size(file) - wr->super.directory_table_start;

	*export_table = s.export_table;
	s.export_table = NULL;
out:
	if (s.dw != NULL)
		dir_writer_destroy(s.dw);
	meta_pipe_destroy(s.mp);
	meta_memory_sink_cleanup(&dir_sink);
	free(s.export_table);
	free(s.ino);
	free(s.children);
	free(s.start);
	return ret;
}
