/*
 * fn_libc.c - the C library's memory and string functions called from
 * code built with `trms cc` (full mode): what each reads counts as its
 * caller's input, byte for byte (tests/functions/functions.sh runs it at
 * K = 1).  One function per C library function, each reading buffers
 * that main filled (so new to it) and that nothing else reads:
 *
 *   use_memcpy   memcpy of 40 bytes            trms 40
 *   use_memmove  memmove of 24 bytes           24
 *   use_memset   memset of 32, then its byte 0 0 (its own write)
 *   use_memcmp   memcmp of two equal 16        32
 *   use_strlen   strlen of 10 characters       11 (and the NUL)
 *   use_strnlen  strnlen(s, 4) of 10           4
 *   use_strcmp   strcmp of two equal 5         12
 *   use_strncmp  strncmp(a, b, 3), equal       6
 *   use_strchr   strchr for the 4th character  4
 *   use_strrchr  strrchr in 6 characters       7
 *   use_strcpy   strcpy of 5, then dest[0]     6
 *   use_strncpy  strncpy(d, 3 characters, 8)   4
 *   use_strcat   strcat of 3 onto 2            7
 *   use_strdup   strdup of 7, then the copy[3] 8
 *   use_copy     a 1000-byte struct assigned   1000 (the compiler's memcpy)
 *   lower        lowers a word, calling strlen at every character: trms
 *                is the word and its NUL, its cost (events) quadratic.
 *
 * The functions that write do so into arrays whose size the compiler
 * knows: built with -D_FORTIFY_SOURCE=2 their calls go to the checking
 * versions (__memcpy_chk, __memmove_chk, __memset_chk, __strcpy_chk,
 * __strncpy_chk, __strcat_chk), with the same values.  The arguments
 * come from volatile variables so that no call is folded.
 * It prints a checksum, which must not change with the instrumentation.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

struct big {
	char bytes[1000];
};

static _Alignas(16) char src[64], dst[64], other[64], word[256];
static struct big from, to;
static volatile size_t size_40 = 40, size_24 = 24, size_32 = 32,
		       size_16 = 16, size_4 = 4, size_3 = 3, size_8 = 8;
static volatile int char_d = 'd', char_b = 'b';
static volatile long sink;

NOINLINE void use_memcpy(const char *s, size_t n)
{
	memcpy(dst, s, n);
}

NOINLINE void use_memmove(const char *s, size_t n)
{
	memmove(dst, s, n);
}

NOINLINE void use_memset(size_t n)
{
	memset(other, 0, n);
	sink = other[0];
}

NOINLINE void use_memcmp(const char *a, const char *b, size_t n)
{
	sink = memcmp(a, b, n);
}

NOINLINE void use_strlen(const char *s)
{
	sink = (long)strlen(s);
}

NOINLINE void use_strnlen(const char *s, size_t n)
{
	sink = (long)strnlen(s, n);
}

NOINLINE void use_strcmp(const char *a, const char *b)
{
	sink = strcmp(a, b);
}

NOINLINE void use_strncmp(const char *a, const char *b, size_t n)
{
	sink = strncmp(a, b, n);
}

NOINLINE void use_strchr(const char *s, int c)
{
	sink = strchr(s, c) - s;
}

NOINLINE void use_strrchr(const char *s, int c)
{
	sink = strrchr(s, c) - s;
}

NOINLINE void use_strcpy(const char *s)
{
	strcpy(dst, s);
	sink = dst[0];
}

NOINLINE void use_strncpy(const char *s, size_t n)
{
	strncpy(dst, s, n);
}

NOINLINE void use_strcat(const char *s)
{
	strcat(dst, s);
}

NOINLINE void use_strdup(const char *s)
{
	char *copy = strdup(s);

	/* Used, so that the compiler keeps the call; written by strdup,
	 * so no input. */
	sink = copy ? copy[3] : 0;
	free(copy);
}

NOINLINE void use_copy(struct big *d, const struct big *s)
{
	*d = *s;
}

/* The paper's str_tolower: strlen at every step of the loop. */
NOINLINE void lower(char *s)
{
	for (size_t i = 0; i < strlen(s); i++)
		if (s[i] >= 'A' && s[i] <= 'Z')
			s[i] = (char)(s[i] - 'A' + 'a');
}

/* Fill @b with @text and its NUL, byte by byte (no library call). */
static void put(char *b, const char *text)
{
	do
		*b++ = *text;
	while (*text++);
}

int main(void)
{
	long sum = 0;

	for (int i = 0; i < 64; i++)
		src[i] = (char)('A' + i % 26);
	use_memcpy(src, size_40);
	use_memmove(src + 32, size_24);
	use_memset(size_32);
	put(src, "abcdefghijklmnop");
	put(other, "abcdefghijklmnop");
	use_memcmp(src, other, size_16);
	put(src, "abcdefghij");
	use_strlen(src);
	put(other, "abcdefghij");
	use_strnlen(other, size_4);
	put(src, "hello");
	put(other, "hello");
	use_strcmp(src, other);
	put(src, "abcxy");
	put(other, "abczz");
	use_strncmp(src, other, size_3);
	put(src, "abcdef");
	use_strchr(src, char_d);
	put(other, "abcabc");
	use_strrchr(other, char_b);
	put(src, "abcde");
	use_strcpy(src);
	put(src, "abc");
	use_strncpy(src, size_8);
	put(src, "abc");
	put(dst, "xy");
	use_strcat(src);
	put(src, "abcdefg");
	use_strdup(src);
	for (int i = 0; i < 1000; i++)
		from.bytes[i] = (char)i;
	use_copy(&to, &from);
	for (int n = 1; n <= 200; n += 3) {
		for (int i = 0; i < n; i++)
			word[i] = (char)('A' + (i * 7 + n) % 26);
		word[n] = '\0';
		lower(word);
		sum += word[n / 2];
	}
	for (int i = 0; i < 64; i++)
		sum += dst[i] * i;
	printf("checksum %ld %ld %d\n", sum, (long)sink, to.bytes[999]);
	return 0;
}
