/*
 * run_tool.h - run a helper program of binutils (addr2line, c++filt) on
 * arguments and read what it prints.  The report uses them only for
 * presentation; where one is missing the report says less, nothing fails.
 */
#ifndef TRMS_RUN_TOOL_H
#define TRMS_RUN_TOOL_H

#include <stdio.h>
#include <sys/types.h>

struct tool_run {
	FILE *out; /* the program's standard output, or NULL */
	pid_t child;
};

/* Start @argv (looked up in PATH) with standard input and error on
 * /dev/null.  @return 0 with run->out to read, or -errno. */
int tool_start(struct tool_run *run, char *const argv[]);

/* Close the output and wait for the program.  @return 0, or -ENOENT if
 * it could not be run at all (-ECHILD if it was never started). */
int tool_finish(struct tool_run *run);

#endif
