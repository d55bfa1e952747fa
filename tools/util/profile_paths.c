/*
 * profile_paths.c - files and directories of profiles (see
 * profile_paths.h).
 */
#define _GNU_SOURCE
#include "profile_paths.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/output_template.h"
#include "xalloc.h"

static void add(struct profile_paths *p, size_t *cap, char *path)
{
	if (p->n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		p->paths = xrealloc(p->paths, *cap * sizeof(*p->paths));
	}
	p->paths[p->n++] = path;
}

static bool is_profile_name(const char *name)
{
	size_t len = strlen(name);

	return name[0] != '.' && len > 5 && !strcmp(name + len - 5, ".trms");
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The profiles in directory @dir, appended.  @return how many, or -errno. */
static int add_directory(struct profile_paths *p, size_t *cap,
			 const char *dir, bool windows)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t first = p->n;

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		if (!is_profile_name(e->d_name) ||
		    template_is_window(e->d_name, NULL) != windows)
			continue;
		char *path;
		xasprintf(&path, "%s%s%s", dir,
			  dir[strlen(dir) - 1] == '/' ? "" : "/", e->d_name);
		add(p, cap, path);
	}
	closedir(d);
	if (p->n > first)
		qsort(p->paths + first, p->n - first, sizeof(*p->paths),
		      by_name);
	return (int)(p->n - first);
}

int profile_paths_expand(char *const *args, size_t n,
			 struct profile_paths *out, char *err, size_t errlen)
{
	return profile_paths_expand_windows(args, n, false, out, err, errlen);
}

int profile_paths_expand_windows(char *const *args, size_t n, bool windows,
				 struct profile_paths *out, char *err,
				 size_t errlen)
{
	size_t cap = 0;
	struct stat st;

	out->paths = NULL;
	out->n = 0;
	for (size_t i = 0; i < n; i++) {
		if (stat(args[i], &st) != 0 || !S_ISDIR(st.st_mode)) {
			add(out, &cap, xstrdup(args[i]));
			continue;
		}
		int found = add_directory(out, &cap, args[i], windows);
		if (found <= 0) {
			if (found < 0)
				snprintf(err, errlen, "%s: %s", args[i],
					 strerror(-found));
			else
				snprintf(err, errlen,
					 "%s: no %s in this directory",
					 args[i],
					 windows ? "window (*.wN.trms)"
						 : "profile (*.trms)");
			profile_paths_free(out);
			return found < 0 ? found : -ENOENT;
		}
	}
	return 0;
}

void profile_paths_free(struct profile_paths *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->paths[i]);
	free(p->paths);
	p->paths = NULL;
	p->n = 0;
}
