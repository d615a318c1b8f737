#!/bin/sh
# SPDX-License-Identifier: MIT
# The sqfstar personality, and mksquashfs - DEST -tar, against
# squashfs-tools 4.7.5 (lib_ref.sh): the same archive (gen_tar.py: GNU,
# PAX, ustar and v7 formats, every entry type, hard links, long and odd
# names, sparse files, xattrs, big ids; plus owner names) fed to both with
# the command lines of build systems. For each: the same exit status; the
# two images mounted by the kernel and compared entry by entry; `unsquashfs
# -s` of both the same but for sizes, times and counts. Then bad input
# (not a tar, truncated, unknown option, bad values): the same exit class,
# no image, an existing one untouched; and the same bytes at any
# -processors. SQFSTAR=/path and MK=/path override the tools under test.

. "$(dirname "$0")/lib.sh"
. "$HERE/lib_ref.sh"

ST=${SQFSTAR:-$abs_top_builddir/sqfstar}
MK=${MK:-$abs_top_builddir/mksquashfs}
[ -x "$ST" ] || hard_error "no tool to test at $ST (set SQFSTAR)"

# Times: the root and the implied directories get the time of the run;
# SOURCE_DATE_EPOCH makes it the same for both tools.
SOURCE_DATE_EPOCH=1700000000
export SOURCE_DATE_EPOCH

# run WHICH OUT ARCHIVE OPTIONS...: one tool's run, with the excludes of
# $EXCL; status in RC, output in OUT.out and OUT.err. WHICH: ref or ours
# (sqfstar), mkref or mkours (mksquashfs - OUT -tar).
run() {
	local which=$1 out=$2 in=$3
	shift 3
	case $which in
	ref) set -- "$REF_BIN/sqfstar" "$@" "$out" ;;
	ours) set -- "$ST" "$@" "$out" ;;
	mkref) set -- "$REF_BIN/mksquashfs" - "$out" -tar "$@" ;;
	mkours) set -- "$MK" - "$out" -tar "$@" ;;
	esac
	# the excludes go after FILESYSTEM (sqfstar) or -e
	# shellcheck disable=SC2086
	if [ -n "$EXCL" ]; then
		case $which in
		ref | ours) set -- "$@" $EXCL ;;
		*) set -- "$@" -e $EXCL ;;
		esac
	fi
	"$@" <"$in" >"$out.out" 2>"$out.err"
	RC=$?
	if grep -q 'Sanitizer\|runtime error' "$out.err"; then
		fail "$(basename "$out"): sanitizer report"
		head -20 "$out.err"
	fi
}

# What `unsquashfs -s` says that must agree: kinds and flags. Not the
# xattr line: where an archive has no xattrs, 4.7.5 writes an empty
# xattr table and we write none.
sflags() {
	"$REF_BIN/unsquashfs" -s "$1" 2>&1 |
		grep -v 'size\|time\|Number of\|Found a valid\|bytes\|^Xattrs'
}

same_tree() {
	local name=$1 r=$2 o=$3
	if can_mount; then
		mount_image "$r" "$WORK/mr" || { fail "$name: ref image does not mount"; return; }
		if mount_image "$o" "$WORK/mo"; then
			check "$name: mounted trees equal" \
				cmp_tree "dir:$WORK/mr" "dir:$WORK/mo"
			umount_image "$WORK/mo"
		else
			fail "$name: our image does not mount"
		fi
		umount_image "$WORK/mr"
	else
		"$REF_BIN/unsquashfs" -pf "$WORK/r.pf" "$r" >/dev/null 2>&1
		"$REF_BIN/unsquashfs" -pf "$WORK/o.pf" "$o" >/dev/null 2>&1
		check "$name: pseudo listings equal" \
			cmp_tree "pf:$WORK/r.pf" "pf:$WORK/o.pf"
	fi
}

# both NAME ARCHIVE OPTIONS...: both sqfstars (or with MKTAR=1 both
# mksquashfs -tar), the same exit status, and when both succeed the same
# tree and flags.
MKTAR=
EXCL=
both() {
	local name=$1 in=$2 d=$WORK/inv/$1 rref r=ref o=ours
	shift 2
	[ -n "$MKTAR" ] && r=mkref o=mkours
	mkdir -p "$d"
	run $r "$d/ref.img" "$in" "$@"
	rref=$RC
	run $o "$d/our.img" "$in" "$@"
	expect_eq "$name: exit status" "$RC" "$rref"
	if [ "$RC" != 0 ] || [ "$rref" != 0 ]; then
		head -5 "$d/our.img.err" "$d/ref.img.err"
		return
	fi
	same_tree "$name" "$d/ref.img" "$d/our.img"
	expect_eq "$name: unsquashfs -s flags" "$(sflags "$d/our.img")" \
		"$(sflags "$d/ref.img")"
}

