/*
 * elf_symbols.c - function names from ELF symbol tables (see
 * elf_symbols.h).
 */
#define _GNU_SOURCE
#include "base/elf_symbols.h"

#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/sort.h"
#include "base/sys.h"
#include "base/vm.h"

struct symbol {
	uintptr_t start, size;
	uintptr_t limit;  /* the end of its section: an unsized one's reach */
	const char *name; /* in names */
	unsigned rank;    /* alias_rank */
};

struct elf_symbols {
	size_t n;
	struct symbol *symbols; /* sorted by start */
	size_t symbols_bytes;
	char *names;
	size_t names_bytes;
};

static int by_start(const void *a, const void *b)
{
	const struct symbol *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Of the symbols of @s (sorted) that start at one address, only the one
 * elf_symbols_name would give: the longest, and of those the best named
 * (alias_rank); an unsized one only where there is no sized one. */
static void keep_best_aliases(struct elf_symbols *s)
{
	size_t out = 0;

	for (size_t i = 0; i < s->n; i++) {
		struct symbol *keep = out ? &s->symbols[out - 1] : NULL;
		const struct symbol *sym = &s->symbols[i];
		if (!keep || keep->start != sym->start) {
			s->symbols[out++] = *sym;
			continue;
		}
		if (sym->size > keep->size ||
		    (sym->size == keep->size && sym->rank < keep->rank))
			*keep = *sym;
	}
	s->n = out;
}

/*
 * An ELF file opened for its symbol tables: its section headers are read
 * (by system calls of the library's own: pread is one of its hooks, and
 * the library's reads are not the program's input),
 * and only a table and its strings are mapped, one at a time.  (Mapping
 * the whole file was simpler, but unmapping a large program's 32 MiB cost
 * a millisecond and more at the exit of every sampled process.)
 */
struct elf_file {
	int fd;
	size_t size;
	Elf64_Shdr *sh; /* vm_alloc'd */
	size_t count, sh_bytes;
};

static void file_close(struct elf_file *f)
{
	if (f->sh)
		vm_free(f->sh, f->sh_bytes);
	close(f->fd);
}

/* Open @path and read its section headers; -errno if it cannot be
 * opened.  A file that is not a 64-bit ELF file with sane headers has no
 * sections. */
static int file_open(const char *path, struct elf_file *f)
{
	struct stat st;
	Elf64_Ehdr eh;

	*f = (struct elf_file){ .fd = open(path, O_RDONLY | O_CLOEXEC) };
	if (f->fd < 0)
		return -ENOENT;
	if (fstat(f->fd, &st) || !S_ISREG(st.st_mode) ||
	    sys_pread(f->fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_shentsize != sizeof(Elf64_Shdr) ||
	    eh.e_shoff > (uint64_t)st.st_size ||
	    eh.e_shnum > ((uint64_t)st.st_size - eh.e_shoff) /
				 sizeof(Elf64_Shdr))
		return 0;
	f->size = (size_t)st.st_size;
	f->count = eh.e_shnum;
	f->sh_bytes = f->count * sizeof(Elf64_Shdr);
	if (!f->count)
		return 0;
	f->sh = vm_alloc(f->sh_bytes);
	if (!f->sh) {
		file_close(f);
		return -ENOMEM;
	}
	if (sys_pread(f->fd, f->sh, f->sh_bytes, (off_t)eh.e_shoff) !=
	    (ssize_t)f->sh_bytes)
		f->count = 0;
	return 0;
}

/* Where Debian's -dbg packages (libc6-dbg, ...) and debuginfod keep the
 * symbols stripped from an object, by its build id, as gdb and perf look
 * them up. */
#define DEBUG_BUILD_ID_DIR "/usr/lib/debug/.build-id/"

static bool has_section(const struct elf_file *f, unsigned type)
{
	for (size_t i = 0; i < f->count; i++)
		if (f->sh[i].sh_type == type)
			return true;
	return false;
}

/* The path of @f's debug file by its build id (a GNU build-id note):
 * DEBUG_BUILD_ID_DIR/NN/NNNN....debug in @path; false if it has none. */
static bool debug_path(const struct elf_file *f, char *path, size_t len)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < f->count; i++) {
		const Elf64_Shdr *s = &f->sh[i];
		unsigned char note[256];
		Elf64_Nhdr nh;
		if (s->sh_type != SHT_NOTE || s->sh_size > sizeof(note) ||
		    s->sh_size < sizeof(nh) + 4 ||
		    sys_pread(f->fd, note, s->sh_size, (off_t)s->sh_offset) !=
			    (ssize_t)s->sh_size)
			continue;
		memcpy(&nh, note, sizeof(nh));
		const unsigned char *id = note + sizeof(nh) +
					  ((nh.n_namesz + 3) & ~3u);
		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
		    memcmp(note + sizeof(nh), "GNU", 4) || nh.n_descsz < 2 ||
		    id + nh.n_descsz > note + s->sh_size ||
		    sizeof(DEBUG_BUILD_ID_DIR) + 2 * nh.n_descsz + 8 > len)
			continue;
		char *p = stpcpy(path, DEBUG_BUILD_ID_DIR);
		for (size_t k = 0; k < nh.n_descsz; k++) {
			*p++ = hex[id[k] >> 4];
			*p++ = hex[id[k] & 15];
			if (k == 0)
				*p++ = '/';
		}
		strcpy(p, ".debug");
		return true;
	}
	return false;
}

