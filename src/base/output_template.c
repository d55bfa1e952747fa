/*
 * output_template.c - profile file names from a template (see
 * output_template.h).
 */
#include "base/output_template.h"
#include "base/text.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static int append(char *out, size_t len, size_t *used, const char *s,
		  size_t n)
{
	if (*used + n >= len)
		return -ENAMETOOLONG;
	memcpy(out + *used, s, n);
	*used += n;
	out[*used] = '\0';
	return 0;
}

int template_expand(const char *template, long pid, const char *program,
		    char *out, size_t len, size_t used)
{
	char number[32];
	int rc = 0;

	if (used >= len)
		return -ENAMETOOLONG;
	out[used] = '\0';
	for (const char *p = template; *p && !rc; p++) {
		if (*p == '%' && p[1] == 'p') {
			int n = text_format(number, sizeof(number), "%ld", pid);
			rc = append(out, len, &used, number, (size_t)n);
			p++;
		} else if (*p == '%' && p[1] == 'e') {
			rc = append(out, len, &used, program, strlen(program));
			p++;
		} else if (*p == '%' && p[1] == '%') {
			rc = append(out, len, &used, "%", 1);
			p++;
		} else {
			rc = append(out, len, &used, p, 1);
		}
	}
	return rc;
}

/* @path with ".@mark@n" before its ".trms" (or at its end). */
static int suffixed(const char *path, const char *mark, unsigned long n,
		    char *out, size_t len)
{
	size_t path_len = strlen(path);
	const char *ext = path_len >= 5 && !strcmp(path + path_len - 5, ".trms")
				  ? ".trms"
				  : "";
	size_t stem = path_len - strlen(ext);
	int w = text_format(out, len, "%.*s.%s%lu%s", (int)stem, path, mark, n,
			    ext);

	return w < 0 || (size_t)w >= len ? -ENAMETOOLONG : 0;
}

int template_suffixed(const char *path, unsigned n, char *out, size_t len)
{
	return suffixed(path, "", n, out, len);
}

int template_windowed(const char *path, unsigned long window, char *out,
		      size_t len)
{
	return suffixed(path, "w", window, out, len);
}

bool template_is_window(const char *name, unsigned long *window)
{
	size_t len = strlen(name), end = len;

	if (len >= 5 && !strcmp(name + len - 5, ".trms"))
		end -= 5;
	size_t digits = end;
	while (digits > 0 && name[digits - 1] >= '0' && name[digits - 1] <= '9')
		digits--;
	if (digits == end || end - digits > 18 || digits < 2 ||
	    name[digits - 1] != 'w' || name[digits - 2] != '.')
		return false;
	if (window) {
		*window = 0;
		for (size_t i = digits; i < end; i++)
			*window = *window * 10 + (unsigned long)(name[i] - '0');
	}
	return true;
}
