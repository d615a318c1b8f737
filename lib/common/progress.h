/* SPDX-License-Identifier: MIT */
/*
 * progress.h - a progress line on stderr while packing.
 *
 * Shown only where someone watches (stderr is a terminal) and not with
 * --quiet; redrawn a few times a second at most, so it costs nothing
 * measurable; cleared before any other message and at the end.
 */
#ifndef COMMON_PROGRESS_H
#define COMMON_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

typedef struct {
	bool enabled;
	bool shown;
	struct timespec start;
	struct timespec last;
	/* bytes there are to do in all, 0 if not known */
	uint64_t total;
	/* a tool's own drawing instead of the line on stderr (mksquashfs's
	 * bar), set after progress_init: called when the line would be
	 * redrawn, and once more with last set by progress_end */
	void (*draw)(void *user, uint64_t bytes, uint64_t total, bool last);
	void *draw_user;
	uint64_t last_bytes;
} progress_t;

/* Start the clock; the line is drawn only if enabled (the caller passes
 * !quiet && isatty(STDERR_FILENO)). */
void progress_init(progress_t *p, bool enabled);

/* Once the amount of work is known: the line then shows the percent done
 * and the time left. */
void progress_set_total(progress_t *p, uint64_t total);

/* Redraw the line with the bytes and entries so far, if the last redraw
 * is long enough ago. */
void progress_update(progress_t *p, uint64_t bytes, uint64_t entries);

/* Remove the line from the terminal. */
void progress_clear(progress_t *p);

/* Stop: clear the line and release the message hook. */
void progress_end(progress_t *p);

/* "1.5 MiB" style text for a number of bytes. */
void progress_format_bytes(char *buf, size_t size, double bytes);

#endif /* COMMON_PROGRESS_H */
