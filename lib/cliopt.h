/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Command-line manners every subcommand shares: the exit codes, getopt
 * without getopt's own messages, and one usage-error line that says what
 * was wrong and where the help is.
 */
#ifndef IOTRACE_CLIOPT_H
#define IOTRACE_CLIOPT_H

#include <getopt.h>

#define EXIT_OK	   0
#define EXIT_FAIL  1
#define EXIT_USAGE 2

/*
 * getopt_long for subcommand CMD.  An unknown option or a missing argument
 * prints one "iotrace: CMD: ..." line and returns '?'; everything else is as
 * getopt_long (a leading '+' in shortopts still stops at the first operand).
 */
int cliopt__next(const char *cmd, int argc, char **argv, const char *shortopts,
		 const struct option *longopts);

/* Prints "iotrace: CMD: MESSAGE (see 'iotrace CMD --help')"; returns EXIT_USAGE.
 * A NULL CMD, for iotrace's own options before the command, leaves out both
 * mentions of CMD. */
int cliopt__usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
