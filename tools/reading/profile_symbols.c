/*
 * profile_symbols.c - the names of a profile's sampled frames: the ones
 * its symbol lines give, else the ones the modules' files give (a profile
 * written from a signal handler names none), demangled on demand (see
 * profile_reader.h).
 */
#define _GNU_SOURCE
#include "lookups.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "demangle.h"
#include "format/profile_format.h"
#include "base/elf_symbols.h"
#include "xalloc.h"

static void free_lookups(struct profile_lookups *l)
{
	lookups_free_lines(l);
	free(l->symbols_done);
	free(l->lines_done);
	free(l);
}

struct profile_lookups *lookups_of(struct profile_doc *doc)
{
	if (!doc->lookups) {
		struct profile_lookups *l = xcalloc(1, sizeof(*l));
		l->symbols_done = xcalloc(doc->n_modules, sizeof(bool));
		l->lines_done = xcalloc(doc->n_modules, sizeof(bool));
		doc->lookups = l;
		doc->free_lookups = free_lookups;
	}
	return doc->lookups;
}

/* A copy of symbol @name as regions are named: GCC's clones as their
 * origin (elf_symbol_origin_length). */
static char *origin_name(const char *name)
{
	return xstrndup(name, elf_symbol_origin_length(name));
}

/* The vDSO, which has no file: this process's own (the kernel's, the
 * same on the machine that wrote the profile if it is this one), copied
 * into a memory file for the ELF reader. */
static struct elf_symbols *vdso_symbols(void)
{
	const Elf64_Ehdr *eh = (const void *)getauxval(AT_SYSINFO_EHDR);
	char path[64];

	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64)
		return NULL;
	/* Its section headers come last in the image. */
	size_t size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	int fd = memfd_create("trms-vdso", MFD_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct elf_symbols *s = NULL;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (write(fd, eh, size) == (ssize_t)size)
		s = elf_symbols_load(path);
	close(fd);
	return s;
}

/* The symbols of @m's file; NULL if it has none or is not a regular file
 * (opening a FIFO would wait for a writer, and opening a device may do
 * something). */
static struct elf_symbols *symbols_of(const struct profile_module *m)
{
	struct stat st;

	if (!strcmp(m->path, "linux-vdso.so.1"))
		return vdso_symbols();
	if (stat(m->path, &st) != 0 || !S_ISREG(st.st_mode))
		return NULL;
	return elf_symbols_load(m->path);
}

/* Names, from the module's file, for the frames of @m the profile did not
 * name, and the functions among its regions: all of them at once. */
static void look_up_symbols(struct profile_doc *doc,
			    const struct profile_module *m)
{
	lookups_of(doc)->symbols_done[m - doc->modules] = true;
	struct elf_symbols *symbols = symbols_of(m);
	if (!symbols)
		return;
	struct profile_symbol *found =
		xcalloc(doc->n_cct + doc->n_regions, sizeof(*found));
	size_t n = 0;
	for (size_t i = 0; i < doc->n_cct; i++) {
		const struct profile_cct *c = &doc->cct[i];
		if (c->kind != PROFILE_CCT_FRAME || c->a != m->id ||
		    profile_find_symbol(doc, m->id, c->b))
			continue;
		uintptr_t in_symbol;
		const char *name = elf_symbols_find(symbols, c->b, &in_symbol);
		if (name)
			found[n++] = (struct profile_symbol){
				m->id, c->b, origin_name(name), in_symbol
			};
	}
	size_t framed = n;
	uint32_t module;
	uint64_t offset;
	for (size_t i = 0; i < doc->n_regions; i++) {
		if (!profile_function_place_parse(doc->regions[i].name,
						  &module, &offset) ||
		    module != m->id || profile_find_symbol(doc, module, offset))
			continue;
		bool known = false;
		for (size_t j = 0; j < framed && !known; j++)
			known = found[j].offset == offset;
		uintptr_t in_symbol;
		const char *name = elf_symbols_find(symbols, offset, &in_symbol);
		if (name && !known)
			found[n++] = (struct profile_symbol){
				m->id, offset, origin_name(name), in_symbol
			};
	}
	elf_symbols_free(symbols);
	if (profile_add_symbols(doc, found, n))
		out_of_memory();
	free(found);
}

const char *profile_symbol(struct profile_doc *doc, uint32_t module,
			   uint64_t offset)
{
	const struct profile_symbol *s =
		profile_find_symbol(doc, module, offset);
	const struct profile_module *m = profile_module(doc, module);

	if (s)
		return s->name;
	if (!m || lookups_of(doc)->symbols_done[m - doc->modules])
		return NULL;
	look_up_symbols(doc, m);
	return profile_symbol(doc, module, offset);
}

void profile_demangle(struct profile_doc *doc)
{
	/* Every frame named first: names looked up later would not be. */
	for (size_t i = 0; i < doc->n_cct; i++)
		if (doc->cct[i].kind == PROFILE_CCT_FRAME)
			profile_symbol(doc, (uint32_t)doc->cct[i].a,
				       doc->cct[i].b);
	/* And the regions that are C++ functions (code built with trms
	 * c++), in the same run of the demangler. */
	char ***names =
		xcalloc(doc->n_symbols + doc->n_regions + 1, sizeof(*names));
	size_t n = 0;
	for (size_t i = 0; i < doc->n_symbols; i++)
		names[n++] = &doc->symbols[i].name;
	for (size_t i = 0; i < doc->n_regions; i++)
		if (!strncmp(doc->regions[i].name, "_Z", 2))
			names[n++] = &doc->regions[i].name;
	/* Replaced where they are: no name is read after it is freed. */
	demangle_names(names, n);
	free(names);
	lookups_of(doc)->demangle = true;
}

/* "OBJECT+0xOFFSET" for the function at @offset of @module. */
static char *place_name(struct profile_doc *doc, uint32_t module,
			uint64_t offset)
{
	const struct profile_module *m = profile_module(doc, module);
	const char *base = m ? strrchr(m->path, '/') : NULL;
	char *name;

	xasprintf(&name, "%s+0x%llx",
		  base ? base + 1 : m ? m->path : "?",
		  (unsigned long long)offset);
	return name;
}

void profile_name_functions(struct profile_doc *doc)
{
	uint32_t module;
	uint64_t offset;

	for (size_t i = 0; i < doc->n_regions; i++) {
		struct profile_region *r = &doc->regions[i];
		if (!profile_function_place_parse(r->name, &module, &offset))
			continue;
		const char *symbol = profile_symbol(doc, module, offset);
		char *name = symbol ? xstrdup(symbol)
				    : place_name(doc, module, offset);
		/* Two functions of one name (static ones of different
		 * files): told apart by their places, as the library does. */
		for (size_t j = 0; j < doc->n_regions && symbol; j++) {
			if (j != i && !strcmp(doc->regions[j].name, name)) {
				char *place = place_name(doc, module, offset);
				char *both;
				xasprintf(&both, "%s (%s)", name, place);
				free(place);
				free(name);
				name = both;
				break;
			}
		}
		free(r->name);
		r->name = name;
	}
}
