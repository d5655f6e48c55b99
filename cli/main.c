// SPDX-License-Identifier: GPL-2.0
/* iotrace: record, inspect, analyze and replay the I/O of a running service. */
#include <stdio.h>
#include <string.h>

#include "analyze/cmd_analyze.h"
#include "cli/cmd_inspect.h"
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
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: iotrace [-v] COMMAND [ARGS]\n\nCommands:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(f, "\n'iotrace COMMAND --help' shows a command's options.\n"
		   "\nEXAMPLES:\n"
		   "  iotrace record -p 1234 -o db.iot --duration 10\n"
		   "  iotrace record -o ls.iot -- ls -l /tmp\n"
		   "  iotrace info db.iot\n"
		   "  iotrace dump db.iot | less\n");
}

int main(int argc, char **argv)
{
	int i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) {
			log_level = LOG_DBG;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else {
			err("unknown option '%s'", argv[i]);
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (i >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	log_setup_libbpf();
	for (size_t c = 0; c < sizeof(cmds) / sizeof(cmds[0]); c++)
		if (!strcmp(argv[i], cmds[c].name))
			return cmds[c].func(argc - i, argv + i);
	err("unknown command '%s'", argv[i]);
	usage(stderr);
	return EXIT_USAGE;
}
