#!/bin/sh
# SPDX-License-Identifier: MIT
# Every compressor the build has, at block sizes from 4 KiB to 1 MiB, with
# and without -X options: `unsquashfs -s` shows the compressor, options and
# block size; unsquashfs, rdsquashfs and the kernel read every byte back;
# packing twice, and with 1 or 2 jobs, gives identical bytes.
. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

# The compressors built in (config.h); the stand-in has all six.
COMPRESSORS="gzip xz lzma lz4 zstd lzo"
if [ "$STANDIN" = 0 ] && [ -f "$abs_top_builddir/config.h" ]; then
	COMPRESSORS=
	for c in gzip xz lz4 zstd lzo; do
		grep -q "define WITH_$(echo "$c" | tr '[:lower:]' '[:upper:]') 1" \
			"$abs_top_builddir/config.h" || continue
		COMPRESSORS="$COMPRESSORS $c"
		[ "$c" = xz ] && COMPRESSORS="$COMPRESSORS lzma"
	done
fi
echo "compressors: $COMPRESSORS"

TAR=$(gen mix)

# pack_check NAME COMP BLOCK [-X OPTS]: pack with these settings, check the
# superblock, the contents, and that packing again gives the same bytes.
pack_check() {
	local name=$1 comp=$2 bs=$3 img
	shift 3
	img=$WORK/$name.sqfs
	t2s "$img" -q -c "$comp" -b "$bs" "$@" <"$TAR"
	if [ "$RC" != 0 ]; then
		fail "$name: tar2sqfs exit status $RC: $(cat "$WORK/t2s.err")"
		return 1
	fi
	expect_eq "$name: unsquashfs -s: compressor" \
		"$(sb_field "$img" Compression)" "$comp"
	expect_eq "$name: unsquashfs -s: block size" \
		"$(sb_field "$img" 'Block size')" "$bs"
	t2s "$img.again" -q -c "$comp" -b "$bs" "$@" <"$TAR"
	check "$name: packing twice gives identical bytes" \
		cmp "$img" "$img.again"
	rm -f "$img.again"
	# the kernel has no lzma
	[ "$comp" = lzma ] && without mount
	# unsquashfs 4.5.1 cannot read the id table of ng 1.2's lz4 images
	[ "$comp" = lz4 ] && new_feature "lz4 images unsquashfs can read"
	check_image "$name" "$img" "$TAR"
	end_feature
	return 0
}

# GNU tar's reading is checked by features.sh; here only the data path
for comp in $COMPRESSORS; do
	for bs in 4096 131072 1048576; do
		READERS="pf mount"
		[ "$bs" = 131072 ] && READERS="lls pf rd mount"
		pack_check "$comp-$bs" "$comp" "$bs" || continue
		rm -f "$WORK/$comp-$bs.sqfs"
	done

	# the thread count never shows in the image
	t2s "$WORK/j1.sqfs" -q -c "$comp" -b 16384 -j 1 <"$TAR"
	t2s "$WORK/j2.sqfs" -q -c "$comp" -b 16384 -j 2 -Q 1 <"$TAR"
	t2s "$WORK/j3.sqfs" -q -c "$comp" -b 16384 -j 3 -Q 50 <"$TAR"
	check "$comp: -j 1 and -j 2 -Q 1 give identical images" \
		cmp "$WORK/j1.sqfs" "$WORK/j2.sqfs"
	check "$comp: -j 1 and -j 3 -Q 50 give identical images" \
		cmp "$WORK/j1.sqfs" "$WORK/j3.sqfs"
	rm -f "$WORK"/j?.sqfs
done

# every block size from 4 KiB to 1 MiB, with the default compressor
READERS="pf mount"
bs=4096
while [ "$bs" -le 1048576 ]; do
	case $bs in 4096 | 131072 | 1048576) ;; *)
		t2s "$WORK/bs.sqfs" -q -b "$bs" <"$TAR"
		if [ "$RC" = 0 ]; then
			expect_eq "-b $bs: unsquashfs -s: block size" \
				"$(sb_field "$WORK/bs.sqfs" 'Block size')" "$bs"
			check_image "bs-$bs" "$WORK/bs.sqfs" "$TAR"
		else
			fail "-b $bs: exit status $RC: $(cat "$WORK/t2s.err")"
		fi
		rm -f "$WORK/bs.sqfs"
		;;
	esac
	bs=$((bs * 2))
done

