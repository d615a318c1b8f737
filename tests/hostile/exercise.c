/* SPDX-License-Identifier: MIT */
/*
 * exercise.c - drive the whole reader API over one untrusted image.
 *
 * Any error code is a fine answer to a hostile image. What is never fine
 * is the library contradicting its own headers: a listing entry that
 * breaks the rules dir_reader.h promises to check, a read that returns
 * more than asked or ends early without an error, the block interface and
 * the byte interface disagreeing about a file's contents, a path the
 * walker reported that resolves to another inode, an index the image
 * does not hold being accepted. Those are reported as inconsistencies.
 */
#include "config.h"

#include "exercise.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CHUNK (64u * 1024u)
/* Files up to this size are also read block by block and compared. */
#define COMPARE_MAX (1u << 20)
/* Entries per directory whose names are looked up again with find. */
#define FIND_MAX 64u

typedef struct {
	char *name;
	uint64_t ref;
} saved_name_t;

typedef struct {
	sqfs_image_t *img;
	sqfs_dir_reader_t *dr;
	sqfs_data_reader_t *data;
	const hostile_limits_t *lim;
	hostile_result_t *res;
	uint8_t *buf;
	uint8_t *content;
	uint32_t block_size;
} ctx_t;

static int inconsistent(ctx_t *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int inconsistent(ctx_t *c, const char *fmt, ...)
{
	va_list ap;

	if (c->res->inconsistency[0] == '\0') {
		va_start(ap, fmt);
		vsnprintf(c->res->inconsistency, sizeof(c->res->inconsistency),
			  fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* Note err as the image's rejection at stage; -1 if err is not an
 * error code a reader may give for bad input. */
static int failed(ctx_t *c, const char *stage, int err)
{
	if (err >= 0 || err < SQFS_ERROR_LAST)
		return inconsistent(c, "%s: returned %d, not an error code",
				    stage, err);
	if (err == SQFS_ERROR_INTERNAL)
		return inconsistent(c, "%s: SQFS_ERROR_INTERNAL", stage);
	if (c->res->error == 0) {
		c->res->error = err;
		c->res->stage = stage;
	}
	return 0;
}

static bool is_dir_type(uint16_t type)
{
	return type == SQFS_INODE_DIR || type == SQFS_INODE_EXT_DIR;
}

static bool is_file_type(uint16_t type)
{
	return type == SQFS_INODE_FILE || type == SQFS_INODE_EXT_FILE;
}

static bool is_slink_type(uint16_t type)
{
	return type == SQFS_INODE_SLINK || type == SQFS_INODE_EXT_SLINK;
}

static int check_blocks(ctx_t *c, const sqfs_inode_t *inode, uint64_t size)
{
	uint64_t count = sqfs_inode_block_count(inode, c->block_size);
	bool tail = inode->data.file.fragment_index != SQFS_NO_FRAGMENT;
	uint64_t pos = 0, i;
	sqfs_file_block_t blk;
	int ret;

	for (i = 0; i < count + (tail ? 1 : 0); ++i) {
		ret =
		    sqfs_data_reader_get_block(c->data, inode, (size_t)i, &blk);
		if (ret != 0)
			return inconsistent(c,
					    "get_block %llu fails (%d) on a "
					    "file read fine",
					    (unsigned long long)i, ret);
		if (blk.size > size - pos ||
		    (blk.size > 0 && blk.data == NULL) ||
		    memcmp(blk.data, c->content + pos, blk.size) != 0)
			return inconsistent(c,
					    "block %llu differs from the bytes "
					    "read at %llu",
					    (unsigned long long)i,
					    (unsigned long long)pos);
		pos += blk.size;
	}
	if (pos != size)
		return inconsistent(c, "blocks hold %llu bytes, file %llu",
				    (unsigned long long)pos,
				    (unsigned long long)size);
	ret = sqfs_data_reader_get_block(c->data, inode, (size_t)i, &blk);
	if (ret == 0)
		return inconsistent(c, "get_block past the last block works");
	return 0;
}

static int read_file(ctx_t *c, const sqfs_inode_t *inode)
{
	uint64_t size = inode->data.file.file_size, off = 0;
	bool keep = size <= COMPARE_MAX;
	ptrdiff_t r;

	while (off < size) {
		if (c->res->bytes >= c->lim->byte_cap)
			return 0;
		r = sqfs_data_reader_read(c->data, inode, off, c->buf, CHUNK);
		if (r < 0)
			return failed(c, "read", (int)r);
		if (r == 0)
			return inconsistent(c, "read: end at %llu of %llu",
					    (unsigned long long)off,
					    (unsigned long long)size);
		if ((size_t)r > CHUNK || (uint64_t)r > size - off)
			return inconsistent(
			    c, "read: %td bytes at %llu of %llu", r,
			    (unsigned long long)off, (unsigned long long)size);
		if (keep)
			memcpy(c->content + off, c->buf, (size_t)r);
		off += (uint64_t)r;
		c->res->bytes += (uint64_t)r;
	}
	r = sqfs_data_reader_read(c->data, inode, size, c->buf, 16);
	if (r != 0)
		return inconsistent(c, "read at the end gives %td", r);
	r = sqfs_data_reader_read(c->data, inode, UINT64_MAX, c->buf, 16);
	if (r != 0)
		return inconsistent(c, "read at 2^64-1 gives %td", r);
	return keep ? check_blocks(c, inode, size) : 0;
}

static int check_name(ctx_t *c, const sqfs_dir_entry_t *ent, const char *prev,
		      size_t prev_len)
{
	size_t n = ent->name_len, cmp_len = n < prev_len ? n : prev_len;
	int cmp;

	if (ent->name == NULL || n < 1 || n > 256)
		return inconsistent(c, "entry with a name of %zu bytes", n);
	if (memchr(ent->name, '/', n) || memchr(ent->name, '\0', n))
		return inconsistent(c, "entry name with '/' or NUL");
	if ((n == 1 && ent->name[0] == '.') ||
	    (n == 2 && ent->name[0] == '.' && ent->name[1] == '.'))
		return inconsistent(c, "entry named . or ..");
	if (ent->type < 1 || ent->type > 7)
		return inconsistent(c, "entry of type %u", ent->type);
	if (prev != NULL) {
		cmp = memcmp(prev, ent->name, cmp_len);
		if (cmp > 0 || (cmp == 0 && prev_len >= n))
			return inconsistent(c, "entries out of order");
	}
	return 0;
}

static void free_names(saved_name_t *names, size_t count)
{
	size_t i;

	for (i = 0; i < count; ++i)
		free(names[i].name);
}

static int find_names(ctx_t *c, const sqfs_inode_t *dir,
		      const saved_name_t *names, size_t count)
{
	sqfs_dir_entry_t ent;
	size_t i;
	int ret;

	for (i = 0; i < count && c->res->lookups < c->lim->lookup_cap; ++i) {
		c->res->lookups++;
		ret = sqfs_dir_reader_find(c->dr, dir, names[i].name, &ent);
		if (ret != 0)
			return failed(c, "find", ret);
		if (ent.inode_ref != names[i].ref)
			return inconsistent(c, "find '%s' gives another entry",
					    names[i].name);
	}
	return 0;
}

static int list_dir(ctx_t *c, const sqfs_inode_t *dir)
{
	saved_name_t names[FIND_MAX];
	char prev[257];
	size_t prev_len = 0, count = 0;
	sqfs_dir_entry_t ent;
	int ret, err = 0;

	ret = sqfs_dir_reader_open(c->dr, dir);
	if (ret != 0)
		return failed(c, "list", ret);
	for (;;) {
		ret = sqfs_dir_reader_next(c->dr, &ent);
		if (ret < 0) {
			err = failed(c, "list", ret);
			break;
		}
		if (ret == 1)
			break;
		if (ret != 0) {
			err = inconsistent(c, "dir_reader_next gives %d", ret);
			break;
		}
		err = check_name(c, &ent, prev_len ? prev : NULL, prev_len);
		if (err)
			break;
		memcpy(prev, ent.name, ent.name_len);
		prev_len = ent.name_len;
		if (count < FIND_MAX) {
			names[count].name = strndup(ent.name, ent.name_len);
			if (names[count].name == NULL)
				break;
			names[count++].ref = ent.inode_ref;
		}
	}
	if (err == 0 && ret == 1)
		err = find_names(c, dir, names, count);
	free_names(names, count);
	return err;
}

static int check_xattrs(ctx_t *c, const sqfs_inode_t *inode)
{
	sqfs_xattr_t *list = NULL;
	size_t count = 0, i;
	int ret;

	ret = sqfs_image_read_xattrs(c->img, inode, &list, &count);
	if (ret != 0)
		return failed(c, "xattrs", ret);
	if (count > 0 && list == NULL)
		return inconsistent(c, "%zu xattrs in a NULL list", count);
	for (i = 0; i < count; ++i) {
		const char *k = list[i].key;

		if (k == NULL || (strncmp(k, "user.", 5) != 0 &&
				  strncmp(k, "trusted.", 8) != 0 &&
				  strncmp(k, "security.", 9) != 0)) {
			sqfs_xattr_list_free(list, count);
			return inconsistent(c, "xattr key without a prefix");
		}
		if (list[i].size > 0 && list[i].value == NULL) {
			sqfs_xattr_list_free(list, count);
			return inconsistent(c, "xattr value is NULL");
		}
	}
	c->res->xattrs += count;
	sqfs_xattr_list_free(list, count);
	return 0;
}

static int check_inode(ctx_t *c, const sqfs_inode_t *inode)
{
	static const uint32_t fmt[] = {
	    0, S_IFDIR, S_IFREG, S_IFLNK, S_IFBLK, S_IFCHR, S_IFIFO, S_IFSOCK,
	};
	uint16_t basic = sqfs_inode_type_basic(inode->type);
	uint32_t uid, gid, mode = sqfs_inode_mode(inode);
	int ret;

	if (inode->type < 1 || inode->type > 14 || basic < 1 || basic > 7)
		return inconsistent(c, "inode of type %u", inode->type);
	if ((mode & S_IFMT) != fmt[basic] ||
	    (mode & ~(uint32_t)S_IFMT) != (inode->mode & 07777u))
		return inconsistent(c, "mode %o for type %u", mode,
				    inode->type);
	if (inode->inode_number == 0 ||
	    inode->inode_number > sqfs_image_super(c->img)->inode_count)
		return inconsistent(c, "inode number %u accepted",
				    inode->inode_number);
	if (is_slink_type(inode->type)) {
		uint32_t n = inode->data.slink.target_size;

		if (inode->payload_size != (size_t)n + 1 ||
		    inode->payload[n] != '\0')
			return inconsistent(c, "symlink target not terminated");
	}
	ret = sqfs_image_inode_owner(c->img, inode, &uid, &gid);
	if (ret != 0)
		return failed(c, "owner", ret);
	return check_xattrs(c, inode);
}

static size_t path_depth(const char *path)
{
	size_t n = *path ? 1 : 0;

	for (; *path; ++path)
		n += *path == '/';
	return n;
}

static int check_path(ctx_t *c, const sqfs_walk_entry_t *ent)
{
	const char *p = ent->path;
	sqfs_inode_t *inode = NULL;
	int ret;

	if (path_depth(p) != ent->depth)
		return inconsistent(c, "'%s' at depth %u", p, ent->depth);
	if (p[0] == '/' || strstr(p, "//") || !strcmp(p, ".") ||
	    !strcmp(p, "..") || !strncmp(p, "./", 2) || !strncmp(p, "../", 3) ||
	    strstr(p, "/./") || strstr(p, "/../"))
		return inconsistent(c, "walker path '%s'", p);
	if (c->res->lookups >= c->lim->lookup_cap)
		return 0;
	c->res->lookups++;
	ret = sqfs_dir_reader_resolve(c->dr, p, &inode);
	if (ret != 0)
		return failed(c, "resolve", ret);
	/* The walker streams a listing and reports an entry before it has
	 * seen the next one, so a misplaced name is only caught one entry
	 * later; resolve may have found the real owner of the name through
	 * the index. Only a clean image so far makes a difference a bug. */
	if ((inode->inode_number != ent->inode->inode_number ||
	     inode->type != ent->inode->type) &&
	    c->res->error == 0)
		ret = inconsistent(c,
				   "'%s' resolves to inode %u (type %u), the "
				   "walker gave %u (type %u)",
				   p, inode->inode_number, inode->type,
				   ent->inode->inode_number, ent->inode->type);
	free(inode);
	return ret;
}

static void print_path(ctx_t *c, const sqfs_walk_entry_t *ent)
{
	const unsigned char *p = (const unsigned char *)ent->path;
	char kind = 'O';

	if (c->lim->paths == NULL || *p == '\0')
		return;
	for (; *p; ++p) {
		if (*p < 0x20 || *p == 0x7F)
			return;
	}
	if (is_dir_type(ent->inode->type))
		kind = 'D';
	else if (is_file_type(ent->inode->type))
		kind = 'F';
	fprintf(c->lim->paths, "%c %s\n", kind, ent->path);
}

static int walk(ctx_t *c)
{
	sqfs_walker_t *w = NULL;
	sqfs_walk_entry_t ent;
	int ret;

	ret = sqfs_walker_create(c->img, "", 0, SQFS_WALK_POST_DIRS, &w);
	if (ret != 0)
		return failed(c, "walker", ret);
	for (;;) {
		ret = sqfs_walker_next(w, &ent);
		if (ret < 0) {
			ret = failed(c, "walk", ret);
			break;
		}
		if (ret == 1) {
			ret = 0;
			break;
		}
		if (ret != 0 || ent.path == NULL || ent.inode == NULL) {
			ret = inconsistent(c, "walker_next gives %d", ret);
			break;
		}
		if (ent.post) {
			if (!is_dir_type(ent.inode->type)) {
				ret = inconsistent(c, "post report of a "
						      "non-directory");
				break;
			}
			continue;
		}
		c->res->entries++;
		print_path(c, &ent);
		ret = check_inode(c, ent.inode);
		if (ret == 0)
			ret = check_path(c, &ent);
		if (ret == 0 && ent.link_target != NULL) {
			c->res->links++;
			if (is_dir_type(ent.inode->type))
				ret = inconsistent(c, "directory hard link");
		} else if (ret == 0 && is_dir_type(ent.inode->type)) {
			c->res->dirs++;
			ret = list_dir(c, ent.inode);
		} else if (ret == 0 && is_file_type(ent.inode->type)) {
			c->res->files++;
			ret = read_file(c, ent.inode);
		}
		if (ret != 0)
			break;
	}
	sqfs_walker_destroy(w);
	return ret;
}

/*
 * The image source over the whole image, as the tools read it: entries
 * (their data runs with data, within the byte cap) until the end or a
 * failure. Where the walk above read everything without a failure, the
 * source must hand out as many entries and no failure: it reads the same
 * structures.
 */
static int exercise_source(ctx_t *c, uint32_t flags, bool walk_ok)
{
	sqfs_image_source_options_t opt;
	sqfs_image_source_t *src;
	const sqfs_entry_t *e;
	sqfs_data_run_t run;
	unsigned long entries = 0;
	uint64_t bytes = 0;
	int ret;

	sqfs_image_source_options_init(&opt);
	opt.flags = flags | SQFS_SOURCE_POST_DIRS;
	opt.num_jobs = 2;
	ret = sqfs_image_source_create(c->img, "", &opt, &src);
	if (ret != 0)
		return walk_ok ? inconsistent(c,
					      "source create fails (%d) on "
					      "an image walked fine",
					      ret)
			       : 0;
	while ((ret = sqfs_image_source_next(src, &e)) == 0) {
		uint64_t pos = 0;

		if (e->path == NULL || e->reserved[0] != 0) {
			ret = inconsistent(c, "source entry without a path");
			break;
		}
		if (e->flags & SQFS_ENTRY_POST)
			continue;
		entries += 1;
		if ((e->mode & S_IFMT) != S_IFREG || e->hard_link != NULL)
			continue;
		while (bytes < c->lim->byte_cap &&
		       (ret = sqfs_image_source_read(src, &run)) == 0) {
			if (run.offset != pos || run.size == 0 ||
			    run.size > e->size - pos) {
				ret =
				    inconsistent(c,
						 "source run %llu+%llu "
						 "at %llu of %llu",
						 (unsigned long long)run.offset,
						 (unsigned long long)run.size,
						 (unsigned long long)pos,
						 (unsigned long long)e->size);
				goto out;
			}
			pos += run.size;
			if (run.data != NULL)
				bytes += run.size;
		}
		if (ret < 0)
			break;
		if (ret == 1 && pos != e->size) {
			ret = inconsistent(c, "source runs end at %llu of %llu",
					   (unsigned long long)pos,
					   (unsigned long long)e->size);
			goto out;
		}
		ret = 0;
	}
	if (ret < 0 && walk_ok)
		ret = inconsistent(c,
				   "source fails (%d: %s) on an image "
				   "walked fine",
				   ret, sqfs_image_error(c->img));
	else if (ret == 1 && walk_ok && entries != c->res->entries)
		ret = inconsistent(c,
				   "source hands out %lu entries, the walk "
				   "%lu",
				   entries, c->res->entries);
	else if (ret != -1)
		ret = 0;
out:
	sqfs_image_source_destroy(src);
	return ret < 0 ? -1 : 0;
}

/* The lookups whose answer the header fixes whatever the image holds. */
static int check_tables(ctx_t *c)
{
	const sqfs_super_t *super = sqfs_image_super(c->img);
	sqfs_fragment_t frag;
	sqfs_inode_t *inode = NULL;
	uint64_t ref;
	uint32_t id, i;
	int ret;

	for (i = 0; i < super->id_count; ++i) {
		if (sqfs_image_get_id(c->img, (uint16_t)i, &id) != 0)
			return inconsistent(c, "id %u of %u missing", i,
					    super->id_count);
	}
	if (super->id_count < 0xFFFF &&
	    sqfs_image_get_id(c->img, super->id_count, &id) == 0)
		return inconsistent(c, "id index past the table works");
	for (i = 0; i < super->fragment_entry_count && i < 4096; ++i) {
		if (sqfs_image_get_fragment(c->img, i, &frag) != 0)
			return inconsistent(c, "fragment %u missing", i);
	}
	if (sqfs_image_get_fragment(c->img, super->fragment_entry_count,
				    &frag) == 0)
		return inconsistent(c, "fragment past the table works");
	if (sqfs_image_read_inode(c->img, 8192, &inode) == 0 ||
	    sqfs_image_read_inode(c->img, UINT64_MAX, &inode) == 0) {
		free(inode);
		return inconsistent(c, "inode at a bad ref read");
	}
	for (i = 1; i <= super->inode_count && i <= 256; ++i) {
		ret = sqfs_image_inode_ref(c->img, i, &ref);
		if (ret == SQFS_ERROR_UNSUPPORTED)
			break;
		if (ret != 0)
			return failed(c, "export", ret);
		ret = sqfs_image_read_inode(c->img, ref, &inode);
		if (ret != 0)
			return failed(c, "export inode", ret);
		free(inode);
		inode = NULL;
	}
	if (sqfs_image_inode_ref(c->img, 0, &ref) == 0)
		return inconsistent(c, "export lookup of inode 0 works");
	return 0;
}

int hostile_exercise(sqfs_file_t *file, const hostile_limits_t *lim,
		     hostile_result_t *res)
{
	ctx_t c;
	sqfs_inode_t *root = NULL;
	int ret;

	memset(res, 0, sizeof(*res));
	memset(&c, 0, sizeof(c));
	c.lim = lim;
	c.res = res;
	c.buf = malloc(CHUNK);
	c.content = malloc(COMPARE_MAX);
	if (c.buf == NULL || c.content == NULL) {
		ret = failed(&c, "malloc", SQFS_ERROR_ALLOC);
		goto out;
	}
	ret = sqfs_image_open(file, &c.img, NULL);
	if (ret != 0) {
		c.img = NULL;
		ret = failed(&c, "open", ret);
		goto out;
	}
	c.block_size = sqfs_image_super(c.img)->block_size;
	ret = sqfs_image_read_root(c.img, &root);
	if (ret != 0) {
		ret = failed(&c, "root", ret);
		goto out;
	}
	if (!is_dir_type(root->type)) {
		ret = inconsistent(&c, "the root is of type %u", root->type);
		goto out;
	}
	ret = sqfs_dir_reader_create(c.img, &c.dr);
	if (ret == 0)
		ret = sqfs_data_reader_create(c.img, &c.data);
	if (ret != 0) {
		ret = failed(&c, "create", ret);
		goto out;
	}
	ret = check_tables(&c);
	if (ret == 0)
		ret = walk(&c);
	/* the source as the tools use it: without data ahead always, with
	 * it where the walk read every byte within the cap */
	if (res->inconsistency[0] == '\0') {
		bool walk_ok = ret == 0 && res->error == 0 &&
			       res->bytes < lim->byte_cap &&
			       res->lookups < lim->lookup_cap;

		exercise_source(&c, SQFS_SOURCE_NO_DATA, walk_ok);
		if (res->inconsistency[0] == '\0' && walk_ok)
			exercise_source(&c, 0, walk_ok);
	}
out:
	free(root);
	sqfs_data_reader_destroy(c.data);
	sqfs_dir_reader_destroy(c.dr);
	sqfs_image_destroy(c.img);
	free(c.content);
	free(c.buf);
	return res->inconsistency[0] ? -1 : 0;
}
