// SPDX-License-Identifier: GPL-2.0
/* iotrace: record, inspect, analyze and replay the I/O of a running service. */
#include <stdio.h>
#include <string.h>

#include "analyze/cmd_analyze.h"
#include "cli/cmd_inspect.h"
#include "cli/cmd_version.h"
#include "lib/cliopt.h"
#include "lib/log.h"
#include "loader/cmd_record.h"
#include "replay/cmd_replay.h"

struct cmd {
	const char *name;
	int (*func)(int argc, char **argv);
	const char *summary;
};

static const struct cmd cmds[] = {
	{ "record", cmd_record, "trace a running process (-p PID) or a command (-- CMD)" },
	{ "info", cmd_info, "summarise a trace file as JSON" },
	{ "dump", cmd_dump, "print a trace file one call per line, strace-like" },
	{ "analyze", cmd_analyze, "annotate a trace with causal edges (JSON Lines)" },
	{ "replay", cmd_replay, "re-issue an annotated trace's calls in a sandbox" },
	{ "export", cmd_export, "write a trace for Perfetto / chrome://tracing" },
	{ "version", cmd_version, "print iotrace's, libbpf's and the kernel's versions" },
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: iotrace [-v] COMMAND [ARGS]\n"
		   "       iotrace --version\n\nCommands:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(f, "\nOptions:\n"
		   "  -v, --verbose  debug messages, libbpf's own among them\n"
		   "  -V, --version  the same as 'iotrace version'\n"
		   "  -h, --help     this help\n"
		   "\n'iotrace COMMAND --help' shows a command's options.\n"
		   "\nEXAMPLES:\n"
		   "  iotrace record -o ls.iot -- ls -l /tmp\n"
		   "  iotrace info ls.iot\n"
		   "  iotrace dump ls.iot | less\n"
		   "  iotrace analyze ls.iot --infer-causality -o ls.jsonl\n"
		   "  iotrace replay ls.jsonl --root sb --afap\n");
}

static const struct option longopts[] = {
	{ "verbose", no_argument, NULL, 'v' },
	{ "version", no_argument, NULL, 'V' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

int main(int argc, char **argv)
{
	int c;

	/* '+': the options after COMMAND are the command's */
	while ((c = cliopt__next(NULL, argc, argv, "+vVh", longopts)) != -1) {
		switch (c) {
		case 'v':
			log_level = LOG_DBG;
			break;
		case 'V':
			return cmd_version(1, (char *[]){ "version", NULL });
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind >= argc)
		return cliopt__usage_error(NULL, "no command given");
	log_setup_libbpf();
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (strcmp(argv[optind], cmds[i].name))
			continue;
		argc -= optind;
		argv += optind;
		/* getopt starts afresh at the command's argv[1], and reads the
		 * command's own ordering ('+' or not) again only from 0 */
		optind = 0;
		return cmds[i].func(argc, argv);
	}
	return cliopt__usage_error(NULL, "unknown command '%s'", argv[optind]);
}
