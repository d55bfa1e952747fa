/*
 * atomic_file.c - a profile file that appears whole or not at all (see
 * atomic_file.h).
 */
#define _GNU_SOURCE
#include "base/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/sys.h"
#include "base/text.h"

/* The directory part of @path ("." if none) into @dir. */
static int directory_of(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;

	if (n >= len)
		return -ENAMETOOLONG;
	if (!slash) {
		strcpy(dir, ".");
	} else if (n == 0) {
		strcpy(dir, "/");
	} else {
		memcpy(dir, path, n);
		dir[n] = '\0';
	}
	return 0;
}

/* /dev/null, /dev/zero, /dev/full: a write there changes nothing. */
static bool harmless_device(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && major(st->st_rdev) == 1 &&
	       (minor(st->st_rdev) == 3 || minor(st->st_rdev) == 5 ||
		minor(st->st_rdev) == 7);
}

/* What stands at @path: 0 if nothing, a regular file or a symbolic link
 * (it will be replaced), 1 for a harmless device (written in place), or
 * -errno with *@why. */
static int destination(const char *path, const char **why)
{
	struct stat st;

	*why = NULL;
	if (lstat(path, &st) != 0)
		return errno == ENOENT ? 0 : -errno;
	if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))
		return 0;
	if (harmless_device(&st))
		return 1;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	*why = S_ISFIFO(st.st_mode)  ? "it is a FIFO, not a regular file"
	       : S_ISSOCK(st.st_mode) ? "it is a socket, not a regular file"
	       : S_ISBLK(st.st_mode)  ? "it is a block device, not a regular "
					"file"
				      : "it is a character device other than "
					"/dev/null, /dev/zero or /dev/full";
	return -EEXIST;
}

static uint64_t file_size_limit(void)
{
	struct rlimit limit;

	if (getrlimit(RLIMIT_FSIZE, &limit) != 0 ||
	    limit.rlim_cur == RLIM_INFINITY)
		return UINT64_MAX;
	return (uint64_t)limit.rlim_cur;
}

/* A fresh temporary name beside the destination. */
static int make_tmp_name(struct atomic_file *f)
{
	static unsigned counter;
	int n = text_format(f->tmp_path, sizeof(f->tmp_path), "%s.tmp%d.%u",
			 f->path, (int)getpid(),
			 __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED));

	return n < 0 || (size_t)n >= sizeof(f->tmp_path) ? -ENAMETOOLONG : 0;
}

