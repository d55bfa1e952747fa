/*
 * usage.c - an option's line of a command's --help, its help wrapped: the
 * one layout of the options that the commands' tables print (trms run's
 * settings, trms report's forms), so that --help, and the man pages made
 * from it, read alike.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"

void usage_option(FILE *out, const char *label, const char *help,
		  int column, int width)
{
	char text[1024];
	int at = fprintf(out, "  %s", label);

	at += fprintf(out, "%*s", at < column ? column - at : 2, "");
	snprintf(text, sizeof(text), "%s", help);
	/* A word longer than the line is left whole, past the width. */
	bool line_start = true;
	for (char *save = NULL, *word = strtok_r(text, " ", &save); word;
	     word = strtok_r(NULL, " ", &save)) {
		int len = (int)strlen(word);
		if (!line_start && at + 1 + len > width) {
			at = fprintf(out, "\n%*s", column, "") - 1;
			line_start = true;
		}
		at += fprintf(out, "%s%s", line_start ? "" : " ", word);
		line_start = false;
	}
	fputc('\n', out);
}
