// SPDX-License-Identifier: GPL-2.0
/* iotrace record's command line. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cliopt.h"
#include "lib/log.h"
#include "lib/syscalls.h"
#include "loader/recopts.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: iotrace record [-p PID[,PID...]] [--no-children] [-o FILE] [-f] [-q]\n"
		"                      [--duration SEC] [--buffer-size MB] [--calls SET]\n"
		"                      [-- CMD [ARG...]]\n"
		"\n"
		"Record the file, pipe, socket, futex and mmap activity of running processes\n"
		"(-p) or of a command started traced (-- CMD).  With -- CMD, exits with the\n"
		"command's status (128+N when signal N killed it).\n"
		"\n"
		"  -p, --pid PID[,PID...]   trace these processes, their threads and descendants\n"
		"      --no-children        do not follow descendants, existing or new\n"
		"  -o, --output FILE        trace file (default iotrace.iot); an existing one is\n"
		"                           kept as FILE.old\n"
		"  -f, --force              replace an existing FILE instead\n"
		"  -d, --duration SEC       stop after SEC seconds\n"
		"  -b, --buffer-size MB     kernel ring buffer size (default 64, a power of two;\n"
		"                           NK for KiB)\n"
		"      --calls SET          record only these call families, comma-separated:\n"
		"                           file, sync, net, ipc, mem, proc (always), all\n"
		"                           (the default); see iotrace-record(1)\n"
		"  -q, --quiet              no status line, no summary: errors and warnings only\n"
		"  -v, --verbose            debug messages, libbpf's among them\n"
		"  -h, --help               this help\n"
		"\n"
		"EXAMPLES:\n"
		"  iotrace record -o ls.iot -- ls -l /tmp\n"
		"  iotrace record -p \"$$\" -o shell.iot --duration 2\n"
		"  iotrace record -q -f -o ls.iot -- ls -l /tmp\n"
		"  iotrace record --calls file,sync -o files.iot -- ls -l /tmp\n");
}

static int parse_pids(struct pidset *set, const char *arg)
{
	char *copy = strdup(arg), *tok, *save = NULL, *end;
	int e = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !e; tok = strtok_r(NULL, ",", &save)) {
		long v;

		errno = 0;
		v = strtol(tok, &end, 10);
		if (errno || *end || v <= 0 || v > INT_MAX) {
			cliopt__usage_error("record", "invalid PID '%s'", tok);
			e = -EINVAL;
		} else {
			e = pidset__add(set, v);
		}
	}
	if (!e && !set->n) {
		cliopt__usage_error("record", "no PID in '%s'", arg);
		e = -EINVAL;
	}
	free(copy);
	return e;
}

/* MB, or K for small rings (the loss tests use them); 0 when not a valid size. */
static size_t parse_ring(const char *arg)
{
	char *end;
	unsigned long v;
	size_t bytes;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || (*end && strcmp(end, "K")) || v > (4ul << 20))
		return 0;
	bytes = v << (*end == 'K' ? 10 : 20);
	if (bytes < 4096 || (bytes & (bytes - 1)) || bytes > (4ul << 30))
		return 0;
	return bytes;
}

static int parse_calls(struct record_opts *o, const char *arg)
{
	const char *bad;

	if (!syscall__parse_families(arg, &o->families, &bad))
		return 0;
	cliopt__usage_error("record",
			    "unknown call family '%.*s' in --calls: file, sync, net, ipc, mem, "
			    "proc or all",
			    (int)strcspn(bad, ","), bad);
	return -EINVAL;
}

static int parse_opt(int c, struct record_opts *o)
{
	char *end;

	switch (c) {
	case 'p':
		return parse_pids(&o->targets, optarg);
	case 'N':
		o->no_children = true;
		return 0;
	case 'o':
		o->out = optarg;
		return 0;
	case 'f':
		o->force = true;
		return 0;
	case 'q':
		o->quiet = true;
		log_level = LOG_WARN;
		return 0;
	case 'v':
		log_level = LOG_DBG;
		return 0;
	case 'd':
		errno = 0;
		o->duration = strtod(optarg, &end);
		if (errno || end == optarg || *end || !(o->duration > 0) || o->duration > 1e9)
			break;
		return 0;
	case 'b':
		o->ring_bytes = parse_ring(optarg);
		if (!o->ring_bytes)
			break;
		return 0;
	case 'C':
		return parse_calls(o, optarg);
	default:
		return -EINVAL; /* cliopt__next has said why */
	}
	if (c == 'd')
		cliopt__usage_error("record", "invalid duration '%s': seconds above 0", optarg);
	else
		cliopt__usage_error("record",
				    "invalid buffer size '%s': a power of two from 4K "
				    "to 4096 (MB)",
				    optarg);
	return -EINVAL;
}

int record_opts__parse(int argc, char **argv, struct record_opts *o)
{
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "no-children", no_argument, NULL, 'N' },
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "duration", required_argument, NULL, 'd' },
		{ "buffer-size", required_argument, NULL, 'b' },
		{ "calls", required_argument, NULL, 'C' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "verbose", no_argument, NULL, 'v' },
		{},
	};
	int c, e;

	o->out = "iotrace.iot";
	o->ring_bytes = 64u << 20;
	o->families = IOT_FAM_ALL;
	/* '+': stop at the first non-option, CMD's own options are its own */
	while ((c = cliopt__next("record", argc, argv, "+p:o:fd:b:qhv", longopts)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 1;
		}
		e = parse_opt(c, o);
		if (e)
			return e;
	}
	if (optind < argc)
		o->cmd = argv + optind;
	if (!o->cmd == !o->targets.n) {
		cliopt__usage_error("record", o->cmd ? "give either -p PID or -- CMD, not both" :
						       "nothing to trace: give -p PID or -- CMD");
		return -EINVAL;
	}
	if (!*o->out) {
		cliopt__usage_error("record", "empty output file name");
		return -EINVAL;
	}
	return 0;
}
