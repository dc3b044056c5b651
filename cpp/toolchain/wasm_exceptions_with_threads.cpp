// Wasm exception handling for the threaded build with emcc 3.1.6 (clang 14): its compiler-generated
// landing pads write the landing-pad context (`__wasm_lpad_context`) as a plain global, while the
// threaded libunwind it links (libunwind-mt-except) declares it thread_local and has the
// personality function read that other copy. So no C++ exception is ever caught with -pthread
// -fwasm-exceptions (every error reached JavaScript as a bare WebAssembly.Exception), and the
// compiler's writes land at the TLS offset near address 0. Later LLVM makes both sides thread-local.
// This file is libunwind's Unwind-wasm.c (LLVM, Apache-2.0 WITH LLVM-exception) with the context a
// plain global, as the compiler assumes; linked into the threaded build only, it replaces the archive
// member, which every symbol here shadows. One context for all threads is what this compiler's code
// supports: the threads of a parallel build throw only on out-of-memory.
#include <cstddef>
#include <cstdint>

extern "C" {

// The declarations of libunwind's unwind.h that this file needs, written out: the compiler's own
// unwind.h, first on the include path, declares some of these functions with other types.
typedef int _Unwind_Reason_Code;  // _URC_* values
typedef int _Unwind_Action;       // _UA_* flags
enum { _URC_FOREIGN_EXCEPTION_CAUGHT = 1, _UA_CLEANUP_PHASE = 2 };
struct _Unwind_Context;
struct _Unwind_Exception {
  uint64_t exception_class;
  void (*exception_cleanup)(_Unwind_Reason_Code reason, struct _Unwind_Exception *exception);
  uintptr_t private_1;
};

_Unwind_Reason_Code __gxx_personality_wasm0(int version, _Unwind_Action actions, uint64_t exceptionClass,
                                            struct _Unwind_Exception *unwind_exception, struct _Unwind_Context *context);

struct _Unwind_LandingPadContext {
  uintptr_t lpad_index;  // input to the personality function: landing pad index
  uintptr_t lsda;        // and LSDA address
  uintptr_t selector;    // its output
};

struct _Unwind_LandingPadContext __wasm_lpad_context;

// Called in landing pads of compiler-generated code: the VM unwinds, so the compiler calls the
// personality function from there (cleanup phase only; wasm has no two-phase unwinding).
_Unwind_Reason_Code _Unwind_CallPersonality(void *exception_ptr) {
  struct _Unwind_Exception *exception_object = (struct _Unwind_Exception *)exception_ptr;
  __wasm_lpad_context.selector = 0;
  return __gxx_personality_wasm0(1, _UA_CLEANUP_PHASE, exception_object->exception_class, exception_object,
                                 (struct _Unwind_Context *)&__wasm_lpad_context);
}

_Unwind_Reason_Code _Unwind_RaiseException(struct _Unwind_Exception *exception_object) {
  __builtin_wasm_throw(0, exception_object);
}

void _Unwind_DeleteException(struct _Unwind_Exception *exception_object) {
  if (exception_object->exception_cleanup != nullptr) (*exception_object->exception_cleanup)(_URC_FOREIGN_EXCEPTION_CAUGHT, exception_object);
}

// The personality function sets the selector (index 1) only.
void _Unwind_SetGR(struct _Unwind_Context *context, int index, uintptr_t value) {
  if (index != 1) return;
  ((struct _Unwind_LandingPadContext *)context)->selector = value;
}

// Used as a 1-based index after decrementing 1.
uintptr_t _Unwind_GetIP(struct _Unwind_Context *context) { return ((struct _Unwind_LandingPadContext *)context)->lpad_index + 2; }

void _Unwind_SetIP(struct _Unwind_Context *context, uintptr_t value) {
  (void)context;
  (void)value;
}

uintptr_t _Unwind_GetLanguageSpecificData(struct _Unwind_Context *context) { return ((struct _Unwind_LandingPadContext *)context)->lsda; }

uintptr_t _Unwind_GetRegionStart(struct _Unwind_Context *context) {
  (void)context;
  return 0;
}

struct __cxa_eh_globals;
struct __cxa_eh_globals *__cxa_get_globals(void);

}  // extern "C"

namespace {
// libc++abi with threads allocates a thread's exception globals (a thread-specific key and a calloc)
// at that thread's first exception: here for the main thread, at startup, so that the first error
// does not leave 24 bytes on the heap that look like a leak of that call (allocatedBytes).
[[maybe_unused]] const bool mainThreadExceptionGlobals = (__cxa_get_globals(), true);
}  // namespace
