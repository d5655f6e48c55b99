// SPDX-License-Identifier: GPL-2.0
/*
 * The recorder emits an fd's identity (inode, device, flags, type) only the
 * first time a thread's call names the open file behind that fd number; the
 * calls after carry position and size alone.  Each thread's records are in
 * order in a trace, so the last full entry seen for (thread, fd) is the one a
 * short entry leaves out.  A lost record never breaks this: the BPF side
 * trusts nothing it emitted before a loss.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/fdrestore.h"

struct fdrestore_id {
	uint64_t ino;
	uint32_t dev;
	uint32_t flags;
	uint16_t ftype;
};

static uint64_t fd_key(const struct iot_hdr *h, int32_t fd)
{
	return (uint64_t)h->tid << 32 | (uint32_t)fd;
}

/* Remembers the identity in full entry f of h's thread. */
static void remember(struct fdrestore *fr, const struct iot_hdr *h, const struct iot_fd *f)
{
	uint64_t key = fd_key(h, f->fd);
	uint32_t i = htab__get(&fr->idx, key);

	if (i == UINT32_MAX) {
		if (fr->n == fr->cap) {
			uint32_t cap = fr->cap ? 2 * fr->cap : 64;
			struct fdrestore_id *id = realloc(fr->id, cap * sizeof(*id));

			if (!id)
				return; /* its short entries will read as unknown */
			fr->id = id;
			fr->cap = cap;
		}
		if (htab__set(&fr->idx, key, fr->n))
			return;
		i = fr->n++;
	}
	fr->id[i] = (struct fdrestore_id){ .ino = f->ino, .dev = f->dev, .flags = f->flags,
					   .ftype = f->ftype };
}

/* The whole entry of short entry s of h's thread. */
static struct iot_fd restore(struct fdrestore *fr, const struct iot_hdr *h,
			     const struct iot_fd_short *s)
{
	struct iot_fd f = { .pos = s->pos, .size = s->size, .fd = s->fd, .which = s->which };
	uint32_t i = htab__get(&fr->idx, fd_key(h, s->fd));

	if (i == UINT32_MAX) {
		/* open, but which file is not known: not "not open" */
		fr->unknown++;
		f.ftype = IOT_FT_OTHER;
		return f;
	}
	f.ino = fr->id[i].ino;
	f.dev = fr->id[i].dev;
	f.flags = fr->id[i].flags;
	f.ftype = fr->id[i].ftype;
	return f;
}

/* Bytes of h's fd entries, or 0 when they do not fit the record. */
static size_t fd_bytes(const struct iot_syscall *sc)
{
	size_t n = 0;

	for (unsigned int i = 0; i < sc->nfd; i++)
		n += sc->fdshort & (1u << i) ? sizeof(struct iot_fd_short) : sizeof(struct iot_fd);
	return sizeof(*sc) + n <= sc->hdr.size ? n : 0;
}

const struct iot_hdr *fdrestore__apply(struct fdrestore *fr, const struct iot_hdr *h, void *out)
{
	const struct iot_syscall *sc = (const void *)h;
	const unsigned char *in = (const unsigned char *)(sc + 1);
	size_t used, grow = 0, o = sizeof(*sc);
	unsigned char *dst = out;

	if (h->type != IOT_REC_SYSCALL || h->size < sizeof(*sc) || sc->nfd > IOT_MAX_FDS)
		return h;
	used = fd_bytes(sc);
	if (sc->nfd && !used)
		return h; /* for sc_view__parse() to refuse */
	grow = sc->nfd * sizeof(struct iot_fd) - used;
	if (h->size + grow > IOT_REC_MAX)
		return h;
	for (unsigned int i = 0; i < sc->nfd; i++) {
		struct iot_fd f;

		if (sc->fdshort & (1u << i)) {
			struct iot_fd_short s;

			memcpy(&s, in, sizeof(s));
			in += sizeof(s);
			f = restore(fr, h, &s);
		} else {
			memcpy(&f, in, sizeof(f));
			in += sizeof(f);
			/* what the BPF side remembers: an open fd named by an argument */
			if (f.which < IOT_FD_RET && f.ftype != IOT_FT_NONE)
				remember(fr, h, &f);
		}
		if (sc->fdshort)
			memcpy(dst + o + i * sizeof(f), &f, sizeof(f));
	}
	if (!sc->fdshort)
		return h;
	o += sc->nfd * sizeof(struct iot_fd);
	memcpy(dst, h, sizeof(*sc));
	memcpy(dst + o, in, h->size - sizeof(*sc) - used);
	((struct iot_syscall *)dst)->fdshort = 0;
	((struct iot_hdr *)dst)->size = h->size + grow;
	return out;
}

void fdrestore__free(struct fdrestore *fr)
{
	htab__free(&fr->idx);
	free(fr->id);
	memset(fr, 0, sizeof(*fr));
}