/* @path opened for its symbols: itself, or where it has no .symtab (a
 * stripped library: only .dynsym's exported names), its debug file if
 * one is installed and has one. */
static int open_with_symbols(const char *path, struct elf_file *f)
{
	char debug[sizeof(DEBUG_BUILD_ID_DIR) + 2 * 64 + 8];
	struct elf_file d;
	int rc = file_open(path, f);

	if (rc || has_section(f, SHT_SYMTAB) ||
	    !debug_path(f, debug, sizeof(debug)))
		return rc;
	if (file_open(debug, &d))
		return 0;
	if (has_section(&d, SHT_SYMTAB)) {
		file_close(f);
		*f = d;
	} else {
		file_close(&d);
	}
	return 0;
}

/* A symbol table of the file and its strings, mapped. */
struct table {
	const Elf64_Sym *sym;
	size_t nsym;
	const char *str;
	size_t str_size;
	void *map;
	size_t map_bytes;
};

static void table_unmap(struct table *t)
{
	munmap(t->map, t->map_bytes);
}

/* Is section @s within the file? */
static bool in_file(const struct elf_file *f, const Elf64_Shdr *s)
{
	return s->sh_offset <= f->size && s->sh_size <= f->size - s->sh_offset;
}

/* The next table of type @type (SHT_SYMTAB or SHT_DYNSYM), looking from
 * section *@next on (which it moves past it), mapped with its strings
 * (table_unmap when done); false if there is none. */
static bool next_table(const struct elf_file *f, unsigned type, size_t *next,
		       struct table *t)
{
	const Elf64_Shdr *sh = f->sh;
	size_t page = vm_page_size();

	for (size_t i = *next; i < f->count; i++) {
		if (sh[i].sh_type != type || sh[i].sh_link >= f->count ||
		    !in_file(f, &sh[i]) ||
		    sh[i].sh_entsize != sizeof(Elf64_Sym))
			continue;
		const Elf64_Shdr *strtab = &sh[sh[i].sh_link];
		if (!in_file(f, strtab))
			continue;
		/* One mapping over both: they are normally side by side. */
		uint64_t from = sh[i].sh_offset < strtab->sh_offset
					? sh[i].sh_offset
					: strtab->sh_offset;
		uint64_t to = sh[i].sh_offset + sh[i].sh_size;
		if (strtab->sh_offset + strtab->sh_size > to)
			to = strtab->sh_offset + strtab->sh_size;
		from -= from % page;
		if (to == from)
			continue;
		void *map = mmap(NULL, to - from, PROT_READ, MAP_PRIVATE,
				 f->fd, (off_t)from);
		if (map == MAP_FAILED)
			continue;
		const unsigned char *base = (const unsigned char *)map - from;
		*t = (struct table){
			.sym = (const Elf64_Sym *)(base + sh[i].sh_offset),
			.nsym = sh[i].sh_size / sizeof(Elf64_Sym),
			.str = (const char *)base + strtab->sh_offset,
			.str_size = strtab->sh_size,
			.map = map,
			.map_bytes = to - from,
		};
		*next = i + 1;
		return true;
	}
	return false;
}

