/*
 * profile_format.c - the words, escaping and numbers of the profile
 * format (see profile_format.h).
 */
#include "format/profile_format.h"

#include <errno.h>
#include <string.h>

static const char *const line_words[PROFILE_LINE_KINDS] = {
	[PROFILE_LINE_META] = "meta",	  [PROFILE_LINE_REGION] = "region",
	[PROFILE_LINE_THREAD] = "thread", [PROFILE_LINE_TUPLE] = "tuple",
	[PROFILE_LINE_MODULE] = "module", [PROFILE_LINE_SYMBOL] = "symbol",
	[PROFILE_LINE_CCT] = "cct",	  [PROFILE_LINE_END] = "end",
	[PROFILE_LINE_ACTIVATIONS] = "activations",
	[PROFILE_LINE_OBJECT] = "object",
};

static const char *const cct_kind_words[PROFILE_CCT_KINDS] = {
	[PROFILE_CCT_FRAME] = "frame",
	[PROFILE_CCT_REGION] = "region",
	[PROFILE_CCT_THREAD] = "thread",
};

static const char *const metric_words[] = {
	[METRIC_TRMS] = "trms",
	[METRIC_RMS] = "rms",
};

static const char *const thread_key_words[PROFILE_THREAD_KEYS] = {
	[PROFILE_THREAD_NAME] = "name",
	[PROFILE_THREAD_CREATOR] = "creator",
	[PROFILE_THREAD_CONTEXT] = "context",
	[PROFILE_THREAD_IN_BYTES] = "in_bytes",
	[PROFILE_THREAD_IN_CALLS] = "in_calls",
	[PROFILE_THREAD_OUT_BYTES] = "out_bytes",
	[PROFILE_THREAD_OUT_CALLS] = "out_calls",
	[PROFILE_THREAD_SAMPLES] = "samples",
	[PROFILE_THREAD_CPU_NS] = "cpu_ns",
	[PROFILE_THREAD_LIBRARY_SAMPLES] = "library_samples",
	[PROFILE_THREAD_LIBRARY_NS] = "library_ns",
	[PROFILE_THREAD_ENDED_THREADS] = "ended_threads",
	[PROFILE_THREAD_FOLDED_INTO] = "folded_into",
};

/* The index of @word among the @n @words, or -1. */
static int find_word(const char *const *words, int n, const char *word)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(words[i], word))
			return i;
	return -1;
}

const char *profile_line_word(enum profile_line_kind kind)
{
	return line_words[kind];
}

int profile_line_kind(const char *word)
{
	return find_word(line_words, PROFILE_LINE_KINDS, word);
}

const char *profile_cct_kind_word(enum profile_cct_kind kind)
{
	return cct_kind_words[kind];
}

int profile_cct_kind(const char *word)
{
	return find_word(cct_kind_words, PROFILE_CCT_KINDS, word);
}

const char *profile_metric_word(enum metric metric)
{
	return metric_words[metric];
}

int profile_metric(const char *word)
{
	return find_word(metric_words, 2, word);
}

const char *profile_thread_key_word(enum profile_thread_key key)
{
	return thread_key_words[key];
}

int profile_thread_key(const char *word)
{
	return find_word(thread_key_words, PROFILE_THREAD_KEYS, word);
}

size_t profile_escape_byte(unsigned char c, char out[3])
{
	static const char hex[] = "0123456789ABCDEF";

	if (!profile_byte_escaped(c)) {
		out[0] = (char)c;
		return 1;
	}
	out[0] = '%';
	out[1] = hex[c >> 4];
	out[2] = hex[c & 15];
	return 3;
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int profile_unescape(char *s)
{
	char *out = s;

	for (char *p = s; *p; p++) {
		if (*p != '%') {
			*out++ = *p;
			continue;
		}
		int hi = hex_value(p[1]), lo = hi < 0 ? -1 : hex_value(p[2]);
		if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
			return -EINVAL;
		*out++ = (char)(hi << 4 | lo);
		p += 2;
	}
	*out = '\0';
	return 0;
}

char *u128_to_text(unsigned __int128 v, char *buf)
{
	char tmp[40];
	size_t n = 0;

	do {
		tmp[n++] = (char)('0' + (int)(v % 10));
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	buf[n] = '\0';
	return buf;
}

bool profile_parse_u128(const char *s, unsigned __int128 *out)
{
	unsigned __int128 v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		unsigned __int128 next = v * 10 + (unsigned)(*s - '0');
		if (next / 10 != v)
			return false; /* overflow */
		v = next;
	}
	*out = v;
	return true;
}

bool profile_parse_u64(const char *s, uint64_t *out)
{
	unsigned __int128 v;

	if (!profile_parse_u128(s, &v) || v > UINT64_MAX)
		return false;
	*out = (uint64_t)v;
	return true;
}

/* @v in @base, backwards from @end; @return where it starts. */
static char *digits_before(char *end, uint64_t v, unsigned base)
{
	do {
		*--end = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	return end;
}

void profile_function_place(char *buf, uint32_t module, uint64_t offset)
{
	char module_text[12], offset_text[17];
	char *m = digits_before(module_text + sizeof(module_text), module, 10);
	char *o = digits_before(offset_text + sizeof(offset_text), offset, 16);
	size_t ml = (size_t)(module_text + sizeof(module_text) - m);
	size_t ol = (size_t)(offset_text + sizeof(offset_text) - o);

	buf[0] = '\001';
	memcpy(buf + 1, m, ml);
	buf[1 + ml] = ':';
	memcpy(buf + 2 + ml, o, ol);
	buf[2 + ml + ol] = '\0';
}

bool profile_function_place_parse(const char *name, uint32_t *module,
				  uint64_t *offset)
{
	uint64_t m = 0, o = 0;
	const char *p = name + 1;

	if (name[0] != '\001' || *p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++)
		if ((m = m * 10 + (uint64_t)(*p - '0')) > UINT32_MAX)
			return false;
	if (*p++ != ':' || !*p)
		return false;
	for (; *p; p++) {
		unsigned d = *p >= '0' && *p <= '9'   ? (unsigned)(*p - '0')
			     : *p >= 'a' && *p <= 'f' ? (unsigned)(*p - 'a' + 10)
						      : 16;
		if (d == 16 || o >> 60)
			return false;
		o = o << 4 | d;
	}
	*module = (uint32_t)m;
	*offset = o;
	return true;
}
