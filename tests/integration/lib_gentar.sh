# SPDX-License-Identifier: MIT
# Common code of the tests that pack scripts/gentar's archives
# (tests/integration/gentar.sh at 10^5 entries, tests/slow/scale.sh at
# 10^6); sourced after lib.sh, whose results, WORK directory and mount
# helpers it uses.
#
# The archives are never written to disk: each reader gets a fresh run of
# the generator (the same options give the same bytes, which gentar.sh
# checks), as the benchmark streams them.
#
# The reference is GNU tar's view of the archive: `tar -tv` (numeric
# owners, full times, names as their bytes) folded into the tree an
# extraction leaves (a later entry replaces an earlier one, a hard link
# has its target's attributes, missing parents appear as implicit
# directories, whose attributes are the packer's choice). Trees (a
# kernel mount, an extraction) are read with find; views are lines of
# "path, ls mode, uid, gid, size (0 for directories), mtime, nlink"
# compared path by path, with link counts (a view of an archive counts a
# file's names, and 2 + subdirectories for a directory, as Linux does).
# Fields are split at blanks: gentar's names hold none.

GENTAR=${GENTAR:-$abs_top_builddir/scripts/gentar}
SQFS2TAR=${SQFS2TAR:-$abs_top_builddir/sqfs2tar}
[ -x "$GENTAR" ] || hard_error "no generator at $GENTAR (make scripts/gentar)"
[ -x "$SQFS2TAR" ] || hard_error "no tool to test at $SQFS2TAR"

# GNU tar's extractions go to a fresh directory GT_X in GT_SCRATCH: by
# default /dev/shm when it has 2 GB free (10^5 tiny files take ~400 MB
# there and a second to write and delete; on a busy disk, a minute), else
# WORK.
if [ -z "${GT_SCRATCH:-}" ]; then
	GT_SCRATCH=$WORK
	if [ -d /dev/shm ] && [ -w /dev/shm ] &&
		[ "$(df -Pk /dev/shm | awk 'NR == 2 { print $4 }')" -gt 2000000 ]; then
		GT_SCRATCH=/dev/shm
	fi
fi
GT_X=$(mktemp -d "$GT_SCRATCH/gentar-x.XXXXXX") ||
	hard_error "cannot make a directory in $GT_SCRATCH"
trap 'rm -rf "$GT_X"; cleanup' EXIT

# gt_summary NAME KEY: a count from the --summary of the archive NAME
gt_summary() { sed -n "s/^$2 //p" "$WORK/$1.sum"; }

# gt_run NAME [OPTIONS...]: the archive NAME (the options given to
# gt_new, then these) to standard output
gt_run() {
	local opts
	opts=$(cat "$WORK/$1.opts")
	shift
	# shellcheck disable=SC2086
	"$GENTAR" $opts "$@"
}

# gt_new NAME OPTIONS...: define the archive NAME and record its summary
gt_new() {
	local name=$1
	shift
	echo "$*" >"$WORK/$name.opts"
	gt_run "$name" --summary 2>"$WORK/$name.sum" >/dev/null ||
		hard_error "gentar $* failed: $(cat "$WORK/$name.sum")"
	[ -s "$WORK/$name.sum" ] || hard_error "gentar $* printed no summary"
}

# tar_view FILE: GNU tar's view of the archive on standard input, into
# FILE; the regular files in the order of their first member into
# FILE.order (the order in which digest reads them)
tar_view() {
	"$GNUTAR" -tv --numeric-owner --full-time --quoting-style=literal \
		-f - >"$1.raw" 2>"$1.err" || return 1
	LC_ALL=C awk '$1 ~ /^-/ && !seen[$6]++ { print $6 }' "$1.raw" \
		>"$1.order"
	LC_ALL=C awk '
	{
		perm = $1; split($2, o, "/"); p = $6; ty = substr(perm, 1, 1)
		size = $3
		if (ty == "d") { sub(/\/$/, "", p); size = 0 }
		M[p] = perm; U[p] = o[1]; G[p] = o[2]; S[p] = size
		T[p] = $4 " " $5
		if (ty == "h") { L[p] = $9; M[p] = "-" substr(perm, 2) }
		else delete L[p]
	}
	END {
		for (p in L) {
			q = L[p]
			M[p] = M[q]; U[p] = U[q]; G[p] = G[q]; S[p] = S[q]
			T[p] = T[q]
		}
		# implicit parents: any attributes but the type; "*" is a
		# time that matches every time
		for (p in M) {
			q = p
			while (sub(/\/[^\/]*$/, "", q))
				if (!(q in M)) imp[q] = 1
		}
		for (q in imp) {
			M[q] = "d*"; U[q] = G[q] = "*"; S[q] = 0; T[q] = "*"
		}
		# link counts: the names of a file; 2 + subdirectories for a
		# directory (the Linux rule)
		for (p in M) N[p] = substr(M[p], 1, 1) == "d" ? 2 : 1
		for (p in L) N[L[p]]++
		for (p in L) N[p] = N[L[p]]
		for (p in M) {
			q = p
			if (substr(M[p], 1, 1) == "d" && sub(/\/[^\/]*$/, "", q))
				N[q]++
		}
		for (p in M)
			printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", p, M[p], U[p],
			    G[p], S[p], T[p], N[p]
	}' "$1.raw" | LC_ALL=C sort >"$1"
	rm -f "$1.raw"
}

