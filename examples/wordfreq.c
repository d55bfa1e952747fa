/*
 * wordfreq.c - count the words of a text and print the most frequent (the
 * `wf` program of the input-sensitive profiling paper, with its bug).
 *
 * It reads the text (argv[1], or standard input) line by line with
 * getline, copies each word (see in_word: names, paths and addresses are
 * words too) into a word buffer, lowers its case with str_tolower and counts it in a hash table
 * with addword.  str_tolower is written the way the paper found it:
 *
 *	for (i = 0; i < strlen(s); i++) s[i] = tolower(s[i]);
 *
 * strlen runs again at every iteration, so lowering a word of L letters
 * reads its L + 1 bytes L + 1 times: quadratic in the word's length.  Both
 * functions are regions; str_tolower annotates each byte its strlen reads
 * (a strlen reads one byte per step: one trms_read each) and each byte it
 * writes.  With TRMS_COST=events and a granularity of 1 byte, every
 * activation of str_tolower for a word of L letters has exactly
 *
 *	trms = rms = n = L + 1 (the word and its NUL), induced 0
 *	cost = (L + 1)^2 + L = n^2 + n - 1 events
 *
 * (at the default granularity of 4, trms = ceil((L + 1) / 4): the word
 * buffer starts a cell), so the report shows str_tolower's cost growing
 * with the square of its input, addword's roughly linearly.
 *
 *   trms run -c events -g 1 -o wf.trms -- ./wordfreq examples/data/words.txt
 *   trms report --tuples wf.trms
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trms_weak.h"

#define BUCKETS 4096
#define TOP 10

struct entry {
	struct entry *next;
	long count;
	char word[];
};

static struct entry *table[BUCKETS];
static long distinct;

#if defined(TRMS_NO_ANNOTATIONS)
/* No annotation: the C library's strlen, as the paper's program has it
 * (built with `trms cc`, what it reads is its caller's input). */
#define traced_strlen strlen
#else
/* strlen, one byte at a time, as its loop reads them. */
static size_t traced_strlen(const char *s)
{
	size_t n = 0;

	for (;; n++) {
		trms_read(&s[n], 1);
		if (!s[n])
			return n;
	}
}
#endif

static void str_tolower(char *s)
{
	TRMS_SCOPED_REGION("str_tolower");
	for (size_t i = 0; i < traced_strlen(s); i++) {
		/* The C library's function, not glibc's tolower macro: the
		 * macro looks the letter up in the locale's case table
		 * inline, and built with `trms cc --trms-full` (every load an
		 * access) str_tolower's input would include those cells too,
		 * 4 bytes per distinct letter and the table's pointer: a
		 * second term beside the word's length, which blurs the
		 * quadratic curve over short words (docs/whole-program.md). */
		s[i] = (char)(tolower)((unsigned char)s[i]);
		trms_write(&s[i], 1);
	}
}

/* strcmp(a, b) == 0, reading both up to the first difference. */
static int same_word(const char *a, const char *b)
{
	size_t i = 0;

	while (a[i] && a[i] == b[i])
		i++;
	trms_read(a, i + 1);
	trms_read(b, i + 1);
	return a[i] == b[i];
}

static int addword(const char *word)
{
	TRMS_SCOPED_REGION("addword");
	size_t len = strlen(word);
	unsigned long h = 5381;
	struct entry *e;

	trms_read(word, len + 1);
	for (size_t i = 0; i < len; i++)
		h = h * 33 + (unsigned char)word[i];
	h %= BUCKETS;
	trms_read(&table[h], sizeof(table[h]));
	for (e = table[h]; e; e = e->next) {
		trms_read(e, sizeof(*e));
		if (same_word(e->word, word)) {
			e->count++;
			trms_write(&e->count, sizeof(e->count));
			return 0;
		}
	}
	e = malloc(sizeof(*e) + len + 1);
	if (!e)
		return -1;
	memcpy(e->word, word, len + 1);
	e->count = 1;
	e->next = table[h];
	trms_write(e, sizeof(*e) + len + 1);
	table[h] = e;
	trms_write(&table[h], sizeof(table[h]));
	distinct++;
	return 0;
}

/* Words are runs of letters and digits, with the characters that join
 * the parts of names, paths and addresses: "build-farm", "10.20.30.41",
 * "https://example.org/a?b=c" and "ruth.okafor@example.org" are one word
 * each. */
static int in_word(char c)
{
	return isalnum((unsigned char)c) || (c && strchr("_-./:@?=&%+#~", c));
}

/* Most frequent first, then alphabetical. */
static int by_count(const void *a, const void *b)
{
	const struct entry *x = *(const struct entry *const *)a;
	const struct entry *y = *(const struct entry *const *)b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->word, y->word);
}

static int report(long words)
{
	struct entry **all = malloc((size_t)(distinct ? distinct : 1) *
				    sizeof(*all));
	size_t n = 0;

	if (!all)
		return -1;
	for (size_t b = 0; b < BUCKETS; b++)
		for (struct entry *e = table[b]; e; e = e->next)
			all[n++] = e;
	qsort(all, n, sizeof(*all), by_count);
	printf("words %ld, distinct %ld\n", words, distinct);
	for (size_t i = 0; i < n && i < TOP; i++)
		printf("%7ld %s\n", all[i]->count, all[i]->word);
	free(all);
	return 0;
}

int main(int argc, char **argv)
{
	FILE *in = stdin;
	char *line = NULL, *word = NULL;
	size_t line_cap = 0, word_cap = 0;
	long words = 0;
	ssize_t len;
	int status = 0;

	if (!TRMS_API_LOADED()) {
		fprintf(stderr, "wordfreq: libtrms is not loaded: run "
				"`trms run -- %s`\n", argv[0]);
		return 2;
	}
	if (argc > 2) {
		fprintf(stderr, "usage: wordfreq [FILE]\n");
		return 2;
	}
	if (argc > 1 && !(in = fopen(argv[1], "r"))) {
		fprintf(stderr, "wordfreq: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	while ((len = getline(&line, &line_cap, in)) > 0) {
		if (word_cap < (size_t)len + 1) {
			char *bigger = realloc(word, (size_t)len + 1);
			if (!bigger) {
				status = 1;
				break;
			}
			word = bigger;
			word_cap = (size_t)len + 1;
		}
		for (ssize_t i = 0; i < len;) {
			ssize_t start, end;
			if (!isalnum((unsigned char)line[i])) {
				i++;
				continue;
			}
			for (start = i; i < len && in_word(line[i]); i++)
				;
			/* Punctuation ending a sentence is not the word's. */
			for (end = i; !isalnum((unsigned char)line[end - 1]) &&
				      line[end - 1] != '/';
			     end--)
				;
			memcpy(word, line + start, (size_t)(end - start));
			word[end - start] = '\0';
			str_tolower(word);
			if (addword(word)) {
				status = 1;
				break;
			}
			words++;
		}
		if (status)
			break;
	}
	if (ferror(in)) {
		fprintf(stderr, "wordfreq: read error\n");
		status = 1;
	} else if (status) {
		fprintf(stderr, "wordfreq: out of memory\n");
	} else if (report(words)) {
		fprintf(stderr, "wordfreq: out of memory\n");
		status = 1;
	}
	for (size_t b = 0; b < BUCKETS; b++)
		for (struct entry *e = table[b], *next; e; e = next) {
			next = e->next;
			free(e);
		}
	free(line);
	free(word);
	if (in != stdin)
		fclose(in);
	return status;
}
