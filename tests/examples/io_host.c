/*
 * io_host.c - a program for test_examples that has no annotation of its
 * own: it reads a file in two halves, one before and one after it loads
 * a plugin (argv[1], io_plugin.c) that opens regions, and hands both
 * halves to the plugin.  Under the library, its I/O before the plugin
 * came is not recorded (nothing could read it as a region yet); after,
 * it is.  argv[2]: a scratch file to write and read back.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#define HALF 64

int main(int argc, char **argv)
{
	static _Alignas(64) unsigned char data[2 * HALF], before[HALF],
		after[HALF];
	void (*consume)(const void *, size_t);

	if (argc != 3)
		return fprintf(stderr, "usage: io-host PLUGIN FILE\n"), 2;
	for (int i = 0; i < 2 * HALF; i++)
		data[i] = (unsigned char)i;
	int fd = open(argv[2], O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, data, sizeof(data)) != (ssize_t)sizeof(data) ||
	    lseek(fd, 0, SEEK_SET) != 0 ||
	    read(fd, before, HALF) != HALF)
		return perror("io-host"), 1;
	void *plugin = dlopen(argv[1], RTLD_NOW);
	if (!plugin)
		return fprintf(stderr, "io-host: %s\n", dlerror()), 1;
	*(void **)&consume = dlsym(plugin, "consume");
	if (!consume || read(fd, after, HALF) != HALF)
		return fprintf(stderr, "io-host: no consume, or short read\n"),
		       1;
	consume(before, HALF);
	consume(after, HALF);
	close(fd);
	return 0;
}
