/*
 * replay_corpus.c - runs files through the fuzz target without libFuzzer:
 * the kept corpus on every test run (under AddressSanitizer in the ASan
 * build), or a crash the fuzzer found, in a debugger.
 *
 *   replay-corpus DIR_OR_FILE...
 *
 * A directory stands for the files in it.  Exits 0 if every input went
 * through; a broken property aborts (fuzz_profile_reader.c).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data = NULL;
	size_t size = 0, cap = 0, n;

	if (!f) {
		perror(path);
		return -1;
	}
	do {
		if (size == cap) {
			cap = cap ? 2 * cap : 4096;
			data = realloc(data, cap);
			if (!data) {
				fprintf(stderr, "%s: out of memory\n", path);
				exit(1);
			}
		}
		n = fread(data + size, 1, cap - size, f);
		size += n;
	} while (n > 0);
	int failed = ferror(f);
	fclose(f);
	if (failed) {
		fprintf(stderr, "%s: read error\n", path);
		free(data);
		return -1;
	}
	LLVMFuzzerTestOneInput(data, size);
	free(data);
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int not_hidden(const struct dirent *e)
{
	return e->d_name[0] != '.';
}

/* @return the number of files replayed, or -1. */
static long replay(const char *path)
{
	struct stat st;
	struct dirent **entries;
	long count = 0;

	if (stat(path, &st) != 0) {
		perror(path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(path) ? -1 : 1;
	int n = scandir(path, &entries, not_hidden, by_name);
	if (n < 0) {
		perror(path);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char *child;
		if (count >= 0 &&
		    asprintf(&child, "%s/%s", path, entries[i]->d_name) >= 0) {
			long got = replay(child);
			count = got < 0 ? -1 : count + got;
			free(child);
		}
		free(entries[i]);
	}
	free(entries);
	return count;
}

int main(int argc, char **argv)
{
	long total = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s DIR_OR_FILE...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		long got = replay(argv[i]);
		if (got < 0)
			return 1;
		total += got;
	}
	if (total == 0) {
		fprintf(stderr, "no input to replay\n");
		return 1;
	}
	printf("replayed %ld inputs\n", total);
	return 0;
}
