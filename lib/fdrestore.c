// SPDX-License-Identifier: GPL-2.0
/*
 * The recorder emits an fd's identity (inode, device, flags, type) only the
 * first time a thread's call names the open file behind that fd number; the
 * calls after carry position and size alone.  Each thread's records are in
 * order in a trace, so the last full entry seen for (thread, fd) is the one a
 * short entry leaves out.  A lost record never breaks this: the BPF side
 * trusts nothing it emitted before a loss.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fdrestore.h"

struct fdrestore_id {
	uint64_t ino;
	uint32_t dev;
	uint32_t flags;
	uint16_t ftype;
	bool have_sock; /* sock holds the last full socket tail of this open file */
	struct iot_sock sock;
};

static uint64_t fd_key(const struct iot_hdr *h, int32_t fd)
{
	return (uint64_t)h->tid << 32 | (uint32_t)fd;
}

/* The remembered identity of fd in h's thread; made when create. */
static struct fdrestore_id *id_of(struct fdrestore *fr, const struct iot_hdr *h, int32_t fd,
				  bool create)
{
	uint64_t key = fd_key(h, fd);
	uint32_t i = htab__get(&fr->idx, key);

	if (i != UINT32_MAX)
		return &fr->id[i];
	if (!create)
		return NULL;
	if (fr->n == fr->cap) {
		uint32_t cap = fr->cap ? 2 * fr->cap : 64;
		struct fdrestore_id *id = realloc(fr->id, cap * sizeof(*id));

		if (!id)
			return NULL; /* its short entries will read as unknown */
		fr->id = id;
		fr->cap = cap;
	}
	if (htab__set(&fr->idx, key, fr->n))
		return NULL;
	return &fr->id[fr->n++];
}

/* Remembers the identity in full entry f of h's thread. */
static void remember(struct fdrestore *fr, const struct iot_hdr *h, const struct iot_fd *f)
{
	struct fdrestore_id *id = id_of(fr, h, f->fd, true);

	/* a new open file: the recorder sends its socket tail in full first */
	if (id)
		*id = (struct fdrestore_id){
			.ino = f->ino, .dev = f->dev, .flags = f->flags, .ftype = f->ftype
		};
}

/* The whole entry of short entry s of h's thread. */
static struct iot_fd restore(struct fdrestore *fr, const struct iot_hdr *h,
			     const struct iot_fd_short *s)
{
	struct iot_fd f = { .pos = s->pos, .size = s->size, .fd = s->fd, .which = s->which };
	struct fdrestore_id *id = id_of(fr, h, s->fd, false);

	if (!id) {
		/* open, but which file is not known: not "not open" */
		fr->unknown++;
		f.ftype = IOT_FT_OTHER;
		return f;
	}
	f.ino = id->ino;
	f.dev = id->dev;
	f.flags = id->flags;
	f.ftype = id->ftype;
	return f;
}

/* The whole socket tail of fd in h's thread, from short tail ss. */
static struct iot_sock restore_sock(struct fdrestore *fr, const struct iot_hdr *h, int32_t fd,
				    const struct iot_sock_short *ss)
{
	struct fdrestore_id *id = fd < 0 ? NULL : id_of(fr, h, fd, false);
	struct iot_sock s = { 0 };

	if (id && id->have_sock)
		s = id->sock;
	else
		fr->unknown++;
	s.state = ss->state;
	s.tcp_seq = ss->tcp_seq;
	s.sflags = ss->sflags;
	return s;
}

/* Bytes of sc's fd entries, or 0 when they do not fit the record. */
static size_t fd_bytes(const struct iot_syscall *sc)
{
	size_t n = 0;

	for (unsigned int i = 0; i < sc->nfd; i++)
		n += sc->fdshort & (1u << i) ? sizeof(struct iot_fd_short) : sizeof(struct iot_fd);
	return sizeof(*sc) + n <= sc->hdr.size ? n : 0;
}

static size_t sock_bytes(const struct iot_syscall *sc)
{
	if (!(sc->flags & IOT_SCF_SOCK))
		return 0;
	return sc->flags & IOT_SCF_SOCK_SHORT ? sizeof(struct iot_sock_short) :
						sizeof(struct iot_sock);
}

