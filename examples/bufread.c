/*
 * bufread.c - a buffered reader: read() a file, again and again, into the
 * same small buffer (Fig. 3 of the multithreaded input-sensitive profiling
 * paper), and checksum it.
 *
 * The file is argv[1], or this program's own executable.  The whole loop is
 * one activation of the region "reader", which reads (trms_read) the part
 * of the 64-byte buffer that each read() filled.  Only 16 cells (K = 4
 * bytes) are ever read, so rms sees an input of 16 cells whatever the file;
 * but the kernel refilled them before each pass, so trms counts every cell
 * of every pass as external input.  For a file of S bytes, with the
 * default granularity, the profile has exactly
 *
 *	trms = induced_external = 16 * (S / 64) + ceil((S % 64) / 4)
 *	       (the cells filled by each of the ceil(S / 64) read() calls
 *	       that returned data; all of them but the last fill 16)
 *	rms  = 16 (min(16, ceil(S / 4)) for a file shorter than 64 bytes)
 *	cost = 2 * ceil(S / 64) events (each read() that returned data, and
 *	       each trms_read; the final read() returns 0 and counts nothing)
 *
 *   trms run -c events -o bufread.trms -- ./bufread FILE
 *   trms report --tuples bufread.trms
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "trms_weak.h"

#define BUF_SIZE 64

int main(int argc, char **argv)
{
	static _Alignas(BUF_SIZE) unsigned char buf[BUF_SIZE];
	const char *path = argc > 1 ? argv[1] : "/proc/self/exe";
	uint32_t checksum = 0;
	unsigned long long bytes = 0, calls = 0;
	ssize_t n;
	int fd, err = 0;

	if (!TRMS_API_LOADED()) {
		fprintf(stderr, "bufread: libtrms is not loaded: run "
				"`trms run -- %s`\n", argv[0]);
		return 2;
	}
	if (argc > 2) {
		fprintf(stderr, "usage: bufread [FILE]\n");
		return 2;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "bufread: %s: %s\n", path, strerror(errno));
		return 1;
	}
	TRMS_REGION("reader")
	{
		while ((n = read(fd, buf, sizeof(buf))) != 0) {
			if (n < 0) {
				if (errno == EINTR)
					continue;
				err = errno;
				break;
			}
			trms_read(buf, (size_t)n);
			for (ssize_t i = 0; i < n; i++)
				checksum = checksum * 31 + buf[i];
			bytes += (size_t)n;
			calls++;
		}
	}
	if (err) {
		fprintf(stderr, "bufread: %s: %s\n", path, strerror(err));
		close(fd);
		return 1;
	}
	close(fd);
	printf("%s: %llu bytes in %llu reads, checksum %08x\n", path, bytes,
	       calls, (unsigned)checksum);
	return 0;
}
