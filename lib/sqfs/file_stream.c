/* SPDX-License-Identifier: MIT */
/*
 * file_stream.c - whole files in order, their blocks unpacked ahead.
 *
 * Three queues, all in the caller's order:
 * - files: queued and not yet handed back completely;
 * - pieces: what the caller gets back, one per block, made ahead by the
 *   scheduler as far as free slots (and the ring) allow;
 * - jobs: slots whose packed block waits for a thread to unpack it.
 * A slot is one block being unpacked: its buffer for the unpacked block,
 * one for the packed block lent from a pool until it is unpacked, and the
 * number of pieces that refer to it. At most busy_max slots
 * (SQFS_FILE_STREAM_BUFFERS) are referred to when a block is loaded, so
 * at most that many blocks are in flight and packed buffers exist. A data
 * block's slot is free again once its piece has been handed back; a
 * fragment block's slot stays cached, known by its table index, until a
 * slot is needed and no free one is left (the least recently used goes
 * first), so files sharing it reuse it. There are FRAG_CACHE_BYTES of
 * slots more than busy_max, for fragment blocks to stay cached.
 *
 * Files are seldom read in the order their tails were packed in: a
 * directory's files, in name order, were often written far apart (between
 * the contents of its subdirectories), and a duplicate's tail is the
 * first copy's, however old. So, besides the cached blocks:
 * - every small tail handed back is offered to a tail cache
 *   (tail_cache_internal.h); a tail found there needs no slot at all, and
 *   its piece holds the entry until it is released;
 * - when a fragment block was unpacked, the tails in it of the files
 *   queued and not yet scheduled are offered too (found through an index
 *   by fragment index), so each of them is a hit in its turn rather than
 *   the block unpacked again once it was pushed out.
 *
 * Only the calling thread reads the image, schedules and hands back; a
 * worker only takes a job, decompresses, and marks it done. While the
 * caller waits for a block, it unpacks queued jobs itself, so with one
 * job (or without pthreads) there are no workers at all and the same
 * code runs serially.
 */
#include "config.h"

#include "sqfs/file_stream.h"
#include "sqfs/io.h"
#include "sqfs/super.h"

#include "data_internal.h"
#include "image_internal.h"
#include "tail_cache_internal.h"

#include <stdlib.h>
#include <string.h>

#include "util/workers.h"

/* Pieces made ahead at most: sparse blocks and tails sharing a cached
 * fragment block need no slot, so the slots alone do not bound them. */
#define PIECE_MAX 4096

/* Unpacked fragment blocks kept besides the slots in use: 4 MiB worth, at
 * most 64 blocks (slots are searched one by one). */
#define FRAG_CACHE_BYTES (4u << 20)
#define FRAG_CACHE_MAX 64u

/* Buckets of the index of queued tails, by fragment index. */
#define TAIL_INDEX_BUCKETS 1024u

typedef struct slot {
	/* first: the worker pool's link, under its lock while queued */
	util_job_t job;
	/* block_size bytes each: out allocated on first use, packed lent
	 * by the pool from load until the block is unpacked */
	uint8_t *packed;
	uint8_t *out;
	size_t len;
	size_t outsize;
	/* the unpacked size or a negative error, set by whoever unpacks it
	 * before it sets done */
	ptrdiff_t result;

	/* under the pool's lock */
	bool done;

	/* the calling thread's own */
	unsigned int refs;
	bool cached;
	uint32_t frag_index;
	/* a fragment block whose tails for queued files were copied */
	bool scanned;
	uint64_t stamp;
} slot_t;

typedef struct file_rec {
	struct file_rec *next;
	/* in the index of tails to copy while its tail is not scheduled:
	 * the next in its bucket, and what points at it */
	struct file_rec *inext;
	struct file_rec **iprev;
	void *user;
	/* the copy, in the same allocation */
	sqfs_inode_t *inode;
	data_file_t fi;
	/* what data_file_info said, handed back at the first piece */
	int error;
	const char *why;
	/* how many pieces the file is handed back as */
	size_t pieces;
} file_rec_t;

typedef struct {
	file_rec_t *file;
	/* NULL for a sparse block, a cached tail, an empty file or an
	 * error */
	slot_t *slot;
	/* a tail from the tail cache, held until the piece is released */
	tail_entry_t *cached;
	size_t index;
	uint64_t offset;
	size_t size;
	/* where the piece starts in the slot's unpacked block */
	size_t skip;
	int error;
	/* data_internal.h's words for error, or NULL */
	const char *why;
	/* the error is about the file, not this block */
	bool whole_file;
	bool sparse;
	bool tail;
} piece_t;

