/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trace file's name is given to it only once the recording has started:
 * a command that cannot run, a PID that is gone or missing privileges leave
 * no file behind and an existing one untouched.  An existing file is kept as
 * FILE.old, as perf record does, unless forced.
 */
#ifndef IOTRACE_LOADER_OUTPUT_H
#define IOTRACE_LOADER_OUTPUT_H

#include <limits.h>
#include <stdbool.h>

struct output {
	const char *path;
	int fd;
	bool direct;	    /* not a regular file (a device, a FIFO, a link): written in place */
	bool committed;	    /* the file has its name */
	char tmp[PATH_MAX]; /* a named temporary where O_TMPFILE is not supported */
};

/* Opens an unnamed file beside PATH (or PATH itself, see direct).  0 or -errno, said. */
int output__open(struct output *o, const char *path);
/* Gives the file its name; keeps an existing one as PATH.old unless FORCE.  0 or -errno. */
int output__commit(struct output *o, bool force);
/* Closes; a file never committed disappears.  Accepts a zeroed or failed output. */
void output__close(struct output *o);

#endif
