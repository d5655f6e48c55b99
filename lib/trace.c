// SPDX-License-Identifier: GPL-2.0
/*
 * Trace file container: a header, then self-checking compressed blocks of
 * records.  The writer uses zstd's fast level TRACE_ZSTD_LVL: the
 * recorder's CPU comes straight out of the traced service's when cores are
 * few, and compression is most of that CPU.  zlib blocks (traces from
 * before TRACE_F_ZSTD) still read.
 * A block is written with one write() after it is complete, so a recorder
 * killed at any point leaves a file whose every complete block reads back.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "lib/fdrestore.h"
#include "lib/log.h"
#include "lib/trace.h"

/*
 * zstd level of the blocks.  Negative levels trade ratio for speed: the
 * recorder compresses while the traced service runs, so its CPU time counts
 * more than the file's size, and at -2 a trace still stays well under the
 * 32 bytes an event the format aims for (docs/BENCHMARKS.md has the figures).
 */
#define TRACE_ZSTD_LVL (-2)

struct trace_writer {
	int fd;
	int err;	/* sticky: once a write failed, nothing more is written */
	off_t good_off; /* end of the last complete block */
	size_t block_size;
	size_t used;
	uint32_t nrec;
	uint32_t seq;
	unsigned char *raw;
	unsigned char *comp;
	size_t comp_cap;
	ZSTD_CCtx *zc;
	struct trace_writer_stats st;
};

static int write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -ENOSPC;
		p += n;
		len -= n;
	}
	return 0;
}

/* Owned by the caller, freed with trace_writer__free(); fd stays the caller's. */
struct trace_writer *trace_writer__new(int fd, size_t block_size)
{
	struct trace_file_hdr fh = { .magic = TRACE_MAGIC };
	struct trace_writer *w;
	int err;

	if (!block_size)
		block_size = TRACE_BLOCK_DEFAULT;
	if (block_size < IOT_REC_MAX || block_size > TRACE_BLOCK_MAX) {
		errno = EINVAL;
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->fd = fd;
	w->block_size = block_size;
	w->comp_cap = ZSTD_compressBound(block_size);
	w->raw = malloc(block_size);
	w->comp = malloc(sizeof(struct trace_block_hdr) + w->comp_cap);
	w->zc = ZSTD_createCCtx();
	/* no frame checksum: the block header's crc covers the bytes */
	if (!w->raw || !w->comp || !w->zc ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->zc, ZSTD_c_compressionLevel, TRACE_ZSTD_LVL))) {
		err = -ENOMEM;
		goto err_free;
	}
	fh.version = IOT_FORMAT_VERSION;
	fh.hdr_size = sizeof(fh);
	fh.block_size = block_size;
	fh.flags = TRACE_F_ZSTD;
	err = write_full(fd, &fh, sizeof(fh));
	if (err)
		goto err_free;
	w->good_off = sizeof(fh);
	w->st.file_bytes = sizeof(fh);
	return w;

err_free:
	ZSTD_freeCCtx(w->zc);
	free(w->raw);
	free(w->comp);
	free(w);
	errno = -err;
	return NULL;
}

static int writer_compress(struct trace_writer *w, struct trace_block_hdr *bh)
{
	unsigned char *out = w->comp + sizeof(*bh);
	size_t n = ZSTD_compress2(w->zc, out, w->comp_cap, w->raw, w->used);

	if (ZSTD_isError(n))
		return -EIO;
	bh->magic = TRACE_BLOCK_MAGIC;
	bh->seq = w->seq;
	bh->raw_len = w->used;
	bh->comp_len = n;
	bh->nrec = w->nrec;
	bh->crc = crc32(0, out, bh->comp_len);
	bh->hdr_crc = crc32(0, (const Bytef *)bh, offsetof(struct trace_block_hdr, hdr_crc));
	bh->pad = 0;
	return 0;
}