/*
 * The fd entries of sc at in, made whole into out (when out), the identities
 * of full ones remembered; *fd0 is the first argument's fd or -1, *ret_fd
 * whether the call returned one (accept: its socket tail is that fd's).
 */
static void apply_fds(struct fdrestore *fr, const struct iot_syscall *sc, const unsigned char *in,
		      struct iot_fd *out, int32_t *fd0, bool *ret_fd)
{
	*fd0 = -1;
	*ret_fd = false;
	for (unsigned int i = 0; i < sc->nfd; i++) {
		struct iot_fd f;

		if (sc->fdshort & (1u << i)) {
			struct iot_fd_short s;

			memcpy(&s, in, sizeof(s));
			in += sizeof(s);
			f = restore(fr, &sc->hdr, &s);
		} else {
			memcpy(&f, in, sizeof(f));
			in += sizeof(f);
			/* what the BPF side remembers: an open fd named by an argument */
			if (f.which < IOT_FD_RET && f.ftype != IOT_FT_NONE)
				remember(fr, &sc->hdr, &f);
		}
		if (!i && f.which == 0)
			*fd0 = f.fd;
		*ret_fd |= f.which == IOT_FD_RET;
		if (out)
			memcpy(&out[i], &f, sizeof(f));
	}
}

/* The socket tail at in, made whole into out (when out), and remembered when full. */
static void apply_sock(struct fdrestore *fr, const struct iot_syscall *sc, const unsigned char *in,
		       struct iot_sock *out, int32_t fd0, bool ret_fd)
{
	struct fdrestore_id *id;

	if (sc->flags & IOT_SCF_SOCK_SHORT) {
		struct iot_sock_short ss;
		struct iot_sock s;

		memcpy(&ss, in, sizeof(ss));
		s = restore_sock(fr, &sc->hdr, fd0, &ss);
		memcpy(out, &s, sizeof(s));
		return;
	}
	if (out)
		memcpy(out, in, sizeof(*out));
	if (fd0 < 0 || ret_fd || !(id = id_of(fr, &sc->hdr, fd0, false)))
		return;
	memcpy(&id->sock, in, sizeof(id->sock));
	id->have_sock = true;
}

const struct iot_hdr *fdrestore__apply(struct fdrestore *fr, const struct iot_hdr *h, void *out)
{
	const struct iot_syscall *sc = (const void *)h;
	const unsigned char *in = (const unsigned char *)(sc + 1);
	size_t fdlen, socklen, grow, o = sizeof(*sc);
	unsigned char *dst = out;
	bool expand, ret_fd;
	int32_t fd0;

	if (h->type != IOT_REC_SYSCALL || h->size < sizeof(*sc) || sc->nfd > IOT_MAX_FDS)
		return h;
	fdlen = fd_bytes(sc);
	socklen = sock_bytes(sc);
	if ((sc->nfd && !fdlen) || sizeof(*sc) + fdlen + socklen > h->size)
		return h; /* for sc_view__parse() to refuse */
	grow = sc->nfd * sizeof(struct iot_fd) - fdlen + (socklen ? sizeof(struct iot_sock) : 0) -
	       socklen;
	expand = sc->fdshort || (socklen && (sc->flags & IOT_SCF_SOCK_SHORT));
	if (expand && h->size + grow > IOT_REC_MAX)
		return h;
	apply_fds(fr, sc, in, expand ? (struct iot_fd *)(dst + o) : NULL, &fd0, &ret_fd);
	in += fdlen;
	o += sc->nfd * sizeof(struct iot_fd);
	if (socklen) {
		apply_sock(fr, sc, in, expand ? (struct iot_sock *)(dst + o) : NULL, fd0, ret_fd);
		in += socklen;
		o += sizeof(struct iot_sock);
	}
	if (!expand)
		return h;
	memcpy(dst, h, sizeof(*sc));
	memcpy(dst + o, in, h->size - (in - (const unsigned char *)h));
	((struct iot_syscall *)dst)->fdshort = 0;
	((struct iot_syscall *)dst)->flags &= ~IOT_SCF_SOCK_SHORT;
	((struct iot_hdr *)dst)->size = h->size + grow;
	return out;
}

void fdrestore__free(struct fdrestore *fr)
{
	htab__free(&fr->idx);
	free(fr->id);
	memset(fr, 0, sizeof(*fr));
}
