#!/bin/sh
# SPDX-License-Identifier: MIT
# Each tar2sqfs option of doc/tar2sqfs.1, its effect checked with an independent
# reader (unsquashfs -s / -pf, rdsquashfs, the kernel). -c, -X, -b, -j and
# -Q are covered by compressors.sh, the skip rules by bad_archives.sh.
. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

TAR=$(gen opts)
IMPL=$(gen implicit)
READERS="pf mount"
D0=mode=0755,uid=0,gid=0,mtime=0 # the defaults of -d

# packed NAME [OPTIONS...] < ARCHIVE: pack into $WORK/NAME.sqfs; a non-zero
# exit status is a failure. Returns the status.
packed() {
	local name=$1
	shift
	rm -f "$WORK/$name.sqfs"
	t2s "$WORK/$name.sqfs" "$@"
	if [ "$RC" != 0 ]; then
		fail "$name: tar2sqfs $* exit status $RC: $(cat "$WORK/t2s.err")"
		return 1
	fi
	return 0
}

# pf_line IMAGE PATH: the `unsquashfs -pf` line of PATH (without the name)
pf_line() {
	"$UNSQUASHFS" -pf "$WORK/pf" "$1" >/dev/null 2>&1
	awk -v p="$2" '$1 == p { $1 = ""; sub(/^ /, ""); print; exit }' \
		"$WORK/pf"
}

# -- the reference: default options ----------------------------------------
packed ref -q <"$TAR" &&
	check_image ref "$WORK/ref.sqfs" "$TAR" --implicit "$D0"

# -- -B / --dev-block-size --------------------------------------------------
bytes_used=$(sb_field "$WORK/ref.sqfs" 'Filesystem size')
size=$(file_size "$WORK/ref.sqfs")
expect_eq "-B default: image size is a multiple of 4096" $((size % 4096)) 0
for B in 1024 8192 65536 1M; do
	packed "B$B" -q -B "$B" <"$TAR" || continue
	size=$(file_size "$WORK/B$B.sqfs")
	mult=$B
	[ "$B" = 1M ] && mult=1048576
	expect_eq "-B $B: image size is a multiple of $mult" \
		$((size % mult)) 0
	expect_eq "-B $B: bytes_used unchanged (padding only)" \
		"$(sb_field "$WORK/B$B.sqfs" 'Filesystem size')" "$bytes_used"
	check "-B $B: less than one device block of padding" \
		test $((size - bytes_used)) -lt "$mult"
done
check_image B65536 "$WORK/B65536.sqfs" "$TAR" --implicit "$D0"
for B in 1000 512 0; do
	rm -f "$WORK/bad.sqfs"
	t2s "$WORK/bad.sqfs" -q -B "$B" <"$TAR"
	expect_eq "-B $B is refused" "$RC" 1
	new_feature "a failed run leaves no file"
	check "-B $B leaves no file" test ! -e "$WORK/bad.sqfs"
	end_feature
done

# -- -d / --defaults --------------------------------------------------------
packed impl_default -q <"$IMPL" &&
	check_image impl_default "$WORK/impl_default.sqfs" "$IMPL" \
		--implicit "$D0"
expect_eq "-d default: implicit directory a/b" \
	"$(pf_line "$WORK/impl_default.sqfs" a/b)" "D 0 755 0 0"
D1=uid=7,gid=8,mode=0700,mtime=1234567
packed impl_d -q -d "$D1" <"$IMPL" &&
	check_image impl_d "$WORK/impl_d.sqfs" "$IMPL" --implicit "$D1"
expect_eq "-d $D1: implicit directory a/b" \
	"$(pf_line "$WORK/impl_d.sqfs" a/b)" "D 1234567 700 7 8"
expect_eq "-d $D1: the root (no entry in the archive)" \
	"$(pf_line "$WORK/impl_d.sqfs" /)" "D 1234567 700 7 8"
expect_eq "-d $D1: an explicit directory keeps its attributes" \
	"$(pf_line "$WORK/impl_d.sqfs" x/y)" "D 1600000001 700 9 0"