# tree_view DIR FILE: the tree at DIR (the root left out), with link counts
tree_view() {
	(cd "$1" && find . -mindepth 1 -printf \
		'%P\t%M\t%U\t%G\t%s\t%TY-%Tm-%Td %TH:%TM:%TS\t%n\n') |
		LC_ALL=C awk -F'\t' -v OFS='\t' '{
			sub(/\.[0-9]*$/, "", $6)
			if (substr($2, 1, 1) == "d") $5 = 0
			print
		}' | LC_ALL=C sort >"$2"
}

# same_view A B [no-dir-mtime]: the views A and B hold the same paths
# with the same attributes ("*" matches anything); prints the first
# differences. no-dir-mtime: directories'
# times are not compared (GNU tar's extraction of an archive whose
# directories are not contiguous leaves the time of the last write into
# them, not the archive's).
same_view() {
	LC_ALL=C awk -F'\t' -v nodm="${3:-}" '
	function same(x, y) { return x == y || x == "*" || y == "*" }
	NR == FNR { a[$1] = $0; next }
	{
		if (!($1 in a)) {
			if (n++ < 10) print "  only in " FILENAME ": " $0
			next
		}
		seen[$1] = 1
		split(a[$1], x, "\t")
		bad = 0
		if (x[2] == "d*")
			bad = substr($2, 1, 1) != "d"
		else if ($2 == "d*")
			bad = substr(x[2], 1, 1) != "d"
		else
			bad = x[2] != $2
		for (i = 3; i <= 5; i++) if (!same(x[i], $i)) bad = 1
		if (!same(x[6], $6) &&
		    !(nodm != "" && substr($2, 1, 1) == "d")) bad = 1
		if (x[7] != $7) bad = 1
		if (bad && n++ < 10)
			print "  differs: " a[$1] "\n       vs: " $0
	}
	END {
		for (p in a)
			if (!(p in seen) && n++ < 10)
				print "  missing: " a[p]
		exit n > 0
	}' "$1" "$2"
}

# digest DIR ORDER: one hash over the bytes of the files ORDER lists, in
# that order
digest() {
	(cd "$1" && tr '\n' '\0' <"$2" | xargs -0 -r cat) | sha256sum |
		cut -d' ' -f1
}

# gt_extract NAME DIR: GNU tar's extraction of the archive NAME (umask
# 022: the mode of implicit parents)
gt_extract() {
	rm -rf "$2"
	mkdir -p "$2"
	gt_run "$1" | (umask 022 && "$GNUTAR" -C "$2" -x --numeric-owner -p \
		-f - 2>"$WORK/gnutar.err")
}

# gt_check_members NAME: `tar -tv` counts members and types as the
# summary does (a repeated file is a second '-' member)
gt_check_members() {
	local name=$1 v="$WORK/$1.members"

	gt_run "$name" | "$GNUTAR" -tv -f - >"$v" 2>"$v.err"
	check "$name: GNU tar lists the archive without complaint" \
		test ! -s "$v.err"
	expect_eq "$name: members listed" "$(wc -l <"$v")" \
		"$(gt_summary "$name" members)"
	expect_eq "$name: regular file members" "$(grep -c '^-' "$v")" \
		$(($(gt_summary "$name" files) + $(gt_summary "$name" repeats)))
	expect_eq "$name: directory members" "$(grep -c '^d' "$v")" \
		"$(gt_summary "$name" dirs)"
	expect_eq "$name: hard link members" "$(grep -c '^h' "$v")" \
		"$(gt_summary "$name" links)"
	rm -f "$v"
}