struct sqfs_file_stream {
	data_source_t src;
	uint8_t *zeros;

	slot_t *slots;
	size_t slot_count;
	uint64_t clock;
	/* slots with refs > 0, at most busy_max */
	size_t busy;
	size_t busy_max;
	/* packed buffers no slot borrows; at most busy_max exist */
	uint8_t **spare;
	size_t spare_count;

	/* the calling thread's alone, like the scheduling */
	tail_cache_t tails;
	/* the files queued whose small tail is not scheduled yet, by
	 * fragment index modulo the buckets */
	file_rec_t *tail_index[TAIL_INDEX_BUCKETS];

	/* oldest first; sched is the first not yet fully scheduled */
	file_rec_t *files;
	file_rec_t *files_tail;
	file_rec_t *sched;
	size_t sched_index;
	/* where block sched_index is stored, relative to blocks_start */
	uint64_t sched_pos;
	bool sched_stopped;

	piece_t *pieces;
	size_t piece_head;
	size_t piece_count;
	/* the head piece was handed out; released at the next call */
	bool holding;

	/* The error handed back, again at every later call, and what
	 * its words are made of. */
	int error;
	sqfs_file_block_t error_block;
	uint32_t error_inode;
	size_t error_index;
	size_t error_count;
	const char *error_why;

	/* decompresses the queued slots; without threads the calling
	 * thread takes them back and does it */
	util_workers_t *workers;
};

/* ---------------------------------------------------------------- jobs */

static slot_t *slot_of(util_job_t *job)
{
	return (slot_t *)(void *)job;
}

static void run_job(sqfs_compressor_t *cmp, slot_t *s)
{
	s->result = data_uncompress(cmp, s->packed, s->len, s->out, s->outsize);
}

/* On a worker, with its own compressor copy. */
static void worker_run(void *state, util_job_t *job)
{
	run_job(state, slot_of(job));
}

/* On a worker, with the lock held. */
static bool worker_done(void *user, util_job_t *job)
{
	(void)user;
	slot_of(job)->done = true;
	return true;
}

static int make_worker_cmp(void *user, void **state)
{
	sqfs_compressor_t *cmp;
	int ret = sqfs_compressor_copy(user, &cmp);

	*state = ret == 0 ? cmp : NULL;
	return ret;
}

static void free_worker_cmp(void *state)
{
	sqfs_compressor_destroy(state);
}

static void push_job(sqfs_file_stream_t *fs, slot_t *s)
{
	/* no worker sees the slot before the push publishes it */
	s->done = false;
	util_workers_push(fs->workers, &s->job);
}

/* Wait until slot s is unpacked, unpacking queued jobs meanwhile. */
static int wait_done(sqfs_file_stream_t *fs, slot_t *s)
{
	util_job_t *job;
	int ret = 0;

	util_workers_lock(fs->workers);
	while (!s->done) {
		job = util_workers_pop(fs->workers);
		if (job != NULL) {
			util_workers_unlock(fs->workers);
			run_job(fs->src.cmp, slot_of(job));
			util_workers_lock(fs->workers);
			slot_of(job)->done = true;
			continue;
		}
		if (util_workers_count(fs->workers) == 0) {
			/* nobody else could unpack it */
			ret = SQFS_ERROR_INTERNAL;
			break;
		}
		util_workers_wait(fs->workers);
	}
	util_workers_unlock(fs->workers);
	return ret;
}

/* ---------------------------------------------------------- scheduling */

/* A slot no piece refers to: a free one, else the least recently used
 * cached fragment block; none while busy_max are referred to. */
static slot_t *get_slot(sqfs_file_stream_t *fs)
{
	slot_t *best = NULL;

	if (fs->busy >= fs->busy_max)
		return NULL;
	for (size_t i = 0; i < fs->slot_count; ++i) {
		slot_t *s = &fs->slots[i];

		if (s->refs != 0)
			continue;
		if (!s->cached) {
			best = s;
			break;
		}
		if (best == NULL || s->stamp < best->stamp)
			best = s;
	}
	if (best != NULL)
		best->cached = false;
	return best;
}

