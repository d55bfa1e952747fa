/*
 * profile_head.c - facts from the head of a profile file (see
 * profile_head.h).
 */
#include "format/profile_head.h"

#include <string.h>

#include "format/profile_format.h"

bool profile_head_is_profile(const char *head)
{
	return !strncmp(head, PROFILE_MAGIC, PROFILE_MAGIC_LEN);
}

/* Whether @line is "meta @key ...": then the value's start. */
static const char *meta_value(const char *line, const char *key)
{
	const char *meta = profile_line_word(PROFILE_LINE_META);
	size_t meta_len = strlen(meta), key_len = strlen(key);

	if (strncmp(line, meta, meta_len) || line[meta_len] != ' ' ||
	    strncmp(line + meta_len + 1, key, key_len) ||
	    line[meta_len + 1 + key_len] != ' ')
		return NULL;
	return line + meta_len + 1 + key_len + 1;
}

bool profile_head_meta_u64(const char *head, const char *key,
			   uint64_t *value)
{
	for (const char *line = head; *line;) {
		const char *end = strchr(line, '\n');
		if (!end)
			return false; /* cut short: the value may be too */
		const char *v = meta_value(line, key);
		if (v) {
			char digits[24];
			size_t len = (size_t)(end - v);
			if (len >= sizeof(digits))
				return false;
			memcpy(digits, v, len);
			digits[len] = '\0';
			return profile_parse_u64(digits, value);
		}
		line = end + 1;
	}
	return false;
}
