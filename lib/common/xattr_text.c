/* SPDX-License-Identifier: MIT */
/*
 * xattr_text.c - xattr values in getfattr's hex and base64 encodings.
 */
#include "config.h"

#include "common/xattr_text.h"

#include <string.h>

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int base64_digit(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

ssize_t xattr_text_hex(const char *text, uint8_t *out, const char **bad)
{
	size_t len = strlen(text);
	ssize_t n = 0;

	if (len % 2 != 0) {
		*bad = text + len;
		return -1;
	}
	for (const char *p = text; *p != '\0'; p += 2) {
		int hi = hex_digit(p[0]), lo = hex_digit(p[1]);

		if (hi < 0 || lo < 0) {
			*bad = p;
			return -1;
		}
		out[n++] = (uint8_t)(hi * 16 + lo);
	}
	return n;
}

ssize_t xattr_text_base64(const char *text, uint8_t *out, const char **bad)
{
	uint32_t acc = 0;
	ssize_t n = 0;
	int bits = 0;

	for (const char *p = text; *p != '\0' && *p != '='; ++p) {
		int d = base64_digit(*p);

		if (d < 0) {
			*bad = p;
			return -1;
		}
		acc = (acc << 6) | (uint32_t)d;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[n++] = (uint8_t)(acc >> bits);
		}
	}
	return n;
}