packed impl_d2 -q --defaults mode=0750,uid=3 <"$IMPL"
expect_eq "--defaults, some keys only" \
	"$(pf_line "$WORK/impl_d2.sqfs" a)" "D 0 750 3 0"
for d in foo=1 mode=99999 uid=-1 uid=x mtime=; do
	t2s "$WORK/bad.sqfs" -q -d "$d" <"$IMPL"
	expect_eq "-d $d is refused" "$RC" 1
done

# -- SOURCE_DATE_EPOCH ------------------------------------------------------
SOURCE_DATE_EPOCH=1111111111
export SOURCE_DATE_EPOCH
packed sde -q <"$IMPL" &&
	check_image sde "$WORK/sde.sqfs" "$IMPL" \
		--implicit mode=0755,uid=0,gid=0,mtime=1111111111
expect_eq "SOURCE_DATE_EPOCH: implicit directory mtime" \
	"$(pf_line "$WORK/sde.sqfs" a)" "D 1111111111 755 0 0"
expect_eq "SOURCE_DATE_EPOCH: superblock time" \
	"$("$UNSQUASHFS" -mkfs-time "$WORK/sde.sqfs")" 1111111111
expect_eq "SOURCE_DATE_EPOCH: archive times are not clamped" \
	"$(pf_line "$WORK/sde.sqfs" a/b/c/file | cut -d' ' -f2)" 1600000000
packed sde_k -q -k <"$TAR" &&
	check_image sde_k "$WORK/sde_k.sqfs" "$TAR" --tar-mtime 1111111111 \
		--implicit mode=0755,uid=0,gid=0,mtime=1111111111
for bad in abc -5 4294967296 12x; do
	SOURCE_DATE_EPOCH=$bad
	rm -f "$WORK/sde_bad.sqfs"
	t2s "$WORK/sde_bad.sqfs" -q <"$IMPL"
	expect_eq "SOURCE_DATE_EPOCH=$bad: still packs" "$RC" 0
	new_feature "a warning and 0 for a bad SOURCE_DATE_EPOCH"
	check "SOURCE_DATE_EPOCH=$bad: a warning" test -s "$WORK/t2s.err"
	expect_eq "SOURCE_DATE_EPOCH=$bad: 0 is used" \
		"$(pf_line "$WORK/sde_bad.sqfs" a | cut -d' ' -f2)" 0
	end_feature
done
unset SOURCE_DATE_EPOCH
expect_eq "no SOURCE_DATE_EPOCH: superblock time 0" \
	"$("$UNSQUASHFS" -mkfs-time "$WORK/ref.sqfs")" 0

# -- -e / --exportable ------------------------------------------------------
packed export -q -e <"$TAR" && check_image export "$WORK/export.sqfs" \
	"$TAR" --implicit "$D0"
check "-e: unsquashfs -s: exportable" \
	grep -q '^Filesystem is exportable via NFS' \
	"$WORK/chk-export/super"
check "default: unsquashfs -s: not exportable" \
	grep -q '^Filesystem is not exportable via NFS' "$WORK/chk-ref/super"
packed export_long -q --exportable <"$TAR"
check "--exportable = -e" cmp "$WORK/export.sqfs" "$WORK/export_long.sqfs"

# -- -T / --no-tail-packing -------------------------------------------------
frag() { "$RDSQUASHFS" -s "$2" "$1" | sed -n 's/^Fragment index: //p'; }
packed notail -q -T <"$TAR" && check_image notail "$WORK/notail.sqfs" \
	"$TAR" --implicit "$D0"
expect_eq "-T: a file over a block has no fragment" \
	"$(frag "$WORK/notail.sqfs" /top/big)" 0xFFFFFFFF
check "default: a file over a block has its tail in a fragment" \
	test "$(frag "$WORK/ref.sqfs" /top/big)" != 0xFFFFFFFF
check "-T: a file under a block is still a fragment" \
	test "$(frag "$WORK/notail.sqfs" /top/a)" != 0xFFFFFFFF
packed notail_long -q --no-tail-packing <"$TAR"
check "--no-tail-packing = -T" \
	cmp "$WORK/notail.sqfs" "$WORK/notail_long.sqfs"

