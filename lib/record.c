// SPDX-License-Identifier: GPL-2.0
/* Bounds-checked views of the variable-size records of a trace. */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "lib/record.h"

static size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/*
 * Walks n string tails starting at off; every string must end inside the
 * record and carry its NUL, so callers can use them as C strings.
 */
static int walk_strings(const struct iot_hdr *h, size_t off, unsigned int n, const char **out,
			const struct iot_str **outh, unsigned int max)
{
	const unsigned char *base = (const unsigned char *)h;
	unsigned int i;

	for (i = 0; i < n; i++) {
		const struct iot_str *s;
		const char *data;

		if (off + sizeof(*s) > h->size)
			return -EBADMSG;
		s = (const struct iot_str *)(base + off);
		data = (const char *)(s + 1);
		off += sizeof(*s);
		if (s->len == 0 || s->len > h->size - off || data[s->len - 1] != '\0')
			return -EBADMSG;
		if (i < max) {
			out[i] = data;
			if (outh)
				outh[i] = s;
		}
		off += pad8(s->len);
	}
	return n < max ? (int)n : (int)max;
}

/* Parses h; short fd entries and socket tails only when fds_short, leaving
 * v->fds or v->sock NULL. */
static int view_parse(const struct iot_hdr *h, struct sc_view *v, bool fds_short)
{
	size_t off = sizeof(struct iot_syscall), fdlen = 0;
	const unsigned char *base = (const unsigned char *)h;
	int n;

	memset(v, 0, sizeof(*v));
	if (h->type != IOT_REC_SYSCALL || h->size < off)
		return -EBADMSG;
	v->sc = (const struct iot_syscall *)h;
	if (v->sc->nfd > IOT_MAX_FDS || v->sc->nstr > IOT_MAX_STRS)
		return -EBADMSG;
	if (v->sc->fdshort && !fds_short)
		return -EBADMSG;
	for (unsigned int i = 0; i < v->sc->nfd; i++)
		fdlen += v->sc->fdshort & (1u << i) ? sizeof(struct iot_fd_short) :
						      sizeof(struct iot_fd);
	if (off + fdlen > h->size)
		return -EBADMSG;
	if (!v->sc->fdshort)
		v->fds = (const struct iot_fd *)(base + off);
	off += fdlen;
	if ((v->sc->flags & IOT_SCF_SOCK_SHORT) && !fds_short)
		return -EBADMSG;
	if (v->sc->flags & IOT_SCF_SOCK) {
		size_t len = v->sc->flags & IOT_SCF_SOCK_SHORT ? sizeof(struct iot_sock_short) :
								 sizeof(struct iot_sock);

		if (off + len > h->size)
			return -EBADMSG;
		if (len == sizeof(struct iot_sock))
			v->sock = (const struct iot_sock *)(base + off);
		off += len;
	}
	n = walk_strings(h, off, v->sc->nstr, v->str, v->strh, IOT_MAX_STRS);
	if (n < 0)
		return n;
	v->nstr = n;
	return 0;
}

int sc_view__parse(const struct iot_hdr *h, struct sc_view *v)
{
	return view_parse(h, v, false);
}

int sc_view__parse_raw(const struct iot_hdr *h, struct sc_view *v)
{
	return view_parse(h, v, true);
}

const struct iot_fd *sc_view__fd(const struct sc_view *v, unsigned int which)
{
	if (!v->fds)
		return NULL;
	for (unsigned int i = 0; i < v->sc->nfd; i++)
		if (v->fds[i].which == which)
			return &v->fds[i];
	return NULL;
}

const char *sc_view__str(const struct sc_view *v, unsigned int which)
{
	for (unsigned int i = 0; i < v->nstr; i++)
		if (v->strh[i]->which == which)
			return v->str[i];
	return NULL;
}

/* The flags argument of a receive that has one, else 0. */
static uint64_t recv_flags(const struct iot_syscall *sc)
{
	switch (sc->nr) {
	case SYS_recvfrom:
		return sc->args[3];
	case SYS_recvmsg:
		return sc->args[2];
	default:
		return 0;
	}
}

