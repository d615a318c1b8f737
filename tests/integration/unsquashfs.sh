#!/bin/sh
# SPDX-License-Identifier: MIT
# unsquashfs (the squashfs-tools 4.7.5 personality): for every image
# (mksquashfs 4.7.5 with each compressor and flag set, our gensquashfs and
# tar2sqfs) and every listing / information option, our output and exit
# status against $REF_BIN/unsquashfs byte for byte; extraction with both
# into trees compared attribute by attribute (owners too as root);
# selections (paths, -excludes, -ex, -max-depth), -f over an existing
# tree, -cat, -pf, -o on an image behind N bytes, and bad input.

. "$(dirname "$0")/lib.sh"
. "$HERE/lib_ref.sh"

UNSQ=${UNSQ:-$abs_top_builddir/unsquashfs}
GENSQ=$abs_top_builddir/gensquashfs
REF=$REF_BIN/unsquashfs
[ -x "$UNSQ" ] || hard_error "no tool to test at $UNSQ"

# ------------------------------------------------------------ the tree

SRC=$WORK/src
mkdir -p "$SRC/dir/sub" "$SRC/empty"
(
	cd "$SRC" || exit 1
	echo hello >file
	head -c 300000 /dev/urandom >big
	ln file hard
	ln -s file sym
	ln -s /nonexistent/dangling dangle
	mkfifo fifo
	"$PYTHON" -c "import socket; socket.socket(socket.AF_UNIX).bind('sock')"
	touch "with space" "$(printf 'new\nline')" "$(printf 'tab\there')" \
		'ütf8é' 'back\slash' 'q"uote' dir/sub/deep
	truncate -s 3M sparse && echo end >>sparse
	chmod 4755 big
	chmod 1777 empty
	touch -d '2001-02-03 04:05:06' file
	touch -d '1999-12-31 23:59:59' dir
) || hard_error "cannot build the source tree"
XATTRS_OK=0
if setfattr -n user.foo -v bar "$SRC/file" 2>/dev/null &&
	setfattr -n user.bin -v 0x00ff01 "$SRC/dir" 2>/dev/null; then
	XATTRS_OK=1
fi
if [ "$IS_ROOT" = 1 ]; then
	mknod "$SRC/chr" c 1 3
	mknod "$SRC/blk" b 8 1
	chown 123456:654321 "$SRC/file"
	chown 1000:1000 "$SRC/dir"
	chown 4294967294:7 "$SRC/empty"
fi

# ------------------------------------------------------------ images

IMAGES=
mksq() {
	local name=$1
	shift
	if "$REF_BIN/mksquashfs" "$SRC" "$WORK/$name.sqfs" -noappend -quiet \
		-no-progress "$@" >"$WORK/mksq.err" 2>&1; then
		IMAGES="$IMAGES $name"
	else
		echo "note: mksquashfs $*: $(cat "$WORK/mksq.err")"
	fi
}
mksq gzip -comp gzip
mksq gzip-opts -comp gzip -Xcompression-level 4 -Xwindow-size 10 \
	-Xstrategy filtered,huffman_only
mksq xz -comp xz -Xbcj x86,arm -Xdict-size 50%
mksq xz-nofilter -comp xz -Xdict-size 8192
mksq lzo -comp lzo -Xalgorithm lzo1x_999 -Xcompression-level 7
mksq lzo1 -comp lzo -Xalgorithm lzo1x_1
mksq lz4hc -comp lz4 -Xhc
mksq zstd -comp zstd -Xcompression-level 19
mksq raw -noI -noD -noF -noX -no-fragments -no-exports -no-xattrs \
	-no-duplicates
mksq noid -noId -always-use-fragments -b 4096
mksq nofrag-comp -noF -noX
# device numbers past 8 bits, owners past 2^31, times past 2^31
printf '%s\n' 'c1 c 644 4294967294 4294967293 200 70000' \
	'c2 c 644 0 0 4095 1048575' 'b1 b 644 12 34 1234 5' \
	'f1 f 644 1234567890 1 head -c 5 /dev/zero' >"$WORK/pseudo"
mkdir -p "$WORK/none"
if "$REF_BIN/mksquashfs" "$WORK/none" "$WORK/pseudo.sqfs" -noappend \
	-quiet -no-progress -pf "$WORK/pseudo" -mkfs-time 4294967295 \
	-all-time 4000000000 >/dev/null 2>&1; then
	IMAGES="$IMAGES pseudo"
