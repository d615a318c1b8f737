/* SPDX-License-Identifier: MIT */
/*
 * The public face of the high-level writer: options, adding entries,
 * streaming file data, and finishing the image.
 */
#include "config.h"

#include "sqfs/writer/internal.h"
#include "sqfs/xattr_writer_internal.h"
#include "sqfs/id_table.h"
#include "sqfs/inode.h"
#include "sqfs/io.h"
#include "sqfs/path.h"
#include "sqfs/format_internal.h"
#include "sqfs/table_internal.h"
#include "util/spill.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* An entry's attributes in the form the tree stores them. */
typedef struct {
	uint16_t mode;
	uint16_t uid_idx;
	uint16_t gid_idx;
	uint32_t mtime;
	uint32_t xattr;
	uint32_t rdev;
} node_attr_t;

/* Whether the reserved room of a caller's structure is zero. */
static bool all_zero(const uint32_t *words, size_t count)
{
	for (size_t i = 0; i < count; ++i) {
		if (words[i] != 0)
			return false;
	}
	return true;
}

void sqfs_writer_options_init(sqfs_writer_options_t *opt)
{
	memset(opt, 0, sizeof(*opt));
	opt->block_size = SQFS_DEFAULT_BLOCK_SIZE;
	opt->devblk_size = SQFS_DEFAULT_DEVBLK_SIZE;
	if (sqfs_compressor_config_init(&opt->compressor,
					sqfs_compressor_default(),
					opt->block_size, 0) != 0) {
		/* Leave an id create will refuse, not garbage. */
		memset(&opt->compressor, 0, sizeof(opt->compressor));
	}
	opt->default_mode = 0755;
}

void sqfs_writer_destroy(sqfs_writer_t *wr)
{
	if (wr == NULL)
		return;

	/* The processor may still refer to file data records. */
	block_processor_destroy(wr->bp);
	wr_entries_cleanup(&wr->entries);
	wr_links_cleanup(&wr->links);
	free(wr->open_name);
	wr_tree_cleanup(&wr->tree);
	if (wr->xw != NULL)
		xattr_writer_destroy(wr->xw);
	sqfs_id_table_destroy(wr->idtbl);
	sqfs_compressor_destroy(wr->cmp);
	free(wr);
}

/* Options the writer refuses, in words (why: SQFS_ERROR_TEXT_SIZE). */
static int check_options(const sqfs_writer_options_t *opt, char *why)
{
	const uint32_t known =
	    SQFS_WRITER_EXPORTABLE | SQFS_WRITER_NO_TAIL_PACKING |
	    SQFS_WRITER_NO_FRAGMENTS | SQFS_WRITER_NO_XATTRS |
	    SQFS_WRITER_NO_PROBE | SQFS_WRITER_UNCOMPRESSED |
	    SQFS_WRITER_NO_PAD | SQFS_WRITER_NO_DEDUPLICATION;
	uint32_t bs = opt->block_size;
	const char *what = NULL;
	int ret = SQFS_ERROR_ARG_INVALID;
	char buf[SQFS_ERROR_TEXT_SIZE];

	buf[0] = '\0';
	if (bs < SQFS_MIN_BLOCK_SIZE || bs > SQFS_MAX_BLOCK_SIZE ||
	    (bs & (bs - 1)) != 0) {
		snprintf(buf, sizeof(buf),
			 "block size %u is not a power of two from %u to %u",
			 bs, (unsigned int)SQFS_MIN_BLOCK_SIZE,
			 (unsigned int)SQFS_MAX_BLOCK_SIZE);
		ret = SQFS_ERROR_SUPER_BLOCK_SIZE;
	} else if (opt->devblk_size < 1024) {
		snprintf(buf, sizeof(buf), "device block size %u is below 1024",
			 opt->devblk_size);
	} else if (opt->compressor.block_size != bs) {
		snprintf(buf, sizeof(buf),
			 "the compressor is set up for blocks of %u bytes, "
			 "the image for %u",
			 (unsigned int)opt->compressor.block_size, bs);
	} else if ((opt->flags & ~known) != 0) {
		snprintf(buf, sizeof(buf), "unknown writer flags 0x%x",
			 (unsigned int)(opt->flags & ~known));
	} else if ((opt->default_mode & S_IFMT) != 0 &&
		   (opt->default_mode & S_IFMT) != S_IFDIR) {
		what = "the default mode is of a file type other than a "
		       "directory";
	} else if (!all_zero(opt->reserved, sizeof(opt->reserved) /
						sizeof(opt->reserved[0]))) {
		what = "the reserved room of the options is not zero";
	} else {
		return 0;
	}
	if (why != NULL)
		snprintf(why, SQFS_ERROR_TEXT_SIZE, "%s",
			 what != NULL ? what : buf);
	return ret;
}

/* A failure of create, in words. */
static int create_failed(char *why, int code, const char *what)
{
	if (why != NULL) {
		if (what != NULL)
			snprintf(why, SQFS_ERROR_TEXT_SIZE, "%s: %s", what,
				 sqfs_error_string(code));
		else
			snprintf(why, SQFS_ERROR_TEXT_SIZE, "%s",
				 sqfs_error_string(code));
	}
	return code;
}

/* The start of a new image after the superblock's place: the compressor
 * options block, if the compressor has options to record. */
static int write_options(sqfs_writer_t *wr, void *user, const char **stage)
{
	int ret;

	(void)user;
	*stage = "writing the compressor options";
	ret =
	    sqfs_compressor_config_write_options(&wr->opt.compressor, wr->file);
	if (ret < 0)
		return ret;
	if (ret > 0)
		wr->super.flags |= SQFS_FLAG_COMPRESSOR_OPTIONS;
	return 0;
}

/* The memory limit in bytes: the option, or a sixteenth of the machine's
 * memory within 64 .. 768 MiB (doc/scale.md). */
uint64_t wr_mem_limit(const sqfs_writer_options_t *opt)
{
	uint64_t mib = opt->mem_limit_mib;

	if (mib == 0) {
		long pages = sysconf(_SC_PHYS_PAGES);
		long page_size = sysconf(_SC_PAGESIZE);

		mib = 256;
		if (pages > 0 && page_size > 0)
			mib =
			    ((uint64_t)pages * (uint64_t)page_size >> 20) / 16;
		if (mib < 64)
			mib = 64;
		if (mib > 768)
			mib = 768;
	}
	return mib << 20;
}

size_t wr_mem_shared(uint64_t limit, size_t fixed)
{
	uint64_t shared = limit - (fixed < limit / 2 ? fixed : limit / 2);

	return shared > SIZE_MAX ? SIZE_MAX : (size_t)shared;
}

