/*
 * stdio_input.c - a program for test_examples: the file argv[1] read three
 * times through stdio, each time inside one activation of a region that
 * reads (trms_read) exactly what each call returned:
 *   "getline": getline() into a buffer allocated beforehand (256 bytes:
 *              the file's lines must be shorter, so it is never moved);
 *   "fgets":   fgets() into a 64-byte buffer (lines shorter than 63);
 *   "fread":   fread(buf, 1, 16, f) into a 16-byte buffer.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <trms.h>

int main(int argc, char **argv)
{
	static _Alignas(64) char line64[64];
	static _Alignas(64) char buf[16];
	size_t cap = 256, n;
	char *line = malloc(cap);
	ssize_t len;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: stdio_input FILE\n");
		return 2;
	}
	if (!line || !(f = fopen(argv[1], "r"))) {
		perror("stdio_input");
		return 1;
	}
	TRMS_REGION("getline")
	{
		while ((len = getline(&line, &cap, f)) > 0)
			trms_read(line, (size_t)len);
	}
	rewind(f);
	TRMS_REGION("fgets")
	{
		while (fgets(line64, sizeof(line64), f))
			trms_read(line64, strlen(line64));
	}
	rewind(f);
	TRMS_REGION("fread")
	{
		while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
			trms_read(buf, n);
	}
	if (ferror(f) || cap != 256) {
		fprintf(stderr, "stdio_input: read error, or a line too long\n");
		return 1;
	}
	fclose(f);
	free(line);
	return 0;
}
