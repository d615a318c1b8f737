/* SPDX-License-Identifier: MIT */
/*
 * parse.c - numbers and sizes given on the command line.
 */
#include "config.h"

#include "common/parse.h"

#include <stddef.h>

static const char *parse_digits(const char **str, unsigned int base,
				uint64_t max, uint64_t *out)
{
	const char *s = *str;
	uint64_t value = 0;

	if (*s < '0' || *s >= (char)('0' + base))
		return "not a number";

	while (*s >= '0' && *s < (char)('0' + base)) {
		uint64_t digit = (uint64_t)(*s - '0');

		if (value > (max - digit) / base)
			return "too large";
		value = value * base + digit;
		++s;
	}
	*str = s;
	*out = value;
	return NULL;
}

const char *parse_uint(const char *str, uint64_t max, uint64_t *out)
{
	const char *err = parse_digits(&str, 10, max, out);

	if (err == NULL && *str != '\0')
		return "not a number";
	return err;
}

const char *parse_octal(const char *str, uint64_t max, uint64_t *out)
{
	const char *err = parse_digits(&str, 8, max, out);

	if (err == NULL && *str != '\0')
		return "not an octal number";
	return err;
}

const char *parse_size(const char *str, uint64_t max, uint64_t *out)
{
	unsigned int shift = 0;
	uint64_t value;
	const char *err;

	err = parse_digits(&str, 10, UINT64_MAX, &value);
	if (err != NULL)
		return err;

	switch (*str) {
	case '\0':
		break;
	case 'k':
	case 'K':
		shift = 10;
		break;
	case 'm':
	case 'M':
		shift = 20;
		break;
	case 'g':
	case 'G':
		shift = 30;
		break;
	default:
		return "not a size (a number, optionally followed by K, M "
		       "or G)";
	}
	if (shift > 0 && str[1] != '\0')
		return "not a size (a number, optionally followed by K, M "
		       "or G)";

	if (value > (max >> shift))
		return "too large";
	*out = value << shift;
	return NULL;
}

const char *parse_block_size(const char *str, uint32_t *out)
{
	uint64_t value;
	const char *err = parse_size(str, UINT64_MAX, &value);

	if (err != NULL)
		return err;
	if (value < 4096 || value > 1048576 || (value & (value - 1)) != 0)
		return "must be a power of two from 4K to 1M";
	*out = (uint32_t)value;
	return NULL;
}

const char *parse_dev_block_size(const char *str, uint32_t *out)
{
	uint64_t value;
	const char *err = parse_size(str, UINT64_MAX, &value);

	if (err != NULL)
		return err;
	if (value < 1024)
		return "must be at least 1024";
	if (value > UINT32_MAX)
		return "too large";
	*out = (uint32_t)value;
	return NULL;
}

const char *parse_count(const char *str, uint64_t max, uint64_t *out)
{
	const char *why = parse_uint(str, max, out);

	if (why == NULL && *out == 0)
		why = "must be at least 1";
	return why;
}
