#pragma once

#include <cstddef>
#include <functional>

namespace sublinear {

// How many threads index construction may use (HnswIndex's bulk build). One setting for the process:
// the JavaScript layer sets it once from what the platform gives (the threaded wasm build in Node or
// in a cross-origin isolated page); everything else leaves it at 1, so that native runs, tests and
// the single-thread wasm build repeat bit for bit: with more threads the graph's links depend on
// thread timing.
std::size_t parallelism();
// Clamped to [1, kMaxParallelism].
void setParallelism(std::size_t threads);
constexpr std::size_t kMaxParallelism = 64;

// Runs `task` on the calling thread and on up to threads - 1 new ones, and returns when every copy
// has returned; `task` shares its work out itself (an atomic counter, say), so it finishes on
// however many threads start. A thread that cannot start (the wasm build's worker pool is fixed and
// refuses rather than deadlock) is done without. The first exception a copy throws is rethrown here
// after all have returned. Returns how many threads ran the task.
std::size_t runInParallel(std::size_t threads, const std::function<void()>& task);

}  // namespace sublinear
