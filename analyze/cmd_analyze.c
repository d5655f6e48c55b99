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

struct analyze_args {
	const char *in, *out;
	struct an_opts opts;
	bool summary, json;
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: iotrace analyze FILE [--infer-causality] [--rules LIST] [-o OUT]\n"
		   "       iotrace analyze FILE --summary [--json] [--infer-causality]\n"
		   "\n"
		   "Write the annotated trace as JSON Lines (docs/annotated-format.md): a header\n"
		   "line with threads, processes, the initial files and loss, then one line per\n"
		   "call in enter-time order with named arguments, resolved paths, compute time\n"
		   "and, with --infer-causality, the calls of other threads it depends on.\n"
		   "\n"
		   "  --infer-causality  add cross-thread deps\n"
		   "  --rules LIST       rule families: process,wakeup,data,stage,name,seq or all\n"
		   "                     (default: all but seq)\n"
		   "  -o, --output OUT   write to OUT instead of stdout\n"
		   "  --summary          per-call counts, latency percentiles, bytes, top files,\n"
		   "                     edge counts; --json for one JSON object\n"
		   "\n"
		   "EXAMPLES:\n"
		   "  iotrace analyze db.iot --infer-causality -o db.jsonl\n"
		   "  iotrace analyze db.iot --infer-causality --rules wakeup,data -o db-wd.jsonl\n"
		   "  iotrace analyze db.iot --summary\n");
}

enum { OPT_INFER = 256, OPT_RULES, OPT_SUMMARY, OPT_JSON };

static const struct option longopts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "infer-causality", no_argument, NULL, OPT_INFER },
	{ "rules", required_argument, NULL, OPT_RULES },
	{ "summary", no_argument, NULL, OPT_SUMMARY },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "output", required_argument, NULL, 'o' },
	{ 0 },
};

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
	if (optind + 1 < argc)
		return cliopt__usage_error("analyze", "more than one trace file"), -1;
	if (a->json && !a->summary)
		return cliopt__usage_error("analyze", "--json goes with --summary"), -1;
	a->in = argv[optind];
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

	if (ret)
		return ret > 0 ? EXIT_OK : EXIT_USAGE;
	an = analysis__new(a.in, NULL, 0, &a.opts);
	if (!an)
		return 1;
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
	return ret;
}
