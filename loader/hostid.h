/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which machine a trace is of and how its clock relates to wall time
 * (hostid.c): what a merge of several hosts' traces needs to tell them apart
 * and put them on one clock.
 */
#ifndef IOTRACE_HOSTID_H
#define IOTRACE_HOSTID_H

#include <stddef.h>
#include <stdint.h>

#include "include/iotrace_abi.h"

/* Builds the IOT_REC_HOST record in buf (cap bytes, 8-aligned); its size, or 0
 * when it does not fit.  Ids that cannot be read are empty strings. */
size_t hostid__build(void *buf, size_t cap, uint64_t ts);
/* Reads a CLOCK_MONOTONIC/CLOCK_REALTIME pair into c, the tightest of a few. */
void hostid__clock(struct iot_clock *c, enum iot_clock_when when);
/* The inode of a /proc/.../ns/net link, 0 when it cannot be read. */
uint32_t hostid__netns(const char *nspath);

#endif
