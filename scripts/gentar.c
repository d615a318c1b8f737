/* SPDX-License-Identifier: MIT */
/*
 * gentar.c - stream a tar archive of N tiny files to standard output, for
 * the scale tests (tests/integration/gentar.sh, tests/slow/scale.sh) and
 * the scale benchmark (scripts/benchmark-scale.sh), issue 24.
 *
 * Why a program: an archive of 10^8 entries is ~100 GB. Written to disk it
 * would measure the disk, not the packer, and a Python generator makes
 * ~50,000 entries a second where the packer takes several times that. This
 * one writes over a million entries a second into a pipe and holds no more
 * than a few fixed tables and the current directory path: its memory does
 * not depend on N, so whatever grows with N in a run is the reader's.
 *
 * What the stream holds (POSIX ustar; a pax 'x' header with path= or
 * linkpath= before an entry whose name does not fit the 100 bytes of name
 * plus the 155 of prefix, or whose link target does not fit 100 bytes):
 *
 *  - N entries (distinct paths: directories, regular files, hard links),
 *    the root not counted and not written; paths without a "./" prefix,
 *    directories with a trailing '/'.
 *  - A tree like a package mirror's: each directory has about --fanout
 *    children (F/2 to 3F/2), of which some are subdirectories sharing the
 *    rest of its budget unevenly, so that some subtrees go deep (up to 6
 *    directory levels) and most stay shallow. A few leaves are empty
 *    directories.
 *  - Huge flat directories "big-NNNN" under the root (--big-dir), holding
 *    only files and links: the case of a cache or maildir with 10^6
 *    entries, which a directory writer must handle without holding a
 *    listing per entry in memory twice.
 *  - Regular files of 0 to --max-size bytes (1 in 32 empty), half of them
 *    text from a small vocabulary (compressible), half pseudo-random bytes
 *    (not); --dup percent of them repeat an earlier file's content (size
 *    and bytes) for deduplication to find.
 *  - --links percent of the leaves are hard links ('1') to an earlier
 *    regular file, chosen uniformly among all earlier ones (reservoir
 *    sampling over 1024 slots): the target may be millions of entries
 *    back, so a packer must keep what it needs to resolve it.
 *  - Modes 0644, 0600 or 0755 for files, 0755 for directories; owners
 *    from a few small uids and gids (0, 33, 100, 1000, 1001, 65534);
 *    mtimes within a year after a base that depends on --seed; a hard
 *    link's header repeats its target's attributes, as GNU tar's do. No
 *    user or group names (owners are numeric whatever /etc/passwd says).
 *  - Names from a vocabulary of package names and extensions, each with
 *    the child's number, so names never repeat in a directory; 1 in 500
 *    is 100 to 200 bytes long (a long name, and now and then a path over
 *    255 bytes, both through pax). --names unicode mixes in names with
 *    accents (as NFC and as NFD: pairs that look alike but differ in
 *    bytes, side by side in one directory), Hangul, CJK, Greek, Cyrillic,
 *    Arabic and emoji (with ZWJ sequences and flags). Always valid UTF-8,
 *    never '/' or NUL, at most 255 bytes a name.
 *  - --order tar: every directory before its contents, depth first, as
 *    GNU tar writes a tree. --order shuffled: the same entries through a
 *    4096-entry window from which a pseudo-random one is written next, so
 *    entries move up to a few thousand places and directories often come
 *    after some of their contents; 1 in 16 directories that have contents
 *    is left out (an implicit parent); 1 in 256 regular files is written
 *    again a while later with other contents, mode and mtime (the later
 *    entry replaces the earlier, as in tar extraction). Hard links and
 *    repeats only refer to entries already written, so GNU tar can
 *    extract the stream, and no repeated file is ever a link target.
 *  - Two zero blocks at the end, padded to a 10240-byte record.
 *
 * The same options (with --seed) give the same bytes on every machine.
 * Memory: fixed tables (reservoir, window, repeat queue) and one frame per
 * directory level, never anything per entry.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BLOCK 512
#define RECORD 10240
/* directory levels below the root; a directory at this depth holds leaves */
#define MAX_DEPTH 6
/* paths: at most MAX_DEPTH + 1 names of at most 255 bytes and slashes */
#define PATH_CAP 2048
#define RESERVOIR 1024
#define WINDOW 4096
#define REPEAT_QUEUE 1024
/* N is capped so that products of two counts fit 64 bits */
#define MAX_ENTRIES 4000000000ULL
#define MAX_FILE_SIZE 077777777777ULL

/* ------------------------------------------------------------ options */

struct options {
	uint64_t n;
	uint64_t seed;
	uint64_t big_dir;
	uint64_t big_count;
	bool big_set;
	bool big_count_set;
	uint64_t fanout;
	uint32_t dup_ppm;
	uint32_t links_ppm;
	uint64_t max_size;
	bool unicode;
	bool shuffled;
	bool summary;
};

static struct options opt = {
    .n = 1000000,
    .seed = 1,
    .fanout = 1000,
    .dup_ppm = 100000,
    .links_ppm = 10000,
    .max_size = 200,
};

/* ------------------------------------------------------------ randomness */