static void index_add(sqfs_file_stream_t *fs, file_rec_t *f)
{
	uint32_t index = f->inode->data.file.fragment_index;
	file_rec_t **b = &fs->tail_index[index % TAIL_INDEX_BUCKETS];

	f->inext = *b;
	if (*b != NULL)
		(*b)->iprev = &f->inext;
	*b = f;
	f->iprev = b;
}

static void index_remove(file_rec_t *f)
{
	if (f->iprev == NULL)
		return;
	*f->iprev = f->inext;
	if (f->inext != NULL)
		f->inext->iprev = f->iprev;
	f->inext = NULL;
	f->iprev = NULL;
}

/* A piece refers to s from now on. */
static void slot_ref(sqfs_file_stream_t *fs, slot_t *s)
{
	if (s->refs++ == 0)
		fs->busy += 1;
}

static void slot_unref(sqfs_file_stream_t *fs, slot_t *s)
{
	if (--s->refs == 0)
		fs->busy -= 1;
}

/* Give s's packed buffer back to the pool: its block is unpacked. */
static void give_packed(sqfs_file_stream_t *fs, slot_t *s)
{
	if (s->packed != NULL) {
		fs->spare[fs->spare_count++] = s->packed;
		s->packed = NULL;
	}
}

static slot_t *find_fragment(sqfs_file_stream_t *fs, uint32_t index)
{
	for (size_t i = 0; i < fs->slot_count; ++i) {
		slot_t *s = &fs->slots[i];

		if (s->cached && s->frag_index == index)
			return s;
	}
	return NULL;
}

/*
 * Read the stored block of size word word at pos into slot s, to unpack
 * to at most outsize bytes. A raw block is its own unpacked form and is
 * done at once; any other becomes a job.
 */
static int load(sqfs_file_stream_t *fs, slot_t *s, uint64_t pos, uint32_t word,
		size_t outsize)
{
	size_t len = word & SQFS_SIZE_WORD_LENGTH;
	int ret;

	if (s->out == NULL) {
		s->out = malloc(fs->src.block_size);
		if (s->out == NULL)
			return SQFS_ERROR_ALLOC;
	}

	if (word & SQFS_SIZE_WORD_RAW) {
		if (len > outsize)
			return SQFS_ERROR_CORRUPTED;
		ret = fs->src.file->read_at(fs->src.file, pos, s->out, len);
		if (ret != 0)
			return ret;
		s->result = (ptrdiff_t)len;
		s->done = true;
		return 0;
	}

	/* a slot in use holds at most one, so busy_max are enough */
	s->packed = fs->spare_count > 0 ? fs->spare[--fs->spare_count]
					: malloc(fs->src.block_size);
	if (s->packed == NULL)
		return SQFS_ERROR_ALLOC;
	ret = fs->src.file->read_at(fs->src.file, pos, s->packed, len);
	if (ret != 0) {
		give_packed(fs, s);
		return ret;
	}
	s->len = len;
	s->outsize = outsize;
	push_job(fs, s);
	return 0;
}

/* 0: piece p made, 1: no slot free now, < 0: an error for p. */
static int schedule_block(sqfs_file_stream_t *fs, file_rec_t *f, piece_t *p)
{
	uint32_t word = f->fi.words[p->index];
	uint64_t start = f->inode->data.file.blocks_start, pos;
	slot_t *s;
	int ret;

	p->size = data_block_expect(fs->src.block_size, &f->fi, p->index);
	p->why = data_check_word(fs->src.block_size, word);
	if (p->why != NULL)
		return SQFS_ERROR_CORRUPTED;
	if (word == 0) {
		p->sparse = true;
		return 0;
	}

	if (fs->sched_pos > UINT64_MAX - start) {
		p->why = "block list runs past the data";
		return SQFS_ERROR_CORRUPTED;
	}
	pos = start + fs->sched_pos;
	p->why = data_check_place(fs->src.region_start, fs->src.region_end, pos,
				  word & SQFS_SIZE_WORD_LENGTH);
	if (p->why != NULL)
		return SQFS_ERROR_CORRUPTED;

	s = get_slot(fs);
	if (s == NULL)
		return 1;
	ret = load(fs, s, pos, word, p->size);
	if (ret == SQFS_ERROR_CORRUPTED)
		p->why = DATA_WRONG_SIZE;
	if (ret != 0)
		return ret;
	slot_ref(fs, s);
	p->slot = s;
	/* at most 2^32 words of at most 2^24 each: no overflow */
	fs->sched_pos += word & SQFS_SIZE_WORD_LENGTH;
	return 0;
}

