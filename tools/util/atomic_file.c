/*
 * atomic_file.c - see atomic_file.h.
 */
#define _GNU_SOURCE
#include "atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xalloc.h"

int atomic_file_open(struct atomic_file *f, const char *path, char *err,
		     size_t errlen)
{
	size_t len = strlen(path);
	mode_t mask;

	f->path = path;
	f->tmp = xcalloc(len + sizeof(".XXXXXX"), 1);
	memcpy(f->tmp, path, len);
	memcpy(f->tmp + len, ".XXXXXX", sizeof(".XXXXXX"));
	f->fd = mkostemp(f->tmp, O_CLOEXEC);
	if (f->fd < 0) {
		snprintf(err, errlen, "cannot create %s: %s", path,
			 strerror(errno));
		free(f->tmp);
		f->tmp = NULL;
		return 1;
	}
	/* mkostemp creates the file for its owner only: give it the mode
	 * any other new file would get. */
	mask = umask(0);
	umask(mask);
	if (fchmod(f->fd, 0666 & ~mask)) {
		snprintf(err, errlen, "cannot create %s: %s", path,
			 strerror(errno));
		close(f->fd);
		atomic_file_abort(f);
		return 1;
	}
	return 0;
}

int atomic_file_commit(struct atomic_file *f)
{
	int saved = rename(f->tmp, f->path) ? errno : 0;

	if (saved)
		unlink(f->tmp);
	free(f->tmp);
	f->tmp = NULL;
	return saved;
}

void atomic_file_abort(struct atomic_file *f)
{
	unlink(f->tmp);
	free(f->tmp);
	f->tmp = NULL;
}
