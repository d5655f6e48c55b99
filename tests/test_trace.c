// SPDX-License-Identifier: GPL-2.0
/*
 * The trace container: round trips, and every way a file can be damaged.
 * A reader must return exactly the records of the complete blocks before
 * the damage, say why it stopped, and never crash.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <CUnit/Basic.h>

#include "lib/record.h"
#include "lib/trace.h"

#define BLOCK 4096u /* small blocks, so a few thousand records span many */
#define NREC  3000u

/* A syscall record whose fields all derive from i, with one string tail. */
static size_t make_rec(unsigned int i, unsigned char *buf)
{
	struct iot_syscall *sc = (void *)buf;
	char path[64];
	size_t off = sizeof(*sc);

	memset(buf, 0, IOT_REC_MAX);
	sc->hdr.ts = 1000000ull + i * 10;
	sc->hdr.pid = 100 + i % 3;
	sc->hdr.tid = 200 + i % 5;
	sc->hdr.seq = i / 5 + 1;
	sc->hdr.type = IOT_REC_SYSCALL;
	sc->nr = 0;
	sc->args[0] = i;
	sc->ret = (int64_t)i * 7;
	sc->dur_ns = i % 100;
	snprintf(path, sizeof(path), "/data/file-%u", i * 2654435761u);
	sc->nstr = 1;
	CU_ASSERT_FATAL(rec__put_str(buf, &off, IOT_REC_MAX, 1, path, strlen(path) + 1));
	sc->hdr.size = off;
	return off;
}

static void check_rec(unsigned int i, const struct iot_hdr *h)
{
	unsigned char want[IOT_REC_MAX];
	size_t n = make_rec(i, want);

	CU_ASSERT_EQUAL_FATAL(h->size, n);
	CU_ASSERT_FATAL(memcmp(h, want, n) == 0);
}

/* Writes NREC records to a memfd; returns the fd, the file size in *len. */
static int write_trace(size_t *len, uint64_t *blocks)
{
	unsigned char buf[IOT_REC_MAX];
	struct trace_writer_stats st;
	struct trace_writer *w;
	int fd = memfd_create("trace", 0);

	CU_ASSERT_FATAL(fd >= 0);
	w = trace_writer__new(fd, BLOCK);
	CU_ASSERT_FATAL(w != NULL);
	for (unsigned int i = 0; i < NREC; i++) {
		make_rec(i, buf);
		CU_ASSERT_FATAL(trace_writer__append(w, (void *)buf) == 0);
	}
	CU_ASSERT_FATAL(trace_writer__flush(w) == 0);
	trace_writer__stats(w, &st);
	CU_ASSERT_EQUAL(st.records, NREC);
	*blocks = st.blocks;
	CU_ASSERT_FATAL(trace_writer__free(w) == 0);
	*len = lseek(fd, 0, SEEK_END);
	CU_ASSERT_EQUAL(*len, st.file_bytes);
	return fd;
}

static void *map_fd(int fd, size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);

	CU_ASSERT_FATAL(p != MAP_FAILED);
	return p;
}

/* Reads buf; checks every record is the expected one, in order; returns count. */
static unsigned int read_all(const void *buf, size_t len, const char **error)
{
	const struct iot_hdr *h;
	struct trace_reader *r = trace_reader__open_mem(buf, len, NULL);
	unsigned int n = 0;
	int ret;

	CU_ASSERT_FATAL(r != NULL);
	while ((ret = trace_reader__next(r, &h)) == 1)
		check_rec(n++, h);
	CU_ASSERT_EQUAL(ret, 0);
	*error = trace_reader__error(r) ? strdup(trace_reader__error(r)) : NULL;
	trace_reader__free(r);
	return n;
}

/* Offsets of the block headers, found by walking the file's framing. */
static size_t block_offsets(const unsigned char *p, size_t len, size_t *off, unsigned int *nrec,
			    size_t max)
{
	size_t n = 0, o = sizeof(struct trace_file_hdr);

	while (o + sizeof(struct trace_block_hdr) <= len && n < max) {
		struct trace_block_hdr b;

		memcpy(&b, p + o, sizeof(b)); /* blocks are not aligned */
		off[n] = o;
		nrec[n++] = b.nrec;
		o += sizeof(b) + b.comp_len;
	}
	CU_ASSERT_EQUAL(o, len);
	return n;
}