static uint64_t mix(uint64_t x)
{
	/* the splitmix64 finaliser: every input bit reaches every output bit */
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

struct rng {
	uint64_t s;
};

static uint64_t next(struct rng *r)
{
	r->s += 0x9e3779b97f4a7c15ULL;
	return mix(r->s);
}

/* modulo bias is below 2^-30 for the ranges used here */
static uint64_t below(struct rng *r, uint64_t n)
{
	return n ? next(r) % n : 0;
}

static bool chance(struct rng *r, uint32_t ppm)
{
	return next(r) % 1000000 < ppm;
}

/* generation (the tree, names, attributes) and the shuffling draw from
 * separate streams: --order keeps the tree's shape and names (which earlier
 * file a link or duplicate refers to depends on what has been written) */
static struct rng gen_rng, shuf_rng;
static uint64_t name_key, content_key, mtime_base;

/* ------------------------------------------------------------ output */

static unsigned char obuf[1 << 20];
static size_t olen;

static struct {
	uint64_t entries, members, dirs, implicit, files, links, repeats, dups,
	    empty_files, empty_dirs, big_dirs, big_entries, pax, content,
	    stream;
	int depth;
} st;

static void flush_out(void)
{
	size_t done = 0;

	while (done < olen) {
		ssize_t w = write(STDOUT_FILENO, obuf + done, olen - done);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			perror("gentar: writing standard output");
			exit(1);
		}
		done += (size_t)w;
	}
	st.stream += olen;
	olen = 0;
}

/* room for n bytes (n <= sizeof(obuf)) at the end of the buffer */
static unsigned char *reserve(size_t n)
{
	if (olen + n > sizeof(obuf))
		flush_out();
	return obuf + olen;
}

/* ------------------------------------------------------------ tar headers */

static void octal(char *dst, size_t width, uint64_t v)
{
	/* width - 1 digits, zero padded, then NUL */
	dst[width - 1] = '\0';
	for (size_t i = width - 1; i-- > 0;) {
		dst[i] = (char)('0' + (v & 7));
		v >>= 3;
	}
}

struct entry {
	char *path; /* directories end in '/' */
	size_t len;
	char *link; /* hard links: the target */
	size_t link_len;
	char type; /* '0', '1', '5' */
	uint32_t mode, uid, gid;
	uint64_t mtime;
	uint64_t cid; /* regular files: what the content derives from */
	bool has_children;
};

static void put_header(const char *name, size_t name_len, const char *prefix,
		       size_t prefix_len, const char *link, size_t link_len,
		       char type, uint32_t mode, uint32_t uid, uint32_t gid,
		       uint64_t size, uint64_t mtime)
{
	char *h = (char *)reserve(BLOCK);
	unsigned sum = 0;

	memset(h, 0, BLOCK);
	memcpy(h, name, name_len);
	octal(h + 100, 8, mode);
	octal(h + 108, 8, uid);
	octal(h + 116, 8, gid);
	octal(h + 124, 12, size);
	octal(h + 136, 12, mtime);
	memset(h + 148, ' ', 8);
	h[156] = type;
	if (link_len)
		memcpy(h + 157, link, link_len);
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	if (prefix_len)
		memcpy(h + 345, prefix, prefix_len);
	for (size_t i = 0; i < BLOCK; i++)
		sum += (unsigned char)h[i];
	octal(h + 148, 7, sum);
	h[155] = ' ';
	olen += BLOCK;
}

