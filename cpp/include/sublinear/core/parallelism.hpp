#pragma once

#include <cstddef>
#include <functional>

namespace sublinear {

// How many threads the core may use: HnswIndex's bulk build, an incremental graph's slice beside a
// search's scan, the elimination policies' examination of arms. One setting for the process: the
// JavaScript layer sets it once from what the platform gives (the threaded wasm build in Node or in
// a cross-origin isolated page); everything else leaves it at 1, so that native runs, tests and the
// single-thread wasm build repeat bit for bit: with more threads a bulk build's links depend on
// thread timing (the other uses give the same bits on any number of threads).
std::size_t parallelism();
// Clamped to [1, kMaxParallelism].
void setParallelism(std::size_t threads);
constexpr std::size_t kMaxParallelism = 64;

// Runs `task` on the calling thread and on up to threads - 1 helper threads, and returns when every
// copy has returned; `task` shares its work out itself (an atomic counter, say), so it finishes on
// however many threads run it. Helpers are started on first need and stay up, asleep between calls.
// A thread that cannot start (the wasm build's worker pool is fixed and refuses rather than
// deadlock) is done without, and a call made while another call's task runs (from another thread,
// or nested in a task) runs its task on the calling thread alone. The first exception a copy throws
// is rethrown here after all have returned. Returns how many threads ran the task.
std::size_t runInParallel(std::size_t threads, const std::function<void()>& task);

// Runs two independent jobs, at the same time when parallelism() allows a helper, else `first` then
// `second` on the calling thread. Either may run on either thread, so they must not share state
// that one of them writes; whatever they compute is the same as one after the other.
void runSideBySide(const std::function<void()>& first, const std::function<void()>& second);

}  // namespace sublinear
