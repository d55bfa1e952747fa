/*
 * source_lines.c - the source file and line of sampled addresses, from the
 * modules' debug information, read by binutils' addr2line (which also
 * finds separate debug files by build id and debug link).
 *
 * A module is looked up once, the first time a line of it is asked for:
 * every frame address of that module in the profile in one go.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lookups.h"
#include "run_tool.h"
#include "xalloc.h"

/* Addresses per addr2line run: the command line stays far below its
 * limit. */
#define BATCH 1000

static int by_address(const void *a, const void *b)
{
	const struct profile_line *x = a, *y = b;

	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* "FILE:LINE", "FILE:LINE (discriminator N)", "FILE:?" or "??:0". */
static void parse_answer(char *text, struct profile_line *l)
{
	char *cut = strstr(text, " (discriminator ");
	if (cut)
		*cut = '\0';
	text[strcspn(text, "\n")] = '\0';
	char *colon = strrchr(text, ':');
	if (!colon || !strncmp(text, "??", 2))
		return;
	*colon = '\0';
	char *end;
	unsigned long line = strtoul(colon + 1, &end, 10);
	if (*end || !line || line > UINT32_MAX)
		return;
	l->file = strdup(text);
	l->line = l->file ? (unsigned)line : 0;
}

/* Run addr2line on @n addresses of @path; fill in what it knows.
 * @return 0, or -errno if addr2line cannot be run. */
static int ask_addr2line(const char *path, bool demangle,
			 struct profile_line *lines, size_t n)
{
	char **argv = xrealloc(NULL, (n + 6) * sizeof(*argv));
	char *text = xrealloc(NULL, n * 20);
	size_t argc = 0;

	argv[argc++] = "addr2line";
	argv[argc++] = "-f";
	if (demangle)
		argv[argc++] = "-C";
	argv[argc++] = "-e";
	argv[argc++] = (char *)path;
	for (size_t i = 0; i < n; i++) {
		argv[argc] = text + 20 * i;
		snprintf(argv[argc++], 20, "0x%" PRIx64, lines[i].offset);
	}
	argv[argc] = NULL;
	struct tool_run run;
	int rc = tool_start(&run, argv);
	char *answer = NULL;
	size_t cap = 0, got = 0;
	/* Two lines per address: the function, then where. */
	while (!rc && got < n && getline(&answer, &cap, run.out) >= 0) {
		answer[strcspn(answer, "\n")] = '\0';
		if (strcmp(answer, "??"))
			lines[got].function = strdup(answer);
		if (getline(&answer, &cap, run.out) < 0)
			break;
		parse_answer(answer, &lines[got++]);
	}
	free(answer);
	free(argv);
	free(text);
	return rc ? rc : tool_finish(&run);
}

static bool addr2line_missing;

static void look_up_module(struct profile_doc *doc,
			   const struct profile_module *m)
{
	struct profile_lookups *l = lookups_of(doc);
	struct stat st;
	size_t first = l->n_lines;

	l->lines_done[m - doc->modules] = true;
	if (addr2line_missing || stat(m->path, &st) || !S_ISREG(st.st_mode))
		return;
	for (size_t i = 0; i < doc->n_cct; i++) {
		const struct profile_cct *c = &doc->cct[i];
		if (c->kind != PROFILE_CCT_FRAME || c->a != m->id)
			continue;
		if (!(l->n_lines & (l->n_lines - 1)))
			l->lines = xrealloc(l->lines, 2 * (l->n_lines + 1) *
							      sizeof(*l->lines));
		l->lines[l->n_lines++] =
			(struct profile_line){ m->id, c->b, NULL, 0, NULL };
	}
	/* Each address once, in order: sort this module's part, drop
	 * repeats. */
	size_t n = l->n_lines - first, kept = 0;
	if (!n)
		return;
	struct profile_line *mine = l->lines + first;
	qsort(mine, n, sizeof(*mine), by_address);
	for (size_t i = 0; i < n; i++)
		if (!kept || mine[i].offset != mine[kept - 1].offset)
			mine[kept++] = mine[i];
	l->n_lines = first + kept;
	for (size_t i = 0; i < kept; i += BATCH)
		if (ask_addr2line(m->path, l->demangle, mine + i,
				  kept - i < BATCH ? kept - i : BATCH)) {
			addr2line_missing = true;
			fprintf(stderr, "trms: addr2line (binutils) cannot be "
					"run: no source lines\n");
			break;
		}
	qsort(l->lines, l->n_lines, sizeof(*l->lines), by_address);
}

const char *profile_source_line(struct profile_doc *doc, uint32_t module,
				uint64_t offset, unsigned *line,
				const char **function)
{
	const struct profile_module *m = NULL;

	for (size_t i = 0; i < doc->n_modules && !m; i++)
		if (doc->modules[i].id == module)
			m = &doc->modules[i];
	if (!m)
		return NULL;
	struct profile_lookups *l = lookups_of(doc);
	if (!l->lines_done[m - doc->modules])
		look_up_module(doc, m);
	struct profile_line key = { module, offset, NULL, 0, NULL };
	const struct profile_line *found =
		l->n_lines ? bsearch(&key, l->lines, l->n_lines, sizeof(key),
				     by_address)
			   : NULL;
	if (function)
		*function = found ? found->function : NULL;
	if (!found || !found->file)
		return NULL;
	*line = found->line;
	return found->file;
}

void lookups_free_lines(struct profile_lookups *l)
{
	for (size_t i = 0; i < l->n_lines; i++) {
		free(l->lines[i].file);
		free(l->lines[i].function);
	}
	free(l->lines);
	l->lines = NULL;
	l->n_lines = 0;
}
