/*
 * output_template.h - profile file names from a template (TRMS_OUTPUT,
 * `trms run -o`): shared by the library and `trms run`, which names the
 * profiles handed to it the same way.
 */
#ifndef TRMS_OUTPUT_TEMPLATE_H
#define TRMS_OUTPUT_TEMPLATE_H

#include <stdbool.h>
#include <stddef.h>

/* @template with %p replaced by @pid, %e by @program and %% by a percent
 * sign, appended to @out (which holds @used bytes).  @return 0, or
 * -ENAMETOOLONG. */
int template_expand(const char *template, long pid, const char *program,
		    char *out, size_t len, size_t used);

/* @path with ".@n" before its ".trms" (or at its end): where a later image
 * of a process (after exec) puts its profile beside the first one's.
 * @return 0, or -ENAMETOOLONG. */
int template_suffixed(const char *path, unsigned n, char *out, size_t len);

/* @path with ".w@window" before its ".trms" (or at its end): where a
 * window of the profile at @path goes (TRMS_INTERVAL).  @return 0, or
 * -ENAMETOOLONG. */
int template_windowed(const char *path, unsigned long window, char *out,
		      size_t len);

/* Whether file name @name is a window's (NAME.wN.trms, or NAME.wN), and
 * which (*@window, if not NULL). */
bool template_is_window(const char *name, unsigned long *window);

#endif