static int open_named(struct atomic_file *f)
{
	for (int attempt = 0; attempt < 100; attempt++) {
		int rc = make_tmp_name(f);
		if (rc)
			return rc;
		f->tmp_named = 1;
		f->fd = open(f->tmp_path,
			     O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				     O_CLOEXEC,
			     0644);
		if (f->fd >= 0) {
			f->kind = PROFILE_FILE_NAMED;
			return 0;
		}
		f->tmp_named = 0;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/* O_TMPFILE in @dir, if the file system has it and the file can be named
 * later through /proc (missing in some chroots).  @return 0, 1 to fall
 * back to a named file, or -errno. */
static int open_unnamed(struct atomic_file *f, const char *dir)
{
	f->fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
	if (f->fd < 0) {
		/* EISDIR, EINVAL: a kernel without O_TMPFILE;
		 * EOPNOTSUPP: a file system without it. */
		if (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)
			return 1;
		return -errno;
	}
	if (access("/proc/self/fd", X_OK) != 0) {
		close(f->fd);
		f->fd = -1;
		return 1;
	}
	f->kind = PROFILE_FILE_UNNAMED;
	return 0;
}

int atomic_file_open(struct atomic_file *f, const char *path)
{
	char dir[PROFILE_FILE_PATH_MAX];
	int rc;

	f->fd = -1;
	f->written = 0;
	f->tmp_named = 0;
	f->tmp_path[0] = '\0';
	f->limit = UINT64_MAX;
	if (strlen(path) >= sizeof(f->path))
		return -ENAMETOOLONG;
	strcpy(f->path, path);
	rc = destination(path, &f->refusal);
	if (rc < 0)
		return rc;
	if (rc == 1) {
		f->fd = open(path, O_WRONLY | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
		if (f->fd < 0)
			return -errno;
		f->kind = PROFILE_FILE_DEVICE;
		return 0;
	}
	rc = directory_of(path, dir, sizeof(dir));
	if (!rc)
		rc = open_unnamed(f, dir);
	if (rc == 1)
		rc = open_named(f);
	if (!rc)
		f->limit = file_size_limit();
	return rc;
}

int atomic_file_write(struct atomic_file *f, const void *buf, size_t n)
{
	const char *p = buf;

	if (f->kind != PROFILE_FILE_DEVICE &&
	    (n > f->limit || f->written > f->limit - n))
		return -EFBIG;
	while (n) {
		ssize_t r = sys_write(f->fd, p, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		p += r;
		n -= (size_t)r;
		f->written += (uint64_t)r;
	}
	return 0;
}

void atomic_file_discard(struct atomic_file *f)
{
	int saved = errno;

	if (f->tmp_named) {
		unlink(f->tmp_path);
		f->tmp_named = 0;
	}
	errno = saved;
}

/* Name the unnamed file @path: directly where nothing is there (no moment
 * at which a temporary name exists), else under a temporary name renamed
 * over what is there. */
static int link_into_place(struct atomic_file *f)
{
	char self[64];

	text_format(self, sizeof(self), "/proc/self/fd/%d", f->fd);
	if (linkat(AT_FDCWD, self, AT_FDCWD, f->path, AT_SYMLINK_FOLLOW) == 0)
		return 0;
	if (errno != EEXIST)
		return -errno;
	for (int attempt = 0; attempt < 100; attempt++) {
		int rc = make_tmp_name(f);
		if (rc)
			return rc;
		f->tmp_named = 1;
		if (linkat(AT_FDCWD, self, AT_FDCWD, f->tmp_path,
			   AT_SYMLINK_FOLLOW) == 0)
			break;
		f->tmp_named = 0;
		if (errno != EEXIST)
			return -errno;
	}
	if (!f->tmp_named)
		return -EEXIST;
	if (rename(f->tmp_path, f->path) != 0) {
		int rc = -errno;
		atomic_file_discard(f);
		return rc;
	}
	f->tmp_named = 0;
	return 0;
}

int atomic_file_commit(struct atomic_file *f)
{
	int rc = 0;

	switch (f->kind) {
	case PROFILE_FILE_UNNAMED:
		rc = link_into_place(f);
		if (close(f->fd) != 0 && !rc)
			rc = -errno;
		break;
	case PROFILE_FILE_NAMED:
		if (close(f->fd) != 0)
			rc = -errno;
		else if (rename(f->tmp_path, f->path) != 0)
			rc = -errno;
		else
			f->tmp_named = 0;
		atomic_file_discard(f);
		break;
	case PROFILE_FILE_DEVICE:
		if (close(f->fd) != 0)
			rc = -errno;
		break;
	}
	f->fd = -1;
	return rc;
}

void atomic_file_abort(struct atomic_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	atomic_file_discard(f);
}

const char *atomic_file_error(const struct atomic_file *f, int rc)
{
	return f->refusal && rc == -EEXIST ? f->refusal : text_errno(-rc);
}

/*
 * Can a file be created in @dir?  Asked of the kernel, not tried: a file
 * created and removed at every start cost each process 0.1-0.4 ms on
 * ext4, whose allocator then steps over the recently freed inodes
 * (docs/performance.md, "Start-up").  faccessat with the effective
 * identity answers for permissions and read-only file systems; root, whom
 * permissions do not stop, is stopped by a file system without space,
 * which is also what /proc and /sys look like (no blocks at all).  (So
 * does a FUSE file system that does not answer statfs: the warning is
 * then wrong, and the profile is written anyway.)
 */
static int try_directory(const char *dir)
{
	struct statvfs fs;

	if (faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) != 0)
		return -errno;
	if (statvfs(dir, &fs) == 0 &&
	    (geteuid() == 0 ? fs.f_bfree : fs.f_bavail) == 0)
		return -ENOSPC;
	return 0;
}

int atomic_file_check(const char *path, const char **why)
{
	char dir[PROFILE_FILE_PATH_MAX];
	struct stat st;
	int rc = destination(path, why);

	if (rc == 1) {
		/* One byte tells whether the device takes writes. */
		int fd = open(path, O_WRONLY | O_NOCTTY | O_NOFOLLOW |
					    O_CLOEXEC);
		if (fd < 0 || sys_write(fd, "\n", 1) != 1)
			rc = -errno;
		else
			rc = 0;
		if (fd >= 0)
			close(fd);
	} else if (rc == 0) {
		rc = directory_of(path, dir, sizeof(dir));
		if (!rc && stat(dir, &st) != 0)
			rc = -errno;
		else if (!rc && !S_ISDIR(st.st_mode))
			rc = -ENOTDIR;
		else if (!rc)
			rc = try_directory(dir);
	}
	if (rc && !*why)
		*why = text_errno(-rc);
	return rc;
}