size_t wr_mem_share(const sqfs_writer_t *wr, unsigned int num, unsigned int den)
{
	return wr->mem_shared / den * num;
}

/* Bytes of what does not spill (wr_fit_shares). */
static size_t unspilled_bytes(const sqfs_writer_t *wr)
{
	const wr_tree_t *t = &wr->tree;

	return (size_t)t->node_count * sizeof(wr_node_t) +
	       ((size_t)t->bucket_mask + 1u) * sizeof(t->buckets[0]) +
	       t->arena.allocated +
	       wr->entries.bound_cap * sizeof(wr->entries.bound[0]) +
	       wr->entries.dir_runs_cap * sizeof(wr->entries.dir_runs[0]) +
	       wr->links.cap * sizeof(wr->links.list[0]);
}

void wr_fit_shares(sqfs_writer_t *wr)
{
	size_t held = unspilled_bytes(wr), excess, sort, tails;
	size_t step = wr_mem_share(wr, 1, 256);
	size_t allowed = wr_mem_share(wr, 1, 8);

	if (held < wr->held_seen + step && held + step > wr->held_seen)
		return;
	wr->held_seen = held;
	excess = held > allowed ? held - allowed : 0;
	sort = wr_mem_share(wr, 1, 4);
	tails = wr_mem_share(wr, 1, 2);
	sort = excess / 3 < sort / 4 * 3 ? sort - excess / 3 : sort / 4;
	tails =
	    excess / 3 * 2 < tails / 4 * 3 ? tails - excess / 3 * 2 : tails / 4;
	/* where runs are cut changes, never the image */
	extsort_set_limit(wr->entries.sorter, sort);
	block_processor_set_tail_memory(wr->bp, tails);
}

int wr_create(sqfs_file_t *file, const sqfs_writer_options_t *opt,
	      wr_head_fn_t head, void *user, sqfs_writer_t **out, char *why)
{
	static const uint8_t zeros[SQFS_SUPER_SIZE];
	block_processor_desc_t desc;
	sqfs_writer_t *wr;
	const char *stage = NULL;
	int ret;

	if (why != NULL)
		why[0] = '\0';
	if (out == NULL || file == NULL || opt == NULL)
		return create_failed(why, SQFS_ERROR_ARG_INVALID,
				     "sqfs_writer_create: no file, options "
				     "or out");
	*out = NULL;

	ret = check_options(opt, why);
	if (ret != 0)
		return ret;
	if (file->get_size(file) != 0) {
		if (why != NULL)
			snprintf(why, SQFS_ERROR_TEXT_SIZE,
				 "the output file is not empty");
		return SQFS_ERROR_ARG_INVALID;
	}

	wr = calloc(1, sizeof(*wr));
	if (wr == NULL)
		return create_failed(why, SQFS_ERROR_ALLOC, NULL);
	wr->file = file;
	wr->opt = *opt;
	wr->opt.default_mode &= 07777;
	/* the default limit asks the system once (sysconf), not at every
	 * look at the shares */
	wr->opt.mem_limit_mib = (uint32_t)(wr_mem_limit(opt) >> 20);

	ret = sqfs_super_init(&wr->super, opt->block_size, opt->mkfs_time,
			      opt->compressor.id);
	if (ret != 0)
		goto fail;

	stage = "the compressor";
	ret = sqfs_compressor_create(&opt->compressor, &wr->cmp);
	if (ret != 0)
		goto fail;

	/* Reserve the superblock, written last, so that what follows it
	 * (the options block, the data) lands right after it at 96. */
	stage = "writing the superblock's place";
	ret = file->write_at(file, 0, zeros, sizeof(zeros));
	if (ret == 0)
		ret = head(wr, user, &stage);
	if (ret != 0)
		goto fail;
	stage = NULL;

	ret = sqfs_id_table_create(&wr->idtbl);
	if (ret == 0)
		ret = xattr_writer_create(&wr->xw);
	if (ret == 0)
		ret = wr_tree_init(&wr->tree);
	if (ret != 0)
		goto fail;

	/* The root takes the default ids only if it is never added. */
	wr_node(&wr->tree, NODE_ROOT)->mode = S_IFDIR | wr->opt.default_mode;
	wr_node(&wr->tree, NODE_ROOT)->mtime = opt->default_mtime;
	wr_node(&wr->tree, NODE_ROOT)->flags |= NODE_DEFAULT_IDS;

	memset(&desc, 0, sizeof(desc));
	desc.file = file;
	desc.cmp = wr->cmp;
	desc.block_size = opt->block_size;
	desc.devblk_size = opt->devblk_size;
	desc.num_workers = opt->num_jobs;
	desc.max_backlog = opt->max_backlog;
	desc.no_tail_packing = (opt->flags & SQFS_WRITER_NO_TAIL_PACKING) != 0;
	desc.no_fragments = (opt->flags & SQFS_WRITER_NO_FRAGMENTS) != 0;
	desc.no_probe = (opt->flags & SQFS_WRITER_NO_PROBE) != 0;
	desc.raw_data = (opt->flags & SQFS_WRITER_UNCOMPRESSED_DATA) != 0;
	desc.raw_fragments =
	    (opt->flags & SQFS_WRITER_UNCOMPRESSED_FRAGMENTS) != 0;
	desc.backlog_memory = (size_t)(wr_mem_limit(&wr->opt) / 16);
	/* what does not shrink with the limit comes off it first: shares
	 * of the whole limit went over it by that much (doc/scale.md) */
	wr->mem_shared = wr_mem_shared(wr_mem_limit(&wr->opt),
				       WR_FIXED_MEMORY +
					   block_processor_fixed_memory(&desc));
	desc.tail_memory = wr_mem_share(wr, 1, 2);

	ret = wr_entries_init(&wr->entries, wr_mem_share(wr, 1, 4),
			      wr_mem_share(wr, 1, 32), wr_mem_share(wr, 1, 8));
	if (ret != 0)
		goto fail;

	ret = block_processor_create(&desc, &wr->bp);
	if (ret != 0)
		goto fail;

	*out = wr;
	return 0;
fail:
	sqfs_writer_destroy(wr);
	return create_failed(why, ret, stage);
}

int sqfs_writer_create(sqfs_file_t *file, const sqfs_writer_options_t *opt,
		       sqfs_writer_t **out, char *why)
{
	return wr_create(file, opt, write_options, NULL, out, why);
}

/* ---- checking an entry ----------------------------------------------------
 */

/*
 * Everything about an entry is checked before anything is changed, so that
 * a refusal leaves the writer exactly as it was: no implicit parent made,
 * no owner id added, no xattr set kept. Only what cannot fail but for want
 * of memory happens after the checks (commit_*), and a failure there makes
 * the writer unusable.
 */