bool sc_view__tcp_range(const struct sc_view *v, uint32_t *from, uint32_t *to, bool *sent)
{
	const struct iot_sock *s = v->sock;

	if (!s || !(s->sflags & IOT_SOCKF_TCP_SEQ) || v->sc->ret <= 0)
		return false;
	switch (v->sc->nr) {
	case SYS_read:
	case SYS_readv:
	case SYS_recvfrom:
	case SYS_recvmsg:
	case SYS_splice:
		if ((s->sflags & IOT_SOCKF_SENT) || (recv_flags(v->sc) & MSG_PEEK))
			return false;
		break;
	case SYS_write:
	case SYS_writev:
	case SYS_sendto:
	case SYS_sendmsg:
	case SYS_sendfile:
		if (!(s->sflags & IOT_SOCKF_SENT))
			return false;
		break;
	default:
		return false;
	}
	*to = s->tcp_seq;
	*from = s->tcp_seq - (uint32_t)v->sc->ret;
	*sent = s->sflags & IOT_SOCKF_SENT;
	return true;
}

int rec__strings(const struct iot_hdr *h, size_t fixed, unsigned int nstr, const char **out,
		 unsigned int max)
{
	if (h->size < fixed)
		return -EBADMSG;
	return walk_strings(h, fixed, nstr, out, NULL, max);
}

unsigned int rec__ftype_of_mode(uint32_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:
		return IOT_FT_REG;
	case S_IFDIR:
		return IOT_FT_DIR;
	case S_IFIFO:
		return IOT_FT_FIFO;
	case S_IFSOCK:
		return IOT_FT_SOCK;
	case S_IFCHR:
		return IOT_FT_CHR;
	case S_IFBLK:
		return IOT_FT_BLK;
	case S_IFLNK:
		return IOT_FT_LNK;
	case 0:
		return IOT_FT_ANON;
	}
	return IOT_FT_OTHER;
}

const char *rec__clock_when(uint32_t when)
{
	static const char *const name[] = {
		[IOT_CLOCK_START] = "start",
		[IOT_CLOCK_END] = "end",
		[IOT_CLOCK_LAUNCH] = "launch",
	};

	return when < sizeof(name) / sizeof(name[0]) ? name[when] : "unknown";
}

size_t rec__min_size(unsigned int type)
{
	switch (type) {
	case IOT_REC_SYSCALL:
		return sizeof(struct iot_syscall);
	case IOT_REC_FORK:
		return sizeof(struct iot_fork);
	case IOT_REC_EXEC:
		return sizeof(struct iot_exec);
	case IOT_REC_EXIT:
		return sizeof(struct iot_exit);
	case IOT_REC_WAKEUP:
		return sizeof(struct iot_wakeup);
	case IOT_REC_SWITCH:
		return sizeof(struct iot_switch);
	case IOT_REC_PAGE:
		return sizeof(struct iot_page);
	case IOT_REC_META:
		return sizeof(struct iot_meta);
	case IOT_REC_PROC:
		return sizeof(struct iot_proc);
	case IOT_REC_THREAD:
		return sizeof(struct iot_thread);
	case IOT_REC_FDSNAP:
		return sizeof(struct iot_fdsnap);
	case IOT_REC_MAPSNAP:
		return sizeof(struct iot_mapsnap);
	case IOT_REC_STATS:
		return sizeof(struct iot_stats);
	case IOT_REC_TARGET:
		return sizeof(struct iot_target);
	case IOT_REC_SEQEND:
		return sizeof(struct iot_seqend);
	case IOT_REC_LINK:
		return sizeof(struct iot_link);
	case IOT_REC_HOST:
		return sizeof(struct iot_host);
	case IOT_REC_CLOCK:
		return sizeof(struct iot_clock);
	case IOT_REC_CALLS:
		return sizeof(struct iot_calls);
	case IOT_REC_FLOOR:
		return sizeof(struct iot_floor);
	case IOT_REC_HELPER:
		return sizeof(struct iot_helper);
	default:
		return 0;
	}
}

bool rec__put_str(void *buf, size_t *off, size_t cap, unsigned int which, const char *s, size_t len)
{
	struct iot_str hdr = { .len = len + 1, .which = which };
	unsigned char *p = (unsigned char *)buf + *off;
	size_t need = sizeof(hdr) + pad8(len + 1);

	if (len + 1 > UINT16_MAX || *off + need > cap)
		return false;
	memcpy(p, &hdr, sizeof(hdr));
	memcpy(p + sizeof(hdr), s, len);
	memset(p + sizeof(hdr) + len, 0, need - sizeof(hdr) - len);
	*off += need;
	return true;
}
