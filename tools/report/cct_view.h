/*
 * cct_view.h - the sampled calling context trees of one or more profiles,
 * merged for display: node by node, by what a person reads (function name,
 * region, thread start), over threads, processes and runs; or kept apart
 * per thread.
 */
#ifndef TRMS_CCT_VIEW_H
#define TRMS_CCT_VIEW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "profile_reader.h"

struct view_node {
	char *label;
	/* Where the label's function name ends: the rest, if any, is
	 * " (file:line)", line its line (0: none). */
	size_t name_len;
	unsigned line;
	struct view_node *parent;
	struct view_node **children;
	size_t n_children, cap_children;
	/* where this node was a sample's leaf */
	uint64_t samples, work, overhead, blocked;
	double idleness;
	/* over the subtree */
	uint64_t total_samples, total_work, total_overhead, total_blocked;
	double total_idleness;
};

struct view {
	struct view_node root;
	bool per_thread; /* one subtree per thread under the root */
	bool lines;      /* frames named with their source file and line */
};

/* What a person reads for tree node @c, in @buf (or a constant): a
 * region "[name]", a thread's start "(thread start)", a frame its
 * function's name or else module+0xOFFSET, and with @with_line its
 * " (file:line)" where debug information has it. */
const char *cct_label(struct profile_doc *doc, const struct profile_cct *c,
		      bool with_line, char *buf, size_t len);

/* cct_label, and where in it the name ends (*@name_len: the rest is the
 * " (file:line)") and the line (*@line, 0 if none). */
const char *cct_label_parts(struct profile_doc *doc,
			    const struct profile_cct *c, bool with_line,
			    char *buf, size_t len, size_t *name_len,
			    unsigned *line);

void view_init(struct view *v, bool per_thread, bool lines);
void view_free(struct view *v);

/* Add every tree of @doc. */
void view_add(struct view *v, struct profile_doc *doc);

/* Compute the totals and sort children, largest first.  Call once, after
 * the last view_add. */
void view_finish(struct view *v);

/* The tree, top-down, nodes under @min_percent of all samples left out. */
void view_print_tree(const struct view *v, FILE *out, double min_percent);

/* Brendan Gregg's collapsed stacks: "frame;frame;frame count". */
void view_print_folded(const struct view *v, FILE *out);

/* The @n functions with most samples as leaves. */
void view_print_hot(const struct view *v, FILE *out, size_t n);

#endif
