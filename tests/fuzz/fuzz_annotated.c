// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: bytes as an annotated trace for the replayer's loader
 * and compiler (every order).  Anything may be refused with a message; the
 * loader must never crash, hang or read out of bounds.  Nothing is replayed:
 * the sandbox is not touched.
 */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/log.h"
#include "replay/replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum rp_order orders[] = { RO_CAUSAL, RO_TEMPORAL, RO_SINGLE, RO_NONE };
	int fd = memfd_create("annotated", 0);
	char path[64];

	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		for (unsigned int i = 0; i < 4; i++) {
			struct rp_opts o = { .timing = RT_AFAP,
					     .order = orders[i],
					     .speed = 1,
					     .root = "/nonexistent" };
			struct rp_plan p = { 0 };

			if (!parse__file(&p, path))
				compile__plan(&p, &o);
			plan__free(&p);
		}
	}
	close(fd);
	return 0;
}