static int schedule_tail(sqfs_file_stream_t *fs, file_rec_t *f, piece_t *p)
{
	uint32_t index = f->inode->data.file.fragment_index;
	uint32_t offset = f->inode->data.file.fragment_offset;
	sqfs_fragment_t frag;
	slot_t *s;
	int ret;

	p->size = f->fi.tail;
	p->skip = offset;
	p->tail = true;
	index_remove(f);

	/* the same key passed the same checks when it was copied */
	if (tail_cache_fits(p->size)) {
		p->cached = tail_cache_get(&fs->tails, index, offset,
					   (uint32_t)p->size);
		if (p->cached != NULL) {
			tail_cache_hold(p->cached);
			return 0;
		}
	}

	s = find_fragment(fs, index);
	if (s == NULL) {
		ret = sqfs_image_get_fragment(fs->src.img, index, &frag);
		if (ret < 0) {
			p->why = DATA_NO_FRAGMENT;
			return ret;
		}
		p->why = data_check_fragment(fs->src.block_size,
					     fs->src.region_start,
					     fs->src.region_end, &frag);
		if (p->why != NULL)
			return SQFS_ERROR_CORRUPTED;
		s = get_slot(fs);
		if (s == NULL)
			return 1;
		ret = load(fs, s, frag.start, frag.size, fs->src.block_size);
		if (ret == SQFS_ERROR_CORRUPTED)
			p->why = DATA_WRONG_SIZE;
		if (ret != 0)
			return ret;
		s->cached = true;
		s->frag_index = index;
		s->scanned = false;
	}
	slot_ref(fs, s);
	s->stamp = ++fs->clock;
	p->slot = s;
	return 0;
}

/* Make the next piece; false if none can be made now. */
static bool schedule_one(sqfs_file_stream_t *fs)
{
	file_rec_t *f = fs->sched;
	piece_t *p;
	int ret = 0;

	if (f == NULL || fs->sched_stopped || fs->piece_count == PIECE_MAX)
		return false;

	p = &fs->pieces[(fs->piece_head + fs->piece_count) % PIECE_MAX];
	memset(p, 0, sizeof(*p));
	p->file = f;
	p->index = fs->sched_index;
	p->offset = (uint64_t)p->index * fs->src.block_size;

	if (f->error != 0) {
		ret = f->error;
		p->why = f->why;
		p->whole_file = true;
	} else if (p->index < f->fi.count)
		ret = schedule_block(fs, f, p);
	else if (f->fi.tail > 0)
		ret = schedule_tail(fs, f, p);
	/* else an empty file: one piece of size 0 */

	if (ret == 1)
		return false;
	fs->piece_count += 1;
	if (ret != 0) {
		/* nothing after an error is handed back */
		p->error = ret;
		fs->sched_stopped = true;
		return false;
	}

	fs->sched_index += 1;
	if (fs->sched_index == f->pieces) {
		fs->sched = f->next;
		fs->sched_index = 0;
		fs->sched_pos = 0;
	}
	return true;
}

static void pump(sqfs_file_stream_t *fs)
{
	while (schedule_one(fs))
		;
}

/* ---------------------------------------------------------- handing out */

static void release(sqfs_file_stream_t *fs)
{
	piece_t *p = &fs->pieces[fs->piece_head];
	file_rec_t *f = p->file;

	if (!fs->holding)
		return;
	fs->holding = false;
	if (p->slot != NULL)
		slot_unref(fs, p->slot);
	if (p->cached != NULL)
		tail_cache_release(p->cached);
	if (p->index + 1 == f->pieces) {
		fs->files = f->next;
		if (fs->files == NULL)
			fs->files_tail = NULL;
		free(f);
	}
	fs->piece_head = (fs->piece_head + 1) % PIECE_MAX;
	fs->piece_count -= 1;
}

/* Whether the unpacked block of piece p has the size its place implies. */
static int check_piece(piece_t *p)
{
	ptrdiff_t result = p->slot->result;

	if (result < 0)
		return (int)result;
	if (p->tail)
		p->why =
		    data_check_tail((size_t)result, (uint32_t)p->skip, p->size);
	else if ((size_t)result != p->size)
		p->why = DATA_WRONG_SIZE;
	return p->why != NULL ? SQFS_ERROR_CORRUPTED : 0;
}