int trace_writer__flush(struct trace_writer *w)
{
	struct trace_block_hdr bh;
	size_t len;
	int err;

	if (w->err)
		return w->err;
	if (!w->used)
		return 0;
	err = writer_compress(w, &bh);
	if (err)
		goto fail;
	memcpy(w->comp, &bh, sizeof(bh));
	len = sizeof(bh) + bh.comp_len;
	err = write_full(w->fd, w->comp, len);
	if (err)
		goto fail;
	w->good_off += len;
	w->st.file_bytes += len;
	w->st.blocks++;
	w->seq++;
	w->used = 0;
	w->nrec = 0;
	return 0;

fail:
	/* Cut a half-written block off so the file ends at a block boundary;
	 * readers cope either way, this only makes the end tidy. */
	if (ftruncate(w->fd, w->good_off) == 0)
		lseek(w->fd, w->good_off, SEEK_SET);
	w->err = err;
	return err;
}

int trace_writer__append(struct trace_writer *w, const struct iot_hdr *rec)
{
	size_t size = rec->size;
	int err;

	if (w->err)
		return w->err;
	if (size < sizeof(*rec) || size % 8 || size > IOT_REC_MAX)
		return -EINVAL;
	if (w->used + size > w->block_size) {
		err = trace_writer__flush(w);
		if (err)
			return err;
	}
	memcpy(w->raw + w->used, rec, size);
	w->used += size;
	w->nrec++;
	w->st.records++;
	w->st.raw_bytes += size;
	return 0;
}

void trace_writer__stats(const struct trace_writer *w, struct trace_writer_stats *st)
{
	*st = w->st;
}

int trace_writer__free(struct trace_writer *w)
{
	int err;

	if (!w)
		return 0;
	err = trace_writer__flush(w);
	ZSTD_freeCCtx(w->zc);
	free(w->raw);
	free(w->comp);
	free(w);
	return err;
}

struct trace_reader {
	const unsigned char *base; /* whole file */
	size_t len;
	size_t off; /* next block header */
	void *map;  /* mmap of the file, or NULL for open_mem */
	uint32_t version;
	uint32_t flags; /* TRACE_F_* of the file header */
	uint64_t blocks;
	unsigned char *raw; /* current inflated block */
	size_t raw_cap;
	size_t raw_len;
	size_t raw_off;
	uint32_t nrec;	/* records the block header promised */
	uint32_t nread; /* records handed out of the block */
	z_stream zs;	/* raw inflate, reused block after block */
	bool zs_ready;
	ZSTD_DCtx *zd; /* zstd context, reused likewise */
	bool done;
	unsigned char *upg;   /* an older version's record in today's layout */
	struct fdrestore fdr; /* version 3: short fd entries made whole */
	char errbuf[128];
	const char *err;
};

static int reader_check_header(struct trace_reader *r)
{
	struct trace_file_hdr fh;

	if (r->len < sizeof(fh))
		return -EBADMSG;
	memcpy(&fh, r->base, sizeof(fh));
	if (memcmp(fh.magic, TRACE_MAGIC, sizeof(fh.magic)))
		return -EBADMSG;
	r->version = fh.version;
	if (fh.version < IOT_FORMAT_VERSION_MIN || fh.version > IOT_FORMAT_VERSION)
		return -EPROTONOSUPPORT;
	if (fh.hdr_size < sizeof(fh) || fh.hdr_size > r->len || (fh.flags & ~TRACE_F_KNOWN))
		return -EBADMSG;
	r->flags = fh.flags;
	r->off = fh.hdr_size;
	return 0;
}

/* Owned by the caller, freed with trace_reader__free(); buf must outlive it. */
struct trace_reader *trace_reader__open_mem(const void *buf, size_t len, uint32_t *version_out)
{
	struct trace_reader *r = calloc(1, sizeof(*r));
	int err;

	if (!r)
		return NULL;
	r->base = buf;
	r->len = len;
	err = reader_check_header(r);
	if (version_out)
		*version_out = r->version;
	if (err) {
		free(r);
		errno = -err;
		return NULL;
	}
	return r;
}

struct trace_reader *trace_reader__open(const char *path, uint32_t *version_out)
{
	struct trace_reader *r;
	void *map = NULL;
	struct stat st;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st)) {
		err = -errno;
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		err = S_ISDIR(st.st_mode) ? -EISDIR : -EBADMSG;
		goto out_close;
	}
	if (st.st_size > 0) {
		map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED) {
			err = -errno;
			goto out_close;
		}
	}
	close(fd);
	r = trace_reader__open_mem(map ? map : "", map ? (size_t)st.st_size : 0, version_out);
	if (!r) {
		err = -errno;
		if (map)
			munmap(map, st.st_size);
		errno = -err;
		return NULL;
	}
	r->map = map;
	return r;

