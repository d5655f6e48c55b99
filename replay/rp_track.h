/* SPDX-License-Identifier: GPL-2.0 */
/* Load-time fd bookkeeping (track.c). */
#ifndef IOTRACE_RP_TRACK_H
#define IOTRACE_RP_TRACK_H

#include <jansson.h>
#include "replay.h"

/* Called for each op in trace order, right after event__compile. */
int track__op(struct rp_plan *p, struct rp_op *op, json_t *ev);
void track__free(void);

#endif