# -- -P / --no-probe --------------------------------------------------------
# Random data: the probe stores it raw without the compressor, which would
# have given up on it anyway, so the image is the same bytes either way;
# text still goes through the compressor (smaller than raw either way).
"$PYTHON" -c "import os, sys; sys.stdout.buffer.write(os.urandom(600000))" \
	>"$WORK/probe-src.bin"
mkdir -p "$WORK/probe-src"
cp "$WORK/probe-src.bin" "$WORK/probe-src/random"
seq 1 60000 >"$WORK/probe-src/text"
"$GNUTAR" --format=gnu -cf "$WORK/probe.tar" -C "$WORK/probe-src" .
packed probe -q -c zstd <"$WORK/probe.tar"
packed noprobe -q -c zstd -P <"$WORK/probe.tar"
check "-P: the same image as with the probe, for random data and text" \
	cmp "$WORK/probe.sqfs" "$WORK/noprobe.sqfs"
packed noprobe_long -q -c zstd --no-probe <"$WORK/probe.tar"
check "--no-probe = -P" cmp "$WORK/noprobe.sqfs" "$WORK/noprobe_long.sqfs"
check_image probe "$WORK/probe.sqfs" "$WORK/probe.tar" --implicit "$D0"

# -- -f / --force -----------------------------------------------------------
echo "not an image" >"$WORK/existing.sqfs"
old=$(sum_of "$WORK/existing.sqfs")
t2s "$WORK/existing.sqfs" -q <"$TAR"
expect_eq "existing output without -f: exit status" "$RC" 1
expect_eq "existing output without -f: file untouched" \
	"$(sum_of "$WORK/existing.sqfs")" "$old"
check "existing output without -f: a message" test -s "$WORK/t2s.err"
t2s "$WORK/existing.sqfs" -q -f <"$TAR"
expect_eq "-f: exit status" "$RC" 0
check "-f: the file is replaced by the image" \
	cmp "$WORK/existing.sqfs" "$WORK/ref.sqfs"
echo "not an image" >"$WORK/existing.sqfs"
dd if=/dev/zero bs=1M count=3 >>"$WORK/existing.sqfs" 2>/dev/null
t2s "$WORK/existing.sqfs" -q --force <"$TAR"
check "--force on a larger file: the same image, no stale tail" \
	cmp "$WORK/existing.sqfs" "$WORK/ref.sqfs"

# -- -q / --quiet -----------------------------------------------------------
t2s "$WORK/q.sqfs" -q <"$TAR"
check "-q: nothing on stdout" test ! -s "$WORK/t2s.out"
check "-q: nothing on stderr" test ! -s "$WORK/t2s.err"
t2s "$WORK/q2.sqfs" --quiet <"$TAR"
check "--quiet: nothing on stdout or stderr" \
	test ! -s "$WORK/t2s.out" -a ! -s "$WORK/t2s.err"
t2s "$WORK/v.sqfs" <"$TAR"
check "without -q: statistics are printed" \
	test -s "$WORK/t2s.out" -o -s "$WORK/t2s.err"
check "output with or without -q is the same image" \
	cmp "$WORK/q.sqfs" "$WORK/v.sqfs"

# -- -r / --root-becomes, -S / --no-symlink-retarget ------------------------
packed root -q -r top <"$TAR" &&
	check_image root "$WORK/root.sqfs" "$TAR" --tar-root top
expect_eq "-r top: the root takes top's attributes" \
	"$(pf_line "$WORK/root.sqfs" /)" "D 1600000001 711 10 20"
expect_eq "-r top: /top/a is retargeted to /a" \
	"$(pf_line "$WORK/root.sqfs" l_abs)" "S 1600000010 777 0 0 /a"
expect_eq "-r top: top/sub is retargeted to /sub" \
	"$(pf_line "$WORK/root.sqfs" l_pref)" "S 1600000011 777 0 0 /sub"
expect_eq "-r top: /topx/a is left alone" \
	"$(pf_line "$WORK/root.sqfs" l_out)" "S 1600000012 777 0 0 /topx/a"
expect_eq "-r top: the hard link is rewritten" \
	"$(pf_line "$WORK/root.sqfs" h)" "L a"
