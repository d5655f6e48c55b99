// SPDX-License-Identifier: GPL-2.0
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

	if (lvl > log_level)
		return;
	fprintf(stderr, "iotrace: %s", tag[lvl]);
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
