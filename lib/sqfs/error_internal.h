/* SPDX-License-Identifier: MIT */
/*
 * error_internal.h - the words of an object's last failure.
 *
 * Objects that users call (the writer, and an image with the readers made
 * from it) keep the text of their last failure, so that a tool can tell
 * its user what went wrong and where without knowing the library's rules.
 *
 * The protocol, per public call: errtext_begin at its start; the code
 * that finds a fault describes it with errtext_set; every failing
 * exit passes its code through errtext_end, which keeps a description
 * set during the call and otherwise writes the call's context and the
 * code's phrase. So the text never describes an earlier failure, and a
 * failure that nobody described still says where it happened.
 */
#ifndef SQFS_ERROR_INTERNAL_H
#define SQFS_ERROR_INTERNAL_H

#include "sqfs/error.h"

#include <stdbool.h>

typedef struct {
	char text[SQFS_ERROR_TEXT_SIZE];
	/* text describes a failure of the current call */
	bool fresh;
} errtext_t;

#define SQFS_ERRTEXT_PRINTF(a, b) __attribute__((format(printf, a, b)))

static inline void errtext_begin(errtext_t *e)
{
	e->fresh = false;
}

/* Describe a fault (printf-style); returns code, for `return set(...)`. */
int errtext_set(errtext_t *e, int code, const char *fmt, ...)
    SQFS_ERRTEXT_PRINTF(3, 4);

/*
 * The exit of a public call: code 0 passes. A negative code keeps words
 * set during the call, or gets "CONTEXT: phrase of code" (just the phrase
 * if fmt is NULL). Returns code.
 */
int errtext_end(errtext_t *e, int code, const char *fmt, ...)
    SQFS_ERRTEXT_PRINTF(3, 4);

/*
 * Say where a failure happened: words set during the call become
 * "CONTEXT: words"; without any, "CONTEXT: phrase of code". Returns code
 * (0 passes untouched).
 */
int errtext_wrap(errtext_t *e, int code, const char *fmt, ...)
    SQFS_ERRTEXT_PRINTF(3, 4);

/* Copy the words into a caller's buffer of SQFS_ERROR_TEXT_SIZE bytes. */
void errtext_copy(const errtext_t *e, char *out);

/*
 * A failure an object keeps: a reader whose state a failure broke (a
 * listing damaged half way, a block that did not unpack, a walk cut off)
 * fails every later call the same way, with the same words, rather than
 * go on from a state it cannot trust. code 0: nothing kept.
 */
typedef struct {
	int code;
	char text[SQFS_ERROR_TEXT_SIZE];
} errtext_kept_t;

/* Keep the failure code with the words the call ends with (errtext_end
 * made them). Returns code. */
int errtext_keep(const errtext_t *e, errtext_kept_t *k, int code);

/* At the start of a call, after errtext_begin: 0 if nothing is kept, or
 * the kept code, its words set again as the call's. */
int errtext_repeat(errtext_t *e, const errtext_kept_t *k);

#endif /* SQFS_ERROR_INTERNAL_H */
