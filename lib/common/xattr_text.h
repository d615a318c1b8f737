/* SPDX-License-Identifier: MIT */
/*
 * xattr_text.h - binary xattr values written as text in getfattr's
 * encodings: "0x" and hex digits, "0s" and base64. gensquashfs's xattr
 * file and mksquashfs's -xattrs-add and pseudo "x" lines take both; each
 * caller says in its own words what is wrong.
 */
#ifndef COMMON_XATTR_TEXT_H
#define COMMON_XATTR_TEXT_H

#include <stdint.h>
#include <sys/types.h>

/*
 * The hex digits of text (what follows "0x") as bytes into out, which has
 * room for strlen(text) / 2. Returns the number of bytes, or -1 with *bad
 * at the first pair that is not two hex digits, or at the end of text if
 * it has an odd number of characters (checked first).
 */
ssize_t xattr_text_hex(const char *text, uint8_t *out, const char **bad);

/*
 * The base64 digits of text (what follows "0s") up to its end or the
 * first '=' as bytes into out, which has room for strlen(text). Returns
 * the number of bytes, or -1 with *bad at the first character that is
 * not a base64 digit.
 */
ssize_t xattr_text_base64(const char *text, uint8_t *out, const char **bad);

#endif /* COMMON_XATTR_TEXT_H */