fi
"$REF_BIN/mksquashfs" "$WORK/none" "$WORK/empty.sqfs" -noappend -quiet \
	-no-progress >/dev/null 2>&1 && IMAGES="$IMAGES empty"
# (not lzma: 4.7.5 cannot read it, where we can)
for comp in xz gzip; do
	if "$GENSQ" -D "$SRC" -c "$comp" -k -x -q "$WORK/g-$comp.sqfs" \
		>/dev/null 2>&1; then
		IMAGES="$IMAGES g-$comp"
	fi
done
(cd "$SRC" && "$GNUTAR" --xattrs -cf "$WORK/src.tar" .) &&
	"$TAR2SQFS" -q "$WORK/t-tar.sqfs" <"$WORK/src.tar" >/dev/null 2>&1 &&
	IMAGES="$IMAGES t-tar"
echo "images:$IMAGES"

# ------------------------------------------------------------ helpers

# same DESCRIPTION ARGS...: both tools' stdout, stderr and exit status
# are byte for byte the same.
same() {
	local what=$1
	shift
	"$REF" "$@" >"$WORK/r.out" 2>"$WORK/r.err"
	echo "rc=$?" >>"$WORK/r.out"
	"$UNSQ" "$@" >"$WORK/o.out" 2>"$WORK/o.err"
	echo "rc=$?" >>"$WORK/o.out"
	if cmp -s "$WORK/r.out" "$WORK/o.out" &&
		cmp -s "$WORK/r.err" "$WORK/o.err"; then
		pass "$what"
	else
		fail "$what"
		diff "$WORK/r.out" "$WORK/o.out" | head -5
		diff "$WORK/r.err" "$WORK/o.err" | head -5
	fi
}

# same_usage DESCRIPTION ARGS...: a mistake on the command line: the same
# first lines (4.7.5's help text after them is not ours) and exit status.
same_usage() {
	local what=$1
	shift
	"$REF" "$@" 2>&1 | head -2 >"$WORK/r.out"
	"$REF" "$@" >/dev/null 2>&1
	echo "rc=$?" >>"$WORK/r.out"
	"$UNSQ" "$@" 2>&1 | head -2 >"$WORK/o.out"
	"$UNSQ" "$@" >/dev/null 2>&1
	echo "rc=$?" >>"$WORK/o.out"
	if cmp -s "$WORK/r.out" "$WORK/o.out"; then
		pass "$what"
	else
		fail "$what"
		diff "$WORK/r.out" "$WORK/o.out" | head -5
	fi
}

# same_rc DESCRIPTION ARGS...: the same exit status (the words differ).
same_rc() {
	local what=$1 r o
	shift
	"$REF" "$@" >/dev/null 2>&1
	r=$?
	"$UNSQ" "$@" >"$WORK/o.out" 2>&1
	o=$?
	expect_eq "$what" "$o" "$r"
}

# tree_attrs DIR: one line per entry with every attribute and the data.
tree_attrs() {
	"$PYTHON" - "$1" <<'PY'
import hashlib, os, stat, sys
root = sys.argv[1]
for d, dirs, files in os.walk(root):
    dirs.sort()
    for n in [''] + sorted(dirs + files) if d == root else sorted(dirs + files):
        p = os.path.join(d, n) if n else d
        st = os.lstat(p)
        rec = [repr(os.path.relpath(p, root)), oct(st.st_mode),
               st.st_uid, st.st_gid]
        if not stat.S_ISLNK(st.st_mode):
            rec.append(int(st.st_mtime))
        if stat.S_ISREG(st.st_mode):
            rec += [st.st_size, st.st_nlink,
                    hashlib.sha1(open(p, 'rb').read()).hexdigest()]
        if stat.S_ISLNK(st.st_mode):
            rec.append(os.readlink(p))
        if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
            rec.append(st.st_rdev)
        rec.append(sorted((k, os.getxattr(p, k, follow_symlinks=False))
                          for k in os.listxattr(p, follow_symlinks=False)))
        print(*rec)
PY
}

# bar_free FILE: FILE without progress-bar lines and blank lines. Whether
# a run draws its bar (and how often) depends on how long it takes: a
# slow run (under ASan, on a busy machine) draws it where a fast one only
# ends the line, for either tool; a redrawn bar follows the one before it
# on its line, after a carriage return. The rest of the output must agree.
bar_free() {
	tr '\r' '\n' <"$1" | grep -Ev '^(\[[^]]*\] +[0-9]+/[0-9]+ +[0-9]+%)*$'
}

