/* SPDX-License-Identifier: GPL-2.0 */
/* Op issue internals shared by ops.c and fdops.c. */
#ifndef IOTRACE_RP_OPS_H
#define IOTRACE_RP_OPS_H

#include <errno.h>

#include "replay.h"

/* The replay fd of recorded fd RFD in op's process, or an RP_FD_* value. */
int fd__get(const struct rp_plan *p, const struct rp_op *op, int32_t rfd);
int64_t fd__missing(struct rp_op *op, int fd);
void fd__set(struct rp_plan *p, uint32_t pidx, int64_t rfd, int fd, uint8_t fl);
/* Every op that names an fd (close, I/O, dup, fcntl, mmap). */
int64_t fd__op(struct rp_plan *p, struct rp_thread *t, struct rp_op *op, bool *emul);

/* A libc call's result as the op's result: >= 0, or -errno. */
static inline int64_t sys_res(int64_t r)
{
	return r < 0 ? -(int64_t)errno : r;
}

struct sockaddr_storage;
/* Loopback address of FAMILY with PORT; returns its length. */
unsigned int net__loopback(struct sockaddr_storage *ss, int family, int port);
/* Local port of a bound socket, or -errno. */
int net__port(int fd);

#endif
