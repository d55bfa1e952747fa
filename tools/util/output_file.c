/*
 * output_file.c - files of the trms command, written atomically (see
 * output_file.h).
 */
#include "output_file.h"

#include <stdio.h>

#include "base/atomic_file.h"

int output_file_write(const char *path, const void *data, size_t len,
		      char *err, size_t errlen)
{
	static struct atomic_file f; /* 8 KiB of paths: not on the stack */
	int rc = atomic_file_open(&f, path);

	if (rc) {
		snprintf(err, errlen, "cannot create %s: %s", path,
			 atomic_file_error(&f, rc));
		return rc;
	}
	rc = atomic_file_write(&f, data, len);
	if (rc)
		atomic_file_abort(&f);
	else
		rc = atomic_file_commit(&f);
	if (rc)
		snprintf(err, errlen, "cannot write %s: %s", path,
			 atomic_file_error(&f, rc));
	return rc;
}
