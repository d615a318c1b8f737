#!/bin/sh
# SPDX-License-Identifier: MIT
# The mksquashfs personality's pseudo files with data, against
# squashfs-tools 4.7.5 (lib_ref.sh):
#  - R: the pseudo file unsquashfs -pf writes (an image with every entry
#    type, sparse files, hard links, xattrs) packed again with
#    `mksquashfs - OUT -pf FILE` and from a pipe (`-pf -`), as snapd's
#    delta pipeline does; the image, mounted by the kernel, is the
#    original one, and the pseudo file unsquashfs writes of it is the one
#    it wrote of 4.7.5's image, byte for byte;
#  - f and F: commands printing text, binary data, nothing, more than a
#    block; what they run with (directory, environment, standard input);
#    a failing command (an empty file and a warning, as 4.7.5; with
#    -exit-on-error an error);
#  - the source "-": the root from "/ d", required;
#  - bad input (a data section cut short, ranges past its end, no data
#    section, R in -p, an unknown type, no command): the exit status of
#    4.7.5, no image, an existing DEST untouched, the definition named.
# MK=/path overrides the tool under test.

. "$(dirname "$0")/lib.sh"
. "$HERE/lib_rdsquashfs.sh"
. "$HERE/lib_ref.sh"

MK=${MK:-$abs_top_builddir/mksquashfs}
[ -x "$MK" ] || hard_error "no tool to test at $MK (set MK)"
UNSQ=$REF_BIN/unsquashfs

SRC=$WORK/src
make_source "$SRC"
mkdir -p "$SRC/links/x"
printf 'three\n' >"$SRC/links/a"
ln "$SRC/links/a" "$SRC/links/x/b"
find "$SRC" -depth -exec touch -h -d @1600000000 {} +

# run WHICH OUT ARGS...: one tool's run; status in RC, output in OUT.out
# and OUT.err
run() {
	local tool=$1 out=$2
	shift 2
	if [ "$tool" = ref ]; then tool=$REF_BIN/mksquashfs; else tool=$MK; fi
	"$tool" "$@" >"$out.out" 2>"$out.err"
	RC=$?
	if grep -q 'Sanitizer\|runtime error' "$out.err"; then
		fail "$(basename "$out"): sanitizer report"
		head -20 "$out.err"
	fi
}

# same_mounted NAME A B [compare_tree options]: two images as the kernel
# sees them (or, where nothing mounts, as unsquashfs -pf writes them)
same_mounted() {
	local name=$1 a=$2 b=$3
	shift 3
	if can_mount; then
		mount_image "$a" "$WORK/ma" || { fail "$name: $a does not mount"; return; }
		if mount_image "$b" "$WORK/mb"; then
			check "$name: mounted trees equal" \
				cmp_tree "$@" "dir:$WORK/ma" "dir:$WORK/mb"
			umount_image "$WORK/mb"
		else
			fail "$name: $b does not mount"
		fi
		umount_image "$WORK/ma"
	else
		"$UNSQ" -pf "$WORK/a.pf" "$a" >/dev/null 2>&1
		"$UNSQ" -pf "$WORK/b.pf" "$b" >/dev/null 2>&1
		check "$name: pseudo listings equal" \
			cmp_tree "$@" "pf:$WORK/a.pf" "pf:$WORK/b.pf"
	fi
}

# same_pf NAME A B: unsquashfs -pf writes the same bytes for both
same_pf() {
	"$UNSQ" -pf "$WORK/pa.pf" "$2" >/dev/null 2>&1
	"$UNSQ" -pf "$WORK/pb.pf" "$3" >/dev/null 2>&1
	check "$1: unsquashfs -pf output identical" \
		cmp -s "$WORK/pa.pf" "$WORK/pb.pf"
}

# ------------------------------------------------------------ R: files
ORIG=$WORK/orig.img
run ref "$ORIG" "$SRC" "$ORIG" -noappend -no-progress -mkfs-time 7
[ "$RC" = 0 ] || hard_error "4.7.5 cannot pack the source"
"$UNSQ" -pf "$WORK/orig.pf" "$ORIG" >/dev/null 2>&1 ||
	hard_error "unsquashfs -pf failed"
check "the pseudo file has R definitions with data" \
	grep -aq '^# START OF DATA - DO NOT MODIFY$' "$WORK/orig.pf"
check "the pseudo file has a sparse R definition" \
	grep -aq '^sparse_mid R .* 1$' "$WORK/orig.pf"

