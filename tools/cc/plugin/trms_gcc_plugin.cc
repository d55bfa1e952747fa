// trms_gcc_plugin.cc - the GCC plugin of `trms cc`: functions are
// instrumented after inlining, as Clang does, so that the optimiser
// inlines what it would natively and an inlined function is no region of
// its own; and with --trms-full the accesses GCC's kernel-address pass
// leaves out are instrumented too.
//
// -finstrument-functions instruments each function where GCC reads it,
// before any optimisation: the calls of __cyg_profile_func_enter and _exit
// make every small function look costly to the inliner, which then
// leaves out of line a third of the functions it inlines natively (the
// sqlite3 shell: 2,702 functions against 1,686), and a function inlined
// all the same keeps the calls in its copy.  So a pass of this plugin,
// right after the control flow graph is built and before the call graph
// is, takes the calls out of each function GCC instrumented and marks the
// function (GCC's own rules say which: no_instrument_function, the
// exclusion lists; the mark goes with the function into -flto's link-time
// optimiser); a pass after the last inlining puts them back in the
// functions left out of line: a call of the entry hook where the function
// starts, one of the exit hook before each return.  A clone of a function
// for constant arguments (foo.constprop.0, foo.isra.0) names its origin,
// foo, as GCC's own calls in it did, while the origin is emitted; a part
// split off a function (foo.part.0), which runs only on some of its
// calls, names itself.  Where nothing is optimised (-O0: no inlining, and
// the late pass does not run) GCC's calls stay as they are.
//
// `trms cc --trms-full` with GCC makes every load and store a call of
// __asan_loadN_noabort / __asan_storeN_noabort through GCC's own
// kernel-address pass, with no sanitizer runtime (no redzones, no
// registration of globals).  That pass skips an access it can prove
// lies inside a variable of static storage defined in the file being
// compiled, at a constant offset — `buf[1]`, `counter`, `s.field` of a
// global or a function's static — unless globals are sanitized and the
// variable may be initialised at run time: for the sanitizer such an
// access is always valid, but for trms it is an access like any other,
// and often the one that carries input from another thread.
//
// So, just before the pass runs on each function, this plugin tells GCC
// that globals are sanitized and that every variable may be initialised
// at run time (varpool_node::dynamically_initialized, which only the
// sanitizer reads: the C++ front end sets it for its initialisation-order
// checks); and before every other pass it puts the user's setting back,
// so that no global gets a redzone or a registration call (the globals'
// instrumentation is decided when they are written out, outside the
// pass).  The function's own variables whose address is taken (handed to
// another thread, say) are checked by the pass only when the stack is
// sanitized for use after scope: the plugin says so to that pass alone
// too.  Those kept in registers stay out, as with Clang's plugin.
//
// Written against GCC 12's plugin API (gcc-12-plugin-dev).

// (GCC's headers, in the order they need one another.)
#include "gcc-plugin.h"
#include "plugin-version.h"
#include "tree.h"
#include "tree-pass.h"
#include "cgraph.h"
#include "options.h"
#include "basic-block.h"
#include "function.h"
#include "gimple.h"
#include "gimple-iterator.h"
#include "ssa.h"
#include "context.h"
#include "cfghooks.h"
#include "tree-cfg.h"
#include "tree-into-ssa.h"
#include "attribs.h"

// GCC loads only plugins that say their licence lets them (trms's, MIT,
// does).
int plugin_is_GPL_compatible;

