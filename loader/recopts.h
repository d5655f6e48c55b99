/* SPDX-License-Identifier: GPL-2.0 */
/* iotrace record's command line. */
#ifndef IOTRACE_LOADER_RECOPTS_H
#define IOTRACE_LOADER_RECOPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "loader/pidset.h"

struct record_opts {
	struct pidset targets;
	bool no_children;
	bool force; /* -f: replace an existing output instead of keeping FILE.old */
	bool quiet;
	const char *out;
	double duration;
	size_t ring_bytes;
	uint32_t families; /* --calls: enum iot_family bits, IOT_FAM_PROC always */
	char **cmd;
};

/* 0 to go on, 1 when --help was answered, or -EINVAL when the usage error was said. */
int record_opts__parse(int argc, char **argv, struct record_opts *o);

#endif