for how in file pipe redirect; do
	for tool in ref ours; do
		out=$WORK/r-$how-$tool.img
		case $how in
		file) run $tool "$out" - "$out" -pf "$WORK/orig.pf" \
			-noappend -no-progress -mkfs-time 7 ;;
		pipe) cat "$WORK/orig.pf" | run $tool "$out" - "$out" \
			-pf - -noappend -no-progress -mkfs-time 7 ;;
		redirect) run $tool "$out" - "$out" -pf - -noappend \
			-no-progress -mkfs-time 7 <"$WORK/orig.pf" ;;
		esac
		eval "rc_$tool=\$RC"
	done
	expect_eq "R from a $how: exit status" "$rc_ours" "$rc_ref"
	if [ "$rc_ours" = 0 ]; then
		same_mounted "R from a $how: the original" "$ORIG" \
			"$WORK/r-$how-ours.img"
		same_pf "R from a $how: as 4.7.5's" "$WORK/r-$how-ref.img" \
			"$WORK/r-$how-ours.img"
	fi
done

# ------------------------------------------------ snapd's delta pipeline
# unsquashfs -pf - SNAP | (a delta applied) | mksquashfs - OUT -pf -
# -noappend -quiet -comp xz: the middle here is a filter that changes
# nothing, as an empty delta does
if "$MK" -help-all 2>&1 | grep -q xz && "$REF_BIN/mksquashfs" -help-all 2>&1 | grep -q xz; then
	"$UNSQ" -pf - "$ORIG" 2>/dev/null | cat |
		"$MK" - "$WORK/snap-ours.img" -pf - -noappend -quiet -comp xz \
			>"$WORK/snap.out" 2>"$WORK/snap.err"
	expect_eq "snapd pipeline: exit status" "$?" 0
	"$UNSQ" -pf - "$ORIG" 2>/dev/null | cat |
		"$REF_BIN/mksquashfs" - "$WORK/snap-ref.img" -pf - -noappend \
			-quiet -comp xz >"$WORK/snap-ref.out" 2>"$WORK/snap-ref.err"
	# -quiet leaves the progress bar alone, in 4.7.5 too (its block
	# count is not ours: the bar's shape is compared)
	bar_shape() { tr '\r' '\n' <"$1" | sed -n 's/^\[=*[-|/\\]\] [0-9]*\/[0-9]* *\([0-9]*%\)$/bar \1/p' | tail -n 1; }
	expect_eq "snapd pipeline: prints what 4.7.5 prints" \
		"$(bar_shape "$WORK/snap.out"; cat "$WORK/snap.err")" \
		"$(bar_shape "$WORK/snap-ref.out"; cat "$WORK/snap-ref.err")"
	same_mounted "snapd pipeline" "$ORIG" "$WORK/snap-ours.img"
	same_pf "snapd pipeline: as 4.7.5's" "$WORK/snap-ref.img" \
		"$WORK/snap-ours.img"
	check "snapd pipeline: xz" sh -c "'$UNSQ' -s '$WORK/snap-ours.img' |
		grep -q 'Compression xz'"
else
	echo "note: no xz in one of the tools; snapd pipeline skipped"
fi

# offsets in any order, a gap, a shared range, data left over, an empty
# file with an offset past the end (4.7.5 takes them all from a file)
pf=$WORK/order.pf
printf '/ D 5 755 0 0\na R 6 644 0 0 5 5 0\nb R 6 644 0 0 5 0 0\nc R 6 600 1 2 3 7 0\nd R 6 644 0 0 4 1 0\ne R 6 644 0 0 0 99 0\nd2 L d\n#\n# START OF DATA - DO NOT MODIFY\n#\nhelloworld-and-more' >"$pf"
for tool in ref ours; do
	run $tool "$WORK/order-$tool.img" - "$WORK/order-$tool.img" -pf "$pf" \
		-noappend -no-progress -mkfs-time 7
	eval "rc_$tool=\$RC"
done
expect_eq "R offsets in any order: exit status" "$rc_ours" "$rc_ref"
same_pf "R offsets in any order" "$WORK/order-ref.img" "$WORK/order-ours.img"
cat "$pf" | run ours "$WORK/order-pipe.img" - "$WORK/order-pipe.img" \
	-pf - -noappend -no-progress -mkfs-time 7
expect_eq "R offsets in any order, from a pipe: exit status" "$RC" 0
same_pf "R offsets in any order, from a pipe" "$WORK/order-ref.img" \
	"$WORK/order-pipe.img"

# --------------------------------------------------------- f and F
BIN=$WORK/bin.dat
head -c 300000 /dev/urandom >"$BIN"
mkdir -p "$WORK/cwd"
echo "in cwd" >"$WORK/cwd/here"
FDEFS=$WORK/f.pf
cat >"$FDEFS" <<EOF
/ D 9 755 0 0
text F 11 644 0 0 echo hello; printf 'two\\nlines\\n'
bin F 12 600 3 4 cat '$BIN'
none F 13 644 0 0 true
big F 14 644 0 0 seq 1 200000
cwd F 15 644 0 0 cat here
env F 16 644 0 0 echo "\$PSEUDO_TEST_VAR"
stdin F 17 644 0 0 cat
dir D 19 700 0 0
dir/fil F 18 755 0 0 printf 'x%.0s' \$(seq 1 5000)
EOF
for tool in ref ours; do
	(
		cd "$WORK/cwd" || exit 99
		export PSEUDO_TEST_VAR=from-env
		run $tool "$WORK/f-$tool.img" - "$WORK/f-$tool.img" \
			-pf "$FDEFS" -noappend -no-progress -mkfs-time 7 </dev/null
		exit "$RC"
	)
	eval "rc_$tool=\$?"
