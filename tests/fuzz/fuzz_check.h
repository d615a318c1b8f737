/* SPDX-License-Identifier: MIT */
/*
 * fuzz_check.h - the oracles the parser targets (fuzz_listing.c,
 * fuzz_pseudo.c) share: a finding aborts, naming the target and the path.
 */
#ifndef FUZZ_CHECK_H
#define FUZZ_CHECK_H

/* Print "TARGET: what: 'path'" and abort. */
void fuzz_fail(const char *target, const char *what, const char *path)
    __attribute__((noreturn));

/* Abort unless path is canonical: no leading or trailing '/', no empty,
 * "." or ".." component. Checked here by hand, not by the library's
 * canonicaliser, which is what is under test. */
void fuzz_check_canonical(const char *target, const char *path);

#endif /* FUZZ_CHECK_H */
