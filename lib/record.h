/* SPDX-License-Identifier: GPL-2.0 */
/* Checked access to the variable parts of records read from a trace. */
#ifndef IOTRACE_RECORD_H
#define IOTRACE_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "include/iotrace_abi.h"

/* A syscall record with its tails located and bounds-checked. */
struct sc_view {
	const struct iot_syscall *sc;
	const struct iot_fd *fds;      /* sc->nfd entries; NULL when some are short */
	const struct iot_sock *sock;   /* NULL unless IOT_SCF_SOCK */
	const char *str[IOT_MAX_STRS]; /* NUL-terminated, NULL if absent */
	const struct iot_str *strh[IOT_MAX_STRS];
	unsigned int nstr;
};

/* 0, or -EBADMSG when the record's tails do not fit in hdr->size or it has
 * short fd entries (a trace reader makes them whole). */
int sc_view__parse(const struct iot_hdr *h, struct sc_view *v);
/* The same on a record as the BPF side emits it, short fd entries and socket
 * tail and all: v->fds or v->sock is NULL when they are short (the recorder
 * reads only the strings). */
int sc_view__parse_raw(const struct iot_hdr *h, struct sc_view *v);
/* The fd slot for argument/result `which`, or NULL. */
const struct iot_fd *sc_view__fd(const struct sc_view *v, unsigned int which);
/* The string read from argument/slot `which`, or NULL. */
const char *sc_view__str(const struct sc_view *v, unsigned int which);
/*
 * The bytes of its direction's TCP stream a send or receive moved, as 32-bit
 * sequence numbers [*from, *to) (to - from == ret, modulo 2^32); *sent says
 * which direction: the socket's sending one or its receiving one.  False
 * when the call moved no stream bytes it can place: not a TCP transfer,
 * ret <= 0, a version 1 trace, sendmmsg/recvmmsg (ret counts messages), or
 * a MSG_PEEK receive.
 */
bool sc_view__tcp_range(const struct sc_view *v, uint32_t *from, uint32_t *to, bool *sent);

/* The enum iot_ftype of an st_mode; a mode with no type bits is an anon inode's. */
unsigned int rec__ftype_of_mode(uint32_t mode);

/*
 * Strings that follow a fixed-size user-space record (meta, proc, thread,
 * fdsnap, mapsnap): fills up to max pointers, returns how many, or -EBADMSG.
 */
int rec__strings(const struct iot_hdr *h, size_t fixed, unsigned int nstr, const char **out,
		 unsigned int max);
/* The minimum size of a record of this type, 0 when the type is unknown. */
size_t rec__min_size(unsigned int type);
/* enum iot_clock_when's name: "start", "end", "launch", or "unknown" */
const char *rec__clock_when(uint32_t when);

/* Appends a string tail (struct iot_str + data + padding) at buf + *off,
 * advancing *off; returns false if it would pass cap.  For the recorder. */
bool rec__put_str(void *buf, size_t *off, size_t cap, unsigned int which, const char *s,
		  size_t len);

#endif