/* A file's block list lives in the inode table; beyond this many blocks
 * it could not be addressed, and the list alone would take gigabytes. */
#define MAX_FILE_BLOCKS (1ull << 30)

static int by_key(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The bytes the distinct keys of e take with their NULs, as listxattr
 * would list them (a key given twice keeps its last value, once). */
static int list_size(const sqfs_entry_t *e, size_t *out)
{
	const char **keys;
	size_t total = 0;

	keys = malloc(e->xattr_count * sizeof(keys[0]));
	if (keys == NULL)
		return SQFS_ERROR_ALLOC;
	for (size_t i = 0; i < e->xattr_count; ++i)
		keys[i] = e->xattrs[i].key;
	qsort(keys, e->xattr_count, sizeof(keys[0]), by_key);
	for (size_t i = 0; i < e->xattr_count; ++i) {
		if (i == 0 || strcmp(keys[i - 1], keys[i]) != 0)
			total += strlen(keys[i]) + 1;
	}
	free(keys);
	*out = total;
	return 0;
}

static int check_xattrs(sqfs_writer_t *wr, const sqfs_entry_t *e)
{
	size_t total = 0;
	int ret;

	if (e->xattr_count > 0 && e->xattrs == NULL)
		return errtext_set(&wr->err, SQFS_ERROR_ARG_INVALID,
				   "%zu xattrs but no list", e->xattr_count);

	for (size_t i = 0; i < e->xattr_count; ++i) {
		const sqfs_xattr_t *x = &e->xattrs[i];
		const char *why;

		ret = sqfs_xattr_check(x, &why);
		if (ret != 0)
			return errtext_set(&wr->err, ret, "xattr '%s': %s",
					   x->key != NULL ? x->key : "", why);
		total += strlen(x->key) + 1;
	}
	/* a set Linux could not list whole is one no reader can use; only
	 * when the keys given may be too many is the exact sum needed */
	if (total > SQFS_XATTR_MAX_LIST_SIZE) {
		ret = list_size(e, &total);
		if (ret != 0)
			return ret;
	}
	if (total > SQFS_XATTR_MAX_LIST_SIZE)
		return errtext_set(&wr->err, SQFS_ERROR_OVERFLOW,
				   "xattrs: %zu keys whose names take %zu "
				   "bytes, more than Linux lists (%u)",
				   e->xattr_count, total,
				   (unsigned int)SQFS_XATTR_MAX_LIST_SIZE);
	return 0;
}

static bool known_type(uint32_t fmt)
{
	return fmt == S_IFDIR || fmt == S_IFREG || fmt == S_IFLNK ||
	       fmt == S_IFCHR || fmt == S_IFBLK || fmt == S_IFIFO ||
	       fmt == S_IFSOCK;
}

/* The checks of an entry that is not a hard link, beyond its path. */
static int check_object(sqfs_writer_t *wr, const sqfs_entry_t *e,
			unsigned int file_flags)
{
	const unsigned int known_flags =
	    SQFS_FILE_DONT_COMPRESS | SQFS_FILE_DONT_FRAGMENT |
	    SQFS_FILE_DONT_DEDUPLICATE | SQFS_FILE_NO_SPARSE | SQFS_FILE_ALIGN;
	uint32_t fmt = e->mode & S_IFMT;

	if ((e->mode & ~(uint32_t)(S_IFMT | 07777)) != 0)
		return errtext_set(&wr->err, SQFS_ERROR_ARG_INVALID,
				   "mode 0%o has bits besides the type "
				   "and 07777",
				   (unsigned int)e->mode);
	if (!known_type(fmt))
		return errtext_set(&wr->err, SQFS_ERROR_ARG_INVALID,
				   "mode 0%o is of no file type",
				   (unsigned int)e->mode);
	if (fmt != S_IFREG && file_flags != 0)
		return errtext_set(&wr->err, SQFS_ERROR_ARG_INVALID,
				   "file flags 0x%x for an entry that is "
				   "not a regular file",
				   file_flags);
	if ((file_flags & ~known_flags) != 0)
		return errtext_set(&wr->err, SQFS_ERROR_ARG_INVALID,
				   "unknown file flags 0x%x",
				   file_flags & ~known_flags);

	if (fmt == S_IFCHR || fmt == S_IFBLK) {
		uint32_t rdev;

		if (!sqfs_inode_encode_rdev(e->rdev_major, e->rdev_minor,
					    &rdev))
			return errtext_set(
			    &wr->err, SQFS_ERROR_OVERFLOW,
			    "device number %u:%u does not fit the image "
			    "(major up to %u, minor up to %u)",
			    e->rdev_major, e->rdev_minor,
			    (unsigned int)SQFS_RDEV_MAJOR_MAX,
			    (unsigned int)SQFS_RDEV_MINOR_MAX);
	} else if (fmt == S_IFLNK) {
		size_t tlen;

		if (e->symlink_target == NULL)
			return errtext_set(&wr->err, SQFS_ERROR_ARG_INVALID,
					   "no symlink target");
		tlen = strnlen(e->symlink_target, SQFS_MAX_SYMLINK_SIZE + 1);
		if (tlen == 0)
			return errtext_set(&wr->err, SQFS_ERROR_ARG_INVALID,
					   "symlink with an empty target");
		if (tlen > SQFS_MAX_SYMLINK_SIZE)
			return errtext_set(
			    &wr->err, SQFS_ERROR_ARG_INVALID,
			    "symlink target longer than %u bytes",
			    (unsigned int)SQFS_MAX_SYMLINK_SIZE);
	} else if (fmt == S_IFREG &&
		   e->size / wr->opt.block_size > MAX_FILE_BLOCKS) {
		return errtext_set(&wr->err, SQFS_ERROR_OVERFLOW,
				   "size %llu is too large for the image "
				   "(at most %llu blocks of %u bytes)",
				   (unsigned long long)e->size,
				   (unsigned long long)MAX_FILE_BLOCKS,
				   (unsigned int)wr->opt.block_size);
	}

	if (wr->opt.flags & SQFS_WRITER_NO_XATTRS)
		return 0;
	return check_xattrs(wr, e);
}

static bool all_reserved_zero(const sqfs_entry_t *e)
{
	return all_zero(e->reserved,
			sizeof(e->reserved) / sizeof(e->reserved[0]));
}

/* ---- paths --------------------------------------------------------------- */

static int check_state(sqfs_writer_t *wr)
{
	if (wr->finished)
		return errtext_set(&wr->err, SQFS_ERROR_SEQUENCE,
				   "the image is finished");
	if (wr->file_open)
		return errtext_set(&wr->err, SQFS_ERROR_SEQUENCE,
				   "a file is still open: "
				   "sqfs_writer_end_file comes first");
	return 0;
}

/* Words for a path wr_path_check refused; returns its code. */
static int path_refused(sqfs_writer_t *wr, const char *path, int code,
			const char *what)
{
	const char *comp;
	size_t len;

	if (path == NULL)
		return errtext_set(&wr->err, code, "%s is missing", what);
	for (;;) {
		int ret = wr_path_next(&path, &comp, &len);

		if (ret == 0)
			break;
		if (ret > 0)
			continue;
		/* comp is the component refused */
		if (len == 2 && comp[0] == '.' && comp[1] == '.')
			return errtext_set(&wr->err, code, "'..' in %s", what);
		return errtext_set(&wr->err, code,
				   "a name in %s is %zu bytes long, "
				   "more than %u",
				   what, len, (unsigned int)SQFS_NAME_MAX);
	}
	return code;
}

/*
 * Where an entry goes: the deepest directory of its path that exists
 * (found), the components below it still to be made as implicit
 * directories, and the last component (name, NULL for the root).
 */
typedef struct {
	uint32_t found;
	/* the rest of the path after found, up to and without the name */
	const char *rest;
	size_t missing;
	const char *name;
	size_t len;
} place_t;

/* Plan where path goes without changing anything: NOT_DIR if a parent
 * that exists is not a directory. path has passed wr_path_check. */
static int plan_place(sqfs_writer_t *wr, const char *path, place_t *pl)
{
	const char *comp, *next, *start = path, *p = path;
	size_t clen, nlen;
	uint32_t dir = NODE_ROOT;
	bool creating = false;

	memset(pl, 0, sizeof(*pl));
	/* the words quote the path as given, from its first name on */
	while (*start == '/')
		++start;

	if (wr_path_next(&p, &comp, &clen) <= 0) {
		pl->found = NODE_ROOT;
		return 0;
	}
	for (;;) {
		uint32_t id;

		if (wr_path_next(&p, &next, &nlen) <= 0) {
			pl->name = comp;
			pl->len = clen;
			break;
		}
		if (creating) {
			pl->missing += 1;
		} else {
			id = wr_tree_lookup(&wr->tree, dir, comp, clen);
			if (id == NODE_NIL) {
				wr_record_t r;
				int found = wr_entries_newest(&wr->entries, dir,
							      comp, clen, &r);

				if (found < 0)
					return found;
				if (found > 0)
					return errtext_set(
					    &wr->err, SQFS_ERROR_NOT_DIR,
					    "'%.*s': not a directory",
					    (int)((size_t)(comp - start) +
						  clen),
					    start);
				creating = true;
				pl->rest = comp;
				pl->missing = 1;
			} else {
				dir = id;
			}
		}
		comp = next;
		clen = nlen;
	}
	pl->found = dir;
	return 0;
}

/* The ids an entry needs that the table does not hold yet. */
static size_t new_ids(const sqfs_writer_t *wr, const uint32_t *ids,
		      size_t count)
{
	size_t n = 0;

	for (size_t i = 0; i < count; ++i) {
		bool seen = sqfs_id_table_contains(wr->idtbl, ids[i]);

		for (size_t j = 0; !seen && j < i; ++j)
			seen = ids[j] == ids[i];
		n += seen ? 0 : 1;
	}
	return n;
}

/* Room for the ids and nodes an entry needs (LIMIT otherwise). */
static int check_room(sqfs_writer_t *wr, const sqfs_entry_t *e,
		      const place_t *pl, bool with_ids)
{
	uint32_t ids[4];
	size_t count = 0, more;

	if (with_ids) {
		ids[count++] = e->uid;
		ids[count++] = e->gid;
	}
	/* Implicit parents take the default ids now; a root never added
	 * takes them at finish, which must then not run out of room. */
	if (pl->missing > 0 ||
	    (pl->name != NULL &&
	     (wr_node(&wr->tree, NODE_ROOT)->flags & NODE_DEFAULT_IDS))) {
		ids[count++] = wr->opt.default_uid;
		ids[count++] = wr->opt.default_gid;
	}
	more = new_ids(wr, ids, count);
	if (more > 0 && sqfs_id_table_count(wr->idtbl) + more > SQFS_MAX_IDS)
		return errtext_set(&wr->err, SQFS_ERROR_LIMIT,
				   "owner %u, group %u: the image holds "
				   "at most %u different ids",
				   e->uid, e->gid, (unsigned int)SQFS_MAX_IDS);
	if ((uint64_t)wr->tree.node_count + wr->entries.count + pl->missing +
		1 >
	    NODE_MAX_COUNT)
		return errtext_set(&wr->err, SQFS_ERROR_LIMIT,
				   "the image holds at most %u entries",
				   (unsigned int)NODE_MAX_COUNT);
	return 0;
}

/* ---- changing the tree (after every check) ---------------------------------
 */

/* An entry's attributes in the form the tree stores them. */
static int commit_attr(sqfs_writer_t *wr, const sqfs_entry_t *e,
		       node_attr_t *out)
{
	uint32_t fmt = e->mode & S_IFMT;
	int ret;

	memset(out, 0, sizeof(*out));
	out->mode = (uint16_t)(fmt | (e->mode & 07777));
	if (e->mtime < 0)
		out->mtime = 0;
	else if (e->mtime > (int64_t)UINT32_MAX)
		out->mtime = UINT32_MAX;
	else
		out->mtime = (uint32_t)e->mtime;
	if (fmt == S_IFCHR || fmt == S_IFBLK)
		(void)sqfs_inode_encode_rdev(e->rdev_major, e->rdev_minor,
					     &out->rdev);

	ret = sqfs_id_table_id_to_index(wr->idtbl, e->uid, &out->uid_idx);
	if (ret == 0)
		ret =
		    sqfs_id_table_id_to_index(wr->idtbl, e->gid, &out->gid_idx);
	if (ret != 0)
		return ret;

	out->xattr = SQFS_NO_XATTR;
	if (e->xattr_count == 0 || (wr->opt.flags & SQFS_WRITER_NO_XATTRS))
		return 0;

	ret = xattr_writer_begin(wr->xw);
	for (size_t i = 0; ret == 0 && i < e->xattr_count; ++i) {
		ret = xattr_writer_add(wr->xw, e->xattrs[i].key,
				       e->xattrs[i].value, e->xattrs[i].size);
	}
	if (ret == 0)
		ret = xattr_writer_end(wr->xw, &out->xattr);
	return ret;
}

static void set_attr(wr_node_t *n, const node_attr_t *a)
{
	n->mode = a->mode;
	n->uid_idx = a->uid_idx;
	n->gid_idx = a->gid_idx;
	n->mtime = a->mtime;
	n->xattr = a->xattr;
	n->flags &= (uint8_t) ~(NODE_IMPLICIT | NODE_DEFAULT_IDS);
}

static int make_implicit_dir(sqfs_writer_t *wr, uint32_t parent,
			     const char *name, size_t len, uint32_t *id)
{
	wr_node_t *n;
	uint16_t uid, gid;
	int ret;

	ret = sqfs_id_table_id_to_index(wr->idtbl, wr->opt.default_uid, &uid);
	if (ret == 0)
		ret = sqfs_id_table_id_to_index(wr->idtbl, wr->opt.default_gid,
						&gid);
	if (ret == 0)
		ret = wr_tree_new_node(&wr->tree, parent, name, len, id);
	if (ret != 0)
		return ret;

	n = wr_node(&wr->tree, *id);
	n->mode = S_IFDIR | wr->opt.default_mode;
	n->uid_idx = uid;
	n->gid_idx = gid;
	n->mtime = wr->opt.default_mtime;
	n->flags |= NODE_IMPLICIT;

	ret = wr_tree_insert(&wr->tree, *id);
	if (ret != 0)
		wr_tree_remove(&wr->tree, *id);
	return ret;
}

/* Make the implicit directories a plan found missing; *parent gets the
 * directory the entry goes into. */
static int commit_parents(sqfs_writer_t *wr, const place_t *pl,
			  uint32_t *parent)
{
	const char *p = pl->rest, *comp;
	uint32_t dir = pl->found;
	size_t len;

	for (size_t i = 0; i < pl->missing; ++i) {
		uint32_t id;
		int ret;

		if (wr_path_next(&p, &comp, &len) <= 0)
			return SQFS_ERROR_INTERNAL;
		ret = make_implicit_dir(wr, dir, comp, len, &id);
		if (ret != 0)
			return ret;
		dir = id;
	}
	*parent = dir;
	return 0;
}

/* Make room for a non-directory named name in parent: a directory there
 * goes, with its subtree. */
static void unplace_dir(sqfs_writer_t *wr, uint32_t parent, const char *name,
			size_t len)
{
	uint32_t old = wr_tree_lookup(&wr->tree, parent, name, len);

	if (old != NODE_NIL)
		wr_tree_remove(&wr->tree, old);
}

/* A new directory named name in parent; no directory of that name is
 * there (records of that name are outranked by it). */
static int place_dir(sqfs_writer_t *wr, uint32_t parent, const char *name,
		     size_t len, uint32_t *id)
{
	int ret = wr_tree_new_node(&wr->tree, parent, name, len, id);

	if (ret != 0)
		return ret;
	ret = wr_tree_insert(&wr->tree, *id);
	if (ret != 0)
		wr_tree_remove(&wr->tree, *id);
	return ret;
}

/* The common part of a record for an entry. */
static void record_init(sqfs_writer_t *wr, wr_record_t *r, uint32_t parent,
			const place_t *pl, uint8_t kind)
{
	memset(r, 0, sizeof(*r));
	r->parent = parent;
	r->name = pl->name;
	r->name_len = pl->len;
	r->seq = wr->entries.next_seq++;
	r->kind = kind;
	r->xattr = SQFS_NO_XATTR;
}

/* ---- adding entries ------------------------------------------------------ */

/* The checks of a hard link entry. */
static int check_hard_link(sqfs_writer_t *wr, const sqfs_entry_t *e,
			   unsigned int file_flags)
{
	size_t depth;
	int ret;

	if (file_flags != 0)
		return errtext_set(&wr->err, SQFS_ERROR_ARG_INVALID,
				   "file flags 0x%x for a hard link",
				   file_flags);
	ret = wr_path_check(e->hard_link, &depth);
	if (ret != 0)
		return path_refused(wr, e->hard_link, ret,
				    "the hard link target");
	return 0;
}

/*
 * The object a hard link to canonical path target binds to now: the
 * sequence number of the newest record there (or what a bound link there
 * holds), 0 if there is none, it is a directory or an unbound link.
 */
static int bind_target(sqfs_writer_t *wr, const char *target, uint64_t *bound)
{
	wr_record_t r;
	int ret;

	*bound = 0;
	ret = wr_newest_at_path(wr, target, &r);
	if (ret <= 0)
		return ret;
	*bound = r.kind == WR_REC_LINK ? r.bound : r.seq;
	return 0;
}

static int commit_hard_link(sqfs_writer_t *wr, uint32_t parent,
			    const place_t *pl, const char *target)
{
	char *canon;
	uint64_t bound;
	wr_record_t r;
	int ret;

	ret = wr_path_canonical(target, &canon);
	if (ret != 0)
		return ret;
	ret = bind_target(wr, canon, &bound);
	if (ret != 0) {
		free(canon);
		return ret;
	}

	unplace_dir(wr, parent, pl->name, pl->len);
	record_init(wr, &r, parent, pl, WR_REC_LINK);
	r.bound = bound;
	r.text = canon;
	r.text_len = strlen(canon);
	ret = wr_entries_add(&wr->entries, &r);
	if (ret == 0 && bound == 0)
		ret = wr_links_add_unbound(&wr->links, r.seq, parent, pl->name,
					   pl->len, canon);
	free(canon);
	return ret;
}

/* The block processor's flags for the public per-file flags. */
static unsigned int block_flags(unsigned int flags)
{
	static const struct {
		unsigned int file;
		unsigned int blk;
	} map[] = {
	    {SQFS_FILE_DONT_COMPRESS, BP_FILE_DONT_COMPRESS},
	    {SQFS_FILE_DONT_FRAGMENT, BP_FILE_DONT_FRAGMENT},
	    {SQFS_FILE_DONT_DEDUPLICATE, BP_FILE_DONT_DEDUPLICATE},
	    {SQFS_FILE_NO_SPARSE, BP_FILE_NO_SPARSE},
	    {SQFS_FILE_ALIGN, BP_FILE_ALIGN},
	};
	unsigned int out = 0;
	size_t i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); ++i) {
		if (flags & map[i].file)
			out |= map[i].blk;
	}
	return out;
}