static void test_trace__round_trip(void)
{
	size_t len;
	uint64_t blocks;
	int fd = write_trace(&len, &blocks);
	void *p = map_fd(fd, len);
	const char *error;

	CU_ASSERT(blocks > 10);
	CU_ASSERT_EQUAL(read_all(p, len, &error), NREC);
	CU_ASSERT_PTR_NULL(error);
	munmap(p, len);
	close(fd);
}

/* Cut at every block boundary, one byte either side, and mid-block. */
static void test_trace__truncated_anywhere(void)
{
	size_t len, off[512], cuts[5];
	unsigned int nrec[512];
	uint64_t blocks;
	int fd = write_trace(&len, &blocks);
	unsigned char *p = map_fd(fd, len);
	size_t nb = block_offsets(p, len, off, nrec, 512);
	unsigned int before = 0;

	CU_ASSERT_EQUAL_FATAL(nb, blocks);
	for (size_t b = 0; b < nb; b++) {
		size_t end = b + 1 < nb ? off[b + 1] : len;

		cuts[0] = off[b];				   /* exactly before block b */
		cuts[1] = off[b] + 1;				   /* inside its header */
		cuts[2] = off[b] + sizeof(struct trace_block_hdr); /* header, no data */
		cuts[3] = (off[b] + end) / 2;			   /* mid data */
		cuts[4] = end - 1;				   /* one byte short */
		for (int c = 0; c < 5; c++) {
			const char *error;
			unsigned int got = read_all(p, cuts[c], &error);

			CU_ASSERT_EQUAL(got, before);
			/* a cut exactly on a block boundary is a shorter, clean file */
			if (c == 0) {
				CU_ASSERT_PTR_NULL(error);
			} else {
				CU_ASSERT_PTR_NOT_NULL(error);
			}
			free((void *)error);
		}
		before += nrec[b];
	}
	CU_ASSERT_EQUAL(before, NREC);
	munmap(p, len);
	close(fd);
}

/* A flipped bit in any block stops reading at that block, with an error. */
static void test_trace__bit_flips(void)
{
	size_t len, off[512];
	unsigned int nrec[512];
	uint64_t blocks;
	int fd = write_trace(&len, &blocks);
	unsigned char *p = map_fd(fd, len);
	size_t nb = block_offsets(p, len, off, nrec, 512);
	unsigned int before = 0;

	for (size_t b = 0; b < nb; b++) {
		size_t end = b + 1 < nb ? off[b + 1] : len;
		size_t where[3] = { off[b] + 4, off[b] + 12, (off[b] + 32 + end) / 2 };

		for (int k = 0; k < 3; k++) {
			const char *error;

			p[where[k]] ^= 0x10;
			CU_ASSERT_EQUAL(read_all(p, len, &error), before);
			CU_ASSERT_PTR_NOT_NULL(error);
			free((void *)error);
			p[where[k]] ^= 0x10;
		}
		before += nrec[b];
	}
	munmap(p, len);
	close(fd);
}

static void test_trace__not_a_trace(void)
{
	static const char empty[1];
	unsigned char junk[4096];
	uint32_t version = 0;
	struct trace_file_hdr h;

	errno = 0;
	CU_ASSERT_PTR_NULL(trace_reader__open_mem(empty, 0, NULL));
	CU_ASSERT_EQUAL(errno, EBADMSG);
	srand(7);
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = rand();
	errno = 0;
	CU_ASSERT_PTR_NULL(trace_reader__open_mem(junk, sizeof(junk), NULL));
	CU_ASSERT_EQUAL(errno, EBADMSG);
	/* a header cut short */
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, TRACE_MAGIC, 8);
	h.version = IOT_FORMAT_VERSION;
	h.hdr_size = sizeof(h);
	errno = 0;
	CU_ASSERT_PTR_NULL(trace_reader__open_mem(&h, 12, NULL));
	CU_ASSERT_EQUAL(errno, EBADMSG);
	/* a version from the future is named, not misread */
	h.version = IOT_FORMAT_VERSION + 1;
	errno = 0;
	CU_ASSERT_PTR_NULL(trace_reader__open_mem(&h, sizeof(h), &version));
	CU_ASSERT_EQUAL(errno, EPROTONOSUPPORT);
	CU_ASSERT_EQUAL(version, IOT_FORMAT_VERSION + 1);
}

/* Header flags this build does not know mean blocks it cannot decode. */
static void test_trace__unknown_flags_refused(void)
{
	struct trace_file_hdr h;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, TRACE_MAGIC, 8);
	h.version = IOT_FORMAT_VERSION;
	h.hdr_size = sizeof(h);
	h.flags = 0x80;
	errno = 0;
	CU_ASSERT_PTR_NULL(trace_reader__open_mem(&h, sizeof(h), NULL));
	CU_ASSERT_EQUAL(errno, EBADMSG);
}