/* Fragment block s was unpacked and handed back from: copy the tails in
 * it of the files queued but not yet scheduled. */
static void offer_queued(sqfs_file_stream_t *fs, slot_t *s)
{
	size_t len = (size_t)s->result;
	file_rec_t *f, *next;
	uint32_t off;

	s->scanned = true;
	f = fs->tail_index[s->frag_index % TAIL_INDEX_BUCKETS];
	for (; f != NULL; f = next) {
		next = f->inext;
		if (f->inode->data.file.fragment_index != s->frag_index)
			continue;
		/* once: if its copy is gone in its turn, it loads the block */
		index_remove(f);
		off = f->inode->data.file.fragment_offset;
		/* what check_piece will ask when its turn comes */
		if (data_check_tail(len, off, f->fi.tail) != NULL)
			continue;
		tail_cache_offer(&fs->tails, s->frag_index, off,
				 (uint32_t)f->fi.tail, s->out + off);
	}
}

/* The words of the error the stream hands back. */
static int word_error(sqfs_file_stream_t *fs)
{
	return data_fault(image_errtext(fs->src.img), fs->error,
			  fs->error_inode, fs->error_index, fs->error_count,
			  fs->error_why);
}

int sqfs_file_stream_next(sqfs_file_stream_t *fs, sqfs_file_block_t *out)
{
	piece_t *p;
	int ret;

	if (fs == NULL || out == NULL)
		return SQFS_ERROR_ARG_INVALID;
	errtext_begin(image_errtext(fs->src.img));

	release(fs);
	if (fs->error != 0) {
		*out = fs->error_block;
		return word_error(fs);
	}
	pump(fs);
	if (fs->piece_count == 0) {
		if (fs->files == NULL)
			return 1;
		return errtext_set(image_errtext(fs->src.img),
				   SQFS_ERROR_INTERNAL,
				   "file stream: files queued but none "
				   "scheduled");
	}

	p = &fs->pieces[fs->piece_head];
	memset(out, 0, sizeof(*out));
	out->user = p->file->user;
	out->index = p->index;
	out->offset = p->offset;

	ret = p->error;
	if (ret == 0 && p->slot != NULL) {
		ret = wait_done(fs, p->slot);
		if (ret == 0) {
			give_packed(fs, p->slot);
			ret = check_piece(p);
		}
	}
	if (ret != 0) {
		fs->error = ret;
		fs->error_block = *out;
		fs->error_inode = p->file->inode->inode_number;
		fs->error_index = p->whole_file ? DATA_WHOLE_FILE : p->index;
		fs->error_count = p->file->fi.count;
		fs->error_why = p->why;
		return word_error(fs);
	}

	if (p->cached != NULL) {
		out->data = p->cached->data;
	} else if (p->slot != NULL) {
		out->data = p->slot->out + p->skip;
		/* it passed its checks: a copy may serve its duplicates */
		if (p->tail && tail_cache_fits(p->size))
			tail_cache_offer(
			    &fs->tails,
			    p->file->inode->data.file.fragment_index,
			    (uint32_t)p->skip, (uint32_t)p->size, out->data);
		if (p->tail && !p->slot->scanned)
			offer_queued(fs, p->slot);
	} else {
		out->data = fs->zeros;
	}
	out->size = p->size;
	if (p->sparse)
		out->flags |= SQFS_FILE_BLOCK_SPARSE;
	if (p->index + 1 == p->file->pieces)
		out->flags |= SQFS_FILE_BLOCK_LAST;
	fs->holding = true;
	return 0;
}

