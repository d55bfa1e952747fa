/*
 * output_file.c - files of the trms command, written atomically (see
 * output_file.h).
 */
#include "output_file.h"

#include <stdio.h>

#include "base/profile_file.h"

int output_file_write(const char *path, const void *data, size_t len,
		      char *err, size_t errlen)
{
	static struct profile_file f; /* 8 KiB of paths: not on the stack */
	int rc = profile_file_open(&f, path);

	if (rc) {
		snprintf(err, errlen, "cannot create %s: %s", path,
			 profile_file_error(&f, rc));
		return rc;
	}
	rc = profile_file_write(&f, data, len);
	if (rc)
		profile_file_abort(&f);
	else
		rc = profile_file_commit(&f);
	if (rc)
		snprintf(err, errlen, "cannot write %s: %s", path,
			 profile_file_error(&f, rc));
	return rc;
}
