/*
 * report_callgrind.c - the sampled calling context tree in callgrind's
 * format (see report_callgrind.h).
 *
 * Callgrind describes a program by functions, not contexts: each distinct
 * frame name of the tree is one function (a region "[name]" and a thread's
 * start too), its self cost the samples that ended in it, and each
 * (caller, callee, line of the call) an edge whose inclusive cost is the
 * samples below it.  Readers take a called function's inclusive cost to
 * be the sum of its calls' (callgrind_annotate does), so a context whose
 * function is already on the path above it (recursion, or a thread's
 * start below the context that created it) adds nothing to its call's
 * cost: each sample counts once in each function's inclusive cost, at
 * its outermost frame.  The tree's roots are called by one function of
 * their own, "(all)", so that a root's inclusive cost is its calls' too.
 */
#define _GNU_SOURCE
#include "report_callgrind.h"

#include <errno.h>
#include <inttypes.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>

#include "report_form.h"
#include "xalloc.h"

/* Room for one more element of @array, @n used of @cap. */
#define GROW(array, n, cap)                                               \
	do {                                                              \
		if ((n) == (cap)) {                                       \
			(cap) = (cap) ? 2 * (cap) : 64;                   \
			(array) = xrealloc((array),                       \
					   (cap) * sizeof(*(array)));     \
		}                                                         \
	} while (0)

struct function {
	char *name, *file;
};

/* Samples that ended at one line of a function. */
struct self_line {
	size_t fn;
	unsigned line;
	uint64_t samples;
};

struct edge {
	size_t caller, callee;
	unsigned line, callee_line; /* of the call; the callee's first */
	uint64_t contexts, samples;
};

struct callgrind {
	struct hsearch_data names;
	struct function *fns;
	size_t n_fns, cap_fns;
	struct self_line *selfs;
	size_t n_selfs, cap_selfs;
	struct edge *edges;
	size_t n_edges, cap_edges;
};

/* The function name of view node @n (a copy), the file of its source line
 * (a copy, or NULL) from the label's " (file:line)" part, which the view
 * says where begins. */
static char *node_name(const struct view_node *n, char **file)
{
	const char *rest = n->label + n->name_len;
	const char *colon = strrchr(rest, ':');

	*file = NULL;
	if (rest[0] == ' ' && rest[1] == '(' && colon)
		*file = xstrndup(rest + 2, (size_t)(colon - rest - 2));
	return xstrndup(n->label, n->name_len);
}

/* The function named @name, added with @file if new; takes both. */
static size_t function_of(struct callgrind *g, char *name, char *file)
{
	ENTRY key = { .key = name }, *found;

	if (hsearch_r(key, FIND, &found, &g->names) && found) {
		struct function *f = &g->fns[(size_t)(uintptr_t)found->data];
		if (!f->file && file)
			f->file = file;
		else
			free(file);
		free(name);
		return (size_t)(uintptr_t)found->data;
	}
	GROW(g->fns, g->n_fns, g->cap_fns);
	g->fns[g->n_fns] = (struct function){ name, file };
	key.data = (void *)(uintptr_t)g->n_fns;
	if (!hsearch_r(key, ENTER, &found, &g->names))
		out_of_memory();
	return g->n_fns++;
}

/* Each node adds its self line and its edge; those of the same function
 * and line, or caller, callee and line, are added up once the tree is
 * walked (merge_selfs, merge_edges): sorting, not a search per node. */
static void add_self(struct callgrind *g, size_t fn, unsigned line,
		     uint64_t samples)
{
	GROW(g->selfs, g->n_selfs, g->cap_selfs);
	g->selfs[g->n_selfs++] = (struct self_line){ fn, line, samples };
}

/* The function and line of each node on the path from the root, the
 * node at depth d in fn[d], line[d]. */
struct path {
	size_t *fn;
	unsigned *line;
	size_t depth, cap;
};

