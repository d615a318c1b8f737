/* SPDX-License-Identifier: MIT */
/*
 * progress.c - a progress line on stderr while packing.
 */
#include "config.h"

#include "common/progress.h"
#include "common/print.h"

#include <stdio.h>

/* Redraws at most this often. */
#define PROGRESS_INTERVAL_NS 250000000L

static double seconds_between(const struct timespec *a,
			      const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) +
	       (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static void clear_hook(void *user)
{
	progress_clear(user);
}

void progress_init(progress_t *p, bool enabled)
{
	p->enabled = enabled;
	p->shown = false;
	p->total = 0;
	p->draw = NULL;
	p->draw_user = NULL;
	p->last_bytes = 0;
	clock_gettime(CLOCK_MONOTONIC, &p->start);
	p->last = p->start;
	if (enabled)
		tool_set_message_hook(clear_hook, p);
}

void progress_format_bytes(char *buf, size_t size, double bytes)
{
	static const char *const units[] = {"B",   "KiB", "MiB",
					    "GiB", "TiB", "PiB"};
	size_t i = 0;

	while (bytes >= 1024.0 && i + 1 < sizeof(units) / sizeof(units[0])) {
		bytes /= 1024.0;
		++i;
	}
	if (i == 0)
		snprintf(buf, size, "%.0f %s", bytes, units[i]);
	else
		snprintf(buf, size, "%.1f %s", bytes, units[i]);
}

void progress_set_total(progress_t *p, uint64_t total)
{
	p->total = total;
}

/* " 42%, 1:05 left" once a total is known and some work is done. */
static void format_left(char *buf, size_t size, const progress_t *p,
			uint64_t bytes, double elapsed)
{
	double left;

	buf[0] = '\0';
	if (p->total == 0 || bytes == 0 || bytes > p->total)
		return;
	left = elapsed * (double)(p->total - bytes) / (double)bytes;
	snprintf(buf, size, ", %.0f%%, %u:%02u left",
		 100.0 * (double)bytes / (double)p->total,
		 (unsigned int)(left / 60.0), (unsigned int)left % 60u);
}

void progress_update(progress_t *p, uint64_t bytes, uint64_t entries)
{
	char done[32], rate[32], left[64];
	struct timespec now;
	double elapsed;

	if (!p->enabled)
		return;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (seconds_between(&p->last, &now) * 1e9 < PROGRESS_INTERVAL_NS)
		return;
	p->last = now;
	p->last_bytes = bytes;
	if (p->draw != NULL) {
		p->draw(p->draw_user, bytes, p->total, false);
		return;
	}

	elapsed = seconds_between(&p->start, &now);
	progress_format_bytes(done, sizeof(done), (double)bytes);
	progress_format_bytes(rate, sizeof(rate),
			      elapsed > 0.0 ? (double)bytes / elapsed : 0.0);

	format_left(left, sizeof(left), p, bytes, elapsed);

	fprintf(stderr, "\r%s, %llu entr%s, %s/s%s\033[K", done,
		(unsigned long long)entries, entries == 1 ? "y" : "ies", rate,
		left);
	fflush(stderr);
	p->shown = true;
}

void progress_clear(progress_t *p)
{
	if (!p->shown)
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
	p->shown = false;
}

void progress_end(progress_t *p)
{
	if (p->enabled && p->draw != NULL)
		p->draw(p->draw_user, p->last_bytes, p->total, true);
	progress_clear(p);
	if (p->enabled)
		tool_set_message_hook(NULL, NULL);
	p->enabled = false;
}
