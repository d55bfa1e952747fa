// trms_gcc_plugin.cc - the GCC plugin of `trms cc`: a function inlined
// into another is no region of its own, as with Clang; and with
// --trms-full the accesses GCC's kernel-address pass leaves out are
// instrumented too.
//
// -finstrument-functions instruments each function where GCC reads it,
// before inlining: a function inlined into another keeps its calls of
// __cyg_profile_func_enter and _exit in its copy, so every call of a
// small helper the optimiser inlined still costs two calls into the
// library (zstd, made of forced-inline helpers, ran 10-23 times slower
// in functions-only mode with GCC, against 1.2 with Clang, which
// instruments after inlining).  A pass of this plugin, after the last
// inlining, removes from each function the calls that name another
// function than itself (an IPA clone, foo.constprop.0 or foo.part.0,
// names its origin, foo, and keeps them).
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

// A call of -finstrument-functions' hooks naming a function other than
// @self: one that was inlined into it.
bool inlined_hook(const gimple *stmt, tree self)
{
	if (!is_gimple_call(stmt))
		return false;
	tree callee = gimple_call_fndecl(stmt);
	if (!callee || !DECL_NAME(callee) || gimple_call_num_args(stmt) < 1)
		return false;
	const char *name = IDENTIFIER_POINTER(DECL_NAME(callee));
	if (strcmp(name, "__cyg_profile_func_enter") &&
	    strcmp(name, "__cyg_profile_func_exit"))
		return false;
	tree fn = gimple_call_arg(stmt, 0);
	STRIP_NOPS(fn);
	if (TREE_CODE(fn) != ADDR_EXPR ||
	    TREE_CODE(TREE_OPERAND(fn, 0)) != FUNCTION_DECL)
		return false;
	return DECL_ORIGIN(TREE_OPERAND(fn, 0)) != DECL_ORIGIN(self);
}

const pass_data inlined_hooks_data = {
	GIMPLE_PASS,
	"trms_inlined_hooks",
	OPTGROUP_NONE,
	TV_NONE,
	PROP_cfg | PROP_ssa,
	0,
	0,
	0,
	TODO_update_ssa_only_virtuals,
};

struct inlined_hooks_pass : gimple_opt_pass {
	explicit inlined_hooks_pass(gcc::context *ctx)
		: gimple_opt_pass(inlined_hooks_data, ctx)
	{
	}

	// One per instance of "optimized" (-Og has its own).
	opt_pass *clone() override
	{
		return new inlined_hooks_pass(m_ctxt);
	}

	unsigned int execute(function *fun) override
	{
		basic_block bb;

		FOR_EACH_BB_FN (bb, fun) {
			gimple_stmt_iterator gsi = gsi_start_bb(bb);
			while (!gsi_end_p(gsi)) {
				gimple *stmt = gsi_stmt(gsi);
				if (!inlined_hook(stmt, fun->decl)) {
					gsi_next(&gsi);
					continue;
				}
				unlink_stmt_vdef(stmt);
				gsi_remove(&gsi, true);
				release_defs(stmt);
			}
		}
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
	// Before "optimized", the last pass over a function's GIMPLE: every
	// inlining is done.  (At -O0 nothing is inlined, and that pass does
	// not run; nor does this one.)
	static struct register_pass_info inlined_hooks = {
		new inlined_hooks_pass(g), "optimized", 0, PASS_POS_INSERT_BEFORE
	};
	register_callback(info->base_name, PLUGIN_PASS_MANAGER_SETUP, nullptr,
			  &inlined_hooks);
	return 0;
}