out_close:
	close(fd);
	errno = -err;
	return NULL;
}

/* Ends the stream early; blk is the index of the block at fault. */
static int reader_stop(struct trace_reader *r, const char *what, uint64_t blk)
{
	snprintf(r->errbuf, sizeof(r->errbuf), "%s block %llu at byte %zu", what,
		 (unsigned long long)blk, r->off);
	r->err = r->errbuf;
	r->done = true;
	return 0;
}

/*
 * Inflates a block's zlib stream into r->raw: 0, or -1 when it does not
 * decode to exactly raw_len bytes.  The stream is inflated raw, past its
 * two-byte header, so zlib does not also compute the Adler-32 of every
 * inflated byte: the block's CRC-32 of the compressed bytes, trailer
 * included, was checked before, and the records are checked one by one.
 */
static int reader_inflate(struct trace_reader *r, const unsigned char *data, uint32_t len,
			  uint32_t raw_len)
{
	int ret;

	/* deflate, no preset dictionary, header checksum (RFC 1950) */
	if (len < 2 || (data[0] & 0x0f) != Z_DEFLATED || (data[0] >> 4) > 7 ||
	    (data[0] << 8 | data[1]) % 31 || (data[1] & 0x20))
		return -1;
	if (!r->zs_ready) {
		if (inflateInit2(&r->zs, -MAX_WBITS) != Z_OK)
			return -1;
		r->zs_ready = true;
	} else if (inflateReset(&r->zs) != Z_OK) {
		return -1;
	}
	r->zs.next_in = (Bytef *)data + 2;
	r->zs.avail_in = len - 2;
	r->zs.next_out = r->raw;
	r->zs.avail_out = raw_len;
	ret = inflate(&r->zs, Z_FINISH);
	return ret == Z_STREAM_END && r->zs.total_out == raw_len ? 0 : -1;
}

/* Decompresses one block's bytes into r->raw: 0, or -1 when they do not come
 * out as exactly raw_len bytes. */
static int reader_decode(struct trace_reader *r, const unsigned char *data, uint32_t len,
			 uint32_t raw_len)
{
	if (!(r->flags & TRACE_F_ZSTD))
		return reader_inflate(r, data, len, raw_len);
	if (!r->zd && !(r->zd = ZSTD_createDCtx()))
		return -1;
	return ZSTD_decompressDCtx(r->zd, r->raw, raw_len, data, len) == raw_len ? 0 : -1;
}

/* Loads the block at r->off; 1 loaded, 0 end of stream (clean or not). */
static int reader_load_block(struct trace_reader *r)
{
	struct trace_block_hdr bh;
	const unsigned char *data;

	if (r->off == r->len) {
		r->done = true;
		return 0;
	}
	if (r->len - r->off < sizeof(bh))
		return reader_stop(r, "truncated header of", r->blocks);
	memcpy(&bh, r->base + r->off, sizeof(bh));
	if (bh.magic != TRACE_BLOCK_MAGIC ||
	    bh.hdr_crc != crc32(0, (const Bytef *)&bh, offsetof(struct trace_block_hdr, hdr_crc)))
		return reader_stop(r, "corrupt header of", r->blocks);
	if (bh.raw_len > TRACE_BLOCK_MAX || bh.raw_len < sizeof(struct iot_hdr))
		return reader_stop(r, "corrupt header of", r->blocks);
	if (bh.comp_len > r->len - r->off - sizeof(bh))
		return reader_stop(r, "truncated", r->blocks);
	data = r->base + r->off + sizeof(bh);
	if (bh.crc != crc32(0, data, bh.comp_len))
		return reader_stop(r, "checksum mismatch in", r->blocks);
	if (bh.raw_len > r->raw_cap) {
		unsigned char *p = realloc(r->raw, bh.raw_len);

		if (!p)
			return reader_stop(r, "out of memory for", r->blocks);
		r->raw = p;
		r->raw_cap = bh.raw_len;
	}
	if (reader_decode(r, data, bh.comp_len, bh.raw_len))
		return reader_stop(r, "undecodable", r->blocks);
	r->off += sizeof(bh) + bh.comp_len;
	r->raw_len = bh.raw_len;
	r->raw_off = 0;
	r->nrec = bh.nrec;
	r->nread = 0;
	r->blocks++;
	return 1;
}