int sqfs_file_stream_enqueue(sqfs_file_stream_t *fs, const sqfs_inode_t *inode,
			     void *user)
{
	size_t inode_size;
	file_rec_t *f;

	if (fs == NULL || inode == NULL)
		return SQFS_ERROR_ARG_INVALID;
	errtext_begin(image_errtext(fs->src.img));
	if (inode->type != SQFS_INODE_FILE &&
	    inode->type != SQFS_INODE_EXT_FILE)
		return errtext_set(
		    image_errtext(fs->src.img), SQFS_ERROR_NOT_FILE,
		    "inode %u: not a regular file", inode->inode_number);
	if (inode->payload_size > SIZE_MAX - sizeof(*inode) - sizeof(*f))
		return SQFS_ERROR_ALLOC;
	inode_size = sizeof(*inode) + inode->payload_size;

	/* one allocation: the copy of the inode lives right behind the
	 * record (whose size keeps it aligned) */
	f = calloc(1, sizeof(*f) + inode_size);
	if (f == NULL)
		return SQFS_ERROR_ALLOC;
	f->inode = (sqfs_inode_t *)(void *)(f + 1);
	memcpy(f->inode, inode, inode_size);
	f->user = user;

	f->why = data_file_info(fs->src.block_size, f->inode, &f->fi);
	f->error = f->why != NULL ? SQFS_ERROR_CORRUPTED : 0;
	f->pieces = 1;
	if (f->error == 0 && f->fi.count + (f->fi.tail > 0 ? 1 : 0) > 0)
		f->pieces = f->fi.count + (f->fi.tail > 0 ? 1 : 0);
	if (f->error == 0 && tail_cache_fits(f->fi.tail))
		index_add(fs, f);

	if (fs->files_tail != NULL)
		fs->files_tail->next = f;
	else
		fs->files = f;
	fs->files_tail = f;
	if (fs->sched == NULL && !fs->sched_stopped) {
		fs->sched = f;
		fs->sched_index = 0;
		fs->sched_pos = 0;
	}

	pump(fs);
	return 0;
}

/* ------------------------------------------------------------ lifetime */

int sqfs_file_stream_create(sqfs_image_t *img, unsigned int num_jobs,
			    sqfs_file_stream_t **out)
{
	util_workers_desc_t desc = {0};
	sqfs_file_stream_t *fs;
	uint32_t block_size;

	if (img == NULL || out == NULL)
		return SQFS_ERROR_ARG_INVALID;
	*out = NULL;

	if (num_jobs == 0)
		num_jobs = 1;
	if (num_jobs > SQFS_FILE_STREAM_MAX_JOBS)
		num_jobs = SQFS_FILE_STREAM_MAX_JOBS;

	fs = calloc(1, sizeof(*fs));
	if (fs == NULL)
		return SQFS_ERROR_ALLOC;
	if (data_source_init(&fs->src, img) != 0) {
		free(fs);
		return SQFS_ERROR_CORRUPTED;
	}
	block_size = fs->src.block_size;

	fs->busy_max = SQFS_FILE_STREAM_BUFFERS(num_jobs);
	fs->slot_count = FRAG_CACHE_BYTES / block_size;
	if (fs->slot_count > FRAG_CACHE_MAX)
		fs->slot_count = FRAG_CACHE_MAX;
	fs->slot_count += fs->busy_max;
	fs->slots = calloc(fs->slot_count, sizeof(fs->slots[0]));
	fs->spare = calloc(fs->busy_max, sizeof(fs->spare[0]));
	fs->pieces = calloc(PIECE_MAX, sizeof(fs->pieces[0]));
	fs->zeros = calloc(1, block_size);
	if (fs->slots == NULL || fs->spare == NULL || fs->pieces == NULL ||
	    fs->zeros == NULL ||
	    tail_cache_init(&fs->tails, TAIL_CACHE_STREAM_BYTES) != 0) {
		sqfs_file_stream_destroy(fs);
		return SQFS_ERROR_ALLOC;
	}

	/* the calling thread unpacks too while it waits: it is the last
	 * job. Fewer threads than asked for only make it slower. */
	desc.run = worker_run;
	desc.done = worker_done;
	desc.make_state = make_worker_cmp;
	desc.free_state = free_worker_cmp;
	desc.user = fs->src.cmp;
	if (util_workers_create(&desc, num_jobs - 1, &fs->workers, NULL) != 0) {
		sqfs_file_stream_destroy(fs);
		return SQFS_ERROR_ALLOC;
	}
	*out = fs;
	return 0;
}

void sqfs_file_stream_destroy(sqfs_file_stream_t *fs)
{
	file_rec_t *f;

	if (fs == NULL)
		return;
	util_workers_destroy(fs->workers);
	while (fs->files != NULL) {
		f = fs->files;
		fs->files = f->next;
		free(f);
	}
	for (size_t i = 0; fs->slots != NULL && i < fs->slot_count; ++i) {
		free(fs->slots[i].packed);
		free(fs->slots[i].out);
	}
	while (fs->spare != NULL && fs->spare_count > 0)
		free(fs->spare[--fs->spare_count]);
	free(fs->spare);
	free(fs->slots);
	free(fs->pieces);
	free(fs->zeros);
	tail_cache_cleanup(&fs->tails);
	free(fs);
}
