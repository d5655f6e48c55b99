// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: bytes as a trace.  The reader, the record views, the
 * fd-name table and the whole analysis with every rule on must return or
 * report an error; never crash, hang or read out of bounds.
 *
 * First byte odd: the rest is a trace file as it is (exercises the
 * container: framing, CRCs, inflation).  Even: the rest is a stream of raw
 * records, framed into valid blocks here, so the fuzzer reaches the record
 * parsers and the analysis past the CRCs.  Seeds of both kinds are in
 * tests/fuzz/corpus/trace.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analyze/analyze.h"
#include "lib/fdtable.h"
#include "lib/record.h"
#include "lib/trace.h"

static FILE *devnull;

static void read_all(const uint8_t *data, size_t size)
{
	struct trace_reader *r = trace_reader__open_mem(data, size, NULL);
	struct fdtable *t = fdtable__new();
	const struct iot_hdr *h;

	while (r && t && trace_reader__next(r, &h) == 1) {
		struct sc_view v;

		if (h->type == IOT_REC_SYSCALL && !sc_view__parse(h, &v)) {
			for (unsigned int i = 0; i < 10; i++) {
				sc_view__fd(&v, i);
				sc_view__str(&v, i);
			}
		}
		fdtable__apply(t, h);
	}
	fdtable__free(t);
	trace_reader__free(r);
}

/* Frames raw records into a trace in a memfd; the file bytes in *out. */
static size_t frame(const uint8_t *data, size_t size, uint8_t **out)
{
	int fd = memfd_create("fuzz", 0);
	struct trace_writer *w = fd >= 0 ? trace_writer__new(fd, 4096) : NULL;
	size_t off = 0, len = 0;

	while (w && off + sizeof(struct iot_hdr) <= size) {
		struct iot_hdr h;

		memcpy(&h, data + off, sizeof(h));
		if (h.size < sizeof(h) || h.size % 8 || h.size > size - off || h.size > IOT_REC_MAX)
			break;
		if (trace_writer__append(w, (const void *)(data + off)))
			break;
		off += h.size;
	}
	if (w && !trace_writer__free(w)) {
		len = lseek(fd, 0, SEEK_END);
		*out = malloc(len ? len : 1);
		if (!*out || pread(fd, *out, len, 0) != (ssize_t)len)
			len = 0;
	}
	if (fd >= 0)
		close(fd);
	return len;
}

static void analyse(const uint8_t *data, size_t size)
{
	struct an_opts o = { .infer = true, .rules = (1u << AN_RULE_NR) - 1 };
	struct analysis *an = analysis__new(NULL, data, size, &o);

	if (an) {
		analysis__write_jsonl(an, devnull);
		analysis__write_summary(an, devnull, true);
		analysis__free(an);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *file = NULL, *body;
	size_t len;

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	if (size < 1)
		return 0;
	/* traces are mmapped, so page aligned: the readers may rely on it */
	body = malloc(size);
	if (!body)
		return 0;
	memcpy(body, data + 1, size - 1);
	if (data[0] & 1) {
		read_all(body, size - 1);
		analyse(body, size - 1);
	} else {
		len = frame(body, size - 1, &file);
		if (len) {
			read_all(file, len);
			analyse(file, len);
		}
		free(file);
	}
	free(body);
	return 0;
}