namespace {

// The user's settings, put back around every pass but the sanitizer's.
int user_asan_globals, user_asan_stack, user_asan_allocas;
int user_use_after_scope;

bool is_sanitizer_pass(const opt_pass *pass)
{
	// "asan" in the optimised pipeline, "asan0" at -O0.
	return pass && pass->name && !strncmp(pass->name, "asan", 4);
}

void before_pass(void *gcc_data, void *)
{
	bool sanitizer = is_sanitizer_pass(static_cast<opt_pass *>(gcc_data));

	global_options.x_param_asan_globals = sanitizer ? 1 : user_asan_globals;
	// Locals: the pass checks a function's own variable whose address
	// is taken only when the stack is sanitized for use after scope.
	// The stack's redzones and scope marks are laid out by other passes
	// (gimplification, expansion), which see the user's setting; in
	// this one, alloca's redzones are kept off.
	global_options.x_param_asan_stack = sanitizer ? 1 : user_asan_stack;
	global_options.x_param_asan_protect_allocas =
		sanitizer ? 0 : user_asan_allocas;
	global_options.x_flag_sanitize_address_use_after_scope =
		sanitizer ? 1 : user_use_after_scope;
	if (!sanitizer)
		return;
	varpool_node *v;
	FOR_EACH_VARIABLE (v)
		v->dynamically_initialized = 1;
}

// The function a call of -finstrument-functions' hooks names, or
// NULL_TREE if @stmt is no such call.
tree hooked_function(const gimple *stmt)
{
	if (!is_gimple_call(stmt) || gimple_call_num_args(stmt) < 1)
		return NULL_TREE;
	tree callee = gimple_call_fndecl(stmt);
	if (!callee || !DECL_NAME(callee))
		return NULL_TREE;
	const char *name = IDENTIFIER_POINTER(DECL_NAME(callee));
	if (strcmp(name, "__cyg_profile_func_enter") &&
	    strcmp(name, "__cyg_profile_func_exit"))
		return NULL_TREE;
	tree fn = gimple_call_arg(stmt, 0);
	STRIP_NOPS(fn);
	if (TREE_CODE(fn) != ADDR_EXPR ||
	    TREE_CODE(TREE_OPERAND(fn, 0)) != FUNCTION_DECL)
		return NULL_TREE;
	return TREE_OPERAND(fn, 0);
}

// Remove from @bb the reading of the return address into @var (not in
// SSA form yet), for a call of a hook that is gone: a function that reads
// its return address is neither split nor given new parameters by the
// optimiser.
void remove_return_address(basic_block bb, tree var)
{
	for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi);
	     gsi_next(&gsi)) {
		gimple *stmt = gsi_stmt(gsi);
		if (!is_gimple_call(stmt) || gimple_call_lhs(stmt) != var)
			continue;
		// (Not gimple_call_builtin_p: GCC's call has no argument
		// types to compare.)
		tree callee = gimple_call_fndecl(stmt);
		if (callee && fndecl_built_in_p(callee, BUILT_IN_RETURN_ADDRESS)) {
			gsi_remove(&gsi, true);
			return;
		}
	}
}

// Remove the hooks' calls from @fun: all of them (@other_only false), or
// those naming another function than @fun's origin (inlined from a
// function the early pass left alone).  @return whether any was removed.
bool remove_hooks(function *fun, bool other_only)
{
	tree self = DECL_ORIGIN(fun->decl);
	bool removed = false;
	basic_block bb;

	FOR_EACH_BB_FN (bb, fun) {
		gimple_stmt_iterator gsi = gsi_start_bb(bb);
		while (!gsi_end_p(gsi)) {
			gimple *stmt = gsi_stmt(gsi);
			tree fn = hooked_function(stmt);
			if (!fn || (other_only && DECL_ORIGIN(fn) == self)) {
				gsi_next(&gsi);
				continue;
			}
			if (gimple_in_ssa_p(fun))
				unlink_stmt_vdef(stmt);
			gsi_remove(&gsi, true);
			if (gimple_in_ssa_p(fun))
				release_defs(stmt);
			else
				remove_return_address(bb, gimple_call_arg(stmt, 1));
			removed = true;
		}
	}
	return removed;
}

// The mark of a function whose hooks the early pass took out: an
// attribute, which travels with the function into the link-time
// optimiser (-flto: the late pass then runs in another process).  Its
// name has a space: no source can spell it.
const char *const hooked_mark = "trms hooked";

void mark_hooked(tree fn)
{
	if (!lookup_attribute(hooked_mark, DECL_ATTRIBUTES(fn)))
		DECL_ATTRIBUTES(fn) = tree_cons(get_identifier(hooked_mark),
						NULL_TREE, DECL_ATTRIBUTES(fn));
}

bool hooked(tree fn)
{
	return lookup_attribute(hooked_mark, DECL_ATTRIBUTES(fn)) ||
	       lookup_attribute(hooked_mark,
				DECL_ATTRIBUTES(DECL_ORIGIN(fn)));
}

const pass_data take_hooks_data = {
	GIMPLE_PASS,
	"trms_take_hooks",
	OPTGROUP_NONE,
	TV_NONE,
	PROP_cfg,
	0,
	0,
	0,
	0,
};

struct take_hooks_pass : gimple_opt_pass {
	explicit take_hooks_pass(gcc::context *ctx)
		: gimple_opt_pass(take_hooks_data, ctx)
	{
	}

	// Only where the late pass runs: not at -O0.
	bool gate(function *fun) override
	{
		return opt_for_fn(fun->decl, optimize) > 0;
	}

	unsigned int execute(function *fun) override
	{
		if (remove_hooks(fun, false))
			mark_hooked(fun->decl);
		return 0;
	}
};

// The function @fun's hooks name: its origin, for a clone whose origin
// is emitted too (see the head of this file), else itself.
tree named_function(function *fun)
{
	tree origin = DECL_ORIGIN(fun->decl);
	cgraph_node *self = cgraph_node::get(fun->decl);
	cgraph_node *original = cgraph_node::get(origin);

	if (origin == fun->decl || !self || self->split_part || !original ||
	    !original->definition || original->inlined_to)
		return fun->decl;
	return origin;
}

