#include "sublinear/core/parallelism.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace sublinear {

namespace {
std::atomic<std::size_t> threadCount{1};

// Helper threads that stay up between calls. A thread started per call would not do in wasm: its
// Worker goes back to Emscripten's pool only when the main thread next returns to its event loop, so
// a page or a benchmark calling select() in a loop would get a helper for its first call only. They
// sleep on a condition variable between jobs (in wasm a futex wait on the shared memory), and are
// joined at exit natively; in wasm the runtime never exits, and init() unrefs the Workers in Node.
class HelperPool {
 public:
  ~HelperPool() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (auto& helper : helpers_) helper.join();
  }

  // Runs `task` on the calling thread and on up to `threads` - 1 helpers (started as needed); returns
  // how many ran it. One job at a time: a caller that finds the pool busy (another thread's job, or
  // a helper's own nested call) runs its task alone.
  std::size_t run(std::size_t threads, const std::function<void()>& task) {
    std::unique_lock<std::mutex> job(jobGuard_, std::try_to_lock);
    if (!job.owns_lock() || threads <= 1) {
      task();
      return 1;
    }
    while (helpers_.size() + 1 < threads) {
      try {
        // It starts from the current job's generation: only jobs posted from now on are its own.
        helpers_.emplace_back([this, index = helpers_.size(), start = generation_] { serve(index, start); });
      } catch (const std::system_error&) {
        break;  // no thread to be had (the wasm build's pool is fixed): the ones there share the work
      }
    }
    const std::size_t helping = std::min(threads - 1, helpers_.size());
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      task_ = &task;
      helping_ = helping;
      unfinished_ = helping;
      ++generation_;
    }
    wake_.notify_all();
    task();
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return unfinished_ == 0; });
    task_ = nullptr;
    return helping + 1;
  }

 private:
  void serve(std::size_t index, std::uint64_t seen) {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      if (index >= helping_) continue;  // a job for fewer helpers than the pool has
      const std::function<void()>* task = task_;
      lock.unlock();
      (*task)();  // the caller's wrapper catches what the task throws
      lock.lock();
      if (--unfinished_ == 0) done_.notify_one();
    }
  }

  std::mutex jobGuard_;  // held by the caller whose job the helpers run
  std::mutex mutex_;     // guards everything below
  std::condition_variable wake_;
  std::condition_variable done_;
  const std::function<void()>* task_ = nullptr;
  std::uint64_t generation_ = 0;
  std::size_t helping_ = 0;
  std::size_t unfinished_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> helpers_;  // only the caller holding jobGuard_ adds to it
};

HelperPool& helperPool() {
  static HelperPool pool;
  return pool;
}
}  // namespace

std::size_t parallelism() { return threadCount.load(std::memory_order_relaxed); }

void setParallelism(std::size_t threads) { threadCount.store(std::clamp<std::size_t>(threads, 1, kMaxParallelism), std::memory_order_relaxed); }

std::size_t runInParallel(std::size_t threads, const std::function<void()>& task) {
  std::exception_ptr failure;
  std::mutex failureGuard;
  const std::function<void()> guarded = [&] {
    try {
      task();
    } catch (...) {
      const std::lock_guard<std::mutex> lock(failureGuard);
      if (!failure) failure = std::current_exception();
    }
  };
  const std::size_t ran = helperPool().run(std::min(threads, kMaxParallelism), guarded);
  if (failure) std::rethrow_exception(failure);
  return ran;
}

void runSideBySide(const std::function<void()>& first, const std::function<void()>& second) {
  // Whichever thread is free takes the next job: a helper that wakes late finds both taken, and the
  // caller has run them one after the other, as on one thread.
  std::atomic<int> next{0};
  runInParallel(parallelism() > 1 ? 2 : 1, [&] {
    for (int job = next++; job < 2; job = next++) (job == 0 ? first : second)();
  });
}

}  // namespace sublinear
