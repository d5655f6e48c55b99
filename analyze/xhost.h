/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cross-host view xhost.c builds and emit.c writes: matched TCP
 * connections, and for each event on one, its connection and stream bytes.
 * Internal to analyze/.
 */
#ifndef IOTRACE_XHOST_H
#define IOTRACE_XHOST_H

#include <stdint.h>
#include "analyze/an.h"

struct xconn {
	uint32_t end[2];   /* struct xend index: client, server */
	uint32_t base[2];  /* sequence number of stream byte 0: client to server, back */
	uint64_t bytes[2]; /* bytes each way, the larger of what either end saw */
	bool have_base[2];
};

struct xhost {
	struct an_vec ends;  /* struct xend */
	struct an_vec ios;   /* struct xio */
	struct an_vec conns; /* struct xconn */
	struct an_vec pairs; /* struct xpair: send -> receive, arena offsets */
	struct htab end_idx; /* hash of (input, socket inode) -> end */
	struct htab rec_end; /* arena offset of a call on a TCP socket -> end */
	struct htab rec_io;  /* arena offset of a send or receive -> io */
	uint32_t *ev_conn;   /* by event id once sorted: connection, or AN_NONE */
	uint32_t *ev_io;     /* by event id: io, or AN_NONE */
	uint64_t external;   /* TCP ends whose other end no input recorded */
};

/* Connection of event id, or AN_NONE; its stream bytes [*s0, *s1) when it moved any. */
uint32_t xhost__conn_of(const struct analysis *an, uint32_t id, uint64_t *s0, uint64_t *s1);
/* The two ends of connection c: host, address text, port. */
void xhost__end(const struct analysis *an, uint32_t c, int which, uint32_t *host, char *addr,
		size_t addrlen, uint16_t *port);

struct json_t;
/* The header's "connections", and one host's "netns" (own: its recorder's, or 0). */
struct json_t *xhost__conns_json(const struct analysis *an);
struct json_t *xhost__netns_json(const struct analysis *an, uint32_t host, uint64_t own);

#endif
