/* SPDX-License-Identifier: GPL-2.0 */
/* One place for iotrace's messages: everything goes to stderr, prefixed. */
#ifndef IOTRACE_LOG_H
#define IOTRACE_LOG_H

#include <stdarg.h>

enum log_level {
	LOG_ERR = 0,
	LOG_WARN = 1,
	LOG_INFO = 2,
	LOG_DBG = 3,
};

/* Messages above this level are dropped; -v raises it to LOG_DBG. */
extern enum log_level log_level;

void log_msg(enum log_level lvl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void log_vmsg(enum log_level lvl, const char *fmt, va_list ap);
/* Route libbpf's own messages through log_msg (shown at LOG_DBG). */
void log_setup_libbpf(void);

#define err(...)  log_msg(LOG_ERR, __VA_ARGS__)
#define warn(...) log_msg(LOG_WARN, __VA_ARGS__)
#define info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define dbg(...)  log_msg(LOG_DBG, __VA_ARGS__)

#endif
