/* SPDX-License-Identifier: MIT */
/*
 * ahead.c - reading small files ahead of the packer, on threads.
 *
 * Why: the packer hands the files to the writer one at a time, in order.
 * Read there, every small file costs an open, a read and a close on the
 * thread that feeds the compressors, and on a cold page cache a wait for
 * the disk each: the compressors would wait on the input. Readers open
 * and read the next small files while the packer works on the current
 * one, with many requests in flight at once, which is what lets a disk
 * (an SSD most of all) go at its speed.
 *
 * Rules:
 * - the order is the packer's: results are handed out in the order the
 *   files were given, whichever reader finishes first, so the image does
 *   not depend on the number of readers or on timing;
 * - bounded: at most AHEAD_SLOTS files and AHEAD_BYTES bytes (as the scan
 *   sized them) are held at once; a file bigger than AHEAD_FILE_MAX, or
 *   sparse, is not read ahead: the packer reads it itself, in chunks,
 *   holes skipped (gs_input_open and pack.c);
 * - a file is read into a buffer of the size the scan saw: one that grew
 *   past that since the scan is left to the packer as well;
 * - the readers print nothing: what went wrong stays with the file and is
 *   said by the packer when it gets there, so messages come in order;
 * - the safety rules of input.c hold: every input is opened by
 *   gs_input_open, below its root without following a symlink and
 *   checked; each reader has an opener of its own (its worker state).
 */
#include "config.h"

#include "gensquashfs.h"
#include "sqfs/error.h"
#include "util/workers.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Files of at most this many bytes are read ahead: one block of the
 * default size. Bigger ones are read fast enough in chunks. */
#define AHEAD_FILE_MAX (128u * 1024u)

/* Bytes held at most (files read and not yet packed). What keeps a
 * disk busy is the number of requests in flight, one per reader, not
 * the bytes: a few files' worth per reader is enough. */
#define AHEAD_BYTES (256u * 1024u)

/* Files held at most: the requests in flight when they are tiny. */
#define AHEAD_SLOTS 256u

/* Readers: threads that mostly wait for the disk, so more than cores. */
#define AHEAD_READERS 4u

typedef struct {
	/* first: the pool hands this back */
	util_job_t job;
	gs_ahead_file_t file;
	const gs_entry_t *entry;
	/* bytes reserved in the budget: what the scan said, most read */
	uint64_t reserved;
	bool done;
} slot_t;

struct gs_ahead {
	int input_dir;
	const gs_entries_t *entries;
	/* for the files the packer reads itself, with no reader free */
	gs_opener_t own;
	gs_entry_t *const *files;
	size_t count;
	/* the next file to schedule, and the next to hand out */
	size_t scheduled;
	size_t next;
	uint64_t bytes;
	util_workers_t *workers;
	slot_t slots[AHEAD_SLOTS];
};

static slot_t *slot_of(util_job_t *job)
{
	return (slot_t *)job;
}

