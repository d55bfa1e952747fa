/*
 * output.h - where profiles go: expanding the TRMS_OUTPUT template.
 */
#ifndef TRMS_OUTPUT_H
#define TRMS_OUTPUT_H

#include <stddef.h>
#include <sys/types.h>

/* Remember the directory relative output paths are resolved against: the
 * working directory when the library started, so that a program that
 * changes directory still leaves its profile where it was launched. */
void output_init(void);

/* The name the program was started as (argv[0]'s last part), for %e. */
const char *output_program_name(void);

/* Expand @template (%p pid, %e executable name, %% percent) for process
 * @pid into @out.  @return 0, or -ENAMETOOLONG. */
int output_expand(const char *template, pid_t pid, char *out, size_t outlen);

/* When the kernel started this process (clock ticks after boot, from
 * /proc/self/stat; 0 if unknown): the same before and after an exec. */
unsigned long long output_process_start(void);

/*
 * The path this image of the process writes its profile to: @template
 * expanded, unless a profile an earlier image of this same process wrote
 * before an exec is there (same pid, same process start); then the first
 * of NAME.1.trms, NAME.2.trms, ... that is not.  Chosen at the first
 * write and kept for the later ones (trms_flush, then exit).
 * @return 0, or -ENAMETOOLONG.  Async-signal-safe.
 */
int output_path(const char *template, char *out, size_t outlen);

/* Say now, while the program's stderr is surely open, if profiles cannot
 * be written to the directory of @path. */
void output_check_directory(const char *path);

#endif