# ---------------------------------------------------------- archives
# every format and entry type gen_tar.py makes
# (not xattrs_libarchive: libarchive decodes the %3D of LIBARCHIVE.xattr
# keys, 4.7.5 keeps it)
for c in types numbers long_gnu long_pax long_ustar hardlinks \
	hardlink_forward xattrs names implicit duplicates sparse_gnu \
	sparse_1.0 fmt_v7 fmt_oldgnu fmt_posix empty; do
	both "case-$c" "$(gen "$c")" -no-progress -quiet
done

# owner names: mapped to this system's ids unless -numeric-owner
"$PYTHON" - "$WORK/names.tar" <<'EOF'
import io, sys, tarfile
with tarfile.open(sys.argv[1], "w", format=tarfile.GNU_FORMAT) as tf:
    for n, uid, un, gid, gn in [("a", 4444, "daemon", 5555, "daemon"),
                                ("b", 4444, "nosuchuser", 5555, "nosuchgroup"),
                                ("c", 7, "", 8, "")]:
        ti = tarfile.TarInfo(n)
        ti.size, ti.uid, ti.uname, ti.gid, ti.gname = 1, uid, un, gid, gn
        ti.mtime = 1600000000
        tf.addfile(ti, io.BytesIO(b"x"))
EOF
both owner-names "$WORK/names.tar" -no-progress
both numeric-owner "$WORK/names.tar" -no-progress -numeric-owner
check "owner names: daemon mapped to its uid" sh -c \
	"'$REF_BIN/unsquashfs' -lln '$WORK/inv/owner-names/our.img' a | grep -q ' 1/1 '"

# ---------------------------------------------------------- invocations
MIX=$(gen mix)
TYPES=$(gen types)
both buildroot-xz "$MIX" -comp xz -b 256K -Xbcj x86 -no-progress
both buildroot-zstd "$MIX" -comp zstd -Xcompression-level 19 -b 1M
both lz4 "$MIX" -comp lz4 -Xhc -processors 1
both gzip "$MIX" -comp gzip -Xcompression-level 1 -b 4K
both all-root "$TYPES" -all-root -no-progress
both force-ids "$TYPES" -force-uid 1000 -force-gid 100 -uid-gid-offset 7
both modes "$TYPES" -force-file-mode 0600 -force-dir-mode u=rwx,go=
both defaults "$(gen implicit)" -default-mode 0700 -default-uid 33 \
	-default-gid 44
both root-attrs "$TYPES" -root-mode 0750 -root-uid 5 -root-gid 6
both root-order "$TYPES" -root-uid 5 -default-uid 7 -root-mode 0700 \
	-default-mode 0711
both no-xattrs "$(gen xattrs)" -no-xattrs
both xattrs-exclude "$(gen xattrs)" -xattrs-exclude '^user.b'
both xattrs-add "$TYPES" -xattrs-add 'user.tag=1'
both exports "$MIX" -exports -no-tailends -no-fragments
both no-dup "$MIX" -no-duplicates -no-sparse
both raw "$MIX" -no-compression
both noI "$MIX" -noI -noD
both repro "$MIX" -repro
both inode-times "$MIX" -inode-time 1234567 -mkfs-time 99
unset SOURCE_DATE_EPOCH
both root-time "$MIX" -root-time 5 -inode-time 77 -mkfs-time 1
SOURCE_DATE_EPOCH=1600000000
export SOURCE_DATE_EPOCH
both sde-clamp "$(gen mtimes)" -no-progress
both pseudo "$TYPES" -p 'newdir d 0700 1 2' \
	-p 'newdir/dev c 0600 0 0 5 1' -p 'newdir/link s 0777 0 0 target'
both pseudo-override "$TYPES" -all-root -pseudo-override \
	-p 'pdir d 0700 1 2'