/* Re-encodes every zstd block of p as the zlib block an older recorder wrote. */
static unsigned char *to_zlib(const unsigned char *p, size_t len, size_t *out_len)
{
	unsigned char *out = malloc(2 * len + 4096), *raw = malloc(TRACE_BLOCK_MAX);
	size_t o = sizeof(struct trace_file_hdr), n = o;
	struct trace_file_hdr fh;

	CU_ASSERT_FATAL(out && raw);
	memcpy(&fh, p, sizeof(fh));
	CU_ASSERT_EQUAL(fh.flags, TRACE_F_ZSTD);
	fh.flags = 0;
	memcpy(out, &fh, sizeof(fh));
	while (o < len) {
		struct trace_block_hdr b;
		uLongf clen = compressBound(BLOCK);

		memcpy(&b, p + o, sizeof(b));
		CU_ASSERT_FATAL(ZSTD_decompress(raw, b.raw_len, p + o + sizeof(b), b.comp_len) ==
				b.raw_len);
		o += sizeof(b) + b.comp_len;
		CU_ASSERT_FATAL(compress2(out + n + sizeof(b), &clen, raw, b.raw_len, 1) == Z_OK);
		b.comp_len = clen;
		b.crc = crc32(0, out + n + sizeof(b), clen);
		b.hdr_crc = crc32(0, (const Bytef *)&b, offsetof(struct trace_block_hdr, hdr_crc));
		memcpy(out + n, &b, sizeof(b));
		n += sizeof(b) + clen;
	}
	free(raw);
	*out_len = n;
	return out;
}

/* Traces recorded before the switch to zstd keep reading, record for record. */
static void test_trace__zlib_blocks_still_read(void)
{
	const char *error;
	uint64_t blocks;
	size_t len, zlen;
	int fd = write_trace(&len, &blocks);
	unsigned char *p = map_fd(fd, len), *z = to_zlib(p, len, &zlen);

	CU_ASSERT_EQUAL(read_all(z, zlen, &error), NREC);
	CU_ASSERT_PTR_NULL(error);
	free(z);
	munmap(p, len);
	close(fd);
}

/* A header and no blocks (the recorder died at once) is an empty trace. */
static void test_trace__header_only(void)
{
	const struct iot_hdr *h;
	struct trace_reader *r;
	size_t len;
	void *p;
	int fd = memfd_create("trace", 0);

	CU_ASSERT_FATAL(trace_writer__free(trace_writer__new(fd, 0)) == 0);
	len = lseek(fd, 0, SEEK_END);
	CU_ASSERT_EQUAL(len, sizeof(struct trace_file_hdr));
	p = map_fd(fd, len);
	r = trace_reader__open_mem(p, len, NULL);
	CU_ASSERT_FATAL(r != NULL);
	CU_ASSERT_EQUAL(trace_reader__next(r, &h), 0);
	CU_ASSERT_PTR_NULL(trace_reader__error(r));
	trace_reader__free(r);
	munmap(p, len);
	close(fd);
}

/* A block claiming to inflate past the limit is refused, not allocated. */
static void test_trace__huge_block_refused(void)
{
	size_t len;
	uint64_t blocks;
	int fd = write_trace(&len, &blocks);
	unsigned char *p = map_fd(fd, len);
	struct trace_block_hdr *b = (void *)(p + sizeof(struct trace_file_hdr));
	const char *error;

	b->raw_len = TRACE_BLOCK_MAX + 1;
	b->hdr_crc = crc32(0, (void *)b, 24);
	CU_ASSERT_EQUAL(read_all(p, len, &error), 0);
	CU_ASSERT_PTR_NOT_NULL(error);
	free((void *)error);
	munmap(p, len);
	close(fd);
}

/* /dev/full: the writer reports ENOSPC and does not pretend it wrote. */
static void test_trace__disk_full(void)
{
	unsigned char buf[IOT_REC_MAX];
	struct trace_writer *w;
	int fd = open("/dev/full", O_WRONLY), err = 0;

	CU_ASSERT_FATAL(fd >= 0);
	w = trace_writer__new(fd, BLOCK);
	if (w) { /* the header may sit in a buffer until the first block */
		for (unsigned int i = 0; i < NREC && !err; i++) {
			make_rec(i, buf);
			err = trace_writer__append(w, (void *)buf);
		}
		if (!err)
			err = trace_writer__free(w);
		else
			trace_writer__free(w);
		CU_ASSERT_EQUAL(err, -ENOSPC);
	} else {
		CU_ASSERT_EQUAL(errno, ENOSPC);
	}
	close(fd);
}

