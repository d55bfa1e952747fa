/*
 * writev_out.c - a program for test_examples: data leaving through
 * writev() is read by the caller, with no trms_read at all.
 *   "writev":       writev() of a 40-byte and a 24-byte buffer to /dev/null;
 *   "writev_twice": writev() of the 40-byte buffer twice in one vector.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/uio.h>
#include <unistd.h>

#include <trms.h>

int main(void)
{
	static _Alignas(64) char a[40] = "forty bytes of data, leaving by writev.";
	static _Alignas(64) char b[24] = "and twenty-four more...";
	struct iovec two[2] = { { a, sizeof(a) }, { b, sizeof(b) } };
	struct iovec twice[2] = { { a, sizeof(a) }, { a, sizeof(a) } };
	ssize_t n1 = -1, n2 = -1;
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (fd < 0) {
		perror("writev_out: /dev/null");
		return 1;
	}
	TRMS_REGION("writev")
		n1 = writev(fd, two, 2);
	TRMS_REGION("writev_twice")
		n2 = writev(fd, twice, 2);
	close(fd);
	if (n1 != (ssize_t)(sizeof(a) + sizeof(b)) ||
	    n2 != (ssize_t)(2 * sizeof(a))) {
		fprintf(stderr, "writev_out: writev returned %zd and %zd\n", n1,
			n2);
		return 1;
	}
	return 0;
}
