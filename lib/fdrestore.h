/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Short fd entries (struct iot_fd_short, format version 3) back to struct
 * iot_fd: what the recorder left out because the thread's last full entry for
 * that fd number named the same open file.
 */
#ifndef IOTRACE_FDRESTORE_H
#define IOTRACE_FDRESTORE_H

#include <stdint.h>
#include "include/iotrace_abi.h"
#include "lib/htab.h"

struct fdrestore {
	struct htab idx;	 /* tid << 32 | fd -> index in id */
	struct fdrestore_id *id; /* the last full entry's identity */
	uint32_t n, cap;
	uint64_t unknown; /* short entries with no full one before them */
};

/*
 * Records h's full fd entries and, when it has short ones, writes it to out
 * (IOT_REC_MAX bytes) with them made whole and returns out; else returns h.
 * Records must come in each thread's order, every one of them.
 */
const struct iot_hdr *fdrestore__apply(struct fdrestore *fr, const struct iot_hdr *h, void *out);
void fdrestore__free(struct fdrestore *fr);

#endif
