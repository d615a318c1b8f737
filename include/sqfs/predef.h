/* SPDX-License-Identifier: MIT */
/*
 * predef.h - definitions every public libsquashfs header relies on.
 *
 * The library is built with hidden symbol visibility; only declarations
 * marked SQFS_API are exported from the shared object. Integers in the
 * public structures are host-endian: the library converts to and from the
 * little-endian on-disk form itself.
 */
#ifndef SQFS_PREDEF_H
#define SQFS_PREDEF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(SQFS_BUILDING_LIBRARY) && defined(__GNUC__)
#define SQFS_API __attribute__((visibility("default")))
#else
#define SQFS_API
#endif

#ifdef __cplusplus
#define SQFS_BEGIN_DECLS extern "C" {
#define SQFS_END_DECLS }
#else
#define SQFS_BEGIN_DECLS
#define SQFS_END_DECLS
#endif

/* Opaque and interface types, declared once so headers can refer to each
 * other's objects without including each other. */
typedef struct sqfs_file sqfs_file_t;
typedef struct sqfs_compressor sqfs_compressor_t;
typedef struct sqfs_compressor_config sqfs_compressor_config_t;
typedef struct sqfs_super sqfs_super_t;
typedef struct sqfs_meta_writer sqfs_meta_writer_t;
typedef struct sqfs_meta_reader sqfs_meta_reader_t;
typedef struct sqfs_id_table sqfs_id_table_t;

#endif /* SQFS_PREDEF_H */