gcall *hook_call(enum built_in_function hook, tree fn)
{
	gcall *call = gimple_build_call(builtin_decl_implicit(hook), 2,
					build_fold_addr_expr(fn),
					null_pointer_node);
	gimple_call_set_nothrow(call, true);
	return call;
}

// The hooks' calls into @fun: the entry's on the edge from the function's
// entry (a block of its own: the first block may be a loop's head), the
// exit's before each return.  A call that returned straight to the
// caller now returns before the exit's call.
void put_hooks(function *fun)
{
	tree fn = named_function(fun);
	basic_block bb;

	basic_block first =
		split_edge(single_succ_edge(ENTRY_BLOCK_PTR_FOR_FN(fun)));
	gimple_stmt_iterator gsi = gsi_start_bb(first);
	gsi_insert_before(&gsi, hook_call(BUILT_IN_PROFILE_FUNC_ENTER, fn),
			  GSI_NEW_STMT);
	FOR_EACH_BB_FN (bb, fun) {
		for (gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi))
			if (gcall *call = dyn_cast<gcall *>(gsi_stmt(gsi)))
				gimple_call_set_tail(call, false);
		gimple *last = last_stmt(bb);
		if (last && gimple_code(last) == GIMPLE_RETURN) {
			gsi = gsi_for_stmt(last);
			gsi_insert_before(
				&gsi, hook_call(BUILT_IN_PROFILE_FUNC_EXIT, fn),
				GSI_SAME_STMT);
		}
	}
	mark_virtual_operands_for_renaming(fun);
}

// Can the hooks go into @fun?  Not after a call that must be a tail call
// (the exit's call would follow it), nor where the compiler lacks the
// hooks' declarations or the entry has other than one edge out (GCC's
// graphs have one): the function then stays no region rather than the
// compiler failing.
bool hooks_fit(function *fun)
{
	basic_block bb;

	if (!builtin_decl_implicit(BUILT_IN_PROFILE_FUNC_ENTER) ||
	    !builtin_decl_implicit(BUILT_IN_PROFILE_FUNC_EXIT) ||
	    !single_succ_p(ENTRY_BLOCK_PTR_FOR_FN(fun)))
		return false;
	FOR_EACH_BB_FN (bb, fun)
		for (gimple_stmt_iterator gsi = gsi_start_bb(bb);
		     !gsi_end_p(gsi); gsi_next(&gsi))
			if (gcall *call = dyn_cast<gcall *>(gsi_stmt(gsi)))
				if (gimple_call_must_tail_p(call))
					return false;
	return true;
}

const pass_data put_hooks_data = {
	GIMPLE_PASS,
	"trms_put_hooks",
	OPTGROUP_NONE,
	TV_NONE,
	PROP_cfg | PROP_ssa,
	0,
	0,
	0,
	TODO_update_ssa_only_virtuals,
};

struct put_hooks_pass : gimple_opt_pass {
	explicit put_hooks_pass(gcc::context *ctx)
		: gimple_opt_pass(put_hooks_data, ctx)
	{
	}

	// One per instance of "optimized" (-Og has its own).
	opt_pass *clone() override
	{
		return new put_hooks_pass(m_ctxt);
	}

	unsigned int execute(function *fun) override
	{
		remove_hooks(fun, true);
		if (hooked(fun->decl) && hooks_fit(fun))
			put_hooks(fun);
		return 0;
	}
};

} // namespace

int plugin_init(struct plugin_name_args *info,
		struct plugin_gcc_version *version)
{
	if (!plugin_default_version_check(version, &gcc_version))
		return 1;
	user_asan_globals = global_options.x_param_asan_globals;
	user_asan_stack = global_options.x_param_asan_stack;
	user_asan_allocas = global_options.x_param_asan_protect_allocas;
	user_use_after_scope =
		global_options.x_flag_sanitize_address_use_after_scope;
	register_callback(info->base_name, PLUGIN_PASS_EXECUTION, before_pass,
			  nullptr);
	// After "cfg", before the call graph's edges are built and anything
	// is inlined.
	static struct register_pass_info take_hooks = {
		new take_hooks_pass(g), "cfg", 1, PASS_POS_INSERT_AFTER
	};
	register_callback(info->base_name, PLUGIN_PASS_MANAGER_SETUP, nullptr,
			  &take_hooks);
	// Before "optimized", the last pass over a function's GIMPLE: every
	// inlining is done.  (At -O0 nothing is inlined, and that pass does
	// not run; nor does this one.)
	static struct register_pass_info put_hooks = {
		new put_hooks_pass(g), "optimized", 0, PASS_POS_INSERT_BEFORE
	};
	register_callback(info->base_name, PLUGIN_PASS_MANAGER_SETUP, nullptr,
			  &put_hooks);
	return 0;
}
