// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "lib/log.h"

enum log_level log_level = LOG_INFO;

void log_vmsg(enum log_level lvl, const char *fmt, va_list ap)
{
	static const char *const tag[] = {
		[LOG_ERR] = "",
		[LOG_WARN] = "warning: ",
		[LOG_INFO] = "",
		[LOG_DBG] = "debug: ",
	};

	char line[4096];
	va_list aq;
	int n, m;

	if (lvl > log_level)
		return;
	/* one write a line: the processes of a replay, and mpirun's ranks,
	 * share one stderr, and a line written in pieces interleaves */
	n = snprintf(line, sizeof(line), "iotrace: %s", tag[lvl]);
	va_copy(aq, ap);
	m = vsnprintf(line + n, sizeof(line) - n, fmt, aq);
	va_end(aq);
	if (m >= 0 && (size_t)(n + m) < sizeof(line) - 1) {
		n += m;
		if (!m || line[n - 1] != '\n')
			line[n++] = '\n';
		fwrite(line, 1, n, stderr);
		return;
	}
	line[n] = '\0'; /* longer than a line should be: in pieces */
	fputs(line, stderr);
	vfprintf(stderr, fmt, ap);
	if (!*fmt || fmt[strlen(fmt) - 1] != '\n')
		fputc('\n', stderr);
}

void log_msg(enum log_level lvl, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(lvl, fmt, ap);
	va_end(ap);
}

static int libbpf_print(enum libbpf_print_level lvl, const char *fmt, va_list ap)
{
	/* libbpf is chatty even on success, and iotrace reports the failures
	 * it cares about itself: libbpf's own words only help with -v */
	(void)lvl;
	if (log_level < LOG_DBG)
		return 0;
	fputs("iotrace: libbpf: ", stderr);
	return vfprintf(stderr, fmt, ap);
}

void log_setup_libbpf(void)
{
	libbpf_set_print(libbpf_print);
}
