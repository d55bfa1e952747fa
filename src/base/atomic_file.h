/*
 * atomic_file.h - a profile file that appears whole or not at all, and
 * whose writing never raises a signal in the process.
 *
 * The file is built unnamed (O_TMPFILE) in the destination's directory and
 * linked into place only when complete: a process killed while writing
 * leaves nothing.  Where the file system or a missing /proc does not allow
 * that, it is built under a temporary name beside the destination
 * (O_EXCL|O_NOFOLLOW) and renamed over it; a failure removes it.  Either
 * way a reader sees the old profile or the new one, never a mix, and a
 * symbolic link planted at the destination is replaced, never followed.
 *
 * Writes stop short of the process's RLIMIT_FSIZE (read once per file)
 * with EFBIG: a write past it would raise SIGXFSZ, which kills by default.
 *
 * A destination that exists and is not a regular file or a symbolic link
 * is refused, except the harmless character devices /dev/null, /dev/zero
 * and /dev/full, which are written to as they are (so /dev/full fails the
 * way it fails for anyone, with ENOSPC).
 *
 * No allocation, only system calls: usable from a signal handler.
 */
#ifndef TRMS_ATOMIC_FILE_H
#define TRMS_ATOMIC_FILE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#define PROFILE_FILE_PATH_MAX 4096

enum atomic_file_kind {
	PROFILE_FILE_UNNAMED, /* O_TMPFILE, linked into place at the end */
	PROFILE_FILE_NAMED,   /* a temporary name, renamed at the end */
	PROFILE_FILE_DEVICE,  /* /dev/null, /dev/zero, /dev/full */
};

struct atomic_file {
	int fd;
	enum atomic_file_kind kind;
	uint64_t written;
	uint64_t limit; /* RLIMIT_FSIZE when opened; UINT64_MAX: none */
	/* Why the destination was refused, in words (errno alone would say
	 * "File exists"), or NULL. */
	const char *refusal;
	/* The temporary name may exist on disk (set before it is created,
	 * cleared once it is gone): what atomic_file_discard removes. */
	volatile sig_atomic_t tmp_named;
	char path[PROFILE_FILE_PATH_MAX];
	char tmp_path[PROFILE_FILE_PATH_MAX + 48];
};

/* Start the file destined for @path.  @return 0 or -errno. */
int atomic_file_open(struct atomic_file *f, const char *path);

/* Append @n bytes.  @return 0, -EFBIG before a write that would pass
 * RLIMIT_FSIZE, or another -errno. */
int atomic_file_write(struct atomic_file *f, const void *buf, size_t n);

/* Put the complete file in place.  On failure nothing is left but what
 * was at the destination before.  @return 0 or -errno. */
int atomic_file_commit(struct atomic_file *f);

/* Give up: close, and remove the temporary name if there is one. */
void atomic_file_abort(struct atomic_file *f);

/* Remove the temporary name of a write that will never be completed
 * (its writer was interrupted for good: the process is ending), without
 * touching the descriptor.  Async-signal-safe. */
void atomic_file_discard(struct atomic_file *f);

/* What went wrong, in words: the refusal, or strerror(-@rc). */
const char *atomic_file_error(const struct atomic_file *f, int rc);

/* Whether a profile can be written at @path now (its directory exists
 * and takes a new file, the destination is not refused); a character
 * device is tried with one byte.  @return 0, or -errno with *@why set to
 * words saying why (never NULL then). */
int atomic_file_check(const char *path, const char **why);

#endif
