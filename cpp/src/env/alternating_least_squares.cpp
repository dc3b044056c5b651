#include "sublinear/env/alternating_least_squares.hpp"

#include "sublinear/core/error.hpp"

namespace sublinear {

namespace {
// Entries grouped by one side (compressed rows or compressed columns), in a stable order.
struct Grouped {
  std::vector<std::size_t> offsets;
  std::vector<std::uint32_t> partners;
  std::vector<double> values;
};

Grouped groupBy(const std::vector<AlternatingLeastSquares::Entry>& entries, std::size_t count, bool byRow) {
  Grouped grouped;
  grouped.offsets.assign(count + 1, 0);
  for (const auto& entry : entries) ++grouped.offsets[(byRow ? entry.row : entry.column) + 1];
  for (std::size_t i = 0; i < count; ++i) grouped.offsets[i + 1] += grouped.offsets[i];
  std::vector<std::size_t> next(grouped.offsets.begin(), grouped.offsets.end() - 1);
  grouped.partners.resize(entries.size());
  grouped.values.resize(entries.size());
  for (const auto& entry : entries) {
    const std::size_t slot = next[byRow ? entry.row : entry.column]++;
    grouped.partners[slot] = byRow ? entry.column : entry.row;
    grouped.values[slot] = entry.value;
  }
  return grouped;
}
}  // namespace

AlternatingLeastSquares::AlternatingLeastSquares(int rank, int iterations, double lambda)
    : rank_(rank), iterations_(iterations), lambda_(lambda) {
  require(rank >= 1 && rank <= 1024, ErrorCode::InvalidArgument, "the factorisation rank must be in [1, 1024]");
  require(iterations >= 1, ErrorCode::InvalidArgument, "ALS needs at least one iteration");
  require(lambda > 0.0, ErrorCode::InvalidArgument, "the ALS regularisation lambda must be positive");
}

void AlternatingLeastSquares::fit(const std::vector<Entry>& entries, std::size_t rows, std::size_t columns, Random& random) {
  for (const auto& entry : entries) {
    require(entry.row < rows && entry.column < columns, ErrorCode::InvalidArgument, "ALS entry outside the matrix");
  }
  const Grouped byRow = groupBy(entries, rows, true);
  const Grouped byColumn = groupBy(entries, columns, false);
  rowFactors_ = Matrix::Zero(rank_, static_cast<Eigen::Index>(rows));
  // Small random column factors break the symmetry between the rank components.
  columnFactors_.resize(rank_, static_cast<Eigen::Index>(columns));
  random.fillNormal(columnFactors_.data(), static_cast<std::size_t>(columnFactors_.size()));
  columnFactors_ *= 0.1;
  for (int iteration = 0; iteration < iterations_; ++iteration) {
    solveSide(byRow.offsets, byRow.partners, byRow.values, columnFactors_, rowFactors_);
    solveSide(byColumn.offsets, byColumn.partners, byColumn.values, rowFactors_, columnFactors_);
  }
}

void AlternatingLeastSquares::solveSide(const std::vector<std::size_t>& offsets, const std::vector<std::uint32_t>& partners,
                                        const std::vector<double>& values, const Matrix& fixed, Matrix& solved) const {
  const int d = rank_;
  Matrix gram(d, d);
  Vector responses(d);
  for (Eigen::Index i = 0; i < solved.cols(); ++i) {
    const std::size_t begin = offsets[static_cast<std::size_t>(i)];
    const std::size_t end = offsets[static_cast<std::size_t>(i) + 1];
    if (begin == end) {
      solved.col(i).setZero();
      continue;
    }
    gram.setZero();
    responses.setZero();
    for (std::size_t k = begin; k < end; ++k) {
      const double* v = fixed.col(partners[k]).data();
      // Lower triangle only: the solver reads nothing else.
      for (int b = 0; b < d; ++b) {
        const double vb = v[b];
        double* column = gram.col(b).data();
        for (int a = b; a < d; ++a) column[a] += v[a] * vb;
        responses[b] += values[k] * vb;
      }
    }
    const double ridge = lambda_ * static_cast<double>(end - begin);
    for (int a = 0; a < d; ++a) gram(a, a) += ridge;
    Eigen::LLT<Matrix, Eigen::Lower> cholesky(gram);
    solved.col(i) = cholesky.solve(responses);
  }
}

double AlternatingLeastSquares::predict(std::size_t row, std::size_t column) const {
  const auto r = static_cast<Eigen::Index>(row);
  const auto c = static_cast<Eigen::Index>(column);
  double sum = 0.0;
  for (int a = 0; a < rank_; ++a) sum += rowFactors_(a, r) * columnFactors_(a, c);
  return sum;
}

}  // namespace sublinear