/* Of aliases (symbols of one start and size), how good a name @sym is,
 * lower better: a global name before a local one, the C library's
 * internal aliases (__GI_*) last, and fewer leading underscores first
 * (clock_gettime before __clock_gettime); a symbol's default version
 * (name@@V) counts as its name, an older one (name@V) a little worse --
 * a debug file's .symtab has them all. */
static unsigned alias_rank(const struct table *t, const Elf64_Sym *sym)
{
	const char *name = t->str + sym->st_name;
	size_t len = strnlen(name, t->str_size - sym->st_name);
	const char *at = memchr(name, '@', len);
	unsigned underscores = name[0] == '_' ? (name[1] == '_' ? 2 : 1) : 0;

	return (ELF64_ST_BIND(sym->st_info) == STB_LOCAL ? 8 : 0) +
	       (!strncmp(name, "__GI_", 5) ? 16 : 0) + underscores +
	       (at && at[1] != '@' ? 4 : 0);
}

/* Where the section of @sym ends: an unsized symbol names the addresses
 * after it up to there, not beyond (.init's _init is not the PLT that
 * follows it).  UINTPTR_MAX where the section is not known. */
static uintptr_t section_end(const struct elf_file *f, const Elf64_Sym *sym)
{
	if (sym->st_shndx == SHN_UNDEF || sym->st_shndx >= f->count)
		return UINTPTR_MAX;
	const Elf64_Shdr *s = &f->sh[sym->st_shndx];
	if (!(s->sh_flags & SHF_ALLOC) || sym->st_value < s->sh_addr)
		return UINTPTR_MAX;
	return s->sh_addr + s->sh_size;
}

/* Is @sym a function that can be named? */
static bool named_function(const struct table *t, const Elf64_Sym *sym)
{
	unsigned kind = ELF64_ST_TYPE(sym->st_info);

	return (kind == STT_FUNC || kind == STT_GNU_IFUNC) && sym->st_value &&
	       sym->st_shndx != SHN_UNDEF && sym->st_name < t->str_size;
}

static struct elf_symbols *read_table(const struct elf_file *f,
				      unsigned type)
{
	struct table t;
	size_t next = 0;

	while (next_table(f, type, &next, &t)) {
		const Elf64_Sym *sym = t.sym;
		struct elf_symbols *s = vm_alloc(sizeof(*s));
		if (!s) {
			table_unmap(&t);
			return NULL;
		}
		s->symbols_bytes = (t.nsym + 1) * sizeof(struct symbol);
		s->names_bytes = t.str_size + 1;
		s->symbols = vm_alloc(s->symbols_bytes);
		s->names = vm_alloc(s->names_bytes);
		if (!s->symbols || !s->names) {
			elf_symbols_free(s);
			table_unmap(&t);
			return NULL;
		}
		memcpy(s->names, t.str, t.str_size);
		for (size_t k = 0; k < t.nsym; k++) {
			if (!named_function(&t, &sym[k]))
				continue;
			s->symbols[s->n++] = (struct symbol){
				sym[k].st_value, sym[k].st_size,
				section_end(f, &sym[k]),
				s->names + sym[k].st_name,
				alias_rank(&t, &sym[k])
			};
		}
		/* Versions are not part of a function's name. */
		for (char *c = s->names; c < s->names + t.str_size; c++)
			if (*c == '@')
				*c = '\0';
		table_unmap(&t);
		if (!s->n) {
			elf_symbols_free(s);
			continue;
		}
		sort_in_place(s->symbols, s->n, sizeof(*s->symbols), by_start);
		keep_best_aliases(s);
		return s;
	}
	return NULL;
}

