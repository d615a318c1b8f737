/* SPDX-License-Identifier: MIT */
/*
 * mode_string.h - a mode as ls -l writes it ("drwxr-sr-x"), the form
 * rdsquashfs's and unsquashfs's listings share.
 */
#ifndef COMMON_MODE_STRING_H
#define COMMON_MODE_STRING_H

#include <stdint.h>

/* The ten characters of mode (type and permission bits, setuid, setgid
 * and sticky as s/S and t/T) and a NUL into out; '?' for a type that is
 * none of the seven an image holds. */
void mode_string(uint32_t mode, char out[11]);

#endif /* COMMON_MODE_STRING_H */