# sizes with suffixes
t2s "$WORK/k.sqfs" -q -b 64K <"$TAR"
expect_eq "-b 64K" "$(sb_field "$WORK/k.sqfs" 'Block size')" 65536
t2s "$WORK/m.sqfs" -q -b 1M <"$TAR"
expect_eq "-b 1M" "$(sb_field "$WORK/m.sqfs" 'Block size')" 1048576

# bad block sizes: refused, no image
for bs in 2048 3000 2M 0 abc; do
	rm -f "$WORK/bad.sqfs"
	t2s "$WORK/bad.sqfs" -q -b "$bs" <"$TAR"
	expect_eq "-b $bs is refused" "$RC" 1
	new_feature "a failed run leaves no file"
	check "-b $bs leaves no file" test ! -e "$WORK/bad.sqfs"
	end_feature
done

# -X: the options land in the compressor options block (unsquashfs -s)
# show_opts IMAGE: the option lines of `unsquashfs -s`, tabs removed
show_opts() {
	"$UNSQUASHFS" -s "$1" | sed -n '/^Compression /,/^Block size/p' |
		sed '1d;$d;s/^\t//' | tr '\n' ';'
}

# x_case COMP OPTS EXPECTED_OPTION_LINES
x_case() {
	local comp=$1 xopts=$2 want=$3 name
	case " $COMPRESSORS " in *" $comp "*) ;; *) return ;; esac
	READERS="pf"
	name="$comp-X-$(echo "$xopts" | tr ',=%' '___')"
	pack_check "$name" "$comp" 131072 -X "$xopts" || return
	expect_eq "$name: unsquashfs -s shows the options" \
		"$(show_opts "$WORK/$name.sqfs")" "$want"
	rm -f "$WORK/$name.sqfs"
}

x_case gzip level=1,window=10 \
	"compression-level 1;window-size 10;Strategies selected: default;"
gz_defaults="compression-level 9;window-size 15;"
x_case gzip filtered,huffman \
	"${gz_defaults}Strategies selected: filtered, huffman_only;"
x_case xz dictsize=64K,x86,arm \
	"Dictionary size 65536;Filters selected: x86, arm;"
new_feature "xz dictsize=N% (1.2 rejects the documented suffix)"
x_case xz dictsize=50% "Dictionary size 65536;No filters specified;"
end_feature
x_case lz4 hc "High Compression option specified (-Xhc);"
x_case zstd level=3 "compression-level 3;"
x_case lzo level=3 "algorithm lzo1x_999;compression level 3;"
new_feature "lzo1x_1 (Debian's build of 1.2 refuses it)"
x_case lzo algorithm=lzo1x_1 "algorithm lzo1x_1;"
end_feature
# default settings write no options (lz4 always has its version block,
# which unsquashfs does not print)
for comp in $COMPRESSORS; do
	t2s "$WORK/d.sqfs" -q -c "$comp" <"$TAR"
	expect_eq "$comp with default options: no options shown" \
		"$(show_opts "$WORK/d.sqfs")" ""
done

# -X help lists the options and exits 0; a bad option is refused
for comp in $COMPRESSORS; do
	t2s "$WORK/help.sqfs" -c "$comp" -X help <"$TAR"
	expect_eq "$comp: -X help exit status" "$RC" 0
	check "$comp: -X help prints something" \
		test -s "$WORK/t2s.out" -o -s "$WORK/t2s.err"
	check "$comp: -X help makes no image" test ! -e "$WORK/help.sqfs"
done
for spec in "gzip level=10" "gzip window=7" "xz dictsize=3000" \
	"xz lc=4,lp=1" "zstd level=23" "lzo level=10" "gzip nonsense"; do
	# shellcheck disable=SC2086
	set -- $spec
	case " $COMPRESSORS " in *" $1 "*) ;; *) continue ;; esac
	rm -f "$WORK/bad.sqfs"
	t2s "$WORK/bad.sqfs" -q -c "$1" -X "$2" <"$TAR"
	expect_eq "-c $1 -X $2 is refused" "$RC" 1
	new_feature "a failed run leaves no file"
	check "-c $1 -X $2 leaves no file" test ! -e "$WORK/bad.sqfs"
	end_feature
done
rm -f "$WORK/bad.sqfs"
t2s "$WORK/bad.sqfs" -q -c nosuch <"$TAR"
expect_eq "-c nosuch is refused" "$RC" 1
new_feature "a failed run leaves no file"
check "-c nosuch leaves no file" test ! -e "$WORK/bad.sqfs"
end_feature

finish