# extract DESCRIPTION ARGS...: both extract (into r/ and o/ of $WORK,
# with the same -d, given in ARGS) with the same output (but for the
# progress bar's timing) and exit status, and the trees are the same.
extract() {
	local what=$1
	shift
	rm -rf "$WORK/r" "$WORK/o"
	mkdir -p "$WORK/r" "$WORK/o"
	(cd "$WORK/r" && "$REF" "$@" >"$WORK/r.out" 2>&1; echo "rc=$?" \
		>>"$WORK/r.out")
	(cd "$WORK/o" && "$UNSQ" "$@" >"$WORK/o.out" 2>&1; echo "rc=$?" \
		>>"$WORK/o.out")
	bar_free "$WORK/r.out" >"$WORK/r.nobar"
	bar_free "$WORK/o.out" >"$WORK/o.nobar"
	if ! cmp -s "$WORK/r.nobar" "$WORK/o.nobar"; then
		fail "$what: output"
		diff "$WORK/r.out" "$WORK/o.out" | head -5
	elif ! (cd "$WORK/r" && tree_attrs x) >"$WORK/r.tree" ||
		! (cd "$WORK/o" && tree_attrs x) >"$WORK/o.tree" ||
		! cmp -s "$WORK/r.tree" "$WORK/o.tree"; then
		fail "$what: tree"
		diff "$WORK/r.tree" "$WORK/o.tree" | head -5
	else
		pass "$what"
	fi
}

# ------------------------------------------------------------ listings

for img in $IMAGES; do
	f=$WORK/$img.sqfs
	for o in -s -stat -fstime -mkfs-time -l -ls -ll -lls -lln -llnumeric \
		-lc -llc; do
		same "$img $o" $o "$f"
	done
	same "$img -ll -UTC" -ll -UTC "$f"
	same "$img -lln -full-precision" -lln -full-precision "$f"
	TZ=America/New_York same "$img -ll in New York" -ll "$f"
	TZ=America/New_York same "$img -s in New York" -s "$f"
	same "$img -l -d prefix" -l -d "some/where" "$f"
	same "$img -ll -max-depth 1" -ll -max-depth 1 "$f"
	same "$img -pf -" -pf - "$f"
	same "$img -p 1 -lln" -p 1 -lln "$f"
done

# ------------------------------------------------------------ extraction

for img in $IMAGES; do
	f=$WORK/$img.sqfs
	extract "$img extract" -d x "$f"
	extract "$img extract -n -no-xattrs" -n -no-xattrs -d x "$f"
	extract "$img extract -q -n -i" -q -n -i -d x "$f"
done
M=$WORK/gzip.sqfs
extract "paths" -n -d x "$M" dir 'f*' nonexistent
extract "deep path" -li -d x "$M" dir/sub/deep
extract "-excludes" -n -d x -excludes "$M" dir big
extract "-ex list" -n -d x -ex dir sparse \; "$M"
extract "-max-depth 1" -n -d x -max-depth 1 "$M"
extract "-all-time" -n -d x -all-time 12345 "$M"
extract "-linfo" -li -d x "$M"

# an existing destination: an error without -f, replaced with it
for tool in "$REF" "$UNSQ"; do
	n=$(basename "$(dirname "$tool")")
	rm -rf "$WORK/f-$n"
	mkdir -p "$WORK/f-$n"
	(cd "$WORK/f-$n" && "$tool" -n -d x "$M" >/dev/null 2>&1 &&
		echo stale >x/file && ln -sf /etc/passwd x/sym2 &&
		"$tool" -n -d x "$M" >/dev/null 2>&1; echo "again=$?" \
		>"$WORK/f-$n.rc"
	"$tool" -n -f -d x "$M" >/dev/null 2>&1; echo "force=$?" \
		>>"$WORK/f-$n.rc")
done
expect_eq "existing destination: exit statuses" \
	"$(cat "$WORK/f-$(basename "$(dirname "$UNSQ")").rc")" \
	"$(cat "$WORK/f-$(basename "$(dirname "$REF")").rc")"
check "-f replaces what was there" cmp -s "$SRC/file" \
	"$WORK/f-$(basename "$(dirname "$UNSQ")")/x/file"

# ------------------------------------------------------------ -cat, -o

