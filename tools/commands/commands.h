/*
 * commands.h - the subcommands of `trms` and what they share.
 */
#ifndef TRMS_COMMANDS_H
#define TRMS_COMMANDS_H

int cmd_merge(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_run(int argc, char **argv);

/* Print "trms CMD: MESSAGE" (if any) and a pointer to --help; return the
 * exit status for bad usage, 2. */
int usage_error(const char *cmd, const char *message);

/* Parse a cell size: 1, 2, 4, 8 or 16.  @return 0 or -1. */
int parse_granularity(const char *s, unsigned *out);

#endif
