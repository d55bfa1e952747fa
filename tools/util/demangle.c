/*
 * demangle.c - C++ names demangled by c++filt (see demangle.h), as many
 * per run as fit comfortably on a command line.
 */
#define _GNU_SOURCE
#include "demangle.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "run_tool.h"
#include "xalloc.h"

#define BATCH_NAMES 500
#define BATCH_BYTES ((size_t)64 << 10)

/* Itanium C++ ABI names start with "_Z"; one that holds a space or a
 * newline would not come back from c++filt as one line. */
static bool mangled(const char *name)
{
	return name[0] == '_' && name[1] == 'Z' && !strpbrk(name, " \t\n");
}

/* Demangle @n mangled names (where the caller keeps them). */
static void demangle_batch(char **const *names, size_t n)
{
	char **argv = xrealloc(NULL, (n + 2) * sizeof(*argv));
	struct tool_run run;
	char *line = NULL;
	size_t cap = 0, got = 0;

	argv[0] = "c++filt";
	for (size_t i = 0; i < n; i++)
		argv[i + 1] = *names[i];
	argv[n + 1] = NULL;
	if (tool_start(&run, argv) == 0) {
		while (got < n && getline(&line, &cap, run.out) >= 0) {
			line[strcspn(line, "\n")] = '\0';
			if (*line && strcmp(line, *names[got])) {
				free(*names[got]);
				*names[got] = xstrdup(line);
			}
			got++;
		}
		tool_finish(&run);
	}
	free(line);
	free(argv);
}

void demangle_names(char **const names[], size_t n)
{
	char **batch[BATCH_NAMES];
	size_t in_batch = 0, bytes = 0;

	for (size_t i = 0; i < n; i++) {
		if (!*names[i] || !mangled(*names[i]))
			continue;
		size_t len = strlen(*names[i]) + 1;
		if (in_batch == BATCH_NAMES ||
		    (in_batch && bytes + len > BATCH_BYTES)) {
			demangle_batch(batch, in_batch);
			in_batch = bytes = 0;
		}
		batch[in_batch++] = names[i];
		bytes += len;
	}
	if (in_batch)
		demangle_batch(batch, in_batch);
}