/*
 * A send on a TCP socket as recorder version V writes it: one fd tail, the
 * socket tail (64 bytes in version 1, without netns, tcp_seq, sflags), one
 * string.  Returns its size.
 */
static size_t make_sock_rec(unsigned int version, unsigned char *buf)
{
	struct iot_syscall *sc = (void *)buf;
	size_t sock = version == 1 ? IOT_SOCK_V1_SIZE : sizeof(struct iot_sock);
	size_t off = sizeof(*sc);
	struct iot_fd *f;
	struct iot_sock *so;

	memset(buf, 0, IOT_REC_MAX);
	sc->hdr = (struct iot_hdr){
		.ts = 5000, .pid = 7, .tid = 8, .seq = 1, .type = IOT_REC_SYSCALL
	};
	sc->ret = 300;
	sc->nfd = 1;
	sc->nstr = 1;
	sc->flags = IOT_SCF_SOCK;
	f = (void *)(buf + off);
	f->ino = 4242;
	f->ftype = IOT_FT_SOCK;
	off += sizeof(*f);
	so = (void *)(buf + off);
	so->ino = 4242;
	so->family = 2;
	so->lport = 40000;
	so->rport = 5432;
	so->state = 1;
	if (version >= 2) {
		so->netns = 4026531840u;
		so->tcp_seq = 0xfffffff0u; /* the stream wraps: seq - ret is below 2^32 */
		so->sflags = IOT_SOCKF_TCP_SEQ | IOT_SOCKF_SENT;
	}
	off += sock;
	CU_ASSERT_FATAL(rec__put_str(buf, &off, IOT_REC_MAX, 7, "after", 5));
	sc->hdr.size = off;
	return off;
}

/* A trace of version V holding a file record and a socket record. */
static unsigned char *write_versioned(unsigned int version, size_t *len)
{
	unsigned char buf[IOT_REC_MAX] __attribute__((aligned(8)));
	struct trace_writer *w;
	struct trace_file_hdr fh;
	unsigned char *p;
	int fd = memfd_create("trace", 0);

	CU_ASSERT_FATAL(fd >= 0);
	w = trace_writer__new(fd, BLOCK);
	CU_ASSERT_FATAL(w != NULL);
	make_rec(1, buf);
	CU_ASSERT_FATAL(trace_writer__append(w, (void *)buf) == 0);
	make_sock_rec(version, buf);
	CU_ASSERT_FATAL(trace_writer__append(w, (void *)buf) == 0);
	CU_ASSERT_FATAL(trace_writer__free(w) == 0);
	*len = lseek(fd, 0, SEEK_END);
	p = map_fd(fd, *len);
	close(fd);
	/* the version is the header's word alone: no checksum covers it */
	memcpy(&fh, p, sizeof(fh));
	fh.version = version;
	memcpy(p, &fh, sizeof(fh));
	return p;
}

