/* SPDX-License-Identifier: GPL-2.0 */
/* Load-time fd bookkeeping (track.c). */
#ifndef IOTRACE_RP_TRACK_H
#define IOTRACE_RP_TRACK_H

#include <jansson.h>
#include "replay/replay.h"

/* Called for each op in trace order, right after event__compile. */
int track__op(struct rp_plan *p, struct rp_op *op, json_t *ev);
/* After the last op: the fds made by calls still running at its start. */
int track__finish(struct rp_plan *p);
void track__free(void);

#endif
