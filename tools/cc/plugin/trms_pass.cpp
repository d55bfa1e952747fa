// trms_pass.cpp - the Clang plugin of `trms cc --trms-full`: every load
// and store of the code it compiles becomes an access of the library's
// engine, checked inline.
//
// Before each load or store of 1, 2, 4, 8 or 16 bytes inside a loop it
// puts a call to __trms_check_loadN or __trms_check_storeN, whose
// definitions (the library's src/inline_checks.c, compiled to bitcode and
// installed beside this plugin as trms-inline-checks.bc) it links into
// the module, and the always-inliner that runs right after it inlines
// them: the common access is then decided by a few loads and compares in
// the program's own code (src/engine/engine_fast.h), and only the others call
// the library.  An access outside any loop, which runs once per call of
// its function, calls the library's __asan_loadN_noabort /
// __asan_storeN_noabort, which start with the same checks: the code is
// half as large for the same speed (docs/whole-program.md).  Other sizes,
// atomic read-modify-writes and constant-length memory intrinsics call
// those hooks too, as the outlined instrumentation of the GCC build
// does; calls to the C
// library's memory and string functions are recorded by their wrappers
// (`trms cc` links with -Wl,--wrap).
//
// It runs last in the optimisation pipeline, after inlining: what it sees
// are the loads and stores the optimiser kept.
//
// Written against LLVM 14's new pass manager (clang -fpass-plugin).

#include <dlfcn.h>

#include <string>

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/IPO/AlwaysInliner.h"

using namespace llvm;

namespace {

// Set by `trms cc` (-mllvm; the plugin is loaded with -Xclang -load too,
// so that they are known when clang reads them): every function a region
// and no access instrumented; the functions to leave out.
cl::opt<bool> functions_only("trms-functions-only",
			     cl::desc("trms: instrument no load or store"));
cl::opt<std::string>
	exclude_names("trms-exclude",
		      cl::desc("trms: no region for the functions whose "
			       "names contain one of these (comma-separated)"));

const char *const check_prefix = "__trms_check_";
// The checks' out-of-line parts (a load's first accesses): private to
// each module like the checks, called, not inlined.
const char *const helper_prefix = "__trms_first_";

// Functions that must not be instrumented: the library's, the compiler
// hooks', and those the optimiser is not to look into.
bool skipped(const Function &f)
{
	StringRef name = f.getName();

	return f.isDeclaration() || f.hasAvailableExternallyLinkage() ||
	       name.startswith("__trms_") || name.startswith("__asan_") ||
	       name.startswith("__cyg_profile_") ||
	       f.hasFnAttribute(Attribute::Naked);
}

// Whether @f is defined in a system header, as GCC's
// -finstrument-functions-exclude-file-list=/usr/include/,/usr/lib/gcc/
// that trms cc gives it has it: known from the debug information, else
// from a C++ name in the standard library's namespaces.
bool in_system_header(const Function &f)
{
	const DISubprogram *sp = f.getSubprogram();

	if (!sp) {
		StringRef mangled = f.getName(); // std::, __gnu_cxx::
		return mangled.startswith("_ZSt") ||
		       mangled.startswith("_ZNSt") ||
		       mangled.startswith("_ZNKSt") ||
		       mangled.startswith("_ZN9__gnu_cxx") ||
		       mangled.startswith("_ZNK9__gnu_cxx");
	}
	// Clang names the C++ library's headers as its driver found them
	// (/usr/bin/../lib/gcc/...): without the dots.
	SmallString<256> file(sp->getFilename());
	if (!sys::path::is_absolute(file)) {
		file = sp->getDirectory();
		sys::path::append(file, sp->getFilename());
	}
	sys::path::remove_dots(file, true);
	StringRef path = file.str();
	return path.contains("/usr/include/") || path.contains("/usr/lib/gcc/");
}

// Whether --trms-exclude names @f: one of its names is a substring of
// @f's demangled name, as GCC matches them.
bool named_excluded(const Function &f)
{
	if (exclude_names.empty())
		return false;
	std::string name = demangle(f.getName().str());
	StringRef list = exclude_names;
	while (!list.empty()) {
		auto [one, rest] = list.split(',');
		if (!one.empty() && name.find(one.str()) != std::string::npos)
			return true;
		list = rest;
	}
	return false;
}

// Take Clang's -finstrument-functions-after-inlining off the excluded
// functions: its calls are put in later, by the code generator, where
// these attributes ask for them.
void exclude_functions(Module &m)
{
	for (Function &f : m) {
		if (f.isDeclaration() ||
		    !(in_system_header(f) || named_excluded(f)))
			continue;
		f.removeFnAttr("instrument-function-entry-inlined");
		f.removeFnAttr("instrument-function-exit-inlined");
	}
}

// The bitcode of the checks: beside this plugin.
std::string checks_path()
{
	Dl_info info;

	if (!dladdr(reinterpret_cast<void *>(&checks_path), &info) ||
	    !info.dli_fname)
		return "";
	std::string path = info.dli_fname;
	size_t slash = path.rfind('/');
	return (slash == std::string::npos ? std::string()
					   : path.substr(0, slash + 1)) +
	       "trms-inline-checks.bc";
}

struct site {
	Instruction *at;
	Value *address;
	uint64_t size;
	bool write;
	bool in_loop; // checked inline; else a call of the library's hook
};

class instrumenter {
public:
	explicit instrumenter(Module &m) : module(m), layout(m.getDataLayout())
	{
	}