/* Put an entry that is not a hard link into the image, at parent: a
 * directory into the tree, anything else as a record; a regular file
 * with existing data is complete at once, any other stays open. */
static int commit_object(sqfs_writer_t *wr, uint32_t parent, const place_t *pl,
			 const sqfs_entry_t *e, unsigned int file_flags,
			 const file_data_t *existing)
{
	uint32_t fmt = e->mode & S_IFMT, id;
	file_data_t *fd = NULL;
	node_attr_t a;
	wr_record_t r;
	uint8_t kind;
	int ret;

	ret = commit_attr(wr, e, &a);
	if (ret != 0)
		return ret;

	if (pl->name == NULL) {
		set_attr(wr_node(&wr->tree, NODE_ROOT), &a);
		return 0;
	}
	if (fmt == S_IFDIR) {
		id = wr_tree_lookup(&wr->tree, parent, pl->name, pl->len);
		if (id == NODE_NIL) {
			ret = place_dir(wr, parent, pl->name, pl->len, &id);
			if (ret != 0)
				return ret;
		}
		set_attr(wr_node(&wr->tree, id), &a);
		return 0;
	}

	switch (fmt) {
	case S_IFREG:
		kind = WR_REC_FILE;
		break;
	case S_IFLNK:
		kind = WR_REC_SLINK;
		break;
	case S_IFCHR:
	case S_IFBLK:
		kind = WR_REC_DEV;
		break;
	default:
		kind = WR_REC_IPC;
		break;
	}

	unplace_dir(wr, parent, pl->name, pl->len);
	record_init(wr, &r, parent, pl, kind);
	r.mode = a.mode;
	r.uid_idx = a.uid_idx;
	r.gid_idx = a.gid_idx;
	r.mtime = a.mtime;
	r.xattr = a.xattr;
	r.rdev = a.rdev;
	if (kind == WR_REC_SLINK) {
		r.text = e->symlink_target;
		r.text_len = strlen(e->symlink_target);
	}

	if (kind != WR_REC_FILE)
		return wr_entries_add(&wr->entries, &r);
	if (existing != NULL) {
		r.data = *existing;
		return wr_entries_add(&wr->entries, &r);
	}

	ret = wr_entries_add_file(&wr->entries, &r, wr->files_begun, &fd);
	if (ret == 0)
		ret = block_processor_begin(
		    wr->bp, fd,
		    block_flags(file_flags |
				((wr->opt.flags & SQFS_WRITER_NO_DEDUPLICATION)
				     ? SQFS_FILE_DONT_DEDUPLICATE
				     : 0)));
	if (ret != 0)
		return ret;
	wr->files_begun += 1;

	/* for the words of a failure while its data is taken */
	free(wr->open_name);
	wr->open_name = malloc(pl->len + 1);
	if (wr->open_name == NULL)
		return SQFS_ERROR_ALLOC;
	memcpy(wr->open_name, pl->name, pl->len);
	wr->open_name[pl->len] = '\0';
	wr->open_parent = parent;
	wr->file_open = true;
	return 0;
}

