#pragma once

namespace sublinear {

// The scratch a batch thread's searches of one index write (MipsIndex::runSearchThread): while a
// BatchScratch lives, of(index) on its thread is its scratch; for any other index, or on any other
// thread, null, and the searches write the index's own.
template <class Scratch>
class BatchScratch {
 public:
  BatchScratch(const void* index, Scratch* scratch) {
    index_ = index;
    scratch_ = scratch;
  }
  ~BatchScratch() {
    index_ = nullptr;
    scratch_ = nullptr;
  }
  BatchScratch(const BatchScratch&) = delete;
  BatchScratch& operator=(const BatchScratch&) = delete;

  static Scratch* of(const void* index) { return index_ == index ? scratch_ : nullptr; }

 private:
  static thread_local const void* index_;
  static thread_local Scratch* scratch_;
};

template <class Scratch>
thread_local const void* BatchScratch<Scratch>::index_ = nullptr;
template <class Scratch>
thread_local Scratch* BatchScratch<Scratch>::scratch_ = nullptr;

}  // namespace sublinear
