// Random sequences of add / remove / search on every index type, checked against an exact oracle:
// sizes and membership agree, results are sorted, scores are the exact inner products, removed items
// never come back, and for the exact index the top-k equals brute force. Errors must be coded
// sublinear::Error (bad ids on purpose) and leave the index unchanged.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <vector>

#include "fuzz_input.hpp"
#include "sublinear/core/error.hpp"
#include "sublinear/mips/index_factory.hpp"
#include "sublinear/mips/inner_product.hpp"

using namespace sublinear;

namespace {
void check(bool condition) {
  if (!condition) std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::FuzzInput input(data, size);
  const auto types = mipsIndexTypes();
  const std::string type = types[input.below(types.size())];
  const std::size_t dim = 1 + input.below(9);
  auto index = makeMipsIndex(dim, Json{{"type", type}, {"seed", input.byte()}});
  std::map<Id, std::vector<float>> oracle;

  for (int operation = 0; operation < 64 && !input.empty(); ++operation) {
    switch (input.byte() % 4) {
      case 0:
      case 1: {  // add a small batch, sometimes with a duplicate id
        const std::size_t n = 1 + input.below(6);
        std::vector<Id> ids(n);
        std::vector<float> vectors(n * dim);
        for (auto& id : ids) id = input.below(40);
        for (auto& value : vectors) value = input.smallFloat();
        bool valid = true;
        for (std::size_t i = 0; i < n; ++i) {
          valid = valid && oracle.count(ids[i]) == 0 && std::count(ids.begin(), ids.end(), ids[i]) == 1;
        }
        try {
          index->add(ids.data(), n, vectors.data(), vectors.size());
          check(valid);
          for (std::size_t i = 0; i < n; ++i) oracle[ids[i]] = std::vector<float>(vectors.begin() + i * dim, vectors.begin() + (i + 1) * dim);
        } catch (const Error& error) {
          check(!valid && error.code() == ErrorCode::DuplicateId);
        }
        break;
      }
      case 2: {  // remove a few ids, sometimes unknown ones
        const std::size_t n = 1 + input.below(3);
        std::vector<Id> ids(n);
        for (auto& id : ids) id = input.below(40);
        bool valid = true;
        for (std::size_t i = 0; i < n; ++i) {
          valid = valid && oracle.count(ids[i]) == 1 && std::count(ids.begin(), ids.end(), ids[i]) == 1;
        }
        try {
          index->remove(ids.data(), n);
          check(valid);
          for (const Id id : ids) oracle.erase(id);
        } catch (const Error& error) {
          check(!valid && (error.code() == ErrorCode::UnknownId || error.code() == ErrorCode::DuplicateId));
        }
        break;
      }
      default: {  // search
        std::vector<float> query(dim);
        for (auto& value : query) value = input.smallFloat();
        const std::size_t k = 1 + input.below(8);
        SearchOptions options;
        options.shortlist = input.below(12);
        const auto result = index->search(query.data(), dim, k, options);
        check(result.ids.size() == result.scores.size());
        check(result.ids.size() <= std::min(k, oracle.size()));
        for (std::size_t i = 0; i < result.ids.size(); ++i) {
          const auto found = oracle.find(result.ids[i]);
          check(found != oracle.end());
          double exact = 0;
          for (std::size_t j = 0; j < dim; ++j) exact += static_cast<double>(found->second[j]) * query[j];
          check(std::fabs(result.scores[i] - exact) <= 1e-3 * (1.0 + std::fabs(exact)));
          if (i > 0) check(result.scores[i - 1] >= result.scores[i]);
        }
        if (type == "exact") check(result.ids.size() == std::min(k, oracle.size()));
        break;
      }
    }
    check(index->size() == oracle.size());
    for (Id id = 0; id < 40; ++id) check(index->contains(id) == (oracle.count(id) == 1));
  }
  return 0;
}