done
expect_eq "f/F: exit status" "$rc_ours" "$rc_ref"
same_mounted "f/F" "$WORK/f-ref.img" "$WORK/f-ours.img"
same_pf "f/F: as 4.7.5's" "$WORK/f-ref.img" "$WORK/f-ours.img"
expect_eq "f/F: binary output kept" \
	"$("$UNSQ" -cat "$WORK/f-ours.img" bin | sha256sum)" "$(sha256sum <"$BIN")"
expect_eq "f/F: run in the current directory" \
	"$("$UNSQ" -cat "$WORK/f-ours.img" cwd)" "in cwd"
expect_eq "f/F: with the environment" \
	"$("$UNSQ" -cat "$WORK/f-ours.img" env)" "from-env"

# a lowercase f takes the time of the run: compared without times
for tool in ref ours; do
	run $tool "$WORK/lf-$tool.img" - "$WORK/lf-$tool.img" -p '/ d 755 0 0' \
		-p 'a f 644 0 0 echo lower' -p 'b f 4755 1 2 printf ""' \
		-noappend -no-progress
	eval "rc_$tool=\$RC"
done
expect_eq "lowercase f: exit status" "$rc_ours" "$rc_ref"
same_mounted "lowercase f" "$WORK/lf-ref.img" "$WORK/lf-ours.img" --no-mtime

# with sources: a file added to a directory source, one the source has
# already (ignored, as by 4.7.5)
for tool in ref ours; do
	run $tool "$WORK/fs-$tool.img" "$SRC/keep" "$WORK/fs-$tool.img" \
		-p 'new F 3 644 0 0 echo new' -p 'file F 3 644 0 0 echo over' \
		-noappend -no-progress -mkfs-time 7
	eval "rc_$tool=\$RC"
done
expect_eq "f over a source: exit status" "$rc_ours" "$rc_ref"
same_mounted "f over a source" "$WORK/fs-ref.img" "$WORK/fs-ours.img"

# a failing command: an empty file and a warning naming it, as 4.7.5
for tool in ref ours; do
	run $tool "$WORK/ff-$tool.img" - "$WORK/ff-$tool.img" -p '/ D 1 755 0 0' \
		-p 'bad F 2 644 0 0 echo partial; exit 3' \
		-p 'killed F 2 644 0 0 echo partial; kill -9 $$' \
		-p 'good F 2 644 0 0 echo good' -noappend -no-progress -mkfs-time 7
	eval "rc_$tool=\$RC"
done
expect_eq "failing command: exit status" "$rc_ours" "$rc_ref"
same_pf "failing command: empty files" "$WORK/ff-ref.img" "$WORK/ff-ours.img"
check "failing command: warning names the definition" \
	grep -q "bad F 2 644 0 0 echo partial; exit 3'.*status 3" \
	"$WORK/ff-ours.img.err"
check "killed command: warning says so" grep -q "killed by signal 9" \
	"$WORK/ff-ours.img.err"

# commands run only once every definition is good (none when one is bad)
rm -f "$WORK/ran"
run ours "$WORK/nr.img" - "$WORK/nr.img" -p '/ d 755 0 0' \
	-p "a f 644 0 0 echo ran >'$WORK/ran'" -p 'b q 644 0 0' -noappend
expect_eq "bad definition: exit status" "$RC" 1
check "bad definition: no command ran" test ! -e "$WORK/ran"

# ------------------------------------------------------- bad input
# bad NAME STDIN ARGS...: both tools fail (the same status), no image
# is left, an existing DEST is untouched (ours), and ours names the
# definition. STDIN is a file for standard input or "".
# bad_run TOOL OUT ARGS...: run with @OUT@ in ARGS replaced by OUT
bad_run() {
	local tool=$1 out=$2 a
	shift 2
	for a in "$@"; do
		shift
		[ "$a" = @OUT@ ] && a=$out
		set -- "$@" "$a"
	done
	run "$tool" "$out" "$@"
}