/* The socket record of a trace of version V, parsed; the reader's copy. */
static void read_sock_rec(unsigned int version, unsigned char *out, struct sc_view *v)
{
	const struct iot_hdr *h;
	struct trace_reader *r;
	uint32_t got = 0;
	size_t len;
	unsigned char *p = write_versioned(version, &len);

	r = trace_reader__open_mem(p, len, &got);
	CU_ASSERT_FATAL(r != NULL);
	CU_ASSERT_EQUAL(got, version);
	CU_ASSERT_EQUAL(trace_reader__version(r), version);
	CU_ASSERT_EQUAL_FATAL(trace_reader__next(r, &h), 1);
	check_rec(1, h); /* records without a socket tail pass unchanged */
	CU_ASSERT_EQUAL_FATAL(trace_reader__next(r, &h), 1);
	memcpy(out, h, h->size);
	CU_ASSERT_EQUAL(trace_reader__next(r, &h), 0);
	CU_ASSERT_PTR_NULL(trace_reader__error(r));
	trace_reader__free(r);
	munmap(p, len);
	CU_ASSERT_EQUAL_FATAL(sc_view__parse((void *)out, v), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(v->sock);
}

/* Version 2 socket tails carry the namespace and the TCP stream position. */
static void test_trace__sock_v2_fields(void)
{
	unsigned char want[IOT_REC_MAX], got[IOT_REC_MAX];
	struct sc_view v;
	size_t n = make_sock_rec(2, want);

	read_sock_rec(2, got, &v);
	CU_ASSERT_EQUAL(((struct iot_hdr *)got)->size, n);
	CU_ASSERT(memcmp(got, want, n) == 0);
	CU_ASSERT_EQUAL(v.sock->netns, 4026531840u);
	CU_ASSERT_EQUAL(v.sock->tcp_seq, 0xfffffff0u);
	CU_ASSERT_EQUAL(v.sock->sflags, IOT_SOCKF_TCP_SEQ | IOT_SOCKF_SENT);
	CU_ASSERT_EQUAL((uint32_t)(v.sock->tcp_seq - v.sc->ret), 0xfffffec4u);
	CU_ASSERT_STRING_EQUAL(sc_view__str(&v, 7), "after");
}

/* A version 1 trace reads in today's layout: the new fields are 0, what
 * follows the shorter tail is where it was, the record 8 bytes longer. */
static void test_trace__sock_v1_upgraded(void)
{
	unsigned char old[IOT_REC_MAX], got[IOT_REC_MAX];
	struct sc_view v;
	size_t n = make_sock_rec(1, old);

	read_sock_rec(1, got, &v);
	CU_ASSERT_EQUAL(((struct iot_hdr *)got)->size, n + 8);
	CU_ASSERT_EQUAL(v.sock->ino, 4242);
	CU_ASSERT_EQUAL(v.sock->family, 2);
	CU_ASSERT_EQUAL(v.sock->lport, 40000);
	CU_ASSERT_EQUAL(v.sock->rport, 5432);
	CU_ASSERT_EQUAL(v.sock->state, 1);
	CU_ASSERT_EQUAL(v.sock->netns, 0);
	CU_ASSERT_EQUAL(v.sock->tcp_seq, 0);
	CU_ASSERT_EQUAL(v.sock->sflags, 0);
	CU_ASSERT_EQUAL(v.fds[0].ino, 4242);
	CU_ASSERT_EQUAL(v.nstr, 1);
	CU_ASSERT_STRING_EQUAL(sc_view__str(&v, 7), "after");
}

/* The stream bytes a call moved: a send's and a receive's, and what has none. */
static void test_trace__tcp_range(void)
{
	unsigned char buf[IOT_REC_MAX] __attribute__((aligned(8)));
	struct iot_syscall *sc = (void *)buf;
	struct iot_sock *so = (void *)(buf + sizeof(*sc) + sizeof(struct iot_fd));
	uint32_t from = 0, to = 0;
	struct sc_view v;
	bool sent = false;

	make_sock_rec(2, buf);
	sc->nr = SYS_sendto;
	CU_ASSERT_EQUAL_FATAL(sc_view__parse(&sc->hdr, &v), 0);
	CU_ASSERT(sc_view__tcp_range(&v, &from, &to, &sent));
	CU_ASSERT_EQUAL(from, 0xfffffec4u); /* 2^32 - 16 - 300: across the wrap */
	CU_ASSERT_EQUAL(to, 0xfffffff0u);
	CU_ASSERT(sent);
	sc->nr = SYS_sendmmsg; /* ret counts messages */
	CU_ASSERT_FALSE(sc_view__tcp_range(&v, &from, &to, &sent));
	sc->nr = SYS_recvfrom;
	so->sflags = IOT_SOCKF_TCP_SEQ;
	so->tcp_seq = 1000;
	CU_ASSERT(sc_view__tcp_range(&v, &from, &to, &sent));
	CU_ASSERT_EQUAL(from, 700);
	CU_ASSERT_EQUAL(to, 1000);
	CU_ASSERT_FALSE(sent);
	sc->args[3] = MSG_PEEK; /* copied_seq did not move */
	CU_ASSERT_FALSE(sc_view__tcp_range(&v, &from, &to, &sent));
	sc->args[3] = 0;
	sc->ret = 0;
	CU_ASSERT_FALSE(sc_view__tcp_range(&v, &from, &to, &sent));
	sc->ret = 300;
	sc->nr = SYS_connect; /* a stream position, no bytes */
	CU_ASSERT_FALSE(sc_view__tcp_range(&v, &from, &to, &sent));
	sc->nr = SYS_read;
	so->sflags = 0; /* UDP, or a version 1 trace */
	CU_ASSERT_FALSE(sc_view__tcp_range(&v, &from, &to, &sent));
}

/* A version 3 record of thread tid: nfd fd entries from f (short where
 * fdshort says), a socket tail (so, full or short) when so, a string. */
static size_t make_v3_rec(unsigned char *buf, uint32_t tid, const struct iot_fd *f,
			  unsigned int nfd, uint8_t fdshort, const void *so, bool sock_short)
{
	struct iot_syscall *sc = (void *)buf;
	size_t off = sizeof(*sc);

	memset(buf, 0, IOT_REC_MAX);
	sc->hdr = (struct iot_hdr){ .ts = 100, .pid = 7, .tid = tid, .type = IOT_REC_SYSCALL };
	sc->nfd = nfd;
	sc->nstr = 1;
	sc->fdshort = fdshort;
	for (unsigned int i = 0; i < nfd; i++) {
		if (fdshort & (1u << i)) {
			struct iot_fd_short fs = { .pos = f[i].pos,
						   .size = f[i].size,
						   .fd = f[i].fd,
						   .which = f[i].which };

			memcpy(buf + off, &fs, sizeof(fs));
			off += sizeof(fs);
		} else {
			memcpy(buf + off, &f[i], sizeof(f[i]));
			off += sizeof(f[i]);
		}
	}
	if (so) {
		size_t n = sock_short ? sizeof(struct iot_sock_short) : sizeof(struct iot_sock);

		sc->flags = IOT_SCF_SOCK | (sock_short ? IOT_SCF_SOCK_SHORT : 0);
		memcpy(buf + off, so, n);
		off += n;
	}
	CU_ASSERT_FATAL(rec__put_str(buf, &off, IOT_REC_MAX, 0, "tail", 4));
	sc->hdr.size = off;
	return off;
}

/* Reads the next record of r into v, a copy of it kept in out. */
static void next_view(struct trace_reader *r, unsigned char *out, struct sc_view *v)
{
	const struct iot_hdr *h;

	CU_ASSERT_EQUAL_FATAL(trace_reader__next(r, &h), 1);
	memcpy(out, h, h->size);
	CU_ASSERT_EQUAL_FATAL(sc_view__parse((void *)out, v), 0);
	CU_ASSERT_STRING_EQUAL(sc_view__str(v, 0), "tail");
}

/*
 * Short fd entries and socket tails read back whole, from the thread's last
 * full entry for that fd number; another thread's, or none, is not used.
 */
static void test_trace__short_entries_restored(void)
{
	unsigned char buf[IOT_REC_MAX] __attribute__((aligned(8)));
	unsigned char out[IOT_REC_MAX] __attribute__((aligned(8)));
	struct iot_fd file = { .ino = 100,
			       .pos = 0,
			       .size = 10,
			       .dev = 8,
			       .fd = 3,
			       .flags = 2,
			       .ftype = IOT_FT_REG,
			       .which = 0 };
	struct iot_fd sfd = { .ino = 4242, .dev = 9, .fd = 4, .ftype = IOT_FT_SOCK, .which = 0 };
	struct iot_sock so = { .ino = 4242,
			       .family = 2,
			       .lport = 40000,
			       .rport = 5432,
			       .state = 1,
			       .netns = 77,
			       .tcp_seq = 5,
			       .sflags = IOT_SOCKF_TCP_SEQ };
	struct iot_sock_short ss = { .tcp_seq = 99, .sflags = IOT_SOCKF_TCP_SEQ, .state = 8 };
	const struct iot_hdr *h;
	struct trace_writer *w;
	struct trace_reader *r;
	struct sc_view v;
	size_t len;
	unsigned char *p;
	int fd = memfd_create("trace", 0);

	CU_ASSERT_FATAL(fd >= 0);
	w = trace_writer__new(fd, BLOCK);
	CU_ASSERT_FATAL(w != NULL);
	make_v3_rec(buf, 8, &file, 1, 0, NULL, false);
	CU_ASSERT_FATAL(trace_writer__append(w, (void *)buf) == 0);
	file.pos = 5;
	file.size = 20;
	make_v3_rec(buf, 8, &file, 1, 1, NULL, false);
	CU_ASSERT_FATAL(trace_writer__append(w, (void *)buf) == 0);
	make_v3_rec(buf, 9, &file, 1, 1, NULL, false); /* thread 9 saw no full one */
	CU_ASSERT_FATAL(trace_writer__append(w, (void *)buf) == 0);
	make_v3_rec(buf, 8, &sfd, 1, 0, &so, false);
	CU_ASSERT_FATAL(trace_writer__append(w, (void *)buf) == 0);
	make_v3_rec(buf, 8, &sfd, 1, 1, &ss, true);
	CU_ASSERT_FATAL(trace_writer__append(w, (void *)buf) == 0);
	CU_ASSERT_FATAL(trace_writer__free(w) == 0);
	len = lseek(fd, 0, SEEK_END);
	p = map_fd(fd, len);
	close(fd);

	r = trace_reader__open_mem(p, len, NULL);
	CU_ASSERT_FATAL(r != NULL);
	next_view(r, out, &v);
	CU_ASSERT_EQUAL(v.fds[0].ino, 100);
	next_view(r, out, &v);
	CU_ASSERT_EQUAL(v.sc->hdr.size, sizeof(*v.sc) + sizeof(struct iot_fd) + 16);
	CU_ASSERT_EQUAL(v.sc->fdshort, 0);
	CU_ASSERT_EQUAL(v.fds[0].ino, 100);
	CU_ASSERT_EQUAL(v.fds[0].dev, 8);
	CU_ASSERT_EQUAL(v.fds[0].flags, 2);
	CU_ASSERT_EQUAL(v.fds[0].ftype, IOT_FT_REG);
	CU_ASSERT_EQUAL(v.fds[0].pos, 5);
	CU_ASSERT_EQUAL(v.fds[0].size, 20);
	CU_ASSERT_EQUAL(v.fds[0].fd, 3);
	next_view(r, out, &v);
	CU_ASSERT_EQUAL(v.fds[0].ino, 0); /* open, file unknown */
	CU_ASSERT_EQUAL(v.fds[0].ftype, IOT_FT_OTHER);
	next_view(r, out, &v);
	CU_ASSERT_PTR_NOT_NULL_FATAL(v.sock);
	CU_ASSERT_EQUAL(v.sock->lport, 40000);
	next_view(r, out, &v);
	CU_ASSERT_EQUAL(v.sc->flags, IOT_SCF_SOCK);
	CU_ASSERT_EQUAL(v.fds[0].ino, 4242);
	CU_ASSERT_PTR_NOT_NULL_FATAL(v.sock);
	CU_ASSERT_EQUAL(v.sock->ino, 4242);
	CU_ASSERT_EQUAL(v.sock->family, 2);
	CU_ASSERT_EQUAL(v.sock->lport, 40000);
	CU_ASSERT_EQUAL(v.sock->rport, 5432);
	CU_ASSERT_EQUAL(v.sock->netns, 77);
	CU_ASSERT_EQUAL(v.sock->state, 8);
	CU_ASSERT_EQUAL(v.sock->tcp_seq, 99);
	CU_ASSERT_EQUAL(trace_reader__next(r, &h), 0);
	CU_ASSERT_PTR_NULL(trace_reader__error(r));
	trace_reader__free(r);
	munmap(p, len);
}

/* The raw parse of the recorder finds the strings behind short entries;
 * the checked one refuses them. */
static void test_trace__short_entries_raw_parse(void)
{
	unsigned char buf[IOT_REC_MAX] __attribute__((aligned(8)));
	struct iot_fd f = { .fd = 3, .which = 0 };
	struct iot_sock_short ss = { 0 };
	struct sc_view v;

	make_v3_rec(buf, 8, &f, 1, 1, &ss, true);
	CU_ASSERT_EQUAL(sc_view__parse((void *)buf, &v), -EBADMSG);
	CU_ASSERT_EQUAL_FATAL(sc_view__parse_raw((void *)buf, &v), 0);
	CU_ASSERT_PTR_NULL(v.fds);
	CU_ASSERT_PTR_NULL(v.sock);
	CU_ASSERT_PTR_NULL(sc_view__fd(&v, 0));
	CU_ASSERT_STRING_EQUAL(sc_view__str(&v, 0), "tail");
}

/* Versions outside the ones this build reads are named, not misread. */
static void test_trace__versions_accepted(void)
{
	struct trace_file_hdr h;
	uint32_t got;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, TRACE_MAGIC, 8);
	h.hdr_size = sizeof(h);
	for (uint32_t ver = 0; ver <= IOT_FORMAT_VERSION + 1; ver++) {
		struct trace_reader *r;

		h.version = ver;
		got = 0;
		errno = 0;
		r = trace_reader__open_mem(&h, sizeof(h), &got);
		CU_ASSERT_EQUAL(got, ver);
		if (ver >= IOT_FORMAT_VERSION_MIN && ver <= IOT_FORMAT_VERSION) {
			CU_ASSERT_PTR_NOT_NULL(r);
		} else {
			CU_ASSERT_PTR_NULL(r);
			CU_ASSERT_EQUAL(errno, EPROTONOSUPPORT);
		}
		trace_reader__free(r);
	}
	CU_ASSERT_EQUAL(IOT_FORMAT_VERSION, 3);
}

