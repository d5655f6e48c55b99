// SPDX-License-Identifier: GPL-2.0
/*
 * iotrace version: what a bug report needs to say which iotrace ran, on
 * which libbpf and which kernel, since the BPF side depends on all three.
 */
#include <bpf/libbpf.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "cli/cmd_version.h"
#include "lib/cliopt.h"
#include "version.h"

static const struct option longopts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: iotrace version\n"
		   "       iotrace --version\n"
		   "\n"
		   "Print iotrace's version (and the git commit it was built from), the\n"
		   "libbpf it runs with and the running kernel.\n");
}

static void print_versions(FILE *f)
{
	struct utsname u;

	fprintf(f, "iotrace %s%s%s%s\n", IOTRACE_VERSION, *IOTRACE_GIT ? " (git " : "", IOTRACE_GIT,
		*IOTRACE_GIT ? ")" : "");
	fprintf(f, "libbpf %u.%u\n", libbpf_major_version(), libbpf_minor_version());
	if (uname(&u))
		fprintf(f, "kernel unknown\n");
	else
		fprintf(f, "kernel %s %s %s\n", u.sysname, u.release, u.machine);
}

int cmd_version(int argc, char **argv)
{
	int c;

	while ((c = cliopt__next("version", argc, argv, "h", longopts)) != -1) {
		if (c != 'h')
			return EXIT_USAGE;
		usage(stdout);
		return EXIT_OK;
	}
	if (optind < argc)
		return cliopt__usage_error("version", "takes no arguments");
	print_versions(stdout);
	return EXIT_OK;
}