static size_t digits(size_t v)
{
	size_t n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* bytes of a pax record "LEN key=value\n", LEN counting its own digits */
static size_t pax_record_len(size_t key_len, size_t value_len)
{
	size_t base = key_len + value_len + 3, len = base + 1;

	while (base + digits(len) != len)
		len = base + digits(len);
	return len;
}

static size_t put_pax_record(char *dst, const char *key, const char *value,
			     size_t value_len)
{
	size_t key_len = strlen(key), len = pax_record_len(key_len, value_len);
	int n = sprintf(dst, "%zu %s=", len, key);

	memcpy(dst + n, value, value_len);
	dst[len - 1] = '\n';
	return len;
}

/* the end of the last whole UTF-8 character within the first max bytes */
static size_t utf8_cut(const char *s, size_t len, size_t max)
{
	if (len <= max)
		return len;
	while (max > 0 && ((unsigned char)s[max] & 0xc0) == 0x80)
		max--;
	return max;
}

static uint64_t content_size(uint64_t cid);
static void put_data(uint64_t cid);

static void write_entry(const struct entry *e)
{
	const char *name = e->path, *prefix = "";
	size_t name_len = e->len, prefix_len = 0;
	bool pax_path = false, pax_link = e->link_len > 100;
	uint64_t size = e->type == '0' ? content_size(e->cid) : 0;

	if (e->len > 100) {
		/* ustar's split: a prefix ending at a '/' (not the trailing
		 * one of a directory), the rest in name */
		size_t i = e->len - 101; /* the rest must fit 100 bytes */
		while (i < e->len - 1 && i <= 155 && e->path[i] != '/')
			i++;
		if (i < e->len - 1 && i <= 155 && i > 0) {
			prefix = e->path;
			prefix_len = i;
			name = e->path + i + 1;
			name_len = e->len - i - 1;
		} else {
			pax_path = true;
		}
	}
	if (pax_path || pax_link) {
		char rec[2 * PATH_CAP + 64], xname[48];
		size_t rlen = 0;

		if (pax_path)
			rlen += put_pax_record(rec, "path", e->path, e->len);
		if (pax_link)
			rlen += put_pax_record(rec + rlen, "linkpath", e->link,
					       e->link_len);
		int xl = snprintf(xname, sizeof(xname), "PaxHeaders/%" PRIu64,
				  st.members);
		put_header(xname, (size_t)xl, "", 0, "", 0, 'x', 0644, 0, 0,
			   rlen, e->mtime);
		for (size_t off = 0; off < rlen; off += BLOCK) {
			unsigned char *d = reserve(BLOCK);
			size_t n = rlen - off < BLOCK ? rlen - off : BLOCK;

			memcpy(d, rec + off, n);
			memset(d + n, 0, BLOCK - n);
			olen += BLOCK;
		}
		st.pax++;
		if (pax_path) {
			/* what a reader without pax gets: the start of the
			 * path, cut at a character */
			name_len = utf8_cut(e->path, e->len, 100);
			name = e->path;
			prefix_len = 0;
		}
	}
	put_header(name, name_len, prefix, prefix_len, e->link,
		   pax_link ? utf8_cut(e->link, e->link_len, 100) : e->link_len,
		   e->type, e->mode, e->uid, e->gid, size, e->mtime);
	st.members++;
	if (e->type == '0')
		put_data(e->cid);
}

/* ------------------------------------------------------------ contents */

static const char *const words[] = {
    "libc6",	 "python3", "openssl",	   "zlib1g",  "gcc-12",	 "perl",
    "ruby",	 "nodejs",  "rustc",	   "git",     "vim",	 "bash",
    "coreutils", "systemd", "linux-image", "xserver", "mesa",	 "glib2.0",
    "gtk3",	 "qtbase",  "boost",	   "curl",    "sqlite3", "postgresql",
    "nginx",	 "apache2", "lua5.4",	   "golang",  "openjdk", "icu",
    "libxml2",	 "tzdata",
};
#define NWORDS (sizeof(words) / sizeof(words[0]))

static const char *const exts[] = {
    "",	     ".deb", ".txt", ".h",    ".c",   ".py", ".so.1", ".conf",
    ".json", ".md",  ".gz",  ".html", ".png", ".po", ".1",    ".list",
};
#define NEXTS (sizeof(exts) / sizeof(exts[0]))

static uint64_t content_size(uint64_t cid)
{
	uint64_t h = mix(content_key ^ mix(cid));

	if (opt.max_size == 0 || h % 32 == 0)
		return 0;
	return 1 + (h >> 8) % opt.max_size;
}

/* the file's bytes (their size: content_size) and the padding of its last
 * block; the bytes depend on cid alone, so a duplicate is a copy */
static void put_data(uint64_t cid)
{
	uint64_t h = mix(content_key ^ mix(cid)), size = content_size(cid);
	struct rng r = {h};
	bool text = (h >> 40) & 1;
	uint64_t left = size;

	st.content += size;
	while (left > 0) {
		size_t chunk =
		    left > sizeof(obuf) / 2 ? sizeof(obuf) / 2 : (size_t)left;
		size_t padded = (chunk + BLOCK - 1) / BLOCK * BLOCK;
		unsigned char *d = reserve(padded);
		size_t i = 0;

		if (text) {
			while (i < chunk) {
				uint64_t v = next(&r);
				const char *w = words[v % NWORDS];
				size_t wl = strlen(w);

				if (wl > chunk - i)
					wl = chunk - i;
				memcpy(d + i, w, wl);
				i += wl;
				if (i < chunk)
					d[i++] = (v >> 32) % 8 ? ' ' : '\n';
			}
		} else {
			/* little-endian whatever the machine: the same bytes */
			for (uint64_t v = 0; i < chunk; i++, v >>= 8) {
				if (i % 8 == 0)
					v = next(&r);
				d[i] = (unsigned char)v;
			}
		}
		memset(d + chunk, 0, padded - chunk);
		olen += padded;
		left -= chunk;
	}
}

/* ------------------------------------------------------------ names */

struct ufrag {
	const char *nfc;
	const char *nfd; /* NULL: the same bytes in both forms */
};

static const struct ufrag ufrags[] = {
    {"caf\xc3\xa9", "cafe\xcc\x81"},			    /* café */
    {"\xc3\x85ngstr\xc3\xb6m", "A\xcc\x8angstro\xcc\x88m"}, /* Ångström */
    {"na\xc3\xafve", "nai\xcc\x88ve"},			    /* naïve */
    {"r\xc3\xa9sum\xc3\xa9", "re\xcc\x81sume\xcc\x81"},	    /* résumé */
    {"Z\xc3\xbcrich", "Zu\xcc\x88rich"},		    /* Zürich */
    {"\xed\x95\x9c\xea\xb5\xad\xec\x96\xb4",
     "\xe1\x84\x92\xe1\x85\xa1\xe1\x86\xab\xe1\x84\x80\xe1\x85\xae\xe1"
     "\x86"
     "\xa8\xe1\x84\x8b\xe1\x85\xa5"}, /* 한국어 */
    {"cr\xc3\xa8me-br\xc3\xbbl\xc3\xa9"
     "e",
     "cre\xcc\x80me-bru\xcc\x82le\xcc\x81"
     "e"}, /* crème-brûlée */
    {"\xe1\xbc\x88\xce\xb8\xe1\xbf\x86\xce\xbd\xce\xb1\xce\xb9",
     "\xce\x91\xcc\x93\xce\xb8\xce\xb7\xcd\x82\xce\xbd\xce\xb1\xce"
     "\xb9"},			     /* Ἀθῆναι
				      */
    {"ni\xc3\xb1o", "nin\xcc\x83o"}, /* niño */
    {"\xd1\x84\xd0\xb0\xd0\xb9\xd0\xbb",
     "\xd1\x84\xd0\xb0\xd0\xb8\xcc\x86\xd0\xbb"}, /* файл */
    {"\xce\xb1\xcf\x81\xcf\x87\xce\xb5\xce\xaf\xce\xbf",
     "\xce\xb1\xcf\x81\xcf\x87\xce\xb5\xce\xb9\xcc\x81\xce\xbf"}, /* αρχείο
								   */
    {"\xe6\x96\x87\xe4\xbb\xb6", NULL},				  /* 文件 */
    {"\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", NULL}, /* 日本語 */
    {"\xe6\x95\xb0\xe6\x8d\xae", NULL},		    /* 数据 */
    {"\xf0\x9f\x98\x80", NULL},			    /* 😀 */
    {"\xf0\x9f\x9a\x80", NULL},			    /* 🚀 */
    {"\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f"
     "\x91"
     "\xa7",
     NULL},				/* 👨‍👩‍👧 */
    {"\xd9\x85\xd9\x84\xd9\x81", NULL}, /* ملف */
    {"stra\xc3\x9f"
     "e",
     NULL},							/* straße */
    {"\xf0\x9f\x87\xa9\xf0\x9f\x87\xaa", NULL},			/* 🇩🇪 */
    {"\xef\xbd\x86\xef\xbd\x95\xef\xbd\x8c\xef\xbd\x8c", NULL}, /* ｆｕｌｌ */
};
#define NUFRAGS (sizeof(ufrags) / sizeof(ufrags[0]))

/* one piece of a name: a word, or in unicode mode mostly a fragment in the
 * form nfd selects; sets *decomposed when the forms differ */
static size_t put_frag(char *dst, uint64_t h, bool nfd, bool *decomposed)
{
	const char *s;

	if (opt.unicode && h % 4 != 0) {
		const struct ufrag *f = &ufrags[(h >> 2) % NUFRAGS];

		s = f->nfc;
		if (f->nfd != NULL) {
			*decomposed = true;
			if (nfd)
				s = f->nfd;
		}
	} else {
		s = words[(h >> 2) % NWORDS];
	}
	size_t len = strlen(s);
	memcpy(dst, s, len);
	return len;
}

/* the name of child j of directory id (no '/', at most 255 bytes). Names
 * are STEM "_" NUMBER [MARK] [EXT]: stems hold no '_' and extensions start
 * with '.', so the number keeps names of one directory apart. In unicode
 * mode children 2m and 2m+1 share stem, number and extension, one in NFC
 * and one in NFD; where both forms are the same bytes, 2m+1 gets a '~'. */
static size_t child_name(char *dst, uint64_t id, uint64_t j, bool dir)
{
	uint64_t m = opt.unicode ? j >> 1 : j;
	uint64_t h = mix(name_key ^ mix(id * 0x100000001b3ULL + m));
	uint64_t h2 = mix(h);
	bool nfd = opt.unicode && (j & 1), decomposed = false;
	size_t len = put_frag(dst, h >> 8, nfd, &decomposed);
	size_t stem = len;

	if ((h >> 4) & 1) {
		dst[len++] = '-';
		len += put_frag(dst + len, h >> 24, nfd, &decomposed);
		stem = len;
	}
	if (h2 % 500 == 0) {
		/* a long name: the stem again until 100..170 bytes */
		size_t want = 100 + (h2 >> 16) % 71;

		while (len < want && len + 1 + stem <= 200) {
			dst[len++] = '-';
			memmove(dst + len, dst, stem);
			len += stem;
		}
	}
	len += (size_t)sprintf(dst + len, "_%" PRIu64, m);
	if (opt.unicode && (j & 1) && !decomposed)
		dst[len++] = '~';
	if (!dir) {
		const char *x = exts[(h2 >> 32) % NEXTS];
		size_t xl = strlen(x);

		memcpy(dst + len, x, xl);
		len += xl;
	}
	return len;
}

/* ------------------------------------------------------------ attributes */

static const uint32_t uids[] = {0, 0, 0, 0, 1000, 1000, 1001, 33, 100, 65534};
static const uint32_t gids[] = {0, 0, 0, 0, 1000, 1000, 1001, 33, 100, 65534};

static void attributes(struct entry *e, struct rng *r)
{
	uint64_t v = next(r);

	e->uid = uids[v % 10];
	e->gid = (v >> 8) % 4 ? e->uid : gids[(v >> 12) % 10];
	e->mtime = mtime_base + (v >> 20) % 31536000;
	if (e->type == '5') {
		e->mode = 0755;
	} else {
		unsigned m = (v >> 56) % 10;
		e->mode = m < 7 ? 0644 : m < 8 ? 0600 : 0755;
	}
}

/* ------------------------------------------------------------ links */

/* earlier regular files (Algorithm R): uniform over all written so far;
 * with their attributes, which a link's header repeats as GNU tar's do */
static struct {
	char *path;
	size_t len, cap;
	uint64_t cid, mtime;
	uint32_t mode, uid, gid;
} res[RESERVOIR];
static uint64_t res_seen;
static struct rng res_rng;

static void copy_str(char **dst, size_t *cap, const char *src, size_t len)
{
	if (*cap < len + 1) {
		*cap = len + 1 < 64 ? 64 : len + 1;
		free(*dst);
		*dst = malloc(*cap);
		if (*dst == NULL) {
			fputs("gentar: out of memory\n", stderr);
			exit(1);
		}
	}
	memcpy(*dst, src, len);
	(*dst)[len] = '\0';
}

static void reservoir_add(const struct entry *e)
{
	uint64_t slot =
	    res_seen < RESERVOIR ? res_seen : below(&res_rng, res_seen + 1);

	res_seen++;
	if (slot < RESERVOIR) {
		copy_str(&res[slot].path, &res[slot].cap, e->path, e->len);
		res[slot].len = e->len;
		res[slot].cid = e->cid;
		res[slot].mtime = e->mtime;
		res[slot].mode = e->mode;
		res[slot].uid = e->uid;
		res[slot].gid = e->gid;
	}
}

static uint64_t reservoir_fill(void)
{
	return res_seen < RESERVOIR ? res_seen : RESERVOIR;
}

/* ------------------------------------------------------------ repeats */

/* files to write again (shuffled order), in the order they are due */
static struct {
	char *path;
	size_t len, cap;
	uint64_t due;
} rq[REPEAT_QUEUE];
static size_t rq_head, rq_count;
static uint64_t rq_last_due, repeat_cid = 1ULL << 62;

static void emit(const struct entry *e);

static void repeats_due(bool all)
{
	while (rq_count > 0 && (all || rq[rq_head].due <= st.members)) {
		struct entry e = {
		    .path = rq[rq_head].path,
		    .len = rq[rq_head].len,
		    .link = (char *)"",
		    .type = '0',
		    .cid = repeat_cid++,
		};

		/* from the shuffling's stream: the tree stays the same */
		attributes(&e, &shuf_rng);
		rq_head = (rq_head + 1) % REPEAT_QUEUE;
		rq_count--;
		st.repeats++;
		write_entry(&e);
	}
}

/* an entry leaves for the archive; what later entries may refer to is
 * recorded only now, so that they come after it */
static void emit(const struct entry *e)
{
	write_entry(e);
	if (e->type == '0') {
		if (opt.shuffled && rq_count < REPEAT_QUEUE &&
		    chance(&shuf_rng, 1000000 / 256)) {
			size_t t = (rq_head + rq_count) % REPEAT_QUEUE;
			uint64_t due =
			    st.members + 1 + below(&shuf_rng, 2 * WINDOW);

			if (due < rq_last_due)
				due = rq_last_due;
			rq_last_due = due;
			copy_str(&rq[t].path, &rq[t].cap, e->path, e->len);
			rq[t].len = e->len;
			rq[t].due = due;
			rq_count++;
		} else {
			reservoir_add(e);
		}
	}
	if (opt.shuffled)
		repeats_due(false);
}

/* ------------------------------------------------------------ window */

static struct slot {
	struct entry e;
	size_t cap, link_cap;
} win[WINDOW];
static size_t win_count;

static void submit(const struct entry *e)
{
	struct slot *s;

	if (!opt.shuffled) {
		emit(e);
		return;
	}
	if (e->type == '5' && e->has_children &&
	    chance(&shuf_rng, 1000000 / 16)) {
		st.implicit++;
		st.dirs--;
		return;
	}
	if (win_count < WINDOW) {
		s = &win[win_count++];
	} else {
		s = &win[below(&shuf_rng, WINDOW)];
		emit(&s->e);
	}
	char *p = s->e.path, *l = s->e.link;
	s->e = *e;
	s->e.path = p;
	s->e.link = l;
	copy_str(&s->e.path, &s->cap, e->path, e->len);
	copy_str(&s->e.link, &s->link_cap, e->link, e->link_len);
}

static void drain(void)
{
	while (win_count > 0) {
		size_t i = (size_t)below(&shuf_rng, win_count);
		struct slot tmp;

		emit(&win[i].e);
		/* the last slot fills the hole (slots own their buffers) */
		win_count--;
		tmp = win[i];
		win[i] = win[win_count];
		win[win_count] = tmp;
	}
	repeats_due(true);
}

/* ------------------------------------------------------------ the tree */

struct frame {
	size_t plen; /* bytes of the path up to and with this dir's '/' */
	uint64_t id;
	uint64_t c;	 /* ordinary children */
	uint64_t k;	 /* of which subdirectories */
	uint64_t j;	 /* next child (big directories included) */
	uint64_t e_left; /* budget left for the subdirectories */
	uint64_t k_left; /* subdirectories left */
	int depth;
	bool big;
};

/* the most entries a directory at depth d may hold below it, so that no
 * directory beyond MAX_DEPTH is needed: one at MAX_DEPTH holds leaves only */
static uint64_t cap[MAX_DEPTH + 2];
static uint64_t fan_min;
static uint64_t next_id, next_cid;
static char path[PATH_CAP];

static void init_caps(void)
{
	fan_min = opt.fanout / 2 ? opt.fanout / 2 : 1;
	cap[MAX_DEPTH + 1] = 0;
	for (int d = MAX_DEPTH; d >= 0; d--) {
		uint64_t c = cap[d + 1];

		/* fan_min * (1 + c), saturating */
		cap[d] = c >= MAX_ENTRIES		   ? MAX_ENTRIES
			 : fan_min * (1 + c) > MAX_ENTRIES ? MAX_ENTRIES
							   : fan_min * (1 + c);
	}
}

/* how an ordinary directory at depth d shares out a budget of b entries */
static void init_dir(struct frame *f, uint64_t b, int d)
{
	f->id = next_id++;
	f->j = 0;
	f->depth = d;
	f->big = false;
	f->c = f->k = f->e_left = f->k_left = 0;
	if (d > st.depth)
		st.depth = d;
	if (b == 0)
		return;

	uint64_t draw = fan_min + below(&gen_rng, opt.fanout + 1);
	uint64_t c = draw < b ? draw : b;
	/* enough children that the rest fits the subdirectories' caps */
	uint64_t need = (b + cap[d + 1]) / (1 + cap[d + 1]);

	if (c < need)
		c = need;
	uint64_t e = b - c, k = 0;
	if (e > 0) {
		/* wanted budget per subdirectory: from F/2 to 2^11 F/2, so
		 * some subtrees are deep and most shallow */
		uint64_t target = fan_min << below(&gen_rng, 12);
		uint64_t kmin = (e + cap[d + 1] - 1) / cap[d + 1];

		k = (e + target - 1) / target;
		if (k < kmin)
			k = kmin;
		if (k > c)
			k = c;
	}
	f->c = c;
	f->k = f->k_left = k;
	f->e_left = e;
}

static uint64_t share(struct frame *f)
{
	uint64_t capn = cap[f->depth + 1], e = f->e_left, k = f->k_left, b;

	if (k == 1) {
		b = e;
	} else {
		uint64_t avg = e / k, lo = 0, hi = e < capn ? e : capn;

		b = avg / 2 + below(&gen_rng, avg + 1);
		if (e > (k - 1) * capn)
			lo = e - (k - 1) * capn;
		if (b < lo)
			b = lo;
		if (b > hi)
			b = hi;
	}
	f->e_left -= b;
	f->k_left--;
	return b;
}

static void put_dir(size_t len, bool has_children)
{
	struct entry e = {
	    .path = path, .len = len, .link = (char *)"", .type = '5'};

	e.has_children = has_children;
	attributes(&e, &gen_rng);
	st.dirs++;
	st.entries++;
	submit(&e);
}

static void put_leaf(const struct frame *f, size_t len)
{
	struct entry e = {.path = path, .len = len, .link = (char *)""};
	uint64_t fill = reservoir_fill();

	st.entries++;
	if (f->big)
		st.big_entries++;
	if (!f->big && chance(&gen_rng, 5000)) {
		/* an empty directory */
		path[len] = '/';
		e.len = len + 1;
		e.type = '5';
		attributes(&e, &gen_rng);
		st.dirs++;
		st.empty_dirs++;
		submit(&e);
		return;
	}
	/* the same draws whatever the reservoir holds, so that the tree's
	 * shape and names do not depend on --order */
	bool link = chance(&gen_rng, opt.links_ppm);
	bool dup = chance(&gen_rng, opt.dup_ppm);
	uint64_t pick = next(&gen_rng);

	if (fill > 0 && link) {
		uint64_t i = pick % fill;

		e.type = '1';
		e.link = res[i].path;
		e.link_len = res[i].len;
		attributes(&e, &gen_rng);
		e.mode = res[i].mode;
		e.uid = res[i].uid;
		e.gid = res[i].gid;
		e.mtime = res[i].mtime;
		st.links++;
		submit(&e);
		return;
	}
	e.type = '0';
	if (fill > 0 && dup) {
		e.cid = res[pick % fill].cid;
		st.dups++;
	} else {
		e.cid = next_cid++;
	}
	if (content_size(e.cid) == 0)
		st.empty_files++;
	attributes(&e, &gen_rng);
	st.files++;
	submit(&e);
}

static uint64_t big_pos(uint64_t i, uint64_t total, uint64_t nbig)
{
	return (i + 1) * total / (nbig + 1);
}

static void generate(void)
{
	static struct frame stack[MAX_DEPTH + 2];
	uint64_t nbig = opt.big_count, m = opt.big_dir, big_i = 0;
	uint64_t normal = opt.n - nbig * (m + 1);
	int sp = 1;

	init_caps();
	init_dir(&stack[0], normal, 0);
	stack[0].plen = 0;

	while (sp > 0) {
		struct frame *f = &stack[sp - 1];
		bool root = sp == 1;
		uint64_t total = f->c + (root ? nbig : 0);

		if (f->j >= total) {
			sp--;
			continue;
		}
		uint64_t j = f->j++;
		size_t len = f->plen;

		if (root && big_i < nbig && j == big_pos(big_i, total, nbig)) {
			struct frame *nf = &stack[sp++];

			len += (size_t)sprintf(path + len, "big-%04" PRIu64 "/",
					       big_i);
			big_i++;
			st.big_dirs++;
			put_dir(len, m > 0);
			nf->plen = len;
			nf->id = next_id++;
			nf->c = m;
			nf->k = nf->j = nf->e_left = nf->k_left = 0;
			nf->depth = 1;
			nf->big = true;
			continue;
		}
		uint64_t jn = root ? j - big_i : j;
		bool dir =
		    f->k > 0 && (jn + 1) * f->k / f->c > jn * f->k / f->c;

		len += child_name(path + len, f->id, jn, dir);
		if (dir) {
			uint64_t b = share(f);
			struct frame *nf = &stack[sp++];

			path[len++] = '/';
			put_dir(len, b > 0);
			init_dir(nf, b, f->depth + 1);
			nf->plen = len;
		} else {
			put_leaf(f, len);
		}
	}
	if (opt.shuffled)
		drain();
}

/* ------------------------------------------------------------ main */

static void usage(FILE *to)
{
	fputs(
	    "Usage: gentar [OPTIONS...] > ARCHIVE\n"
	    "\n"
	    "Write a tar archive (POSIX ustar, pax headers for long names) of\n"
	    "N tiny files in nested directories to standard output, without\n"
	    "a file tree or a file: the same options give the same bytes. For\n"
	    "the scale tests and scripts/benchmark-scale.sh; what the archive\n"
	    "holds is described at the top of scripts/gentar.c.\n"
	    "\n"
	    "Options:\n"
	    "  -n N               Entries (directories, files and hard links;\n"
	    "                     the root not counted). Default: 1000000.\n"
	    "  --seed S           Seed of every choice. Default: 1.\n"
	    "  --big-dir M        Entries of each huge flat directory\n"
	    "                     big-NNNN/ under the root; 0: none.\n"
	    "                     Default: min(10^6, N/4) when N >= 400000,\n"
	    "                     else none.\n"
	    "  --big-count K      How many such directories. Default: one\n"
	    "                     per 10^7 entries, at least one; fewer if\n"
	    "                     they would not fit N.\n"
	    "  --fanout F         Children of an ordinary directory: F/2 to\n"
	    "                     3F/2. Default: 1000.\n"
	    "  --dup PERCENT      Regular files whose content repeats an\n"
	    "                     earlier file's. Default: 10.\n"
	    "  --links PERCENT    Leaves that are hard links to an earlier\n"
	    "                     regular file. Default: 1.\n"
	    "  --max-size B       File sizes from 0 to B bytes (1 in 32\n"
	    "                     empty). Default: 200.\n"
	    "  --names ascii|unicode\n"
	    "                     unicode: also names with accents in NFC\n"
	    "                     and NFD, CJK, Hangul, emoji. Default: "
	    "ascii.\n"
	    "  --order tar|shuffled\n"
	    "                     tar: directories before their contents, as\n"
	    "                     GNU tar writes. shuffled: entries moved up\n"
	    "                     to a few thousand places, some directories\n"
	    "                     left out (implicit), some files written\n"
	    "                     again later (replacing the earlier entry).\n"
	    "                     Default: tar.\n"
	    "  --summary          Print the counts to standard error when\n"
	    "                     done, one 'NAME VALUE' a line.\n"
	    "  -h, --help         Print this help and exit.\n"
	    "\n"
	    "Counts (N, M, K, F, B) take a decimal exponent or a suffix:\n"
	    "1e6, 2.5e7, 10M, 100k, 1G (powers of ten). N is at most 4e9.\n",
	    to);
}

static bool parse_count(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	double v, mult = 1;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno != 0 || !(v >= 0))
		return false;
	switch (*end) {
	case 'k':
	case 'K':
		mult = 1e3;
		end++;
		break;
	case 'M':
		mult = 1e6;
		end++;
		break;
	case 'G':
		mult = 1e9;
		end++;
		break;
	default:
		break;
	}
	v *= mult;
	if (*end != '\0' || !(v <= (double)max) || (double)(uint64_t)v != v)
		return false;
	*out = (uint64_t)v;
	return true;
}