/* A version 1 trace the recorder wrote (TCP on loopback, tests/progs/ipc.c):
 * every socket record parses, with the new fields 0.  The fuzz corpus file
 * has one byte before the trace: the fuzzer's choice of reader. */
static void test_trace__v1_recording_reads(void)
{
	int fd = open("tests/fuzz/corpus/trace/ipc.iot", O_RDONLY);
	off_t len = fd >= 0 ? lseek(fd, 0, SEEK_END) : 0;
	unsigned char *p = len > 1 ? map_fd(fd, len) : NULL;
	struct trace_reader *r = p ? trace_reader__open_mem(p + 1, len - 1, NULL) : NULL;
	const struct iot_hdr *h;
	unsigned int socks = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(trace_reader__version(r), 1);
	while (trace_reader__next(r, &h) == 1) {
		struct sc_view v;

		if (h->type != IOT_REC_SYSCALL)
			continue;
		CU_ASSERT_EQUAL_FATAL(sc_view__parse(h, &v), 0);
		if (!v.sock)
			continue;
		socks++;
		CU_ASSERT_EQUAL(v.sock->family, 2); /* AF_INET */
		CU_ASSERT_EQUAL(v.sock->protocol, 6);
		CU_ASSERT(v.sock->ino != 0);
		CU_ASSERT_EQUAL(v.sock->netns | v.sock->tcp_seq | v.sock->sflags, 0);
	}
	CU_ASSERT_PTR_NULL(trace_reader__error(r));
	CU_ASSERT_EQUAL(socks, 8);
	trace_reader__free(r);
	munmap(p, len);
	close(fd);
}

