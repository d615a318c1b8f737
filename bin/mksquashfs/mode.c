/* SPDX-License-Identifier: MIT */
/*
 * mode.c - modes as mksquashfs takes them: octal ("0755"), or symbolic as
 * chmod(1) has them: clauses "[ugoa]*[+-=]PERMS..." separated by commas,
 * PERMS being letters of rwxXst or one of u, g, o (the bits of that
 * class). An octal mode sets all 07777 bits; a symbolic one changes the
 * mode it is applied to, clause by clause. Without u, g, o or a, a
 * clause applies to all three (squashfs-tools does not mask by umask).
 */
#include "config.h"

#include "mksquashfs.h"

#include <stdlib.h>
#include <string.h>

#define CLASS_U 04700u
#define CLASS_G 02070u
#define CLASS_O 01007u

static bool is_octal(const char *text)
{
	if (*text == '\0')
		return false;
	for (const char *p = text; *p != '\0'; ++p) {
		if (*p < '0' || *p > '7')
			return false;
	}
	return true;
}

static int push(mk_mode_t *m, const mk_mode_clause_t *c)
{
	mk_mode_clause_t *list =
	    realloc(m->clauses, (m->count + 1) * sizeof(list[0]));

	if (list == NULL)
		return -1;
	m->clauses = list;
	list[m->count++] = *c;
	return 0;
}

const char *mk_mode_parse(const char *text, mk_mode_t *out)
{
	const char *p = text;

	memset(out, 0, sizeof(*out));
	if (is_octal(text)) {
		mk_mode_clause_t c = {'o', 07777, 0, false, 0};

		if (strlen(text) > 4 && strspn(text, "0") < strlen(text) - 4)
			return "octal mode out of range";
		c.bits = (uint32_t)strtoul(text, NULL, 8) & 07777;
		return push(out, &c) == 0 ? NULL : "out of memory";
	}
	for (;;) {
		uint32_t who = 0;

		for (; strchr("ugoa", *p) != NULL && *p != '\0'; ++p) {
			who |= *p == 'u'   ? CLASS_U
			       : *p == 'g' ? CLASS_G
			       : *p == 'o' ? CLASS_O
					   : (CLASS_U | CLASS_G | CLASS_O);
		}
		if (who == 0)
			who = CLASS_U | CLASS_G | CLASS_O;
		if (*p != '+' && *p != '-' && *p != '=')
			goto bad;
		while (*p == '+' || *p == '-' || *p == '=') {
			mk_mode_clause_t c = {*p++, who, 0, false, 0};

			if (*p == 'u' || *p == 'g' || *p == 'o') {
				c.copy = *p++;
			} else {
				for (; *p != '\0' && strchr("rwxXst", *p);
				     ++p) {
					switch (*p) {
					case 'r':
						c.bits |= 0444;
						break;
					case 'w':
						c.bits |= 0222;
						break;
					case 'x':
						c.bits |= 0111;
						break;
					case 'X':
						c.cond_x = true;
						break;
					case 's':
						c.bits |= 06000;
						break;
					default:
						c.bits |= 01000;
						break;
					}
				}
			}
			if (push(out, &c) != 0) {
				mk_mode_free(out);
				return "out of memory";
			}
		}
		if (*p == '\0')
			return NULL;
		if (*p++ != ',')
			goto bad;
	}
bad:
	mk_mode_free(out);
	return "expected an octal mode or [ugoa]*[+-=]PERMS[,...]";
}

/* The bits of class c of mode, spread to every class. */
static uint32_t class_bits(uint32_t mode, char c)
{
	uint32_t rwx = c == 'u'	  ? (mode >> 6) & 7
		       : c == 'g' ? (mode >> 3) & 7
				  : mode & 7;

	return rwx * 0111;
}

uint32_t mk_mode_apply(const mk_mode_t *m, uint32_t mode, bool is_dir)
{
	mode &= 07777;
	for (size_t i = 0; i < m->count; ++i) {
		const mk_mode_clause_t *c = &m->clauses[i];
		uint32_t bits = c->bits;

		if (c->op == 'o') {
			mode = bits;
			continue;
		}
		if (c->copy != 0)
			bits = class_bits(mode, c->copy);
		if (c->cond_x && (is_dir || (mode & 0111) != 0))
			bits |= 0111;
		bits &= c->who;
		if (c->op == '+') {
			mode |= bits;
		} else if (c->op == '-') {
			mode &= ~bits;
		} else {
			/* '=' clears the classes' rwx first; setuid and
			 * setgid of a class named go with it */
			mode &= ~(c->who & 07777);
			mode |= bits;
		}
	}
	return mode & 07777;
}

void mk_mode_free(mk_mode_t *m)
{
	free(m->clauses);
	m->clauses = NULL;
	m->count = 0;
}