	void collect(Function &f, const LoopInfo &loops)
	{
		for (Instruction &i : instructions(f)) {
			in_loop = loops.getLoopFor(i.getParent()) != nullptr;
			collect(i);
		}
	}

	// @inline_checks: the checks are linked in; else every access
	// calls the library's hook.
	void instrument(bool inline_checks);

	std::vector<site> sites;

private:
	Module &module;
	const DataLayout &layout;
	bool in_loop = false; // the instruction collected is in a loop

	void add(Instruction *at, Value *address, Type *type, bool write)
	{
		if (address->getType()->getPointerAddressSpace() != 0 ||
		    !type->isSized())
			return;
		uint64_t size = layout.getTypeStoreSize(type).getFixedSize();
		if (size)
			sites.push_back({ at, address, size, write, in_loop });
	}

	void collect(Instruction &i)
	{
		if (auto *load = dyn_cast<LoadInst>(&i)) {
			add(load, load->getPointerOperand(), load->getType(),
			    false);
		} else if (auto *store = dyn_cast<StoreInst>(&i)) {
			add(store, store->getPointerOperand(),
			    store->getValueOperand()->getType(), true);
		} else if (auto *rmw = dyn_cast<AtomicRMWInst>(&i)) {
			add(rmw, rmw->getPointerOperand(),
			    rmw->getValOperand()->getType(), false);
			add(rmw, rmw->getPointerOperand(),
			    rmw->getValOperand()->getType(), true);
		} else if (auto *cas = dyn_cast<AtomicCmpXchgInst>(&i)) {
			add(cas, cas->getPointerOperand(),
			    cas->getNewValOperand()->getType(), false);
			add(cas, cas->getPointerOperand(),
			    cas->getNewValOperand()->getType(), true);
		} else if (auto *mem = dyn_cast<MemIntrinsic>(&i)) {
			auto *length = dyn_cast<ConstantInt>(mem->getLength());
			if (!length || !length->getZExtValue())
				return; // a call of the C library's, wrapped
			uint64_t n = length->getZExtValue();
			if (auto *copy = dyn_cast<MemTransferInst>(mem))
				sites.push_back({ mem, copy->getSource(), n,
						  false, in_loop });
			sites.push_back({ mem, mem->getDest(), n, true,
					  in_loop });
		}
	}
};

void instrumenter::instrument(bool inline_checks)
{
	LLVMContext &context = module.getContext();
	Type *bytes = Type::getInt8PtrTy(context);
	Type *size_type = Type::getInt64Ty(context);
	Type *void_type = Type::getVoidTy(context);

	for (site &s : sites) {
		IRBuilder<> b(s.at);
		// An inlined call in a function with debug information needs a
		// location of its own.
		DebugLoc where = s.at->getDebugLoc();
		DISubprogram *sub = s.at->getFunction()->getSubprogram();
		if (!where && sub)
			where = DILocation::get(context, 0, 0, sub);
		b.SetCurrentDebugLocation(where);
		Value *address = b.CreatePointerCast(s.address, bytes);
		uint64_t n = s.size;
		const char *kind = s.write ? "store" : "load";
		if (n == 1 || n == 2 || n == 4 || n == 8 || n == 16) {
			std::string name =
				inline_checks && s.in_loop
					? std::string(check_prefix) + kind +
						  std::to_string(n)
					: std::string("__asan_") + kind +
						  std::to_string(n) +
						  "_noabort";
			FunctionCallee check = module.getOrInsertFunction(
				name, void_type, bytes);
			b.CreateCall(check, { address });
		} else {
			FunctionCallee hook = module.getOrInsertFunction(
				std::string("__asan_") + kind + "N_noabort",
				void_type, bytes, size_type);
			b.CreateCall(hook,
				     { address, ConstantInt::get(size_type, n) });
		}
	}
}

// Link the checks' bitcode into @m and make them inlined, private copies.
bool link_checks(Module &m)
{
	SMDiagnostic error;
	std::string path = checks_path();
	std::unique_ptr<Module> checks =
		path.empty() ? nullptr
			     : parseIRFile(path, error, m.getContext());
	if (!checks) {
		errs() << "trms: cannot read the inline checks (" << path
		       << "): " << error.getMessage() << "\n";
		return false;
	}
	checks->setDataLayout(m.getDataLayout());
	checks->setTargetTriple(m.getTargetTriple());
	if (Linker::linkModules(m, std::move(checks))) {
		errs() << "trms: cannot link the inline checks into "
		       << m.getName() << "\n";
		return false;
	}
	for (Function &f : m) {
		bool check = f.getName().startswith(check_prefix);
		if ((!check && !f.getName().startswith(helper_prefix)) ||
		    f.isDeclaration())
			continue;
		f.setLinkage(GlobalValue::InternalLinkage);
		// Inlined into, or called from, code built for any processor
		// of the family.
		f.removeFnAttr("target-cpu");
		f.removeFnAttr("target-features");
		f.removeFnAttr(Attribute::OptimizeNone);
		if (check) {
			f.removeFnAttr(Attribute::NoInline);
			f.addFnAttr(Attribute::AlwaysInline);
		}
	}
	return true;
}

struct trms_pass : PassInfoMixin<trms_pass> {
	PreservedAnalyses run(Module &m, ModuleAnalysisManager &modules)
	{
		instrumenter x(m);
		FunctionAnalysisManager &functions =
			modules.getResult<FunctionAnalysisManagerModuleProxy>(m)
				.getManager();

		// (A module the plugin has seen already: LTO runs it again.)
		if (m.getFunction(std::string(check_prefix) + "load1"))
			return PreservedAnalyses::all();
		exclude_functions(m);
		if (functions_only)
			return PreservedAnalyses::none();
		for (Function &f : m)
			if (!skipped(f))
				x.collect(f, functions.getResult<LoopAnalysis>(f));
		// A module without accesses still asks the library to turn
		// the checks on: another of the program's may have some.
		// Without the checks, every access calls the library.
		x.instrument(link_checks(m));
		return PreservedAnalyses::none();
	}
};

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo()
{
	return { LLVM_PLUGIN_API_VERSION, "trms", "1",
		 [](PassBuilder &builder) {
			 builder.registerOptimizerLastEPCallback(
				 [](ModulePassManager &passes,
				    OptimizationLevel) {
					 passes.addPass(trms_pass());
					 passes.addPass(AlwaysInlinerPass());
				 });
		 } };
}