EXCL='m/small ... *o*'
both excludes "$MIX" -no-progress
EXCL='m s[0-9]1$'
both excludes-regex "$MIX" -regex
EXCL=
# 4.7.5's sqfstar refuses every -ef ("-ef missing filename"): ours reads it
printf 'm/small\n# comment\n  m/mib\n' >"$WORK/excludes"
run ours "$WORK/ef.img" "$MIX" -ef "$WORK/excludes"
expect_eq "-ef: status" "$RC" 0
EXCL='m/small m/mib'
run ref "$WORK/ef-ref.img" "$MIX"
EXCL=
same_tree "-ef as the same excludes given" "$WORK/ef-ref.img" "$WORK/ef.img"
cat "$(gen fmt_gnu)" "$MIX" >"$WORK/concat.tar"
both ignore-zeros "$WORK/concat.tar" -ignore-zeros
both concat-first-only "$WORK/concat.tar"

# mksquashfs - DEST -tar
MKTAR=1
both mk-tar "$MIX" -no-progress
both mk-tar-xz "$TYPES" -comp xz -all-root -noappend
both mk-tar-no-exports "$MIX" -no-exports -no-strip
EXCL='m/small'
both mk-tar-excl "$MIX" -wildcards
both mk-tar-excl-plain "$MIX"
EXCL=
MKTAR=

# compressed archives: 4.7.5 reads only plain tar, we read them all
gzip -c "$MIX" >"$WORK/mix.tar.gz"
run ours "$WORK/gz.img" "$WORK/mix.tar.gz"
expect_eq "gzip'd archive read" "$RC" 0
run ours "$WORK/plain.img" "$MIX"
"$REF_BIN/unsquashfs" -lln "$WORK/gz.img" >"$WORK/gz.l" 2>&1
"$REF_BIN/unsquashfs" -lln "$WORK/plain.img" >"$WORK/plain.l" 2>&1
check "gzip'd archive: the same tree" cmp -s "$WORK/gz.l" "$WORK/plain.l"

# ------------------------------------------------------- bad input
bad() {
	local name=$1 in=$2 d=$WORK/bad/$1
	shift 2
	mkdir -p "$d"
	run ref "$d/ref.img" "$in" "$@"
	local rref=$RC
	printf 'keep me' >"$d/our.img"
	run ours "$d/our.img" "$in" -force "$@"
	expect_eq "bad $name: exit status as 4.7.5's" "$RC" "$rref"
	check "bad $name: exit status not 0" test "$RC" != 0
	expect_eq "bad $name: existing file untouched" "$(cat "$d/our.img")" \
		"keep me"
	check "bad $name: says why" test -s "$d/our.img.err"
	check "bad $name: no temporary file left" \
		test "$(ls -A "$d" | grep -c tmp)" = 0
}
bad not-tar "$(gen bad_not_tar)"
bad truncated "$(gen bad_truncated)"
bad checksum "$(gen bad_checksum)"
bad unknown-option "$MIX" -foo
bad mk-only-option "$MIX" -noappend
bad block-size "$MIX" -b 3000
bad compressor "$MIX" -comp bogus
bad x-value "$MIX" -comp zstd -Xcompression-level 99
bad processors "$MIX" -processors 0
EXCL=/abs
bad abs-exclude "$MIX" -regex
EXCL=
bad pseudo-type "$MIX" -p 'x Q 755 0 0'
bad repro-mkfs "$MIX" -repro -mkfs-time 5
SOURCE_DATE_EPOCH=junk
bad sde-junk "$MIX"
SOURCE_DATE_EPOCH=1600000000

# an existing DEST without -force: refused by both, untouched
printf 'keep me' >"$WORK/exists.img"
run ours "$WORK/exists.img" "$MIX"
expect_eq "existing DEST: refused" "$RC" 1
expect_eq "existing DEST: untouched" "$(cat "$WORK/exists.img")" "keep me"
run ref "$WORK/exists.img" "$MIX"
expect_eq "existing DEST: refused by 4.7.5" "$RC" 1
run mkours "$WORK/exists.img" "$MIX"
expect_eq "mksquashfs -tar, existing DEST: refused" "$RC" 1
run mkours "$WORK/nodash.img" "$MIX"
"$MK" "$WORK/nodash.img" -tar <"$MIX" >/dev/null 2>&1
expect_eq "mksquashfs DEST -tar (no -): refused" "$?" 1