packed root_S -q --root-becomes top -S <"$TAR" &&
	check_image root_S "$WORK/root_S.sqfs" "$TAR" --tar-root top \
		--no-retarget
expect_eq "-r top -S: /top/a is left alone" \
	"$(pf_line "$WORK/root_S.sqfs" l_abs)" "S 1600000010 777 0 0 /top/a"
expect_eq "-r top -S: the hard link is still rewritten" \
	"$(pf_line "$WORK/root_S.sqfs" h)" "L a"
packed root_S2 -q -r top --no-symlink-retarget <"$TAR"
check "--no-symlink-retarget = -S" \
	cmp "$WORK/root_S.sqfs" "$WORK/root_S2.sqfs"
packed root_deep -q -r top/sub <"$TAR" &&
	check_image root_deep "$WORK/root_deep.sqfs" "$TAR" --tar-root top/sub
packed root_slash -q -r ./top/ <"$TAR"
check "-r ./top/ = -r top" cmp "$WORK/root.sqfs" "$WORK/root_slash.sqfs"

# -- -x / --no-xattr --------------------------------------------------------
packed noxattr -q -x <"$TAR" && check_image noxattr "$WORK/noxattr.sqfs" \
	"$TAR" --tar-no-xattrs --implicit "$D0"
check "-x: unsquashfs -s: no xattrs stored" \
	grep -q '^Xattrs are not stored' "$WORK/chk-noxattr/super"
expect_eq "-x: rdsquashfs -x /top/a lists nothing" \
	"$("$RDSQUASHFS" -x /top/a "$WORK/noxattr.sqfs" 2>&1)" ""
expect_eq "default: rdsquashfs -x /top/a" \
	"$("$RDSQUASHFS" -x /top/a "$WORK/ref.sqfs" 2>&1 | sort | tr '\n' ' ')" \
	"trusted.a=2 user.a=1 "
packed noxattr2 -q --no-xattr <"$TAR"
check "--no-xattr = -x" cmp "$WORK/noxattr.sqfs" "$WORK/noxattr2.sqfs"

# -- -k / --no-keep-time ----------------------------------------------------
packed notime -q -k <"$TAR" && check_image notime "$WORK/notime.sqfs" \
	"$TAR" --tar-mtime 0 --implicit "$D0"
"$UNSQUASHFS" -pf "$WORK/pf" "$WORK/notime.sqfs" >/dev/null 2>&1
expect_eq "-k: every mtime is 0" \
	"$(sed '/^#/,$d' "$WORK/pf" | awk '$2 != "L" { print $3 }' |
		sort -u | tr '\n' ' ')" "0 "
packed notime2 -q --no-keep-time <"$TAR"
check "--no-keep-time = -k" cmp "$WORK/notime.sqfs" "$WORK/notime2.sqfs"

# -- -E / --exclude / --exclude-dir (fnmatch, '/' not special) --------------
new_feature "--exclude (squashfs-tools-ng 1.3)"
packed excl -q -E '*.log' --exclude 'boot/*' <"$TAR" &&
	check_image excl "$WORK/excl.sqfs" "$TAR" --implicit "$D0" \
		--tar-exclude '*.log' --tar-exclude 'boot/*'
expect_eq "-E '*.log': top/sub/keep/x.log is gone ('/' not special)" \
	"$(pf_line "$WORK/excl.sqfs" top/sub/keep/x.log)" ""
expect_eq "--exclude 'boot/*': boot stays" \
	"$(pf_line "$WORK/excl.sqfs" boot | cut -d' ' -f1)" D
expect_eq "--exclude 'boot/*': boot/grub/cfg is gone" \
	"$(pf_line "$WORK/excl.sqfs" boot/grub/cfg)" ""
packed excl2 -q --exclude-dir '*.log' -E 'boot/*' <"$TAR"
check "--exclude-dir = --exclude" cmp "$WORK/excl.sqfs" "$WORK/excl2.sqfs"
end_feature

# -- -i / --input (new) -----------------------------------------------------
new_feature "-i/--input"
packed input -q -i "$TAR" </dev/null
check "-i FILE: the same image as from stdin" \
	cmp "$WORK/input.sqfs" "$WORK/ref.sqfs"