static int records_failed(sqfs_writer_t *wr, int ret);

/* 0 when the entry was added; a refusal (nothing changed) or, with
 * *broken set, a failure of the writer. */
static int add(sqfs_writer_t *wr, const sqfs_entry_t *e,
	       unsigned int file_flags, const file_data_t *existing,
	       bool *broken)
{
	const unsigned int known_entry_flags = SQFS_ENTRY_POST;
	bool link;
	uint32_t parent;
	size_t depth;
	place_t pl;
	int ret;

	*broken = false;
	ret = check_state(wr);
	if (ret != 0)
		return ret;
	if (e == NULL)
		return errtext_set(&wr->err, SQFS_ERROR_ARG_INVALID,
				   "no entry");
	if (!all_reserved_zero(e))
		return errtext_set(&wr->err, SQFS_ERROR_ARG_INVALID,
				   "the reserved room of the entry is "
				   "not zero");
	if ((e->flags & ~known_entry_flags) != 0)
		return errtext_set(
		    &wr->err, SQFS_ERROR_ARG_INVALID,
		    "unknown entry flags 0x%x",
		    (unsigned int)(e->flags & ~known_entry_flags));
	link = e->hard_link != NULL;
	if (e->flags & SQFS_ENTRY_POST) {
		/* a reader's second report of a directory: nothing new */
		if (link || (e->mode & S_IFMT) != S_IFDIR)
			return errtext_set(&wr->err, SQFS_ERROR_ARG_INVALID,
					   "a second report of an entry "
					   "that is not a directory");
		return 0;
	}

	ret = wr_path_check(e->path, &depth);
	if (ret != 0)
		return path_refused(wr, e->path, ret, "the path");
	if (depth == 0 && (link || (e->mode & S_IFMT) != S_IFDIR))
		return errtext_set(&wr->err, SQFS_ERROR_ARG_INVALID,
				   "the root can only be a directory");
	ret = link ? check_hard_link(wr, e, file_flags)
		   : check_object(wr, e, file_flags);
	if (ret == 0)
		ret = plan_place(wr, e->path, &pl);
	if (ret == 0)
		ret = check_room(wr, e, &pl, !link);
	if (ret != 0)
		return ret;

	/* from here on, nothing is refused: a failure is the writer's */
	*broken = true;
	ret = commit_parents(wr, &pl, &parent);
	if (ret == 0)
		ret = link ? commit_hard_link(wr, parent, &pl, e->hard_link)
			   : commit_object(wr, parent, &pl, e, file_flags,
					   existing);
	ret = records_failed(wr, ret);
	if (ret == 0) {
		*broken = false;
		wr_fit_shares(wr);
	}
	return ret;
}

