/*
 * wf_plain.c - the word-frequency program of the input-sensitive
 * profiling paper (examples/wordfreq.c) with no annotation at all, for
 * `trms cc --trms-full` (tests/functions/full.sh): it reads a text (argv[1])
 * line by line, lowers the case of each word with str_tolower and counts
 * it in a hash table with addword.  str_tolower keeps the paper's bug:
 * strlen in the loop's condition reads the word again at every step, so
 * its cost is quadratic in the word's length, which is its input.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUCKETS 4096

struct entry {
	struct entry *next;
	long count;
	char word[];
};

static struct entry *table[BUCKETS];

__attribute__((noinline)) static void str_tolower(char *s)
{
	for (size_t i = 0; i < strlen(s); i++)
		s[i] = (char)tolower((unsigned char)s[i]);
}

__attribute__((noinline)) static int addword(const char *word)
{
	size_t len = strlen(word);
	unsigned long h = 5381;
	struct entry *e;

	for (size_t i = 0; i < len; i++)
		h = h * 33 + (unsigned char)word[i];
	h %= BUCKETS;
	for (e = table[h]; e; e = e->next)
		if (!strcmp(e->word, word)) {
			e->count++;
			return 0;
		}
	e = malloc(sizeof(*e) + len + 1);
	if (!e)
		return -1;
	memcpy(e->word, word, len + 1);
	e->count = 1;
	e->next = table[h];
	table[h] = e;
	return 0;
}

static int in_word(char c)
{
	return isalnum((unsigned char)c) || strchr("-_./:@?=&%+~", c);
}

int main(int argc, char **argv)
{
	FILE *f = argc > 1 ? fopen(argv[1], "r") : stdin;
	char *line = NULL, word[4096];
	size_t cap = 0;
	long words = 0;

	if (!f)
		return 1;
	while (getline(&line, &cap, f) > 0) {
		for (char *p = line; *p;) {
			size_t n = 0;
			while (*p && !in_word(*p))
				p++;
			while (*p && in_word(*p) && n + 1 < sizeof(word))
				word[n++] = *p++;
			if (!n)
				continue;
			word[n] = '\0';
			str_tolower(word);
			if (addword(word))
				return 1;
			words++;
		}
	}
	printf("%ld words\n", words);
	free(line);
	return 0;
}
