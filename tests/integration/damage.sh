#!/bin/sh
# SPDX-License-Identifier: MIT
# Damage that loses data, tried systematically: every kind of damage
# (damage.py) at the first, a middle and the last member of archives in
# the ustar, GNU and PAX formats, plain and gzip-compressed. Each run must
# end with exit status 1, leave no file behind (the output is never
# created, nor a temporary one), leave an existing output untouched, and
# name the offset of the damage and the entry (the damaged one, or the
# last good one before it).
. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

command -v gzip >/dev/null || skip_all "gzip is not installed"

SRC=$WORK/src
mkdir -p "$SRC" "$WORK/out"
for i in 1 2 3 4 5; do
	"$PYTHON" -c "import sys; sys.stdout.buffer.write(
		bytes((j * $i + j // 7) & 255 for j in range($i * 3001)))" \
		>"$SRC/member$i"
done
for i in 1 2 3; do
	truncate -s 1M "$SRC/sparse$i"
	printf 'data%d' "$i" | dd of="$SRC/sparse$i" bs=1 seek=500000 \
		conv=notrunc 2>/dev/null
done
for fmt in ustar gnu posix; do
	"$GNUTAR" --format=$fmt -cf "$WORK/$fmt.tar" -C "$SRC" \
		member1 member2 member3 member4 member5 ||
		hard_error "GNU tar --format=$fmt failed"
done
"$GNUTAR" --format=gnu -S -cf "$WORK/sparse.tar" -C "$SRC" \
	sparse1 sparse2 sparse3 || hard_error "GNU tar -S failed"

# what_left DIR: the files in DIR, one line
what_left() { (cd "$1" && ls -A | tr '\n' ' '); }

# try NAME ARCHIVE OFFSET ENTRY...: tar2sqfs must fail cleanly on
# ARCHIVE, naming OFFSET (a number, or "" for any) and one of ENTRY...
try() {
	local name=$1 tar=$2 offset=$3 out=$WORK/out
	shift 3
	rm -rf "$out"
	mkdir -p "$out"
	t2s "$out/img.sqfs" -q <"$tar"
	expect_eq "$name: exit status" "$RC" 1
	expect_eq "$name: nothing left behind" "$(what_left "$out")" ""
	if [ -n "$offset" ]; then
		check "$name: the message names offset $offset" \
			grep -E -q "offset $offset\\b" "$WORK/t2s.err"
	else
		check "$name: the message names an offset" \
			grep -q "offset [0-9]" "$WORK/t2s.err"
	fi
	if [ $# -gt 0 ]; then
		local e found=0
		for e in "$@"; do
			grep -q -F "$e" "$WORK/t2s.err" && found=1
		done
		expect_eq "$name: the message names one of '$*'" $found 1
	fi
	[ -s "$WORK/t2s.err" ] && sed 's/^/    /' "$WORK/t2s.err"
}

# damage_all NAME ARCHIVE KIND...: each kind at the first, middle and last
# member, plain and compressed
damage_all() {
	local name=$1 tar=$2 kind pos info offset prev member
	shift 2
	for kind in "$@"; do
		for pos in 0 2 -1; do
			"$PYTHON" "$HERE/damage.py" "$tar" "$WORK/d.tar" \
				"$kind" "$pos" >"$WORK/info" ||
				hard_error "damage.py $kind $pos failed"
			offset=$(sed -n 1p "$WORK/info")
			prev=$(sed -n 2p "$WORK/info")
			member=$(sed -n 3p "$WORK/info")
			case $name-$kind in
			# where libarchive stopped reading, not the header
			*-trunc_data | *-sparse_map | *-base256_size) offset= ;;
			esac
			# damage behind a pax header: libarchive gives up
			# inside the chain, which is named by its start
			[ "$name" = posix ] && [ -n "$offset" ] &&
				offset="($offset|$(sed -n 4p "$WORK/info"))"
			if [ -n "$prev" ]; then
				try "$name $kind@$pos" "$WORK/d.tar" "$offset" \
					"'$prev'" "$member"
			else
				try "$name $kind@$pos" "$WORK/d.tar" "$offset" \
					"$member" "before any entry"
			fi
			gzip -n -c "$WORK/d.tar" >"$WORK/d.tar.gz"
			try "$name $kind@$pos, gzip" "$WORK/d.tar.gz" \
				"$offset"
		done
	done
}

for fmt in ustar gnu posix; do
	damage_all "$fmt" "$WORK/$fmt.tar" checksum garbage octal \
		base256_uid base256_size trunc_header trunc_data
done
damage_all "gnu sparse" "$WORK/sparse.tar" sparse_map

# the compressed stream itself cut short
gzip -n -c "$WORK/posix.tar" >"$WORK/full.tar.gz"
head -c $(($(file_size "$WORK/full.tar.gz") / 2)) "$WORK/full.tar.gz" \
	>"$WORK/cut.tar.gz"
try "gzip stream cut short" "$WORK/cut.tar.gz" ""

# an existing output is untouched, with or without --force
"$PYTHON" "$HERE/damage.py" "$WORK/gnu.tar" "$WORK/d.tar" checksum 2 \
	>/dev/null || hard_error "damage.py failed"
for force in "" -f; do
	rm -rf "$WORK/out"
	mkdir -p "$WORK/out"
	head -c 5000 "$WORK/gnu.tar" >"$WORK/out/img.sqfs"
	sum=$(sum_of "$WORK/out/img.sqfs")
	# shellcheck disable=SC2086
	t2s "$WORK/out/img.sqfs" -q $force <"$WORK/d.tar"
	expect_eq "existing output ${force:-without -f}: exit status" "$RC" 1
	expect_eq "existing output ${force:-without -f}: untouched" \
		"$(sum_of "$WORK/out/img.sqfs")" "$sum"
	expect_eq "existing output ${force:-without -f}: nothing else" \
		"$(what_left "$WORK/out")" "img.sqfs "
done

# --no-skip does not change any of this (damage is never skipped)
t2s "$WORK/out/img2.sqfs" -q --no-skip <"$WORK/d.tar"
expect_eq "--no-skip: exit status" "$RC" 1

finish