/* ---- file data ----------------------------------------------------------- */

/* A failure of the block processor: with the words of its temporary
 * files if they failed (a full $TMPDIR), which say more than a code. */
static int bp_failed(sqfs_writer_t *wr, int ret)
{
	const char *words = block_processor_spill_error(wr->bp);

	if (ret != 0 && words[0] != '\0')
		return errtext_set(&wr->err, ret, "%s", words);
	return ret;
}

/* A failure of the records' temporary files, with their words. */
static int records_failed(sqfs_writer_t *wr, int ret)
{
	const char *words = wr_entries_error(&wr->entries);

	if (ret != 0 && words[0] != '\0')
		return errtext_set(&wr->err, ret, "%s", words);
	return ret;
}

/* Data can only go to an open file. */
static int check_open(sqfs_writer_t *wr)
{
	if (wr->finished || !wr->file_open)
		return errtext_set(&wr->err, SQFS_ERROR_SEQUENCE,
				   "no file is open: "
				   "sqfs_writer_add of a regular file "
				   "comes first");
	return 0;
}

static int append(sqfs_writer_t *wr, const void *data, size_t size,
		  bool *broken)
{
	*broken = false;
	if (data == NULL && size > 0)
		return errtext_set(&wr->err, SQFS_ERROR_ARG_INVALID,
				   "%zu bytes of data but no pointer", size);
	if (check_open(wr) != 0)
		return SQFS_ERROR_SEQUENCE;
	if (size == 0)
		return 0;
	*broken = true;
	return bp_failed(wr, block_processor_append(wr->bp, data, size));
}

