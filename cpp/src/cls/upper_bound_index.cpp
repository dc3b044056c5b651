#include "sublinear/cls/upper_bound_index.hpp"

#include <algorithm>
#include <cmath>

#include "sublinear/core/error.hpp"
#include "sublinear/mips/index_factory.hpp"

namespace sublinear {

namespace {
constexpr double kSqrt2 = 1.4142135623730951;
}

UpperBoundIndex::UpperBoundIndex(std::size_t dim, bool lifted, const Json& spec)
    : dim_(dim), lifted_(lifted), index_(makeMipsIndex(lifted ? liftedDim(dim) : dim, spec)) {}

UpperBoundIndex::~UpperBoundIndex() = default;

void UpperBoundIndex::build(const double* features, std::size_t count) {
  const std::size_t width = index_->dim();
  std::vector<float> lifts(count * width);
  std::vector<Id> ids(count);
  for (std::size_t row = 0; row < count; ++row) {
    lift(features + row * dim_, lifts.data() + row * width);
    ids[row] = static_cast<Id>(row);
  }
  index_->add(ids.data(), count, lifts.data(), lifts.size());
}

void UpperBoundIndex::lift(const double* x, float* out) const {
  std::size_t position = 0;
  for (std::size_t a = 0; a < dim_; ++a) out[position++] = static_cast<float>(x[a]);
  if (lifted_) {
    for (std::size_t a = 0; a < dim_; ++a) {
      out[position++] = static_cast<float>(x[a] * x[a]);
      for (std::size_t b = a + 1; b < dim_; ++b) out[position++] = static_cast<float>(kSqrt2 * x[a] * x[b]);
    }
  }
}

void UpperBoundIndex::save(StateWriter& out) const { index_->save(out); }

void UpperBoundIndex::load(StateReader& in, const double* features, std::size_t count) {
  index_->load(in);
  in.check(index_->size() == count, "the index does not hold the fixed arms");
  const VectorStore& items = index_->items();
  std::vector<float> expected(index_->dim());
  for (std::size_t row = 0; row < count; ++row) {
    const Id id = static_cast<Id>(row);
    in.check(items.contains(id), "the index does not hold the fixed arms");
    lift(features + row * dim_, expected.data());
    in.check(items.holds(items.rowOf(id), expected.data()), "the index holds other vectors than the fixed arms");
  }
}

UpperBoundIndex::Candidates UpperBoundIndex::retrieve(const Vector& center, const Matrix& inverseGram, double multiplier,
                                                      double scale, std::size_t count) {
  const std::size_t width = index_->dim();
  std::vector<float> query(width, 0.0f);
  std::size_t position = 0;
  for (std::size_t a = 0; a < dim_; ++a) query[position++] = static_cast<float>(center[static_cast<Eigen::Index>(a)]);
  if (lifted_) {
    // <vec(x x^T), vec(A)> = x^T A x with the sqrt(2) scaling on both sides of the off-diagonal.
    const double factor = multiplier / (2.0 * scale);
    for (std::size_t a = 0; a < dim_; ++a) {
      const auto ia = static_cast<Eigen::Index>(a);
      query[position++] = static_cast<float>(factor * inverseGram(ia, ia));
      for (std::size_t b = a + 1; b < dim_; ++b) {
        query[position++] = static_cast<float>(factor * kSqrt2 * inverseGram(ia, static_cast<Eigen::Index>(b)));
      }
    }
  }
  const double constant = lifted_ ? multiplier * scale / 2.0 : 0.0;
  const SearchResult found = index_->search(query.data(), query.size(), count);
  Candidates candidates;
  candidates.rows.assign(found.ids.begin(), found.ids.end());
  candidates.bounds.reserve(found.scores.size());
  for (const float score : found.scores) candidates.bounds.push_back(static_cast<double>(score) + constant);
  return candidates;
}

std::size_t UpperBoundIndex::size() const { return index_->size(); }

Json UpperBoundIndex::stats() const {
  Json stats = index_->stats();
  stats["lifted"] = lifted_;
  return stats;
}

}  // namespace sublinear
