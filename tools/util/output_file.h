/*
 * output_file.h - a file the trms command writes (a pprof profile, an
 * HTML page), put in place whole or not at all, as profiles are: by the
 * library's atomic_file.h (built unnamed or under a temporary name in
 * the destination's directory, linked or renamed over it when complete;
 * a failed write leaves what was there).
 */
#ifndef TRMS_OUTPUT_FILE_H
#define TRMS_OUTPUT_FILE_H

#include <stddef.h>

/* Write the @len bytes of @data to @path.  @return 0, or -errno with
 * "cannot create PATH: why" or "cannot write PATH: why" in @err. */
int output_file_write(const char *path, const void *data, size_t len,
		      char *err, size_t errlen);

#endif