static int append_hole(sqfs_writer_t *wr, uint64_t size, bool *broken)
{
	*broken = false;
	if (check_open(wr) != 0)
		return SQFS_ERROR_SEQUENCE;
	if (size == 0)
		return 0;
	*broken = true;
	return block_processor_append_hole(wr->bp, size);
}

static int end_file(sqfs_writer_t *wr, bool *broken)
{
	int ret;

	*broken = false;
	if (check_open(wr) != 0)
		return SQFS_ERROR_SEQUENCE;

	*broken = true;
	ret = block_processor_end(wr->bp);
	ret = bp_failed(wr, ret);
	if (ret == 0) {
		wr->file_open = false;
		ret = records_failed(
		    wr,
		    wr_entries_flush(&wr->entries,
				     block_processor_files_complete(wr->bp)));
	}
	return ret;
}

/* ---- hard links and finishing ------------------------------------------- */

static int drop_broken_links(sqfs_writer_t *wr,
			     void (*report)(void *user, const char *path,
					    const char *target),
			     void *user)
{
	size_t broken;
	int ret;

	ret = check_state(wr);
	if (ret != 0)
		return ret;

	wr_tree_mark_dead(&wr->tree);
	ret = wr_links_resolve(wr, &broken);
	if (ret != 0 || broken == 0)
		return ret;
	return wr_links_drop_broken(wr, report, user);
}

/* Words for the first hard link wr_links_resolve found broken. */
static int broken_link(sqfs_writer_t *wr)
{
	char *path = NULL;
	const char *target = NULL;

	wr_links_first_broken(wr, &path, &target);
	errtext_set(&wr->err, SQFS_ERROR_NO_ENTRY,
		    "hard link '%s': target '%s' does not exist "
		    "or is a directory",
		    path != NULL ? path : "?", target != NULL ? target : "?");
	free(path);
	return SQFS_ERROR_NO_ENTRY;
}

static int pad_image(sqfs_writer_t *wr)
{
	uint64_t size = wr->file->get_size(wr->file);
	uint64_t rem = size % wr->opt.devblk_size;

	if (rem == 0)
		return 0;
	return wr->file->truncate(wr->file, size + (wr->opt.devblk_size - rem));
}

/* The compressor of a table: none (stored raw) if raw. */
static sqfs_compressor_t *table_compressor(const sqfs_writer_t *wr,
					   uint32_t raw)
{
	return raw != 0 ? NULL : wr->cmp;
}

/* The superblock flags for the parts stored raw, as mksquashfs sets them:
 * UNCOMPRESSED_IDS only when the inode flag does not already cover the id
 * table. */
static uint16_t uncompressed_flags(uint32_t flags)
{
	static const struct {
		uint32_t writer;
		uint16_t super;
	} map[] = {
	    {SQFS_WRITER_UNCOMPRESSED_INODES, SQFS_FLAG_UNCOMPRESSED_INODES},
	    {SQFS_WRITER_UNCOMPRESSED_DATA, SQFS_FLAG_UNCOMPRESSED_DATA},
	    {SQFS_WRITER_UNCOMPRESSED_FRAGMENTS,
	     SQFS_FLAG_UNCOMPRESSED_FRAGMENTS},
	    {SQFS_WRITER_UNCOMPRESSED_XATTRS, SQFS_FLAG_UNCOMPRESSED_XATTRS},
	};
	uint16_t out = 0;

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); ++i) {
		if (flags & map[i].writer)
			out |= map[i].super;
	}
	if ((flags & SQFS_WRITER_UNCOMPRESSED_IDS) &&
	    !(flags & SQFS_WRITER_UNCOMPRESSED_INODES))
		out |= SQFS_FLAG_UNCOMPRESSED_IDS;
	return out;
}

static int finish(sqfs_writer_t *wr)
{
	const uint32_t flags = wr->opt.flags;
	const bool raw_inodes = (flags & SQFS_WRITER_UNCOMPRESSED_INODES) != 0;
	wr_node_t *root;
	wr_export_t exp = {0};
	sqfs_super_t *super;
	int ret;

	ret = check_state(wr);
	if (ret != 0)
		return ret;
	super = &wr->super;

	root = wr_node(&wr->tree, NODE_ROOT);
	if (root->flags & NODE_DEFAULT_IDS) {
		ret = sqfs_id_table_id_to_index(wr->idtbl, wr->opt.default_uid,
						&root->uid_idx);
		if (ret == 0)
			ret = sqfs_id_table_id_to_index(
			    wr->idtbl, wr->opt.default_gid, &root->gid_idx);
		if (ret != 0)
			return ret;
		root->flags &= (uint8_t)~NODE_DEFAULT_IDS;
	}

	/* Checked before anything is written, so the caller may still drop
	 * the broken links and finish. */
	wr_tree_mark_dead(&wr->tree);
	{
		size_t broken;

		ret = wr_links_resolve(wr, &broken);
		if (ret != 0)
			return ret;
		if (broken != 0)
			return broken_link(wr);
	}

	wr->finished = true;

	ret = bp_failed(wr, block_processor_finish(wr->bp));
	if (ret == 0)
		ret = wr_entries_flush(&wr->entries,
				       block_processor_files_complete(wr->bp));
	if (ret == 0 && wr->entries.npending != 0)
		ret = SQFS_ERROR_INTERNAL;
	if (ret == 0)
		ret = records_failed(wr, wr_write_tables(wr, &exp));
	if (ret == 0)
		ret = block_processor_write_fragment_table(wr->bp, super);
	if (ret == 0 && exp.refs != NULL) {
		ret = export_table_write(
		    wr->file, table_compressor(wr, raw_inodes), exp.count,
		    wr_export_fill, &exp, super);
		if (ret == SQFS_ERROR_IO && spill_file_error(exp.refs)[0] != 0)
			ret = errtext_set(&wr->err, ret, "%s",
					  spill_file_error(exp.refs));
	}
	wr_export_cleanup(&exp);
	if (ret == 0)
		ret = sqfs_id_table_write(
		    wr->idtbl, wr->file, super,
		    table_compressor(
			wr,
			raw_inodes || (flags & SQFS_WRITER_UNCOMPRESSED_IDS)));
	if (ret == 0)
		ret = xattr_writer_flush(
		    wr->xw, wr->file, super,
		    table_compressor(wr,
				     flags & SQFS_WRITER_UNCOMPRESSED_XATTRS));
	if (ret != 0)
		return ret;

	super->bytes_used = wr->file->get_size(wr->file);
	if (!(wr->opt.flags & SQFS_WRITER_NO_DEDUPLICATION))
		super->flags |= SQFS_FLAG_DEDUPLICATED;
	super->flags |= uncompressed_flags(flags);
	if (wr->opt.flags & SQFS_WRITER_NO_FRAGMENTS)
		super->flags |= SQFS_FLAG_NO_FRAGMENTS;
	else if (!(wr->opt.flags & SQFS_WRITER_NO_TAIL_PACKING))
		super->flags |= SQFS_FLAG_ALWAYS_FRAGMENTS;

	ret = sqfs_super_write(super, wr->file);
	if (ret == 0 && !(flags & SQFS_WRITER_NO_PAD))
		ret = pad_image(wr);
	if (ret != 0)
		return ret;

	wr->stats.image_size = wr->file->get_size(wr->file);
	return 0;
}

