/* SPDX-License-Identifier: MIT */
/*
 * test_abi.c - pins the size of every public structure and the offset of
 * each of its fields, as built for 64-bit Linux (LP64).
 *
 * A program built against one version of libsquashfs keeps running with
 * a later one of the same soname only if these stay put. A change here is
 * an ABI break: it needs a new soname (or, for the structures callers
 * fill in, the reserved room they carry), not an edit of the numbers.
 */
#include "config.h"

#include "sqfs/squashfs.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

static int failures;

static void pin(const char *what, size_t got, size_t want)
{
	if (got != want) {
		printf("%s: %zu, pinned at %zu\n", what, got, want);
		failures += 1;
	}
}

#define SIZE(type, n) pin("sizeof(" #type ")", sizeof(type), n)
#define OFF(type, field, n) \
	pin("offsetof(" #type ", " #field ")", offsetof(type, field), n)

int main(void)
{
#if UINTPTR_MAX != UINT64_MAX || !defined(__LP64__)
	puts("the pinned layout is that of LP64 targets");
	return 77;
#else
	SIZE(sqfs_compressor_config_t, 72);
	OFF(sqfs_compressor_config_t, id, 0);
	OFF(sqfs_compressor_config_t, flags, 2);
	OFF(sqfs_compressor_config_t, block_size, 4);
	OFF(sqfs_compressor_config_t, opt, 8);
	SIZE(sqfs_super_t, 96);
	OFF(sqfs_super_t, magic, 0);
	OFF(sqfs_super_t, inode_count, 4);
	OFF(sqfs_super_t, modification_time, 8);
	OFF(sqfs_super_t, block_size, 12);
	OFF(sqfs_super_t, fragment_entry_count, 16);
	OFF(sqfs_super_t, compression_id, 20);
	OFF(sqfs_super_t, block_log, 22);
	OFF(sqfs_super_t, flags, 24);
	OFF(sqfs_super_t, id_count, 26);
	OFF(sqfs_super_t, version_major, 28);
	OFF(sqfs_super_t, version_minor, 30);
	OFF(sqfs_super_t, root_inode_ref, 32);
	OFF(sqfs_super_t, bytes_used, 40);
	OFF(sqfs_super_t, id_table_start, 48);
	OFF(sqfs_super_t, xattr_id_table_start, 56);
	OFF(sqfs_super_t, inode_table_start, 64);
	OFF(sqfs_super_t, directory_table_start, 72);
	OFF(sqfs_super_t, fragment_table_start, 80);
	OFF(sqfs_super_t, export_table_start, 88);
	SIZE(sqfs_inode_t, 64);
	OFF(sqfs_inode_t, type, 0);
	OFF(sqfs_inode_t, mode, 2);
	OFF(sqfs_inode_t, uid_idx, 4);
	OFF(sqfs_inode_t, gid_idx, 6);
	OFF(sqfs_inode_t, mtime, 8);
	OFF(sqfs_inode_t, inode_number, 12);
	OFF(sqfs_inode_t, nlink, 16);
	OFF(sqfs_inode_t, xattr_index, 20);
	OFF(sqfs_inode_t, data, 24);
	OFF(sqfs_inode_t, payload_size, 56);
	OFF(sqfs_inode_t, payload, 64);
	SIZE(sqfs_file_t, 104);
	OFF(sqfs_file_t, destroy, 0);
	OFF(sqfs_file_t, read_at, 8);
	OFF(sqfs_file_t, write_at, 16);
	OFF(sqfs_file_t, get_size, 24);
	OFF(sqfs_file_t, truncate, 32);
	OFF(sqfs_file_t, sync, 40);
	OFF(sqfs_file_t, close, 48);
	OFF(sqfs_file_t, reserved, 56);
	SIZE(sqfs_dir_entry_t, 32);
	OFF(sqfs_dir_entry_t, name, 0);
	OFF(sqfs_dir_entry_t, name_len, 8);
	OFF(sqfs_dir_entry_t, inode_ref, 16);
	OFF(sqfs_dir_entry_t, inode_number, 24);
	OFF(sqfs_dir_entry_t, type, 28);
	SIZE(sqfs_file_block_t, 48);
	OFF(sqfs_file_block_t, user, 0);
	OFF(sqfs_file_block_t, data, 8);
	OFF(sqfs_file_block_t, size, 16);
	OFF(sqfs_file_block_t, offset, 24);
	OFF(sqfs_file_block_t, index, 32);
	OFF(sqfs_file_block_t, flags, 40);
	SIZE(sqfs_fragment_t, 16);
	OFF(sqfs_fragment_t, start, 0);
	OFF(sqfs_fragment_t, size, 8);
	SIZE(sqfs_walk_entry_t, 40);
	OFF(sqfs_walk_entry_t, path, 0);
	OFF(sqfs_walk_entry_t, inode, 8);
	OFF(sqfs_walk_entry_t, depth, 16);
	OFF(sqfs_walk_entry_t, link_target, 24);
	OFF(sqfs_walk_entry_t, post, 32);
	SIZE(sqfs_xattr_t, 24);
	OFF(sqfs_xattr_t, key, 0);
	OFF(sqfs_xattr_t, value, 8);
	OFF(sqfs_xattr_t, size, 16);
	SIZE(sqfs_writer_options_t, 144);
	OFF(sqfs_writer_options_t, block_size, 0);
	OFF(sqfs_writer_options_t, devblk_size, 4);
	OFF(sqfs_writer_options_t, compressor, 8);
	OFF(sqfs_writer_options_t, num_jobs, 80);
	OFF(sqfs_writer_options_t, max_backlog, 84);
	OFF(sqfs_writer_options_t, flags, 88);
	OFF(sqfs_writer_options_t, mkfs_time, 92);
	OFF(sqfs_writer_options_t, default_uid, 96);
	OFF(sqfs_writer_options_t, default_gid, 100);
	OFF(sqfs_writer_options_t, default_mode, 104);
	OFF(sqfs_writer_options_t, default_mtime, 108);
	OFF(sqfs_writer_options_t, mem_limit_mib, 112);
	OFF(sqfs_writer_options_t, reserved, 116);
	SIZE(sqfs_data_run_t, 24);
	OFF(sqfs_data_run_t, offset, 0);
	OFF(sqfs_data_run_t, size, 8);
	OFF(sqfs_data_run_t, data, 16);
	SIZE(sqfs_extent_t, 16);
	OFF(sqfs_extent_t, offset, 0);
	OFF(sqfs_extent_t, size, 8);
	SIZE(sqfs_image_source_options_t, 64);
	OFF(sqfs_image_source_options_t, flags, 0);
	OFF(sqfs_image_source_options_t, num_jobs, 4);
	OFF(sqfs_image_source_options_t, max_depth, 8);
	OFF(sqfs_image_source_options_t, max_entries, 16);
	OFF(sqfs_image_source_options_t, max_bytes, 24);
	OFF(sqfs_image_source_options_t, reserved, 32);
	SIZE(sqfs_dir_source_options_t, 56);
	OFF(sqfs_dir_source_options_t, flags, 0);
	OFF(sqfs_dir_source_options_t, warn, 8);
	OFF(sqfs_dir_source_options_t, user, 16);
	OFF(sqfs_dir_source_options_t, reserved, 24);
	SIZE(sqfs_unpack_options_t, 88);
	OFF(sqfs_unpack_options_t, flags, 0);
	OFF(sqfs_unpack_options_t, num_jobs, 4);
	OFF(sqfs_unpack_options_t, mtime, 8);
	OFF(sqfs_unpack_options_t, image_name, 16);
	OFF(sqfs_unpack_options_t, select, 24);
	OFF(sqfs_unpack_options_t, report, 32);
	OFF(sqfs_unpack_options_t, warn, 40);
	OFF(sqfs_unpack_options_t, user, 48);
	OFF(sqfs_unpack_options_t, reserved, 56);
	SIZE(sqfs_entry_t, 120);
	OFF(sqfs_entry_t, path, 0);
	OFF(sqfs_entry_t, mode, 8);
	OFF(sqfs_entry_t, uid, 12);
	OFF(sqfs_entry_t, gid, 16);
	OFF(sqfs_entry_t, rdev_major, 20);
	OFF(sqfs_entry_t, rdev_minor, 24);
	OFF(sqfs_entry_t, flags, 28);
	OFF(sqfs_entry_t, mtime, 32);
	OFF(sqfs_entry_t, size, 40);
	OFF(sqfs_entry_t, symlink_target, 48);
	OFF(sqfs_entry_t, hard_link, 56);
	OFF(sqfs_entry_t, xattrs, 64);
	OFF(sqfs_entry_t, xattr_count, 72);
	OFF(sqfs_entry_t, inode_number, 80);
	OFF(sqfs_entry_t, nlink, 88);
	OFF(sqfs_entry_t, reserved, 92);
	SIZE(sqfs_writer_stats_t, 104);
	OFF(sqfs_writer_stats_t, bytes_in, 0);
	OFF(sqfs_writer_stats_t, bytes_written, 8);
	OFF(sqfs_writer_stats_t, image_size, 16);
	OFF(sqfs_writer_stats_t, data_blocks, 24);
	OFF(sqfs_writer_stats_t, fragment_blocks, 32);
	OFF(sqfs_writer_stats_t, duplicate_blocks, 40);
	OFF(sqfs_writer_stats_t, duplicate_fragments, 48);
	OFF(sqfs_writer_stats_t, sparse_blocks, 56);
	OFF(sqfs_writer_stats_t, files, 64);
	OFF(sqfs_writer_stats_t, inodes, 72);
	OFF(sqfs_writer_stats_t, ids, 80);
	OFF(sqfs_writer_stats_t, inode_table_bytes, 88);
	OFF(sqfs_writer_stats_t, directory_table_bytes, 96);

	if (failures == 0)
		puts("every public structure has its pinned layout");
	return failures == 0 ? 0 : 1;
#endif
}
