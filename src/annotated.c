/*
 * annotated.c - can the program open a region at all (see annotated.h)?
 *
 * A region is opened through trms_region_begin (the TRMS_REGION macros
 * call it too; the header's inline form calls it by its second name,
 * trms_region_begin_v1_), or, in code built with `trms cc`, at every function's
 * entry through __cyg_profile_func_enter.  Code that calls either imports
 * the symbol: an undefined entry
 * in its object's dynamic symbol table (a weak one, for a program that
 * declares the API weak to run without the library).  Imports are what the
 * GNU hash table leaves out: in an object with DT_GNU_HASH they are among
 * the symbols before its `symoffset`, so the search is short; an object
 * with only DT_HASH has every symbol searched.  A program linked with the
 * library's archive has the library inside: it is annotated.
 */
#define _GNU_SOURCE
#include "annotated.h"

#include <link.h>
#include <string.h>

static const char *const region_entries[] = { "trms_region_begin",
					     "trms_region_begin_v1_",
					     "__cyg_profile_func_enter" };

static bool is_region_entry(const char *name)
{
	for (size_t i = 0; i < sizeof(region_entries) / sizeof(*region_entries);
	     i++)
		if (!strcmp(name, region_entries[i]))
			return true;
	return false;
}

/* A dynamic entry's address: the loader relocates most in place, but not
 * in a read-only dynamic section (the vDSO's). */
static uintptr_t dyn_address(const struct dl_phdr_info *info, uintptr_t ptr)
{
	return ptr < info->dlpi_addr ? ptr + info->dlpi_addr : ptr;
}

/* Does the object @info import one of region_entries? */
static bool imports_api(const struct dl_phdr_info *info)
{
	const ElfW(Dyn) *dyn = NULL;
	const ElfW(Sym) *symtab = NULL;
	const char *strtab = NULL;
	const uint32_t *gnu_hash = NULL, *hash = NULL;
	size_t count;

	for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)(info->dlpi_addr +
						  info->dlpi_phdr[i].p_vaddr);
	for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
		uintptr_t p = dyn_address(info, dyn->d_un.d_ptr);
		if (dyn->d_tag == DT_SYMTAB)
			symtab = (const ElfW(Sym) *)p;
		else if (dyn->d_tag == DT_STRTAB)
			strtab = (const char *)p;
		else if (dyn->d_tag == DT_GNU_HASH)
			gnu_hash = (const uint32_t *)p;
		else if (dyn->d_tag == DT_HASH)
			hash = (const uint32_t *)p;
	}
	if (!symtab || !strtab)
		return false;
	/* GNU hash: nbuckets, symoffset, ...; hash: nbucket, nchain. */
	if (gnu_hash)
		count = gnu_hash[1];
	else if (hash)
		count = hash[1];
	else
		return false;
	for (size_t i = 1; i < count; i++)
		if (symtab[i].st_shndx == SHN_UNDEF && symtab[i].st_name &&
		    is_region_entry(strtab + symtab[i].st_name))
			return true;
	return false;
}

/* Does the object @info hold the library's own code (its archive linked
 * into the program)? */
static bool holds_library(const struct dl_phdr_info *info)
{
	uintptr_t here = (uintptr_t)annotated_scan;

	for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && here >= lo &&
		    here < lo + ph->p_memsz)
			return true;
	}
	return false;
}

/* Stop at the first object that imports the API, or at the program
 * itself if the library is linked into it.  (The first object listed is
 * the program.) */
static int scan(struct dl_phdr_info *info, size_t size, void *data)
{
	bool *first = data;
	bool program = *first;

	(void)size;
	*first = false;
	return imports_api(info) || (program && holds_library(info));
}

bool annotated_scan(void)
{
	bool first = true;

	return dl_iterate_phdr(scan, &first) != 0;
}