/* Record views refuse tails that do not fit the record. */
static void test_trace__sc_view_bounds(void)
{
	unsigned char buf[IOT_REC_MAX];
	struct iot_syscall *sc = (void *)buf;
	struct sc_view v;
	size_t n = make_rec(5, buf);

	CU_ASSERT_EQUAL(sc_view__parse(&sc->hdr, &v), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(sc_view__str(&v, 1));
	CU_ASSERT_STRING_EQUAL(sc_view__str(&v, 1), "/data/file-387276917");
	sc->nfd = 3; /* claims fd tails that are not there */
	CU_ASSERT_EQUAL(sc_view__parse(&sc->hdr, &v), -EBADMSG);
	sc->nfd = 0;
	sc->hdr.size = n - 8; /* string cut */
	CU_ASSERT_EQUAL(sc_view__parse(&sc->hdr, &v), -EBADMSG);
	sc->hdr.size = n;
	sc->nstr = 5; /* more strings than exist */
	CU_ASSERT_EQUAL(sc_view__parse(&sc->hdr, &v), -EBADMSG);
	sc->nstr = 1;
	buf[n - 1] = 'x'; /* string data not NUL-terminated within its length */
	memset(buf + sizeof(*sc) + sizeof(struct iot_str), 'x', n - sizeof(*sc) - 8);
	CU_ASSERT_EQUAL(sc_view__parse(&sc->hdr, &v), -EBADMSG);
	CU_ASSERT_EQUAL(rec__min_size(IOT_REC_SYSCALL), sizeof(struct iot_syscall));
	CU_ASSERT_EQUAL(rec__min_size(999), 0);
}

static CU_TestInfo tests[] = {
	{ "round trip", test_trace__round_trip },
	{ "truncated anywhere", test_trace__truncated_anywhere },
	{ "bit flips", test_trace__bit_flips },
	{ "not a trace", test_trace__not_a_trace },
	{ "unknown flags refused", test_trace__unknown_flags_refused },
	{ "zlib blocks still read", test_trace__zlib_blocks_still_read },
	{ "header only", test_trace__header_only },
	{ "huge block refused", test_trace__huge_block_refused },
	{ "disk full", test_trace__disk_full },
	{ "sc_view bounds", test_trace__sc_view_bounds },
	{ "sock v2 fields", test_trace__sock_v2_fields },
	{ "sock v1 upgraded", test_trace__sock_v1_upgraded },
	{ "versions accepted", test_trace__versions_accepted },
	{ "tcp range", test_trace__tcp_range },
	{ "short entries restored", test_trace__short_entries_restored },
	{ "short entries raw parse", test_trace__short_entries_raw_parse },
	{ "v1 recording reads", test_trace__v1_recording_reads },
	CU_TEST_INFO_NULL,
};

#define SUITE "trace"
#include "tests/cu_main.h"