/* Is @fn on @p above its last step? */
static bool on_path_above(const struct path *p, size_t fn)
{
	for (size_t d = 0; d + 1 < p->depth; d++)
		if (p->fn[d] == fn)
			return true;
	return false;
}

static void add_edge(struct callgrind *g, const struct path *p,
		     uint64_t samples)
{
	size_t caller = p->fn[p->depth - 2], callee = p->fn[p->depth - 1];
	unsigned line = p->line[p->depth - 2];
	bool counted = !on_path_above(p, callee);

	GROW(g->edges, g->n_edges, g->cap_edges);
	g->edges[g->n_edges++] = (struct edge){
		caller, callee, line, p->line[p->depth - 1], 1,
		counted ? samples : 0
	};
}

static void walk(struct callgrind *g, struct path *p,
		 const struct view_node *n)
{
	char *file;
	unsigned line = n->line;
	char *name = node_name(n, &file);

	if (p->depth == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 64;
		p->fn = xrealloc(p->fn, p->cap * sizeof(*p->fn));
		p->line = xrealloc(p->line, p->cap * sizeof(*p->line));
	}
	size_t fn = function_of(g, name, file);
	p->fn[p->depth] = fn;
	p->line[p->depth] = line;
	p->depth++;
	if (n->samples)
		add_self(g, fn, line, n->samples);
	add_edge(g, p, n->total_samples);
	for (size_t i = 0; i < n->n_children; i++)
		walk(g, p, n->children[i]);
	p->depth--;
}

