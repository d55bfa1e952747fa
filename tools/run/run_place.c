/*
 * run_place.c - where `trms run` puts the profiles (see run_place.h).
 */
#define _GNU_SOURCE
#include "run_place.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xalloc.h"
#include "base/atomic_file.h"

static char *joined(const char *a, const char *b)
{
	char *s;

	xasprintf(&s, "%s%s%s", a, *a && a[strlen(a) - 1] != '/' ? "/" : "",
		  b);
	return s;
}

/* The command's file name, fit for a directory's name. */
static void command_name(const char *command, char *out, size_t len)
{
	const char *slash = strrchr(command, '/');
	const char *name = slash ? slash + 1 : command;
	size_t n = 0;

	for (; *name && n + 1 < len && n < 40; name++)
		out[n++] = (unsigned char)*name <= ' ' || *name == 0x7f
				   ? '_'
				   : *name;
	out[n] = '\0';
	if (!n || out[0] == '.')
		snprintf(out, len, "command");
}

/* trms-NAME.PID/ in the working directory, new. */
static int make_default_place(struct run_place *p, const char *cwd,
			      const char *command)
{
	char name[64], dir[128];

	command_name(command, name, sizeof(name));
	for (unsigned n = 0; n < 100; n++) {
		if (n)
			snprintf(dir, sizeof(dir), "trms-%s.%d.%u", name,
				 (int)getpid(), n);
		else
			snprintf(dir, sizeof(dir), "trms-%s.%d", name,
				 (int)getpid());
		if (mkdir(dir, 0777) == 0) {
			p->directory = joined(cwd, dir);
			p->shown = joined(dir, "");
			p->name_template = xstrdup("%e.%p.trms");
			p->template = joined(p->directory, p->name_template);
			p->created = p->whole = true;
			return 0;
		}
		if (errno != EEXIST)
			break;
	}
	int rc = -errno;
	fprintf(stderr,
		"trms run: cannot make the profile directory %s in %s: %s "
		"(choose another place with -o)\n",
		dir, cwd, strerror(-rc));
	return rc;
}

int run_place_choose(struct run_place *p, const char *output,
			const char *command)
{
	char cwd[PATH_MAX];
	struct stat st;

	memset(p, 0, sizeof(*p));
	if (!getcwd(cwd, sizeof(cwd))) {
		int rc = -errno;
		fprintf(stderr, "trms run: cannot tell the working directory: "
				"%s\n",
			strerror(-rc));
		return rc;
	}
	if (!output)
		return make_default_place(p, cwd, command);
	char *absolute = output[0] == '/' ? xstrdup(output)
					  : joined(cwd, output);
	size_t len = strlen(output);
	if (output[len - 1] == '/' ||
	    (stat(absolute, &st) == 0 && S_ISDIR(st.st_mode))) {
		/* A directory; "DIR/" is made if need be (not its
		 * parents). */
		if (output[len - 1] == '/' && mkdir(absolute, 0777) == 0)
			p->created = true;
		p->directory = absolute;
		while (strlen(p->directory) > 1 &&
		       p->directory[strlen(p->directory) - 1] == '/')
			p->directory[strlen(p->directory) - 1] = '\0';
		p->shown = joined(output, "");
		p->name_template = xstrdup("%e.%p.trms");
		p->whole = true;
	} else {
		char *slash = strrchr(absolute, '/');
		*slash = '\0';
		if (strchr(absolute, '%')) {
			/* The directory depends on the process. */
			*slash = '/';
			p->template = absolute;
			return 0;
		}
		p->directory = xstrdup(*absolute ? absolute : "/");
		p->name_template = xstrdup(slash + 1);
		const char *given = strrchr(output, '/');
		p->shown = xstrdup(given ? output : "./");
		if (given)
			p->shown[given - output + 1] = '\0';
		free(absolute);
	}
	p->template = joined(p->directory, p->name_template);
	return 0;
}

void run_place_free(struct run_place *p)
{
	free(p->directory);
	free(p->shown);
	free(p->name_template);
	free(p->template);
}

void run_place_check(const struct run_place *p)
{
	const char *why;

	if (!p->directory)
		return;
	char *path = joined(p->directory, p->name_template);
	/* A fixed name (-o /dev/full) is named whole. */
	bool fixed = !strchr(p->name_template, '%');
	if (atomic_file_check(path, &why))
		fprintf(stderr, "trms run: profiles cannot be written to %s%s: "
				"%s\n",
			p->shown, fixed ? p->name_template : "", why);
	free(path);
}

void run_place_remove_if_empty(const struct run_place *p, size_t running)
{
	if (p->created && !running)
		rmdir(p->directory); /* fails if anything is in it */
}