bad() {
	local name=$1 in=$2 d=$WORK/bad/$1 tool
	shift 2
	mkdir -p "$d"
	for tool in ref ours; do
		printf 'keep me' >"$d/$tool.img"
		if [ -n "$in" ]; then
			bad_run $tool "$d/$tool.img" "$@" <"$in"
		else
			bad_run $tool "$d/$tool.img" "$@" </dev/null
		fi
		eval "rc_$tool=\$RC"
	done
	expect_eq "$name: exit status" "$rc_ours" "$rc_ref"
	expect_eq "$name: ours fails" "$rc_ours" 1
	expect_eq "$name: DEST untouched" "$(cat "$d/ours.img")" "keep me"
	check "$name: names the definition" grep -q -- "$BAD_WHERE" "$d/ours.img.err"
}

H='/ D 1 755 0 0\n'
D='#\n# START OF DATA - DO NOT MODIFY\n#\n'
printf "${H}a R 1 644 0 0 10 0 0\n$D"'short' >"$WORK/cut.pf"
BAD_WHERE='cut.pf:2: .*past the end'
bad cut-short "" - @OUT@ -pf "$WORK/cut.pf" -noappend
BAD_WHERE='-:2: .*past the end'
bad cut-short-pipe "$WORK/cut.pf" - @OUT@ -pf - -noappend
printf "${H}a R 1 644 0 0 5 0 0\nb R 1 644 0 0 2 4 0\n$D"'hello' >"$WORK/off.pf"
BAD_WHERE='off.pf:3: .*past the end'
bad offset-past-end "" - @OUT@ -pf "$WORK/off.pf" -noappend
printf "${H}a R 1 644 0 0 5 18446744073709551615 0\n$D"'hello' >"$WORK/huge.pf"
BAD_WHERE='huge.pf:2: .*past the end'
bad offset-huge "" - @OUT@ -pf "$WORK/huge.pf" -noappend
printf "${H}a R 1 644 0 0 5 0 0\n" >"$WORK/nodata.pf"
BAD_WHERE='nodata.pf:2: no data section'
bad no-data-section "" - @OUT@ -pf "$WORK/nodata.pf" -noappend
printf "${H}a R 1 644 0 0 5 0 0\n# START OF DATA - DO NOT MODIFY\nhello" >"$WORK/nohash.pf"
BAD_WHERE='nohash.pf:4: expected "#"'
bad no-hash-line "" - @OUT@ -pf "$WORK/nohash.pf" -noappend
printf "${H}a R 1 644 0 0 5 x 0\n$D"'hello' >"$WORK/field.pf"
BAD_WHERE='field.pf:2: bad offset'
bad bad-field "" - @OUT@ -pf "$WORK/field.pf" -noappend
printf "${H}a R 1 644 0 0 5 0\n$D"'hello' >"$WORK/few.pf"
BAD_WHERE='few.pf:2: bad sparse'
bad missing-field "" - @OUT@ -pf "$WORK/few.pf" -noappend
BAD_WHERE="-p 'a R 1 644 0 0 1 0 0': \"R\" definitions can only"
bad r-in-p "" - @OUT@ -p '/ d 755 0 0' -p 'a R 1 644 0 0 1 0 0' -noappend
BAD_WHERE="-p 'a q 644 0 0': unknown pseudo type"
bad unknown-type "" - @OUT@ -p '/ d 755 0 0' -p 'a q 644 0 0' -noappend
BAD_WHERE="-p 'a f 644 0 0': expected a command"
bad no-command "" - @OUT@ -p '/ d 755 0 0' -p 'a f 644 0 0' -noappend
BAD_WHERE="-p 'a f 644 0 0 exit 4': the command exited with status 4"
bad failing-exit-on-error "" - @OUT@ -p '/ d 755 0 0' \
	-p 'a f 644 0 0 exit 4' -noappend -exit-on-error
BAD_WHERE="-p 'b L a': Cannot hardlink to a Pseudo directory"
bad link-to-dir "" - @OUT@ -p '/ d 755 0 0' -p 'a d 755 0 0' -p 'b L a' \
	-noappend
BAD_WHERE="-p 'a d 755 0 0 junk': unexpected text"
bad trailing-text "" - @OUT@ -p '/ d 755 0 0' -p 'a d 755 0 0 junk' -noappend
BAD_WHERE='Source is "-", but no pseudo definition for "/"'
bad no-root "" - @OUT@ -p 'a d 755 0 0' -noappend

# ------------------------------------------------------- the root
# "- SRC": the other sources are ignored; "/ D" gives the root
for tool in ref ours; do
	run $tool "$WORK/root-$tool.img" - "$SRC/keep" "$WORK/root-$tool.img" \
		-p '/ D 77 700 5 6' -p 'x D 78 755 0 0' -noappend -no-progress \
		-mkfs-time 7
	eval "rc_$tool=\$RC"
done
expect_eq "- first: exit status" "$rc_ours" "$rc_ref"
same_pf "- first: the root from / D, sources ignored" \
	"$WORK/root-ref.img" "$WORK/root-ours.img"

finish