static int by_function_line(const void *a, const void *b)
{
	const struct self_line *x = a, *y = b;

	if (x->fn != y->fn)
		return x->fn < y->fn ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

static int by_caller_callee_line(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;

	if (x->caller != y->caller)
		return x->caller < y->caller ? -1 : 1;
	if (x->callee != y->callee)
		return x->callee < y->callee ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

/* The self lines sorted by function and line, those of one added up. */
static void merge_selfs(struct callgrind *g)
{
	size_t out = 0;

	qsort(g->selfs, g->n_selfs, sizeof(*g->selfs), by_function_line);
	for (size_t i = 0; i < g->n_selfs; i++) {
		if (out && !by_function_line(&g->selfs[out - 1], &g->selfs[i]))
			g->selfs[out - 1].samples += g->selfs[i].samples;
		else
			g->selfs[out++] = g->selfs[i];
	}
	g->n_selfs = out;
}

/* The edges sorted by caller, callee and line, those of one added up:
 * their contexts counted, their samples summed. */
static void merge_edges(struct callgrind *g)
{
	size_t out = 0;

	qsort(g->edges, g->n_edges, sizeof(*g->edges), by_caller_callee_line);
	for (size_t i = 0; i < g->n_edges; i++) {
		struct edge *last = out ? &g->edges[out - 1] : NULL;
		if (last && !by_caller_callee_line(last, &g->edges[i])) {
			last->contexts += g->edges[i].contexts;
			last->samples += g->edges[i].samples;
		} else {
			g->edges[out++] = g->edges[i];
		}
	}
	g->n_edges = out;
}

/* How many nodes the tree has, to size the table of names. */
static size_t count_nodes(const struct view_node *n)
{
	size_t count = 1;

	for (size_t i = 0; i < n->n_children; i++)
		count += count_nodes(n->children[i]);
	return count;
}

/* "fl=(id)" or "cfi=(id)", and with its name the first time: callgrind's
 * name compression; a function's file has the function's number. */
static void print_ref(FILE *out, const char *field, size_t id,
		      const char *name, bool named)
{
	if (named)
		fprintf(out, "%s=(%zu)\n", field, id + 1);
	else
		fprintf(out, "%s=(%zu) %s\n", field, id + 1, name);
}

/* @g's selfs and edges merged: each function's self lines and calls are
 * one run of each, in function order. */
static void write_file(FILE *out, const struct callgrind *g, uint64_t total)
{
	/* Whether a function's name and file were given yet. */
	bool *named = xcalloc(g->n_fns ? g->n_fns : 1, sizeof(*named));
	size_t s = 0, e = 0;

	fprintf(out, "# callgrind format\nversion: 1\ncreator: trms report "
		     "--callgrind\npositions: line\nevents: Samples\n"
		     "summary: %" PRIu64 "\n", total);
	for (size_t fn = 0; fn < g->n_fns; fn++) {
		const struct function *f = &g->fns[fn];
		fputc('\n', out);
		/* "???" where there are no lines. */
		print_ref(out, "fl", fn, f->file ? f->file : "???", named[fn]);
		print_ref(out, "fn", fn, f->name, named[fn]);
		named[fn] = true;
		for (; s < g->n_selfs && g->selfs[s].fn == fn; s++)
			fprintf(out, "%u %" PRIu64 "\n", g->selfs[s].line,
				g->selfs[s].samples);
		for (; e < g->n_edges && g->edges[e].caller == fn; e++) {
			const struct edge *c = &g->edges[e];
			const struct function *callee = &g->fns[c->callee];
			print_ref(out, "cfi", c->callee,
				  callee->file ? callee->file : "???",
				  named[c->callee]);
			print_ref(out, "cfn", c->callee, callee->name,
				  named[c->callee]);
			named[c->callee] = true;
			fprintf(out, "calls=%" PRIu64 " %u\n%u %" PRIu64 "\n",
				c->contexts, c->callee_line, c->line,
				c->samples);
		}
	}
	fprintf(out, "\ntotals: %" PRIu64 "\n", total);
	free(named);
}

int view_write_callgrind(const struct view *v, FILE *out)
{
	struct callgrind g = { 0 };
	struct path p = { 0 };

	if (!hcreate_r(count_nodes(&v->root) * 2 + 16, &g.names))
		out_of_memory();
	/* The roots' caller. */
	p.cap = 64;
	p.fn = xcalloc(p.cap, sizeof(*p.fn));
	p.line = xcalloc(p.cap, sizeof(*p.line));
	p.fn[0] = function_of(&g, xstrdup("(all)"), NULL);
	p.depth = 1;
	for (size_t i = 0; i < v->root.n_children; i++)
		walk(&g, &p, v->root.children[i]);
	merge_selfs(&g);
	merge_edges(&g);
	write_file(out, &g, v->root.total_samples);
	hdestroy_r(&g.names);
	for (size_t i = 0; i < g.n_fns; i++) {
		free(g.fns[i].name);
		free(g.fns[i].file);
	}
	free(g.fns);
	free(g.selfs);
	free(g.edges);
	free(p.fn);
	free(p.line);
	return ferror(out) ? -EIO : 0;
}

/* --callgrind OUT: the tree built in memory, then put in place. */
static int write_callgrind(const struct report_form_input *in)
{
	char *text = NULL;
	size_t len = 0;

	if (!in->view->root.total_samples) {
		fprintf(stderr, "trms report: no call-stack samples in these "
				"profiles: nothing to write to %s\n",
			in->out);
		return 2;
	}
	FILE *mem = open_memstream(&text, &len);
	if (!mem || view_write_callgrind(in->view, mem) || fclose(mem))
		return report_form_failed("out of memory for --callgrind", 1);
	return report_form_write_out(in, text, len);
}

const struct report_form report_form_callgrind = {
	.option = "callgrind", .arg = "OUT", .print = write_callgrind,
	.tree = true,
	.help =
		"write the sampled calling context tree to the file OUT in "
		"callgrind's format, for KCachegrind and callgrind_annotate, "
		"and print nothing: each frame name a function ([name] for "
		"regions), its self cost the samples that ended in it, each "
		"caller and callee a call, its count the calling contexts it "
		"stands for and its inclusive cost the samples below it; "
		"with --lines, costs at their source lines.  OUT is written "
		"atomically",
};
