/*
 * commands.h - the subcommands of `trms` and what they share.  The
 * command layer: options, messages and exit statuses (0 success, 1 a
 * failure to write, 2 bad usage or bad input, as each --help says); the
 * folders it calls return 0 or a negative errno.
 */
#ifndef TRMS_COMMANDS_H
#define TRMS_COMMANDS_H

#include <stdbool.h>
#include <stdio.h>

#include "base/config.h"

/* `trms cc` and `trms c++`: @argv[0] says which. */
int cmd_cc(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_run(int argc, char **argv);

/* Merge the profiles @args (files or directories) into @output, messages
 * prefixed by @who.  @return trms merge's exit status. */
int merge_profiles(char *const *args, size_t n_args, const char *output,
		   const char *who);

/* Print "trms CMD: MESSAGE" (if any) and a pointer to --help; return the
 * exit status for bad usage, 2. */
int usage_error(const char *cmd, const char *message);

/* "  LABEL   HELP" on @out: @help starts at @column and is wrapped into
 * lines of at most @width columns, each continued at @column; a @label
 * that reaches @column is followed by two spaces. */
void usage_option(FILE *out, const char *label, const char *help,
		  int column, int width);

/* @value of option --@option of `trms @cmd`, for the library's setting
 * @s: set in @c if the library would take it.  @return 0, or
 * usage_error's 2 with "--OPTION must be ACCEPTED". */
int setting_option(const char *cmd, const char *option,
		   const struct config_setting *s, const char *value,
		   struct config *c);

#endif
