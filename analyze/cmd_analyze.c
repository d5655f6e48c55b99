// SPDX-License-Identifier: GPL-2.0
/* iotrace analyze: the command line around analyze.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "analyze/cmd_analyze.h"
#include "lib/cliopt.h"
#include "lib/log.h"

#define OUT_BUF (4u << 20)

#define MAX_OPT_LIST 256 /* --host-of and --clock-shift given, each */

struct analyze_args {
	const char *in, *out;
	const char *const *inputs; /* argv's trace files */
	uint32_t ninputs;
	struct an_opts opts;
	bool summary, json;
	struct an_host_of host_of[MAX_OPT_LIST];
	struct an_shift shift[MAX_OPT_LIST];
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: iotrace analyze FILE [--infer-causality] [--rules LIST] [-o OUT]\n"
		   "       iotrace analyze FILE --summary [--json] [--infer-causality]\n"
		   "       iotrace analyze A.iot B.iot ... [--host-of PID=NAME]... [OPTIONS]\n"
		   "\n"
		   "Write the annotated trace as JSON Lines (docs/annotated-format.md): a header\n"
		   "line with threads, processes, the initial files and loss, then one line per\n"
		   "call in enter-time order with named arguments, resolved paths, compute time\n"
		   "and, with --infer-causality, the calls of other threads it depends on.\n"
		   "\n"
		   "  --infer-causality  add cross-thread deps\n"
		   "  --rules LIST       rule families: process,wakeup,data,stage,name,seq,\n"
		   "                     spin,barrier or all\n"
		   "                     (default: all but seq)\n"
		   "  -o, --output OUT   write to OUT instead of stdout\n"
		   "  --summary          per-call counts, latency percentiles, bytes, top files,\n"
		   "                     edge counts; --json for one JSON object\n"
		   "\n"
		   "Several traces (or one with --host-of) make one job of several hosts: TCP\n"
		   "connections matched across them, cross-host data deps, the clocks aligned\n"
		   "(iotrace analyze --infer-causality app.iot db.iot -o job.jsonl).\n"
		   "  --host-of PID=NAME process PID and its children ran on host NAME\n"
		   "  --clock-shift HOST=NS  for tests: move HOST's clock by NS before aligning\n"
		   "\n"
		   "EXAMPLES:\n"
		   "  iotrace analyze db.iot --infer-causality -o db.jsonl\n"
		   "  iotrace analyze db.iot --infer-causality --rules wakeup,data -o db-wd.jsonl\n"
		   "  iotrace analyze db.iot --summary\n");
}

enum { OPT_INFER = 256, OPT_RULES, OPT_SUMMARY, OPT_JSON, OPT_HOST_OF, OPT_SHIFT };

static const struct option longopts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "infer-causality", no_argument, NULL, OPT_INFER },
	{ "rules", required_argument, NULL, OPT_RULES },
	{ "summary", no_argument, NULL, OPT_SUMMARY },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "output", required_argument, NULL, 'o' },
	{ "host-of", required_argument, NULL, OPT_HOST_OF },
	{ "clock-shift", required_argument, NULL, OPT_SHIFT },
	{ 0 },
};

/* "LEFT=NUMBER": LEFT (a name, not empty) and the number.  0 or -1. */
static int split_eq(const char *arg, const char **name, long long *num, char **lhs)
{
	const char *eq = strrchr(arg, '=');
	char *end;

	if (!eq || eq == arg || !eq[1])
		return -1;
	errno = 0;
	*num = strtoll(eq + 1, &end, 10);
	if (*end || errno)
		return -1;
	*lhs = strndup(arg, eq - arg);
	*name = eq + 1;
	return *lhs ? 0 : -1;
}

static int add_host_of(struct analyze_args *a, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char *end;
	long pid;

	errno = 0;
	pid = eq ? strtol(arg, &end, 10) : 0;
	if (!eq || end != eq || errno || pid <= 0 || pid > INT32_MAX || !eq[1])
		return cliopt__usage_error("analyze", "--host-of wants PID=NAME, not '%s'", arg),
		       -1;
	if (a->opts.n_host_of == MAX_OPT_LIST)
		return cliopt__usage_error("analyze", "too many --host-of"), -1;
	a->host_of[a->opts.n_host_of++] = (struct an_host_of){ .pid = pid, .name = eq + 1 };
	return 0;
}