struct elf_symbols *elf_symbols_load(const char *path)
{
	struct elf_file f;
	struct elf_symbols *s;

	if (open_with_symbols(path, &f))
		return NULL;
	s = read_table(&f, SHT_SYMTAB);
	if (!s)
		s = read_table(&f, SHT_DYNSYM);
	file_close(&f);
	return s;
}

/*
 * Where a symbol's start falls among the ascending addresses: a table of
 * buckets over their span, each holding the first address at or after
 * the bucket's own start, so that finding the first address at or after
 * a value is a lookup and a short walk.  Every function symbol of the
 * table goes through it (cc1 has 29,000): a binary search there cost
 * several milliseconds a process.
 */
struct address_index {
	const uint64_t *addrs;
	size_t n;
	unsigned shift;
	uint32_t *first; /* per bucket */
};

/* Buckets for @n addresses: about two per address. */
static size_t index_buckets(size_t n)
{
	size_t b = 1;

	while (b < 2 * n)
		b <<= 1;
	return b;
}

static void index_build(struct address_index *x, const uint64_t *addrs,
			size_t n, uint32_t *first)
{
	size_t buckets = index_buckets(n);
	uint64_t span = addrs[n - 1] - addrs[0];

	x->addrs = addrs;
	x->n = n;
	x->first = first;
	x->shift = 0;
	while (x->shift < 63 && (span >> x->shift) >= buckets)
		x->shift++;
	for (size_t b = 0, i = 0; b <= (span >> x->shift); b++) {
		while (((addrs[i] - addrs[0]) >> x->shift) < b)
			i++;
		first[b] = (uint32_t)i;
	}
}

/* The first address at or after @value (n if none). */
static size_t index_find(const struct address_index *x, uint64_t value)
{
	if (value <= x->addrs[0])
		return 0;
	if (value > x->addrs[x->n - 1])
		return x->n;
	size_t i = x->first[(value - x->addrs[0]) >> x->shift];
	while (x->addrs[i] < value)
		i++;
	return i;
}

/* The best candidates for an address: the symbol starting last at or
 * before it and, of several with that start (aliases), the longest sized
 * one and an unsized one (hand-written assembly), which is taken where
 * no sized one contains the address. */
struct candidate {
	uint64_t start;
	const Elf64_Sym *sized, *unsized;
};

/*
 * Name @addrs from table @t; false if it has no function at all.  Which
 * symbol elf_symbols_find gives an address: the one starting last at or
 * before it.  One pass: each symbol offers itself to the first address at
 * or after its start; then a running maximum carries the best offer to
 * the addresses after (a symbol starting at or before an address offers
 * itself to that address or to one before it).
 */
static bool name_from_table(const struct elf_file *f,
			    const struct table *t,
			    const struct address_index *x,
			    struct candidate *best, elf_symbols_named *named,
			    void *ctx)
{
	size_t n = x->n;
	bool any = false;

	memset(best, 0, n * sizeof(*best));
	for (size_t k = 0; k < t->nsym; k++) {
		const Elf64_Sym *sym = &t->sym[k];
		if (!named_function(t, sym))
			continue;
		any = true;
		size_t i = index_find(x, sym->st_value);
		if (i == n || sym->st_value < best[i].start)
			continue;
		struct candidate *c = &best[i];
		if (sym->st_value > c->start)
			*c = (struct candidate){ sym->st_value, NULL, NULL };
		if (!sym->st_size && !c->unsized)
			c->unsized = sym;
		else if (sym->st_size &&
			 (!c->sized || sym->st_size > c->sized->st_size ||
			  (sym->st_size == c->sized->st_size &&
			   alias_rank(t, sym) < alias_rank(t, c->sized))))
			c->sized = sym;
	}
	if (!any)
		return false;
	for (size_t i = 1; i < n; i++)
		if (best[i - 1].start > best[i].start)
			best[i] = best[i - 1];
	for (size_t i = 0; i < n; i++) {
		const Elf64_Sym *sym = best[i].sized;
		if (!sym || x->addrs[i] >= sym->st_value + sym->st_size)
			sym = best[i].unsized;
		if (!sym || (sym == best[i].unsized &&
			     x->addrs[i] >= section_end(f, sym)))
			continue;
		const char *name = t->str + sym->st_name;
		/* A name must end inside its table. */
		if (!memchr(name, '\0', t->str_size - sym->st_name))
			continue;
		/* Versions are not part of a function's name. */
		char unversioned[256];
		const char *at = strchr(name, '@');
		if (at && (size_t)(at - name) < sizeof(unversioned)) {
			memcpy(unversioned, name, (size_t)(at - name));
			unversioned[at - name] = '\0';
			name = unversioned;
		}
		named(ctx, i, name, x->addrs[i] - sym->st_value);
	}
	return true;
}

