/* SPDX-License-Identifier: MIT */
/*
 * squashfs.h - include every public libsquashfs header at once.
 */
#ifndef SQFS_SQUASHFS_H
#define SQFS_SQUASHFS_H

#include "sqfs/predef.h"
#include "sqfs/error.h"
#include "sqfs/io.h"
#include "sqfs/super.h"
#include "sqfs/compressor.h"
#include "sqfs/meta_writer.h"
#include "sqfs/meta_reader.h"
#include "sqfs/table.h"
#include "sqfs/id_table.h"
#include "sqfs/inode.h"
#include "sqfs/xattr.h"
#include "sqfs/entry.h"
#include "sqfs/path.h"
#include "sqfs/writer.h"
#include "sqfs/image.h"
#include "sqfs/dir_reader.h"
#include "sqfs/data_reader.h"
#include "sqfs/walker.h"
#include "sqfs/file_stream.h"
#include "sqfs/image_source.h"
#include "sqfs/dir_source.h"
#include "sqfs/unpack.h"
#include "sqfs/fs.h"

SQFS_BEGIN_DECLS

/* The library's version as "MAJOR.MINOR.PATCH". */
SQFS_API const char *sqfs_version_string(void);

SQFS_END_DECLS

#endif /* SQFS_SQUASHFS_H */