same "-cat" -cat "$M" file sparse
same "-cat of what is not a file" -cat "$M" dir fifo nonexistent 'fi*'
for n in 1 4096 1K 3M; do
	bytes=$(
		case $n in
		*K) echo $((${n%K} * 1024)) ;;
		*M) echo $((${n%M} * 1048576)) ;;
		*) echo "$n" ;;
		esac
	)
	head -c "$bytes" /dev/urandom >"$WORK/off.sqfs"
	cat "$M" >>"$WORK/off.sqfs"
	same "-o $n -ll" -o "$n" -ll "$WORK/off.sqfs"
	same "-offset $n -s" -offset "$n" -s "$WORK/off.sqfs"
	extract "-o $n extract" -n -o "$n" -d x "$WORK/off.sqfs"
	# -o auto finds it where 4.7.5 must be told
	"$REF" -o "$bytes" -ll "$WORK/off.sqfs" >"$WORK/r.out" 2>&1
	"$UNSQ" -o auto -ll "$WORK/off.sqfs" >"$WORK/o.out" 2>&1
	check "-o auto after $n bytes: as -o $n" cmp -s "$WORK/r.out" \
		"$WORK/o.out"
done
# an AppImage: an ELF runtime, the image right after it
cat /bin/true "$M" >"$WORK/app.AppImage"
"$REF" -o "$(stat -c %s /bin/true)" -ll "$WORK/app.AppImage" \
	>"$WORK/r.out" 2>&1
"$UNSQ" -o auto -ll "$WORK/app.AppImage" >"$WORK/o.out" 2>&1
check "-o auto in an AppImage" cmp -s "$WORK/r.out" "$WORK/o.out"
"$UNSQ" -o auto -s /bin/true >"$WORK/o.out" 2>&1
rc=$?
check "-o auto without an image: fails" test "$rc" = 1
check "-o auto without an image: says so" grep -q \
	"Can't find a SQUASHFS image in /bin/true" "$WORK/o.out"
same "-o wrong" -o 1 -s "$M"

# ------------------------------------------------------------ error classes
# As a user who cannot make devices or set trusted xattrs, extraction meets
# non-fatal errors: exit status 2, 1 with -strict-errors, 0 with
# -no-exit-code, as 4.7.5 gives them.
if [ "$IS_ROOT" = 1 ] && id nobody >/dev/null 2>&1; then
	mkdir -p "$WORK/nf/src"
	echo hi >"$WORK/nf/src/f"
	mknod "$WORK/nf/src/dev" c 1 3
	setfattr -n trusted.x -v 1 "$WORK/nf/src/f" 2>/dev/null
	"$REF_BIN/mksquashfs" "$WORK/nf/src" "$WORK/nf/i.img" -noappend \
		-quiet -no-progress >/dev/null 2>&1
	chmod 755 "$WORK" "$WORK/nf"
	chmod 644 "$WORK/nf/i.img"
	chmod 777 "$WORK/nf"
	for o in "" -strict-errors -no-exit-code -ignore-errors; do
		for t in ref ours; do
			bin=$REF
			[ "$t" = ours ] && bin=$UNSQ
			rm -rf "$WORK/nf/x"
			su nobody -s /bin/sh -c "cd '$WORK/nf' && '$bin' -n $o \
				-d x i.img >/dev/null 2>&1; echo \$? >rc.$t"
		done
		expect_eq "non-fatal errors ${o:-(default)}: exit status" \
			"$(cat "$WORK/nf/rc.ours")" "$(cat "$WORK/nf/rc.ref")"
	done
fi

# ------------------------------------------------------------ bad input

head -c 4096 /dev/urandom >"$WORK/junk.sqfs"
head -c 1000 "$M" >"$WORK/short.sqfs"
same "missing image" -l "$WORK/nonexistent.sqfs"
same "not an image" -l "$WORK/junk.sqfs"
same_usage "no image" -l
same_usage "unknown option" -bogus "$M"
same_usage "-d without a value" -d
same "-p 0" -p 0 -l "$M"
same_usage "-p abc" -p abc -l "$M"
same_usage "-o abc" -o abc -l "$M"
same_usage "-max-depth x" -max-depth x -l "$M"
same_rc "truncated image" -l "$WORK/short.sqfs"
same_rc "-help" -help
same_rc "-version" -version
"$UNSQ" -version 2>/dev/null | head -1 >"$WORK/v"
check "-version: 4.7.5's first words" grep -q '^unsquashfs version 4\.7' \
	"$WORK/v"
check "-version: squashforge's version" grep -q squashforge "$WORK/v"
"$UNSQ" -regex -l "$M" >/dev/null 2>"$WORK/o.err"
expect_eq "-regex is refused" "$?" 1
check "-regex: the refusal names it" grep -q -- -regex "$WORK/o.err"

finish