void sqfs_writer_get_stats(const sqfs_writer_t *wr, sqfs_writer_stats_t *stats)
{
	block_stats_t bs;

	memset(stats, 0, sizeof(*stats));
	if (wr == NULL)
		return;

	*stats = wr->stats;
	if (!wr->finished)
		stats->image_size = wr->file->get_size(wr->file);

	memset(&bs, 0, sizeof(bs));
	block_processor_get_stats(wr->bp, &bs);
	stats->bytes_in = bs.bytes_in;
	stats->bytes_written = bs.bytes_written;
	stats->data_blocks = bs.data_blocks;
	stats->fragment_blocks = bs.fragment_blocks;
	stats->duplicate_blocks = bs.duplicate_blocks;
	stats->duplicate_fragments = bs.duplicate_fragments;
	stats->sparse_blocks = bs.sparse_blocks;
	stats->files = bs.files;
	stats->ids = sqfs_id_table_count(wr->idtbl);
}

/* ---- the public calls: each begins the error text and words its exit ---- */

/*
 * A writer that failed stays failed: every call after says so, with the
 * words of the failure, so that a program that goes on by mistake does not
 * make an image of what is left.
 */
static int refuse_if_broken(sqfs_writer_t *wr)
{
	if (!wr->broken)
		return 0;
	return errtext_set(&wr->err, SQFS_ERROR_SEQUENCE,
			   "the writer failed earlier: %s", wr->broken_why);
}

/* The exit of a call: a failure that is not a refusal breaks the writer
 * for good, keeping its words. */
static int call_end(sqfs_writer_t *wr, int ret, bool broken, const char *ctx)
{
	if (ctx != NULL)
		ret = errtext_end(&wr->err, ret, "%s", ctx);
	else
		ret = errtext_end(&wr->err, ret, NULL);
	if (ret != 0 && broken && !wr->broken) {
		wr->broken = true;
		memcpy(wr->broken_why, wr->err.text, sizeof(wr->broken_why));
	}
	return ret;
}

/* Words for a failure while the open file's data was taken. */
static int data_end(sqfs_writer_t *wr, int ret, bool broken)
{
	char *path, ctx[SQFS_ERROR_TEXT_SIZE];

	if (ret == 0 || !wr->file_open)
		return call_end(wr, ret, broken, NULL);
	path = wr_entry_path(&wr->tree, wr->open_parent, wr->open_name);
	snprintf(ctx, sizeof(ctx), "data of '%s'", path != NULL ? path : "?");
	free(path);
	return call_end(wr, ret, broken, ctx);
}

/* The start of every public call: fresh words, and no work on a writer
 * that failed. */
static int call_begin(sqfs_writer_t *wr)
{
	errtext_begin(&wr->err);
	return refuse_if_broken(wr);
}

int sqfs_writer_add(sqfs_writer_t *wr, const sqfs_entry_t *entry,
		    unsigned int file_flags)
{
	bool broken = false;
	int ret;

	if (wr == NULL)
		return SQFS_ERROR_ARG_INVALID;
	ret = call_begin(wr);
	if (ret == 0)
		ret = add(wr, entry, file_flags, NULL, &broken);
	return call_end(wr, ret, broken, NULL);
}

int wr_add_existing(sqfs_writer_t *wr, const sqfs_entry_t *entry,
		    const file_data_t *data)
{
	bool broken = false;
	int ret;

	ret = call_begin(wr);
	if (ret == 0)
		ret = add(wr, entry, 0, data, &broken);
	return call_end(wr, ret, broken, NULL);
}

int sqfs_writer_append(sqfs_writer_t *wr, const void *data, size_t size)
{
	bool broken = false;
	int ret;

	if (wr == NULL)
		return SQFS_ERROR_ARG_INVALID;
	ret = call_begin(wr);
	if (ret == 0)
		ret = append(wr, data, size, &broken);
	return data_end(wr, ret, broken);
}

int sqfs_writer_append_hole(sqfs_writer_t *wr, uint64_t size)
{
	bool broken = false;
	int ret;

	if (wr == NULL)
		return SQFS_ERROR_ARG_INVALID;
	ret = call_begin(wr);
	if (ret == 0)
		ret = append_hole(wr, size, &broken);
	return data_end(wr, ret, broken);
}

int sqfs_writer_end_file(sqfs_writer_t *wr)
{
	bool broken = false;
	int ret;

	if (wr == NULL)
		return SQFS_ERROR_ARG_INVALID;
	ret = call_begin(wr);
	if (ret == 0)
		ret = end_file(wr, &broken);
	return data_end(wr, ret, broken);
}

int sqfs_writer_drop_broken_links(sqfs_writer_t *wr,
				  void (*report)(void *user, const char *path,
						 const char *target),
				  void *user)
{
	int ret;

	if (wr == NULL)
		return SQFS_ERROR_ARG_INVALID;
	ret = call_begin(wr);
	if (ret == 0)
		ret = drop_broken_links(wr, report, user);
	/* only a want of memory for the report's path fails here */
	return call_end(wr, ret, ret == SQFS_ERROR_ALLOC, NULL);
}

int sqfs_writer_finish(sqfs_writer_t *wr)
{
	int ret;

	if (wr == NULL)
		return SQFS_ERROR_ARG_INVALID;
	ret = call_begin(wr);
	if (ret != 0)
		return call_end(wr, ret, false, NULL);
	ret = finish(wr);
	/* a refusal before anything is written (a file still open, a
	 * broken link) can be mended; anything else cannot */
	return call_end(
	    wr, ret, ret != SQFS_ERROR_SEQUENCE && ret != SQFS_ERROR_NO_ENTRY,
	    "finishing the image");
}

const char *sqfs_writer_error(const sqfs_writer_t *wr)
{
	if (wr == NULL)
		return "no writer";
	return wr->err.text[0] != '\0' ? wr->err.text : "no error";
}

bool sqfs_writer_usable(const sqfs_writer_t *wr)
{
	return wr != NULL && !wr->broken;
}