int elf_symbols_name(const char *path, const uint64_t *addrs, size_t n,
		     elf_symbols_named *named, void *ctx)
{
	static const unsigned types[] = { SHT_SYMTAB, SHT_DYNSYM };
	size_t scratch_bytes = n * sizeof(struct candidate) +
			       index_buckets(n) * sizeof(uint32_t);
	struct elf_file f;
	int rc;

	if (!n)
		return 0;
	if (n > UINT32_MAX)
		return -ENOMEM;
	/* The index walks ascending addresses: anything else would make it
	 * walk off their end. */
	for (size_t i = 1; i < n; i++)
		if (addrs[i] < addrs[i - 1])
			return -EINVAL;
	rc = open_with_symbols(path, &f);
	if (rc)
		return rc;
	struct candidate *best = vm_alloc(scratch_bytes);
	if (!best) {
		file_close(&f);
		return -ENOMEM;
	}
	struct address_index x;
	index_build(&x, addrs, n, (uint32_t *)(best + n));
	/* The first table with a function in it, .symtab before .dynsym,
	 * as elf_symbols_load takes it. */
	bool done = false;
	for (size_t k = 0; k < 2 && !done; k++) {
		struct table t;
		size_t next = 0;
		while (!done && next_table(&f, types[k], &next, &t)) {
			done = name_from_table(&f, &t, &x, best, named, ctx);
			table_unmap(&t);
		}
	}
	vm_free(best, scratch_bytes);
	file_close(&f);
	return 0;
}

void elf_symbols_free(struct elf_symbols *s)
{
	if (!s)
		return;
	vm_free(s->symbols, s->symbols_bytes);
	vm_free(s->names, s->names_bytes);
	vm_free(s, sizeof(*s));
}

const char *elf_symbols_find(const struct elf_symbols *s, uintptr_t addr,
			     uintptr_t *offset)
{
	size_t lo = 0, hi;

	if (!s)
		return NULL;
	hi = s->n;
	/* The last symbol starting at or before addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->symbols[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	const struct symbol *sym = &s->symbols[lo - 1];
	/* A sized symbol must contain the address; an unsized one (hand
	 * written assembly) is taken if it is the nearest in its section. */
	if (sym->size ? addr >= sym->start + sym->size : addr >= sym->limit)
		return NULL;
	*offset = addr - sym->start;
	return sym->name;
}

/* Does @s consist of clone suffixes only (see elf_symbol_origin_length)? */
static bool clone_suffixes(const char *s)
{
	static const char *const kinds[] = { ".constprop.", ".isra." };

	while (*s) {
		size_t len = 0;
		for (size_t k = 0; k < 2 && !len; k++)
			if (!strncmp(s, kinds[k], strlen(kinds[k])))
				len = strlen(kinds[k]);
		if (!len || s[len] < '0' || s[len] > '9')
			return false;
		for (s += len; *s >= '0' && *s <= '9'; s++)
			;
	}
	return true;
}

size_t elf_symbol_origin_length(const char *name)
{
	for (const char *dot = strchr(name, '.'); dot && dot != name;
	     dot = strchr(dot + 1, '.'))
		if (clone_suffixes(dot))
			return (size_t)(dot - name);
	return strlen(name);
}
