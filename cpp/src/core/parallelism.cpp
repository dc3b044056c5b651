#include "sublinear/core/parallelism.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace sublinear {

namespace {
std::atomic<std::size_t> threadCount{1};
}  // namespace

std::size_t parallelism() { return threadCount.load(std::memory_order_relaxed); }

void setParallelism(std::size_t threads) { threadCount.store(std::clamp<std::size_t>(threads, 1, kMaxParallelism), std::memory_order_relaxed); }

std::size_t runInParallel(std::size_t threads, const std::function<void()>& task) {
  std::exception_ptr failure;
  std::mutex failureGuard;
  const auto guarded = [&] {
    try {
      task();
    } catch (...) {
      const std::lock_guard<std::mutex> lock(failureGuard);
      if (!failure) failure = std::current_exception();
    }
  };
  std::vector<std::thread> helpers;
  helpers.reserve(threads > 0 ? threads - 1 : 0);
  for (std::size_t t = 1; t < threads; ++t) {
    try {
      helpers.emplace_back(guarded);
    } catch (const std::system_error&) {
      break;  // no thread to be had: the calling thread and the ones started share the work
    }
  }
  guarded();
  for (auto& helper : helpers) helper.join();
  if (failure) std::rethrow_exception(failure);
  return helpers.size() + 1;
}

}  // namespace sublinear