static bool parse_percent(const char *s, uint32_t *ppm)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end != '\0' || errno != 0 || !(v >= 0 && v <= 100))
		return false;
	*ppm = (uint32_t)(v * 10000 + 0.5);
	return true;
}

static void bad(const char *what, const char *arg)
{
	fprintf(stderr, "gentar: bad %s: '%s' (see --help)\n", what, arg);
	exit(2);
}

enum {
	OPT_SEED = 256,
	OPT_BIG_DIR,
	OPT_BIG_COUNT,
	OPT_FANOUT,
	OPT_DUP,
	OPT_LINKS,
	OPT_MAX_SIZE,
	OPT_NAMES,
	OPT_ORDER,
	OPT_SUMMARY,
};

static const struct option long_opts[] = {
    {"seed", required_argument, NULL, OPT_SEED},
    {"big-dir", required_argument, NULL, OPT_BIG_DIR},
    {"big-count", required_argument, NULL, OPT_BIG_COUNT},
    {"fanout", required_argument, NULL, OPT_FANOUT},
    {"dup", required_argument, NULL, OPT_DUP},
    {"links", required_argument, NULL, OPT_LINKS},
    {"max-size", required_argument, NULL, OPT_MAX_SIZE},
    {"names", required_argument, NULL, OPT_NAMES},
    {"order", required_argument, NULL, OPT_ORDER},
    {"summary", no_argument, NULL, OPT_SUMMARY},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static void parse_options(int argc, char **argv)
{
	int c;
	char *end;

	while ((c = getopt_long(argc, argv, "n:h", long_opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (!parse_count(optarg, MAX_ENTRIES, &opt.n))
				bad("entry count", optarg);
			break;
		case OPT_SEED:
			errno = 0;
			opt.seed = strtoull(optarg, &end, 0);
			if (end == optarg || *end != '\0' || errno != 0 ||
			    optarg[0] == '-')
				bad("seed", optarg);
			break;
		case OPT_BIG_DIR:
			if (!parse_count(optarg, MAX_ENTRIES, &opt.big_dir))
				bad("--big-dir", optarg);
			opt.big_set = true;
			break;
		case OPT_BIG_COUNT:
			if (!parse_count(optarg, MAX_ENTRIES, &opt.big_count))
				bad("--big-count", optarg);
			opt.big_count_set = true;
			break;
		case OPT_FANOUT:
			if (!parse_count(optarg, 1000000000, &opt.fanout) ||
			    opt.fanout == 0)
				bad("--fanout", optarg);
			break;
		case OPT_DUP:
			if (!parse_percent(optarg, &opt.dup_ppm))
				bad("--dup", optarg);
			break;
		case OPT_LINKS:
			if (!parse_percent(optarg, &opt.links_ppm))
				bad("--links", optarg);
			break;
		case OPT_MAX_SIZE:
			if (!parse_count(optarg, MAX_FILE_SIZE, &opt.max_size))
				bad("--max-size", optarg);
			break;
		case OPT_NAMES:
			if (strcmp(optarg, "ascii") == 0)
				opt.unicode = false;
			else if (strcmp(optarg, "unicode") == 0)
				opt.unicode = true;
			else
				bad("--names", optarg);
			break;
		case OPT_ORDER:
			if (strcmp(optarg, "tar") == 0)
				opt.shuffled = false;
			else if (strcmp(optarg, "shuffled") == 0)
				opt.shuffled = true;
			else
				bad("--order", optarg);
			break;
		case OPT_SUMMARY:
			opt.summary = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "gentar: unexpected argument '%s'\n",
			argv[optind]);
		exit(2);
	}

	/* the big directories: defaults, then fitted into N */
	if (!opt.big_set)
		opt.big_dir = opt.n >= 400000
				  ? (opt.n / 4 < 1000000 ? opt.n / 4 : 1000000)
				  : 0;
	if (opt.big_dir == 0 || opt.n == 0) {
		opt.big_dir = opt.big_count = 0;
	} else {
		if (!opt.big_count_set)
			opt.big_count = opt.n / 10000000 ? opt.n / 10000000 : 1;
		if (opt.big_dir >= opt.n)
			opt.big_dir = opt.n - 1;
		if (opt.big_count > opt.n / (opt.big_dir + 1))
			opt.big_count = opt.n / (opt.big_dir + 1);
	}
}

static void summary(void)
{
	fprintf(stderr,
		"entries %" PRIu64 "\n"
		"members %" PRIu64 "\n"
		"dirs %" PRIu64 "\n"
		"implicit_dirs %" PRIu64 "\n"
		"empty_dirs %" PRIu64 "\n"
		"files %" PRIu64 "\n"
		"links %" PRIu64 "\n"
		"repeats %" PRIu64 "\n"
		"duplicates %" PRIu64 "\n"
		"empty_files %" PRIu64 "\n"
		"big_dirs %" PRIu64 "\n"
		"big_dir_entries %" PRIu64 "\n"
		"pax_headers %" PRIu64 "\n"
		"max_depth %d\n"
		"content_bytes %" PRIu64 "\n"
		"stream_bytes %" PRIu64 "\n",
		st.entries, st.members, st.dirs, st.implicit, st.empty_dirs,
		st.files, st.links, st.repeats, st.dups, st.empty_files,
		st.big_dirs, st.big_entries, st.pax, st.depth, st.content,
		st.stream);
}

int main(int argc, char **argv)
{
	parse_options(argc, argv);

	gen_rng.s = mix(opt.seed ^ 0x67656e);
	shuf_rng.s = mix(opt.seed ^ 0x73687566);
	res_rng.s = mix(opt.seed ^ 0x726573);
	name_key = mix(opt.seed ^ 0x6e616d65);
	content_key = mix(opt.seed ^ 0x636f6e74);
	mtime_base = 1500000000 + mix(opt.seed) % 200000000;

	generate();

	/* the end: two zero blocks, then zeros to the end of the record */
	uint64_t end = st.stream + olen + 2 * BLOCK;
	size_t pad = 2 * BLOCK + (size_t)((RECORD - end % RECORD) % RECORD);
	while (pad > 0) {
		size_t n = pad < sizeof(obuf) / 2 ? pad : sizeof(obuf) / 2;

		memset(reserve(n), 0, n);
		olen += n;
		pad -= n;
	}
	flush_out();
	if (opt.summary)
		summary();
	return 0;
}
