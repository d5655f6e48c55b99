/* SPDX-License-Identifier: GPL-2.0 */
/* Symlink chains behind the paths traced calls name, written as LINK records. */
#ifndef IOTRACE_LINKSNAP_H
#define IOTRACE_LINKSNAP_H

#include <stdint.h>
#include "include/iotrace_abi.h"

struct trace_writer;

/* The paths already resolved, as hashes; zero-initialised, freed by linksnap__free. */
struct linksnap {
	uint64_t *set;
	uint32_t cap, n;
};

/* After record H went into the trace: for each absolute path it names that no
 * earlier record named, a LINK record per symlink of the chain the path's
 * last component starts.  0, or the writer's -errno. */
int linksnap__note(struct linksnap *ls, struct trace_writer *w, const struct iot_hdr *h);
void linksnap__free(struct linksnap *ls);

#endif
