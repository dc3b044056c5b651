// The unwinder interface of wasm exception handling, for the threaded build with emcc 3.1.6 (clang 14).
//
// Why it exists: with -pthread -fwasm-exceptions, clang 14's landing pads store the landing-pad context
// (`__wasm_lpad_context`: which landing pad, its LSDA, and the selector the personality function
// answers) in a plain global, while the threaded libunwind that emcc 3.1.6 links declares the same
// symbol thread_local and hands its own copy to the personality function. The two never meet, so no
// C++ exception was caught: every error reached JavaScript as a bare WebAssembly.Exception instead of a
// BanditError (tests/js/threads.test.js checks that they are caught again). Newer LLVM makes both
// sides thread_local. Linked into the threaded build only, the definitions below take the place of the
// library's, with the context where the compiler writes it. One context for all threads is what this
// compiler's code supports; the threads of a parallel build throw only when memory runs out.
//
// The contract, as the compiler and libc++abi use it: wasm unwinds the stack itself, so there is a
// single (cleanup) phase. A landing pad fills lpad_index and lsda, then calls _Unwind_CallPersonality,
// which asks __gxx_personality_wasm0 whether this frame catches; the personality function reads the
// context through the _Unwind_Get* accessors and answers through _Unwind_SetGR(context, 1, selector).
#include <cstdint>

extern "C" {

// Declared here rather than through <unwind.h>: the compiler's own header, first on the include path,
// gives some of these functions other types than the ones libc++abi calls.
typedef int _Unwind_Reason_Code;
typedef int _Unwind_Action;
constexpr _Unwind_Reason_Code kForeignExceptionCaught = 1;  // _URC_FOREIGN_EXCEPTION_CAUGHT
constexpr _Unwind_Action kCleanupPhase = 2;                 // _UA_CLEANUP_PHASE
struct _Unwind_Context;
struct _Unwind_Exception {
  uint64_t exception_class;
  void (*exception_cleanup)(_Unwind_Reason_Code reason, _Unwind_Exception* exception);
  uintptr_t private_1;
};

_Unwind_Reason_Code __gxx_personality_wasm0(int version, _Unwind_Action actions, uint64_t exceptionClass,
                                            _Unwind_Exception* exception, _Unwind_Context* context);

// The layout the compiler's landing pads write.
struct LandingPadContext {
  uintptr_t lpad_index;
  uintptr_t lsda;
  uintptr_t selector;
};

LandingPadContext __wasm_lpad_context;

static LandingPadContext& landingPad(_Unwind_Context* context) { return *reinterpret_cast<LandingPadContext*>(context); }

_Unwind_Reason_Code _Unwind_CallPersonality(void* thrown) {
  auto* exception = static_cast<_Unwind_Exception*>(thrown);
  __wasm_lpad_context.selector = 0;
  return __gxx_personality_wasm0(1, kCleanupPhase, exception->exception_class, exception,
                                 reinterpret_cast<_Unwind_Context*>(&__wasm_lpad_context));
}

_Unwind_Reason_Code _Unwind_RaiseException(_Unwind_Exception* exception) {
  // Tag 0 is the C++ tag the compiler's catch clauses test for.
  __builtin_wasm_throw(0, exception);
}

void _Unwind_DeleteException(_Unwind_Exception* exception) {
  if (exception->exception_cleanup != nullptr) exception->exception_cleanup(kForeignExceptionCaught, exception);
}

// Register 1 carries the selector; the personality function sets no other.
void _Unwind_SetGR(_Unwind_Context* context, int index, uintptr_t value) {
  if (index == 1) landingPad(context).selector = value;
}

// The personality function subtracts one from the "instruction pointer" and reads the result as a
// one-based call-site index, so the landing pad's zero-based index is offset by two.
uintptr_t _Unwind_GetIP(_Unwind_Context* context) { return landingPad(context).lpad_index + 2; }

// There is no instruction pointer to move: the landing pad itself continues after the call.
void _Unwind_SetIP(_Unwind_Context*, uintptr_t) {}

uintptr_t _Unwind_GetLanguageSpecificData(_Unwind_Context* context) { return landingPad(context).lsda; }

// Call-site offsets in wasm's LSDA are landing-pad indexes, relative to nothing.
uintptr_t _Unwind_GetRegionStart(_Unwind_Context*) { return 0; }

struct __cxa_eh_globals;
__cxa_eh_globals* __cxa_get_globals();

}  // extern "C"

namespace {
// libc++abi with threads allocates a thread's exception globals (a thread-specific key and a calloc)
// at that thread's first exception: here for the main thread, at startup, so that the first error
// does not leave 24 bytes on the heap that look like a leak of that call (allocatedBytes).
[[maybe_unused]] const bool mainThreadExceptionGlobals = (__cxa_get_globals(), true);
}  // namespace