# gt_check_image NAME [TAR2SQFS OPTIONS...]: the image tar2sqfs makes of
# the stream, against GNU tar's view (tar_view) and GNU tar's extraction
# (in GT_X): the round trip through sqfs2tar (its listing, and its
# members' bytes against the extracted files), and the kernel's mount
# (every attribute and link count, and with GT_KERNEL_DATA=1, the
# default, every file's bytes: ~80 us a file, the kernel's cost of a
# cold open and read).
gt_check_image() {
	local name=$1 img=$WORK/$1.sqfs d=$WORK/$1.d x=$GT_X/$1 nodm=
	shift
	[ "$(gt_summary "$name" repeats)$(gt_summary "$name" implicit_dirs)" \
		= 00 ] || nodm=no-dir-mtime
	mkdir -p "$d"
	gt_run "$name" | tar_view "$d/tar.view" ||
		hard_error "$name: GNU tar cannot list: $(cat "$d/tar.view.err")"
	gt_extract "$name" "$x" ||
		hard_error "$name: GNU tar cannot extract: $(head -5 "$WORK/gnutar.err")"
	tree_view "$x" "$d/x.view"
	check "$name: GNU tar's extraction matches its listing" \
		same_view "$d/tar.view" "$d/x.view" $nodm

	if [ "${GT_TIME:-0}" = 1 ] && [ -x /usr/bin/time ]; then
		gt_run "$name" | /usr/bin/time -f '%e %M' -o "$d/t2s.time" \
			"$TAR2SQFS" -q "$@" "$img" >"$d/t2s.out" 2>&1
		RC=$?
		echo "note: $name: tar2sqfs $*: $(awk '{ printf "%s s, peak RSS %d KB", $1, $2 }' "$d/t2s.time"), $(file_size "$img") bytes"
	else
		gt_run "$name" | "$TAR2SQFS" -q "$@" "$img" >"$d/t2s.out" 2>&1
		RC=$?
	fi
	if [ "$RC" != 0 ]; then
		fail "$name: tar2sqfs exit status $RC: $(tail -5 "$d/t2s.out")"
		rm -rf "$x"
		return
	fi
	pass "$name: tar2sqfs packs the stream"
	# one inode per entry but hard links, and the root
	expect_eq "$name: inodes in the image (unsquashfs -s)" \
		"$(sb_field "$img" "Number of inodes")" \
		$(($(gt_summary "$name" entries) - $(gt_summary "$name" links) + 1))
	expect_eq "$name: implicit directories in GNU tar's view" \
		"$(awk -F'\t' '$2 == "d*"' "$d/tar.view" | wc -l)" \
		"$(gt_summary "$name" implicit_dirs)"

	# the round trip: sqfs2tar's archive of the image, read by GNU tar
	if "$SQFS2TAR" "$img" 2>"$d/s2t.err" | tar_view "$d/s2t.view" &&
		[ ! -s "$d/s2t.err" ]; then
		check "$name: sqfs2tar's archive of the image is GNU tar's view" \
			same_view "$d/tar.view" "$d/s2t.view"
		# its regular members' bytes, in its order, and the same
		# files of the extraction
		expect_eq "$name: sqfs2tar's archive: file contents" \
			"$("$SQFS2TAR" "$img" 2>/dev/null | "$GNUTAR" -xO -f - |
				sha256sum | cut -d' ' -f1)" \
			"$(digest "$x" "$d/s2t.view.order")"
	else
		fail "$name: sqfs2tar | tar -t: $(cat "$d/s2t.err" \
			"$d/s2t.view.err" | head -5)"
	fi
	rm -f "$d/s2t.view"*

	if can_mount; then
		if mount_image "$img" "$d/mnt" 2>"$d/mount.err"; then
			tree_view "$d/mnt" "$d/mnt.view"
			check "$name: kernel mount of the image is GNU tar's view" \
				same_view "$d/tar.view" "$d/mnt.view"
			check "$name: kernel mount and GNU tar's extraction" \
				same_view "$d/x.view" "$d/mnt.view" no-dir-mtime
			[ "${GT_KERNEL_DATA:-1}" = 0 ] ||
				expect_eq "$name: kernel mount: file contents" \
					"$(digest "$d/mnt" "$d/tar.view.order")" \
					"$(digest "$x" "$d/tar.view.order")"
			umount_image "$d/mnt"
		else
			fail "$name: the kernel refuses the image: $(cat "$d/mount.err")"
		fi
	fi
	rm -rf "$x"
}
