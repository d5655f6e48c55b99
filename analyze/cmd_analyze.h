/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The analyze and export subcommands; each returns the exit status (lib/cliopt.h).
 * Included by cli/main.c, and by no other module.
 */
#ifndef IOTRACE_ANALYZE_CMD_ANALYZE_H
#define IOTRACE_ANALYZE_CMD_ANALYZE_H

int cmd_analyze(int argc, char **argv); /* cmd_analyze.c */
int cmd_export(int argc, char **argv);	/* export.c */

#endif