/* Read the slot's file whole, or say why not. Runs on a reader. */
static void read_file(gs_opener_t *o, slot_t *s)
{
	gs_ahead_file_t *f = &s->file;
	uint64_t base;
	struct stat st;
	int fd;

	fd = gs_input_open(o, s->entry, O_RDONLY, &st, &f->err);
	if (fd < 0) {
		f->state = GS_AHEAD_FAILED;
		return;
	}
	f->size = gs_input_extent(s->entry, &st, &base);
	/* a store's range is data as it is: its holes are the store's */
	if (f->size > s->reserved ||
	    (!s->entry->in_store &&
	     (uint64_t)st.st_blocks * 512u < (uint64_t)st.st_size)) {
		close(fd);
		f->size = 0;
		f->state = GS_AHEAD_SELF;
		return;
	}
	while (f->got < f->size) {
		ssize_t n =
		    pread(fd, f->data + f->got, (size_t)(f->size - f->got),
			  (off_t)(base + f->got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			f->err = errno;
			f->state = GS_AHEAD_FAILED;
			close(fd);
			return;
		}
		if (n == 0)
			break;
		f->got += (uint64_t)n;
	}
	f->size_after = f->got;
	if (fstat(fd, &st) == 0)
		f->size_after = gs_input_extent(s->entry, &st, &base);
	close(fd);
	f->state = GS_AHEAD_READ;
}

static void run_job(void *state, util_job_t *job)
{
	read_file(state, slot_of(job));
}

static int make_opener(void *user, void **state)
{
	gs_ahead_t *a = user;
	gs_opener_t *o = malloc(sizeof(*o));

	if (o == NULL)
		return SQFS_ERROR_ALLOC;
	gs_opener_init(o, a->input_dir, a->entries);
	*state = o;
	return 0;
}

static void free_opener(void *state)
{
	gs_opener_cleanup(state);
	free(state);
}

static bool job_done(void *user, util_job_t *job)
{
	(void)user;
	slot_of(job)->done = true;
	return true;
}

static bool is_small(const gs_entry_t *e)
{
	return e->st.size <= AHEAD_FILE_MAX;
}

/* Queue the next files while there is room. Owner only. */
static void schedule(gs_ahead_t *a)
{
	while (a->scheduled < a->count &&
	       a->scheduled - a->next < AHEAD_SLOTS) {
		const gs_entry_t *e = a->files[a->scheduled];
		slot_t *s = &a->slots[a->scheduled % AHEAD_SLOTS];

		/* the budget may be overrun by the first file held only */
		if (is_small(e) && a->bytes + e->st.size > AHEAD_BYTES &&
		    a->scheduled > a->next)
			break;
		memset(s, 0, sizeof(*s));
		s->entry = e;
		a->scheduled += 1;
		if (!is_small(e)) {
			s->file.state = GS_AHEAD_SELF;
			s->done = true;
			continue;
		}
		/* the buffer comes from the packer's thread: memory a
		 * reader allocated would stay in that thread's malloc
		 * arena, and the peak RSS with it */
		s->file.data = malloc(e->st.size > 0 ? (size_t)e->st.size : 1);
		if (s->file.data == NULL) {
			s->file.state = GS_AHEAD_FAILED;
			s->file.err = ENOMEM;
			s->done = true;
			continue;
		}
		s->reserved = e->st.size;
		a->bytes += s->reserved;
		/* no reader sees the slot before the push publishes it */
		util_workers_push(a->workers, &s->job);
	}
}

/* Wait until slot s is read, reading queued files meanwhile if there
 * are no readers. */
static void wait_done(gs_ahead_t *a, slot_t *s)
{
	util_job_t *job;

	util_workers_lock(a->workers);
	while (!s->done) {
		/* a queued file is read here rather than waited for: the
		 * head itself, if no reader has taken it yet */
		job = util_workers_pop(a->workers);
		if (job != NULL) {
			util_workers_unlock(a->workers);
			run_job(&a->own, job);
			util_workers_lock(a->workers);
			slot_of(job)->done = true;
			continue;
		}
		if (util_workers_count(a->workers) == 0) {
			/* cannot happen: with no readers, every file
			 * scheduled stays queued until popped here */
			s->file.state = GS_AHEAD_FAILED;
			s->file.err = EDEADLK;
			break;
		}
		util_workers_wait(a->workers);
	}
	util_workers_unlock(a->workers);
}

int gs_ahead_create(int input_dir, const gs_entries_t *entries,
		    gs_entry_t *const *files, size_t count, gs_ahead_t **out)
{
	util_workers_desc_t desc = {0};
	gs_ahead_t *a = calloc(1, sizeof(*a));

	*out = NULL;
	if (a == NULL)
		return -1;
	a->input_dir = input_dir;
	a->entries = entries;
	gs_opener_init(&a->own, input_dir, entries);
	a->files = files;
	a->count = count;
	desc.run = run_job;
	desc.done = job_done;
	desc.make_state = make_opener;
	desc.free_state = free_opener;
	desc.user = a;
	/* fewer readers than asked (or none) still works: the packer then
	 * reads the queued files itself */
	if (util_workers_create(&desc, AHEAD_READERS, &a->workers, NULL) != 0) {
		gs_opener_cleanup(&a->own);
		free(a);
		return -1;
	}
	*out = a;
	return 0;
}

/* Give back what the slot held. */
static void release(gs_ahead_t *a, slot_t *s)
{
	free(s->file.data);
	s->file.data = NULL;
	a->bytes -= s->reserved;
	s->reserved = 0;
}

const gs_ahead_file_t *gs_ahead_next(gs_ahead_t *a)
{
	slot_t *s;

	if (a->next > 0)
		release(a, &a->slots[(a->next - 1) % AHEAD_SLOTS]);
	if (a->next >= a->count)
		return NULL;
	schedule(a);
	s = &a->slots[a->next % AHEAD_SLOTS];
	wait_done(a, s);
	a->next += 1;
	return &s->file;
}

void gs_ahead_destroy(gs_ahead_t *a)
{
	if (a == NULL)
		return;
	/* stop the readers first: none may still write to a slot */
	util_workers_destroy(a->workers);
	gs_opener_cleanup(&a->own);
	for (size_t i = a->next > 0 ? a->next - 1 : 0; i < a->scheduled; ++i)
		free(a->slots[i % AHEAD_SLOTS].file.data);
	free(a);
}