# ------------------------------------------------------- -offset
head -c 5000 /dev/urandom >"$WORK/runtime"
cp "$WORK/runtime" "$WORK/off.img"
run ours "$WORK/off.img" "$MIX" -force -offset 5000 -comp zstd
expect_eq "-offset: status" "$RC" 0
check "-offset: the first 5000 bytes kept" cmp -s -n 5000 "$WORK/runtime" \
	"$WORK/off.img"
run ref "$WORK/off-ref.img" "$MIX" -comp zstd
"$REF_BIN/unsquashfs" -o 5000 -lln "$WORK/off.img" >"$WORK/off.l" 2>&1
"$REF_BIN/unsquashfs" -lln "$WORK/off-ref.img" >"$WORK/off-ref.l" 2>&1
check "-offset: unsquashfs -o lists the tree" \
	cmp -s "$WORK/off.l" "$WORK/off-ref.l"

# ------------------------------------------------------- output
run ours "$WORK/info.img" "$MIX" -info
run ref "$WORK/info-ref.img" "$MIX" -info
# (4.7.5 adds DUPLICATE after a file it found again, and lists the files
# a second time, from the root, as it writes them: not compared)
expect_eq "-info: the same file lines" \
	"$(grep '^file [^/]' "$WORK/info.img.out" | sed 's/ bytes.*//')" \
	"$(grep '^file [^/]' "$WORK/info-ref.img.out" | sed 's/ bytes.*//')"
run ours "$WORK/pct.img" "$MIX" -percentage -quiet
check "-percentage: numbers, one a line, ending with 100 and a blank line" \
	sh -c "grep -qvx '[0-9]*' '$WORK/pct.img.out' && exit 1; tail -n 2 '$WORK/pct.img.out' | head -n 1 | grep -qx 100 && tail -n 1 '$WORK/pct.img.out' | grep -qx ''"
run ours "$WORK/q.img" "$MIX" -quiet -no-progress
check "-quiet -no-progress: nothing on stdout" test ! -s "$WORK/q.img.out"
"$ST" -version >"$WORK/version" 2>&1
check "-version: first line sqfstar version 4.7" \
	sh -c "head -n 1 '$WORK/version' | grep -q '^sqfstar version 4\.7 '"

# ------------------------------------------------------- every option
# Each option of 4.7.5's sqfstar -help-all is known (never "invalid
# option"), and the man page names it.
"$REF_BIN/sqfstar" -help-all 2>&1 | grep -E '^-[A-Za-z]' |
	sed 's/\t.*//' >"$WORK/ref-options"
check "4.7.5 -help-all lists options" test "$(wc -l <"$WORK/ref-options")" -gt 80
unknown=
undocumented=
while read -r opt arg; do
	case $opt in -SQFSTAR.md) continue ;; esac
	set -- "$opt"
	[ -n "$arg" ] && set -- "$opt" 1
	# in WORK: an option's argument may name a file to write
	(cd "$WORK" && "$ST" "$@" "$WORK/opt.img") <"$TYPES" \
		>"$WORK/opt.out" 2>&1
	rm -f "$WORK/opt.img"
	grep -q 'is an invalid option' "$WORK/opt.out" &&
		unknown="$unknown $opt"
	roff=$(printf '%s' "$opt" | sed 's/-/\\\\-/g')
	grep -q -- "$roff" "$abs_top_srcdir/doc/squashforge-sqfstar.1" ||
		undocumented="$undocumented $opt"
done <"$WORK/ref-options"
expect_eq "every 4.7.5 sqfstar option known" "$unknown" ""
expect_eq "every 4.7.5 sqfstar option in the man page" "$undocumented" ""

# ------------------------------------------------------- determinism
unset SOURCE_DATE_EPOCH
for j in 1 2 3; do
	run ours "$WORK/j$j.img" "$MIX" -processors $j -repro-time 7 -comp xz
done
check "same bytes at -processors 1 and 2" cmp -s "$WORK/j1.img" "$WORK/j2.img"
check "same bytes at -processors 1 and 3" cmp -s "$WORK/j1.img" "$WORK/j3.img"
cat "$MIX" | "$ST" -processors 2 -repro-time 7 -comp xz -quiet -no-progress \
	"$WORK/pipe.img" >/dev/null 2>&1
check "same bytes from a pipe" cmp -s "$WORK/j1.img" "$WORK/pipe.img"

finish