packed input2 -q --input "$TAR" </dev/null
check "--input FILE: the same image" cmp "$WORK/input2.sqfs" "$WORK/ref.sqfs"
rm -f "$WORK/bad.sqfs"
t2s "$WORK/bad.sqfs" -q -i "$WORK/no_such.tar" </dev/null
expect_eq "-i missing file: exit status" "$RC" 1
check "-i missing file: a message naming it" \
	grep -q no_such.tar "$WORK/t2s.err"
check "-i missing file: no image" test ! -e "$WORK/bad.sqfs"
end_feature

# -- -u / -g / --all-root (new) ---------------------------------------------
new_feature "-u/-g/--all-root"
packed uid -q -u 4242 <"$TAR" && check_image uid "$WORK/uid.sqfs" \
	"$TAR" --tar-uid 4242 --implicit uid=4242,gid=0,mtime=0,mode=0755
packed gid -q --set-gid 77 <"$TAR" && check_image gid "$WORK/gid.sqfs" \
	"$TAR" --tar-gid 77 --implicit gid=77,uid=0,mtime=0,mode=0755
packed ug -q --set-uid 1 -g 2 <"$TAR" && check_image ug "$WORK/ug.sqfs" \
	"$TAR" --tar-uid 1 --tar-gid 2 --implicit uid=1,gid=2,mtime=0,mode=0755
packed allroot -q --all-root <"$TAR" && check_image allroot \
	"$WORK/allroot.sqfs" "$TAR" --tar-uid 0 --tar-gid 0 --implicit "$D0"
expect_eq "--all-root: one id in the table" \
	"$(sb_field "$WORK/allroot.sqfs" 'Number of ids')" 1
end_feature

# -- compressed input -------------------------------------------------------
for z in gzip xz zstd bzip2 lz4; do
	[ -x "/usr/bin/$z" ] || {
		echo "note: /usr/bin/$z missing: $z input untested"
		continue
	}
	case $z in bzip2 | lz4) new_feature "$z input" ;; esac
	"/usr/bin/$z" -c <"$TAR" >"$WORK/in.$z"
	packed "z$z" -q <"$WORK/in.$z" &&
		check "$z-compressed input: the same image" \
			cmp "$WORK/z$z.sqfs" "$WORK/ref.sqfs"
	end_feature
done

# -- --help, --version, usage errors ----------------------------------------
for h in --help -h; do
	t2s "$WORK/help.sqfs" "$h" </dev/null
	expect_eq "$h: exit status" "$RC" 0
	check "$h: no image" test ! -e "$WORK/help.sqfs"
done
"$TAR2SQFS" --help >"$WORK/help.txt" 2>&1
for o in --root-becomes --no-symlink-retarget --no-skip --no-xattr \
	--no-keep-time --compressor --comp-extra --num-jobs --queue-backlog \
	--block-size --dev-block-size --defaults --exportable \
	--no-tail-packing --no-probe --force --quiet --help --version \
	--exclude --input --set-uid --set-gid --all-root; do
	case $o in
	--exclude | --input | --set-uid | --set-gid | --all-root)
		new_feature "$o" ;;
	esac
	check "--help mentions $o" grep -q -e "$o" "$WORK/help.txt"
	end_feature
done
for v in --version -V; do
	"$TAR2SQFS" "$v" >"$WORK/version.txt" 2>&1
	expect_eq "$v: exit status" "$?" 0
	check "$v: prints a version" grep -q '[0-9]\.[0-9]' "$WORK/version.txt"
done
"$TAR2SQFS" -q <"$TAR" >/dev/null 2>"$WORK/usage.err"
expect_eq "no SQFSFILE: exit status" "$?" 1
check "no SQFSFILE: a message" test -s "$WORK/usage.err"
t2s "$WORK/bad.sqfs" -q --no-such-option <"$TAR"
expect_eq "unknown option: exit status" "$RC" 1
"$TAR2SQFS" -q "$WORK/one.sqfs" "$WORK/two.sqfs" <"$TAR" >/dev/null 2>&1
expect_eq "two SQFSFILEs: exit status" "$?" 1

finish