/*
 * A version 3 syscall record's short fd entries are made whole, and a version
 * 1 one's socket tail was 8 bytes shorter: copied into r->upg with the new
 * fields zeroed, so every reader sees one layout.  A
 * record whose tails do not fit is passed on as it is, for sc_view__parse()
 * to refuse.
 */
static const struct iot_hdr *reader_upgrade(struct trace_reader *r, const struct iot_hdr *h)
{
	const size_t grow = sizeof(struct iot_sock) - IOT_SOCK_V1_SIZE;
	const struct iot_syscall *sc = (const void *)h;
	struct iot_hdr *out;
	size_t tail;

	if (r->version >= 3) {
		if (!r->upg && !(r->upg = malloc(IOT_REC_MAX)))
			return h;
		return fdrestore__apply(&r->fdr, h, r->upg);
	}
	if (r->version >= 2 || h->type != IOT_REC_SYSCALL || h->size < sizeof(*sc) ||
	    !(sc->flags & IOT_SCF_SOCK) || sc->nfd > IOT_MAX_FDS)
		return h;
	tail = sizeof(*sc) + sc->nfd * sizeof(struct iot_fd) + IOT_SOCK_V1_SIZE;
	if (tail > h->size || h->size + grow > IOT_REC_MAX)
		return h;
	if (!r->upg && !(r->upg = malloc(IOT_REC_MAX)))
		return h;
	memcpy(r->upg, h, tail);
	memset(r->upg + tail, 0, grow);
	memcpy(r->upg + tail + grow, (const unsigned char *)h + tail, h->size - tail);
	out = (struct iot_hdr *)r->upg;
	out->size = h->size + grow;
	return out;
}

int trace_reader__next(struct trace_reader *r, const struct iot_hdr **rec)
{
	const struct iot_hdr *h;
	size_t left;

	while (!r->done && r->raw_off == r->raw_len) {
		if (r->raw_len && r->nread != r->nrec)
			return reader_stop(r, "record count mismatch in", r->blocks - 1);
		if (!reader_load_block(r))
			return 0;
	}
	if (r->done)
		return 0;
	left = r->raw_len - r->raw_off;
	h = (const struct iot_hdr *)(r->raw + r->raw_off);
	if (left < sizeof(*h) || h->size < sizeof(*h) || h->size % 8 || h->size > left) {
		return reader_stop(r, "corrupt record in", r->blocks - 1);
	}
	r->raw_off += h->size;
	r->nread++;
	*rec = reader_upgrade(r, h);
	return 1;
}

const char *trace_reader__error(const struct trace_reader *r)
{
	return r->err;
}

uint32_t trace_reader__version(const struct trace_reader *r)
{
	return r->version;
}

void trace_reader__free(struct trace_reader *r)
{
	if (!r)
		return;
	if (r->map)
		munmap(r->map, r->len);
	if (r->zs_ready)
		inflateEnd(&r->zs);
	ZSTD_freeDCtx(r->zd);
	free(r->raw);
	free(r->upg);
	fdrestore__free(&r->fdr);
	free(r);
}

struct trace_reader *trace_open_or_explain(const char *path)
{
	uint32_t version = 0;
	struct trace_reader *r = trace_reader__open(path, &version);

	if (r)
		return r;
	if (errno == EBADMSG)
		err("%s: not an iotrace trace (or empty)", path);
	else if (errno == EPROTONOSUPPORT)
		err("%s: trace format version %u, this iotrace reads versions %u to %u", path,
		    version, IOT_FORMAT_VERSION_MIN, IOT_FORMAT_VERSION);
	else
		err("%s: %s", path, strerror(errno));
	return NULL;
}
