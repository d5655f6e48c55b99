/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trace file: a header, then blocks of compressed records (zstd; zlib in
 * traces written before TRACE_F_ZSTD, which readers still accept).
 * docs/trace-format.md describes the bytes; this is the API.
 */
#ifndef IOTRACE_TRACE_H
#define IOTRACE_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "include/iotrace_abi.h"

#define TRACE_MAGIC	    "IOTRACE\0"
#define TRACE_BLOCK_MAGIC   0x424f4949u /* "IIOB" little-endian */
#define TRACE_BLOCK_DEFAULT (1u << 20)	/* raw bytes per block */
#define TRACE_BLOCK_MAX	    (16u << 20) /* readers refuse larger blocks */

/* struct trace_file_hdr.flags */
#define TRACE_F_ZSTD  0x1u /* blocks are zstd frames, else zlib streams */
#define TRACE_F_KNOWN TRACE_F_ZSTD

/* On-disk file header, 32 bytes, little-endian. */
struct trace_file_hdr {
	char magic[8];	  /* TRACE_MAGIC */
	__u32 version;	  /* IOT_FORMAT_VERSION of the records */
	__u32 hdr_size;	  /* sizeof(struct trace_file_hdr) */
	__u32 block_size; /* raw bytes the writer put in a block at most */
	__u32 flags;	  /* TRACE_F_*: how the blocks are compressed */
	__u64 reserved;
};

/* On-disk block header, 32 bytes, precedes comp_len bytes of compressed data. */
struct trace_block_hdr {
	__u32 magic;	/* TRACE_BLOCK_MAGIC */
	__u32 seq;	/* 0, 1, 2, ... */
	__u32 raw_len;	/* bytes of records once inflated */
	__u32 comp_len; /* bytes of compressed data that follow */
	__u32 nrec;	/* records in the block */
	__u32 crc;	/* crc32 of the compressed bytes */
	__u32 hdr_crc;	/* crc32 of the 24 bytes above */
	__u32 pad;
};

_Static_assert(sizeof(struct trace_file_hdr) == 32, "trace_file_hdr");
_Static_assert(sizeof(struct trace_block_hdr) == 32, "trace_block_hdr");

struct trace_writer;

struct trace_writer_stats {
	uint64_t records;    /* records appended */
	uint64_t raw_bytes;  /* record bytes appended */
	uint64_t file_bytes; /* bytes written to the file, headers included */
	uint64_t blocks;     /* blocks written */
};

/*
 * Writes the file header to fd and returns a writer that appends blocks to it.
 * The caller keeps fd and closes it after trace_writer__free().  NULL, errno set.
 */
struct trace_writer *trace_writer__new(int fd, size_t block_size);
/* Copies one record (hdr->size bytes) into the current block; writes the block
 * out when it is full.  0 or -errno (-ENOSPC when the disk is full: what was
 * written before stays readable). */
int trace_writer__append(struct trace_writer *w, const struct iot_hdr *rec);
/* Writes out the current block, if it holds anything.  0 or -errno. */
int trace_writer__flush(struct trace_writer *w);
void trace_writer__stats(const struct trace_writer *w, struct trace_writer_stats *st);
/* Flushes and frees; returns the flush error, if any.  Accepts NULL. */
int trace_writer__free(struct trace_writer *w);

struct trace_reader;

/*
 * Opens a trace for reading.  NULL with errno set: ENOENT etc. from open,
 * EBADMSG when the file is not an iotrace trace (or is empty),
 * EPROTONOSUPPORT when it is of a format version this build cannot read.
 * The version is still available through trace_reader__version() via
 * *version_out when non-NULL.
 */
struct trace_reader *trace_reader__open(const char *path, uint32_t *version_out);
/* Same, on a buffer the caller keeps alive (fuzzing, tests). */
struct trace_reader *trace_reader__open_mem(const void *buf, size_t len, uint32_t *version_out);
/*
 * Next record: 1 and *rec set (valid until the next call), 0 at the end.
 * Never fails hard: a truncated or corrupt block ends the stream and is
 * described by trace_reader__error().
 */
int trace_reader__next(struct trace_reader *r, const struct iot_hdr **rec);
/* NULL when the whole file was read cleanly, else why reading stopped early,
 * e.g. "truncated block 7 at byte 123456". */
const char *trace_reader__error(const struct trace_reader *r);
uint32_t trace_reader__version(const struct trace_reader *r);
void trace_reader__free(struct trace_reader *r);
/* trace_reader__open() that logs why a file cannot be read, for commands. */
struct trace_reader *trace_open_or_explain(const char *path);

#endif
