// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lib/cliopt.h"

int cliopt__usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "iotrace: %s%s", cmd ? cmd : "", cmd ? ": " : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see 'iotrace %s%s--help')\n", cmd ? cmd : "", cmd ? " " : "");
	return EXIT_USAGE;
}

/* The option getopt just refused, as the user wrote it: a long option is
 * argv[optind - 1]; a short one may sit inside a cluster ("-xq"). */
static void refused(char *buf, size_t len, char **argv, int optopt_c)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";

	if (optopt_c && strncmp(arg, "--", 2))
		snprintf(buf, len, "-%c", optopt_c);
	else
		snprintf(buf, len, "%s", arg);
}

int cliopt__next(const char *cmd, int argc, char **argv, const char *shortopts,
		 const struct option *longopts)
{
	static char **parsing;
	char spec[128], opt[128];
	int plus = shortopts[0] == '+';
	int c;

	/* A new argv is a new parse: iotrace's own options, then the command's.
	 * glibc reads the '+' (stop at the first operand) only when optind is 0,
	 * so without this the command's options after its file were operands. */
	if (argv != parsing) {
		parsing = argv;
		optind = 0;
	}

	/* a ':' after any '+' makes getopt tell a missing argument (':') from
	 * an unknown option ('?'), and keeps it quiet about both */
	snprintf(spec, sizeof(spec), "%s:%s", plus ? "+" : "", shortopts + plus);
	opterr = 0;
	c = getopt_long(argc, argv, spec, longopts, NULL);
	if (c != '?' && c != ':')
		return c;
	refused(opt, sizeof(opt), argv, optopt);
	if (c == ':')
		cliopt__usage_error(cmd, "option '%s' needs an argument", opt);
	else
		cliopt__usage_error(cmd, "unknown option '%s'", opt);
	return '?';
}