static int add_shift(struct analyze_args *a, const char *arg)
{
	const char *num;
	long long ns;
	char *host;

	if (split_eq(arg, &num, &ns, &host))
		return cliopt__usage_error("analyze", "--clock-shift wants HOST=NS, not '%s'", arg),
		       -1;
	if (a->opts.n_shift == MAX_OPT_LIST) {
		free(host);
		return cliopt__usage_error("analyze", "too many --clock-shift"), -1;
	}
	a->shift[a->opts.n_shift++] = (struct an_shift){ .host = host, .ns = ns };
	return 0;
}

/* 0 to run, 1 after --help, -1 after a usage error (already printed) */
static int parse(int argc, char **argv, struct analyze_args *a)
{
	int c;

	a->opts.rules = AN_RULES_DEFAULT;
	while ((c = cliopt__next("analyze", argc, argv, "ho:", longopts)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return 1;
		case 'o':
			a->out = optarg;
			break;
		case OPT_INFER:
			a->opts.infer = true;
			break;
		case OPT_SUMMARY:
			a->summary = true;
			break;
		case OPT_JSON:
			a->json = true;
			break;
		case OPT_HOST_OF:
			if (add_host_of(a, optarg))
				return -1;
			break;
		case OPT_SHIFT:
			if (add_shift(a, optarg))
				return -1;
			break;
		case OPT_RULES:
			if (!an_rule__parse(optarg, &a->opts.rules))
				break;
			cliopt__usage_error("analyze", "unknown rule in '%s'", optarg);
			return -1;
		default:
			return -1;
		}
	}
	if (optind >= argc)
		return cliopt__usage_error("analyze", "no trace file"), -1;
	if (a->json && !a->summary)
		return cliopt__usage_error("analyze", "--json goes with --summary"), -1;
	a->in = argv[optind];
	a->inputs = (const char *const *)argv + optind;
	a->ninputs = argc - optind;
	a->opts.host_of = a->host_of;
	a->opts.shift = a->shift;
	if ((a->ninputs > 1 || a->opts.n_host_of) && a->summary)
		return cliopt__usage_error("analyze", "--summary takes one trace and no --host-of"),
		       -1;
	if (a->opts.n_shift && a->ninputs < 2)
		return cliopt__usage_error("analyze", "--clock-shift needs several traces"), -1;
	return 0;
}

static int write_out(const struct analysis *an, const struct analyze_args *a)
{
	FILE *f = a->out ? fopen(a->out, "w") : stdout;
	int err;

	if (!f) {
		err("analyze: cannot write '%s': %s", a->out, strerror(errno));
		return 1;
	}
	setvbuf(f, NULL, _IOFBF, OUT_BUF);
	err = a->summary ? analysis__write_summary(an, f, a->json) : analysis__write_jsonl(an, f);
	if ((f == stdout ? fflush(f) : fclose(f)) && !err)
		err = -errno;
	if (err) {
		err("analyze: writing '%s': %s", a->out ? a->out : "stdout", strerror(-err));
		return 1;
	}
	return 0;
}

int cmd_analyze(int argc, char **argv)
{
	struct analyze_args a = { 0 };
	struct analysis *an;
	int ret = parse(argc, argv, &a);

	if (ret) {
		ret = ret > 0 ? EXIT_OK : EXIT_USAGE;
		goto out;
	}
	if (a.ninputs > 1 || a.opts.n_host_of)
		an = analysis__new_multi(a.inputs, a.ninputs, &a.opts);
	else
		an = analysis__new(a.in, NULL, 0, &a.opts);
	if (!an) {
		ret = 1;
		goto out;
	}
	ret = write_out(an, &a);
	if (analysis__read_error(an)) {
		err("%s: %s; analysed the %u calls before it", a.in, analysis__read_error(an),
		    analysis__events(an));
		ret = 1;
	} else if (analysis__cut(an)) {
		warn("%s: %s; analysed what it wrote", a.in, analysis__cut(an));
	}
	dbg("analyze: %.1f bytes of memory per event", analysis__bytes_per_event(an));
	analysis__free(an);
out:
	for (uint32_t i = 0; i < a.opts.n_shift; i++)
		free((char *)a.shift[i].host);
	return ret;
}
