// Int8 storage (the `storage: 'int8'` option of HnswIndex and ExactIndex): the codes and kernels,
// recall against the exact answer over the float vectors, the memory a row takes, saved states, and
// bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "mips_oracle.hpp"
#include "persistence_checks.hpp"
#include "test_support.hpp"
#include "sublinear/core/random.hpp"
#include "sublinear/mips/exact_index.hpp"
#include "sublinear/mips/hnsw_index.hpp"
#include "sublinear/mips/index_factory.hpp"
#include "sublinear/mips/persistent_index.hpp"
#include "sublinear/mips/quantised_rows.hpp"

namespace sublinear::testing {
namespace quantised_storage_test {

std::vector<float> gaussian(Random& random, std::size_t count) {
  std::vector<float> values(count);
  for (auto& value : values) value = static_cast<float>(random.normal());
  return values;
}

// Rows of rank `rank` (Gaussian factors) plus a little noise: the shape of factorised ratings.
std::vector<float> lowRank(Random& random, std::size_t rows, std::size_t dim, std::size_t rank) {
  const auto left = gaussian(random, rows * rank);
  const auto right = gaussian(random, rank * dim);
  std::vector<float> values(rows * dim);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t j = 0; j < dim; ++j) {
      double sum = 0.05 * random.normal();
      for (std::size_t k = 0; k < rank; ++k) sum += static_cast<double>(left[r * rank + k]) * right[k * dim + j];
      values[r * dim + j] = static_cast<float>(sum);
    }
  }
  return values;
}

std::vector<Id> idsUpTo(std::size_t count) {
  std::vector<Id> ids(count);
  for (std::size_t i = 0; i < count; ++i) ids[i] = static_cast<Id>(i);
  return ids;
}

TEST(QuantisedRows, CodesBoundTheErrorAndTheKernelsScoreTheDecodedRow) {
  Random random(1);
  for (const std::size_t dim : {1u, 5u, 16u, 37u, 128u}) {
    const auto vector = gaussian(random, dim);
    std::vector<std::int8_t> codes(quantised::codeBytes(dim), 99);
    const float scale = quantised::encode(vector.data(), dim, codes.data());
    float largest = 0.0f;
    for (const float value : vector) largest = std::max(largest, std::fabs(value));
    EXPECT_EQ(scale, largest / 127.0f);
    std::vector<float> decoded(dim);
    quantised::decode(codes.data(), scale, dim, decoded.data());
    for (std::size_t i = 0; i < dim; ++i) EXPECT_LE(std::fabs(decoded[i] - vector[i]), 0.5001f * scale) << dim << " " << i;
    for (std::size_t i = dim; i < codes.size(); ++i) EXPECT_EQ(codes[i], 0) << "padding must be zero";

    std::vector<float> query(quantised::codeBytes(dim), 0.0f);
    const auto drawn = gaussian(random, dim);
    std::copy(drawn.begin(), drawn.end(), query.begin());
    double expected = 0.0, magnitude = 0.0;
    for (std::size_t i = 0; i < dim; ++i) {
      expected += static_cast<double>(decoded[i]) * query[i];
      magnitude += std::fabs(static_cast<double>(decoded[i]) * query[i]);
    }
    const float score = scale * quantised::codeInnerProduct(codes.data(), query.data(), codes.size());
    EXPECT_NEAR(score, expected, 1e-5 * magnitude + 1e-6) << dim;

    std::vector<std::int8_t> other(codes.size());
    quantised::encode(gaussian(random, dim).data(), dim, other.data());
    std::int32_t dot = 0;
    for (std::size_t i = 0; i < codes.size(); ++i) dot += codes[i] * other[i];
    EXPECT_EQ(quantised::codeDot(codes.data(), other.data(), codes.size()), dot) << dim;
  }
  // The extremes: a zero row, and the largest codes over the longest rows int8 storage takes.
  std::vector<float> zero(20, 0.0f);
  std::vector<std::int8_t> codes(quantised::codeBytes(20), 5);
  EXPECT_EQ(quantised::encode(zero.data(), 20, codes.data()), 0.0f);
  for (const auto code : codes) EXPECT_EQ(code, 0);
  std::vector<std::int8_t> full(quantised::kMaxDimension, -127);
  EXPECT_EQ(quantised::codeDot(full.data(), full.data(), full.size()), 16129 * static_cast<std::int32_t>(quantised::kMaxDimension));
}

// The graphs score coded rows four at a time (quantised::graphDistances4: searches and insertions),
// and the ranking scores four candidates at a time (codeInnerProducts4): each must have the bits of
// the one-at-a-time kernels, in both spaces, for rows of one and of several 16-code blocks.
TEST(QuantisedRows, FourRowsAtATimeHaveTheBitsOfOneAtATime) {
  Random random(4);
  for (const std::size_t dim : {5u, 16u, 40u, 130u}) {
    const std::size_t codeBytes = quantised::codeBytes(dim);
    const std::size_t rowFloats = quantised::graphVectorBytes(codeBytes) / sizeof(float);
    constexpr std::size_t kRows = 11;
    std::vector<float> rows(kRows * rowFloats), query(rowFloats);
    std::vector<const float*> addresses;
    std::vector<float> extras;
    const auto code = [&](float* out) {
      const auto vector = gaussian(random, dim);
      out[codeBytes / sizeof(float)] = quantised::encode(vector.data(), dim, reinterpret_cast<std::int8_t*>(out));
    };
    for (std::size_t r = 0; r < kRows; ++r) {
      code(rows.data() + r * rowFloats);
      addresses.push_back(rows.data() + r * rowFloats);
      extras.push_back(static_cast<float>(random.uniform()));
    }
    code(query.data());
    const float queryExtra = 0.25f;
    for (const bool euclidean : {false, true}) {
      std::vector<float> out(kRows);
      const std::size_t scored = quantised::graphDistances4(euclidean, addresses.data(), extras.data(), query.data(), queryExtra, kRows, codeBytes, out.data());
      EXPECT_EQ(scored, 8u);
      for (std::size_t r = 0; r < scored; ++r) {
        const float expected = euclidean ? quantised::euclideanDistance(addresses[r], extras[r], query.data(), queryExtra, codeBytes)
                                         : quantised::innerProductDistance(addresses[r], query.data(), codeBytes);
        EXPECT_EQ(out[r], expected) << dim << " " << euclidean << " " << r;
      }
      std::int32_t dots[4];
      std::vector<const std::int8_t*> codes;
      for (std::size_t r = 0; r < 4; ++r) codes.push_back(reinterpret_cast<const std::int8_t*>(addresses[r + 3]));
      quantised::codeDots4(codes.data(), reinterpret_cast<const std::int8_t*>(query.data()), codeBytes, dots);
      for (std::size_t r = 0; r < 4; ++r) EXPECT_EQ(dots[r], quantised::codeDot(codes[r], reinterpret_cast<const std::int8_t*>(query.data()), codeBytes));
      // The ranking's kernel: a float query against four rows' codes.
      std::vector<float> floatQuery(codeBytes, 0.0f);
      const auto drawn = gaussian(random, dim);
      std::copy(drawn.begin(), drawn.end(), floatQuery.begin());
      float scores[4];
      quantised::codeInnerProducts4(codes.data(), floatQuery.data(), codeBytes, scores);
      for (std::size_t r = 0; r < 4; ++r) EXPECT_EQ(scores[r], quantised::codeInnerProduct(codes[r], floatQuery.data(), codeBytes));
    }
  }
}

// A graph search's candidates are ranked from the rows the search read (HnswIndex::candidateRows:
// the node records' copies when rows are inlined, the rows the references name otherwise), and any
// other candidate (alsoRank) through the store: every answer's score is the store's score of its
// item, after removals that move rows and reuse nodes, with and without a filter.
TEST(QuantisedStorage, AnswersFromTheGraphScoreAsTheStoredVectors) {
  constexpr std::size_t kDim = 12, kCount = 900;
  for (const char* storage : {"f32", "int8"}) {
    for (const char* inlineRows : {"always", "never"}) {
      {
        SCOPED_TRACE(std::string(storage) + " " + inlineRows);
        PersistentIndex index(Json{{"type", "hnsw"}, {"dim", kDim}, {"storage", storage}, {"M", 8}, {"efConstruction", 40}, {"build", "immediate"},
                                   {"seed", 5}, {"inlineRows", inlineRows}, {"filterCrossover", 0}});
        ExactIndex oracle(kDim, std::string(storage) == "int8" ? VectorStorage::Int8 : VectorStorage::Float32);
        Random random(8);
        std::vector<Id> live;
        Id next = 0;
        const auto add = [&](std::size_t count) {
          std::vector<Id> ids(count);
          for (Id& id : ids) id = next++;
          const auto vectors = gaussian(random, count * kDim);
          std::vector<Label> labels(count);
          for (std::size_t i = 0; i < count; ++i) labels[i] = ids[i] % 3;
          for (MipsIndex* target : {&*index, static_cast<MipsIndex*>(&oracle)}) target->add(ids.data(), count, vectors.data(), vectors.size(), labels.data(), count);
          live.insert(live.end(), ids.begin(), ids.end());
        };
        add(kCount);
        for (int round = 0; round < 12; ++round) {
          random.shuffle(live);
          const std::vector<Id> gone(live.end() - 20, live.end());
          live.resize(live.size() - 20);
          for (MipsIndex* target : {&*index, static_cast<MipsIndex*>(&oracle)}) target->remove(gone.data(), gone.size());
          add(15);
          const auto query = gaussian(random, kDim);
          // Every stored item's score, by the oracle's exact scan.
          const SearchResult all = oracle.search(query.data(), kDim, live.size());
          std::map<Id, float> scoreOf;
          for (std::size_t i = 0; i < all.ids.size(); ++i) scoreOf[all.ids[i]] = all.scores[i];
          SearchOptions plain, filtered;
          plain.shortlist = 30;
          plain.alsoRank = {live[0], live[1]};
          filtered.labels = {static_cast<Label>(round % 3)};
          for (const SearchOptions& options : {plain, filtered}) {
            const SearchResult answer = index->search(query.data(), kDim, 10, options);
            ASSERT_EQ(answer.ids.size(), 10u);
            for (std::size_t i = 0; i < answer.ids.size(); ++i) ASSERT_EQ(answer.scores[i], scoreOf.at(answer.ids[i])) << "round " << round;
          }
        }
        EXPECT_GT(index->stats()["distanceComputations"].get<double>(), 0.0);
      }
    }
  }
}

// An incremental graph inserts waiting items during a search (the build slice it pays for), after
// its beam found the candidates and before they are ranked: the graph's memory may grow in between,
// so the ranking must find the candidates' rows again (it keeps nodes, not addresses; under
// AddressSanitizer a kept address into the old memory is a use after free).
TEST(QuantisedStorage, CandidatesAreRankedFromTheGraphAfterTheSearchGrewIt) {
  constexpr std::size_t kDim = 12;
  for (const char* storage : {"f32", "int8"}) {
    for (const char* inlineRows : {"always", "never"}) {
      SCOPED_TRACE(std::string(storage) + " " + inlineRows);
      PersistentIndex index(Json{{"type", "hnsw"}, {"dim", kDim}, {"storage", storage}, {"M", 4}, {"efConstruction", 20}, {"efSearch", 1},
                                 {"build", "incremental"}, {"seed", 6}, {"inlineRows", inlineRows}});
      ExactIndex oracle(kDim, std::string(storage) == "int8" ? VectorStorage::Int8 : VectorStorage::Float32);
      Random random(12);
      Id next = 0;
      const auto add = [&](std::size_t count) {
        std::vector<Id> ids(count);
        for (Id& id : ids) id = next++;
        const auto vectors = gaussian(random, count * kDim);
        for (MipsIndex* target : {&*index, static_cast<MipsIndex*>(&oracle)}) target->add(ids.data(), count, vectors.data(), vectors.size());
      };
      add(3000);
      index->build(3000);
      const double capacity = index->stats()["capacity"].get<double>();
      for (int round = 0; round < 8; ++round) {
        add(400);
        const auto query = gaussian(random, kDim);
        const double built = index->stats()["built"].get<double>();
        const SearchResult answer = index->search(query.data(), kDim, 10, SearchOptions{});
        ASSERT_GT(index->stats()["built"].get<double>(), built) << "the search paid for a build slice";
        const SearchResult all = oracle.search(query.data(), kDim, oracle.size());
        std::map<Id, float> scoreOf;
        for (std::size_t i = 0; i < all.ids.size(); ++i) scoreOf[all.ids[i]] = all.scores[i];
        ASSERT_EQ(answer.ids.size(), 10u);
        for (std::size_t i = 0; i < answer.ids.size(); ++i) ASSERT_EQ(answer.scores[i], scoreOf.at(answer.ids[i])) << "round " << round;
      }
      EXPECT_GT(index->stats()["capacity"].get<double>(), capacity);
    }
  }
}

TEST(QuantisedStorage, TheExactScanRanksTheDecodedRows) {
  Random random(2);
  constexpr std::size_t kDim = 24, kCount = 3000;
  const auto vectors = gaussian(random, kCount * kDim);
  const auto ids = idsUpTo(kCount);
  ExactIndex quantisedScan(kDim, VectorStorage::Int8);
  quantisedScan.add(ids.data(), kCount, vectors.data(), vectors.size());
  // The decoded rows as floats: the exact answer for what the int8 index holds.
  std::vector<float> decoded(kCount * kDim);
  for (std::size_t row = 0; row < kCount; ++row) {
    quantisedScan.items().decode(quantisedScan.items().rowOf(static_cast<Id>(row)), decoded.data() + row * kDim);
  }
  ExactIndex decodedScan(kDim);
  decodedScan.add(ids.data(), kCount, decoded.data(), decoded.size());
  EXPECT_EQ(quantisedScan.stats()["storage"], "int8");
  EXPECT_EQ(quantisedScan.stats()["vectorBytesPerItem"].get<double>(), 32.0 + 4.0);
  EXPECT_EQ(decodedScan.stats()["vectorBytesPerItem"].get<double>(), 4.0 * kDim);
  for (int q = 0; q < 30; ++q) {
    const auto query = gaussian(random, kDim);
    const SearchResult a = quantisedScan.search(query.data(), kDim, 10);
    const SearchResult b = decodedScan.search(query.data(), kDim, 10);
    EXPECT_EQ(a.ids, b.ids);
    for (std::size_t i = 0; i < a.scores.size(); ++i) EXPECT_NEAR(a.scores[i], b.scores[i], 1e-4f * (1.0f + std::fabs(b.scores[i])));
    // A filtered scan (labels all 0: excluding the best) ranks the same rows.
    SearchOptions options;
    options.exclude = {a.ids[0]};
    const SearchResult c = quantisedScan.search(query.data(), kDim, 9, options);
    EXPECT_EQ(std::vector<Id>(a.ids.begin() + 1, a.ids.end()), c.ids);
  }
}

// recall@10 of `index` against the exact top 10 over the float vectors.
double recallAgainstFloats(MipsIndex& index, ExactIndex& oracle, Random& random, std::size_t dim, int queries) {
  double found = 0.0;
  for (int q = 0; q < queries; ++q) {
    const auto query = gaussian(random, dim);
    const SearchResult truth = oracle.search(query.data(), dim, 10);
    const SearchResult answer = index.search(query.data(), dim, 10);
    const std::set<Id> returned(answer.ids.begin(), answer.ids.end());
    for (const Id id : truth.ids) found += returned.count(id);
  }
  return found / (10.0 * queries);
}

TEST(QuantisedStorage, GraphRecallAgainstTheFloatAnswerMatchesFloatStorage) {
  constexpr std::size_t kDim = 32, kCount = 8000;
  for (const bool lowRankData : {false, true}) {
    for (const char* space : {"inner-product", "euclidean"}) {
      Random random(3);
      const auto vectors = lowRankData ? lowRank(random, kCount, kDim, 6) : gaussian(random, kCount * kDim);
      const auto ids = idsUpTo(kCount);
      ExactIndex oracle(kDim);
      oracle.add(ids.data(), kCount, vectors.data(), vectors.size());
      double recall[2];
      for (const int int8 : {0, 1}) {
        HnswIndex index(kDim, Json{{"M", 12}, {"efConstruction", 64}, {"efSearch", 32}, {"build", "immediate"}, {"space", space},
                                   {"storage", int8 ? "int8" : "f32"}, {"seed", 4}});
        index.add(ids.data(), kCount, vectors.data(), vectors.size());
        Random queries(5);
        recall[int8] = recallAgainstFloats(index, oracle, queries, kDim, 100);
      }
      const std::string what = std::string(lowRankData ? "low-rank " : "gaussian ") + space;
      EXPECT_GE(recall[1], recall[0] - 0.01) << what << ": f32 " << recall[0] << ", int8 " << recall[1];
      // The euclidean reduction is a poor graph on Gaussian data in either storage (space 'auto' keeps
      // the inner product there); wherever float storage finds 90%, int8 must too.
      if (recall[0] >= 0.9) EXPECT_GE(recall[1], 0.9) << what;
      std::string key = "recall " + what;
      std::replace(key.begin(), key.end(), ' ', '_');
      RecordProperty(key, std::to_string(recall[0]) + " f32, " + std::to_string(recall[1]) + " int8");
    }
  }
}

TEST(QuantisedStorage, VectorMemoryPerItemAtDimension128IsOneCopyAndAThirdOfFloatStorage) {
  constexpr std::size_t kDim = 128, kCount = 1200;
  Random random(6);
  const auto vectors = gaussian(random, kCount * kDim);
  const auto ids = idsUpTo(kCount);
  double bytes[2];
  for (const int int8 : {0, 1}) {
    HnswIndex index(kDim, Json{{"M", 8}, {"efConstruction", 16}, {"build", "immediate"}, {"space", "inner-product"},
                               {"storage", int8 ? "int8" : "f32"}});
    index.add(ids.data(), kCount, vectors.data(), vectors.size());
    bytes[int8] = index.stats()["vectorBytesPerItem"].get<double>();
  }
  // One copy of the vectors: the store's row (f32: 512 bytes; int8: 128 codes and a scale) and a
  // 4-byte reference to it per graph node, in the node's record and in the dense copy searches
  // read; the graph keeps no copy of the vectors.
  EXPECT_EQ(bytes[0], 512.0 + 8.0);
  EXPECT_EQ(bytes[1], 132.0 + 8.0);
  // The bound: at most a third of f32's 4d bytes.
  EXPECT_LE(bytes[1], 4.0 * kDim / 3.0);
  EXPECT_LE(bytes[1], bytes[0] / 3.0);
}

// With the rows referenced the graph keeps no vectors, only references to the store's rows: a
// removal moves a built row into the removed one's place, and the node of the moved item must follow
// it (a stale reference would make the graph measure the wrong item). Inlined, each node keeps its
// own copy, which must not change when rows move. A restored copy computes every node's data afresh
// from the rows, so after removals in random order (rows moved, deleted nodes with retired rows or
// their own copies, freed slots reused) the two must search alike: the same answers and the same
// distance computations.
TEST(QuantisedStorage, GraphNodesFollowTheirRowsThroughRemovalsInBothStoragesAndLayouts) {
  constexpr std::size_t kDim = 10, kCount = 1500;
  for (const char* storage : {"f32", "int8"}) {
    for (const char* space : {"euclidean", "inner-product"}) {
      for (const bool inlined : {false, true}) {
        SCOPED_TRACE(std::string(storage) + " " + space + (inlined ? " inlined" : " referenced"));
        // Rows of 48 (f32) and 20 bytes (int8); 1,500 items are too few for "auto" to inline them.
        PersistentIndex index(Json{{"type", "hnsw"}, {"dim", kDim}, {"storage", storage}, {"M", 8}, {"efConstruction", 40},
                                   {"space", space}, {"build", "immediate"}, {"seed", 5}, {"inlineRows", inlined ? "always" : "never"}});
        Random random(12);
        const auto vectors = gaussian(random, kCount * kDim);
        const auto ids = idsUpTo(kCount);
        index->add(ids.data(), kCount, vectors.data(), vectors.size());
        // Removals spread over the rows, so that most of them move another built row.
        std::vector<Id> gone;
        for (Id id = 3; id < kCount; id += 7) gone.push_back(id);
        std::shuffle(gone.begin(), gone.end(), std::mt19937(4));
        for (std::size_t i = 0; i < gone.size(); i += 10) {
          index->remove(gone.data() + i, std::min<std::size_t>(10, gone.size() - i));
        }
        const auto stats = index->stats();
        const double rowBytes = std::string(storage) == "f32" ? 4.0 * 12 : 16.0 + 4.0;
        const double extraBytes = std::string(space) == "euclidean" ? 4.0 : 0.0;
        const double slots = stats["graphSlots"].get<double>(), held = stats["size"].get<double>();
        if (inlined) {
          // Per node its copy of the row (and the extra coordinate), in its record, deleted or not.
          EXPECT_DOUBLE_EQ(stats["vectorBytesPerItem"].get<double>(), rowBytes + (rowBytes + extraBytes) * slots / held);
        } else {
          // Per node the reference (and extra coordinate), in its record and in the dense copy; deleted
          // nodes hold a retired copy of their row, which vectorBytesPerItem counts too.
          const double nodeBytes = 2.0 * (4.0 + extraBytes);
          EXPECT_DOUBLE_EQ(stats["vectorBytesPerItem"].get<double>(),
                           rowBytes + (nodeBytes * slots + rowBytes * stats["freeSlots"].get<double>()) / held);
        }
        const auto bytes = index.toBytes();
        auto restored = PersistentIndex::fromBytes(bytes.data(), bytes.size(), "");
        for (int round = 0; round < 30; ++round) {
          if (round % 10 == 9) {
            // Freed slots taken by new items (their retired rows released).
            const auto more = gaussian(random, 5 * kDim);
            std::vector<Id> added(5);
            for (std::size_t i = 0; i < 5; ++i) added[i] = static_cast<Id>(9000 + 5 * round + i);
            index->add(added.data(), 5, more.data(), more.size());
            restored->add(added.data(), 5, more.data(), more.size());
          }
          const auto q = gaussian(random, kDim);
          const SearchResult x = index->search(q.data(), kDim, 10);
          const SearchResult y = restored->search(q.data(), kDim, 10);
          ASSERT_EQ(x.ids, y.ids) << storage << " " << space << " round " << round;
          EXPECT_EQ(x.scores, y.scores) << storage << " " << space;
        }
        EXPECT_EQ(index->stats()["distanceComputations"], restored->stats()["distanceComputations"]) << storage << " " << space;
      }
    }
  }
}

// The two layouts of a graph's vectors (HnswIndex: rows inlined in the nodes' records, or
// referenced in the store) compute the same distances, bit for bit, so they must build the same
// graph and answer alike through everything that changes it: insertions, removals that move rows
// and leave deleted nodes, freed slots reused, filtered searches, a reload of the inlined one. A
// layout that read a wrong row (a stale copy, a moved row, a deleted node's lost vector) would
// change the links, the distance count and the answers; both must also find the exact top 10.
TEST(QuantisedStorage, InlinedAndReferencedRowsBuildTheSameGraphAndAnswerAlike) {
  constexpr std::size_t kDim = 14, kCount = 1200, kLabels = 4;
  for (const char* storage : {"f32", "int8"}) {
    for (const char* space : {"euclidean", "inner-product", "auto"}) {
      SCOPED_TRACE(std::string(storage) + " " + space);
      const auto make = [&](const char* inlineRows) {
        return std::make_unique<PersistentIndex>(Json{{"type", "hnsw"}, {"dim", kDim}, {"storage", storage}, {"M", 8}, {"efConstruction", 40},
                                                      {"efSearch", 48}, {"space", space}, {"build", "immediate"}, {"seed", 9},
                                                      {"filterCrossover", 0}, {"inlineRows", inlineRows}});
      };
      auto inlined = make("always");
      auto referenced = make("never");
      // The exact top 10 of the stored vectors (int8: the decoded rows).
      ExactIndex oracle(kDim, std::string(storage) == "int8" ? VectorStorage::Int8 : VectorStorage::Float32);
      Random random(21);
      const auto add = [&](const std::vector<Id>& ids) {
        const auto vectors = gaussian(random, ids.size() * kDim);
        std::vector<Label> labels(ids.size());
        for (std::size_t i = 0; i < ids.size(); ++i) labels[i] = ids[i] % kLabels;
        for (MipsIndex* index : {&**inlined, &**referenced, static_cast<MipsIndex*>(&oracle)}) {
          index->add(ids.data(), ids.size(), vectors.data(), vectors.size(), labels.data(), labels.size());
        }
      };
      add(idsUpTo(kCount));
      const auto vectorBytes = [](PersistentIndex& index) { return index->stats()["vectorBytesPerItem"].get<double>(); };
      EXPECT_GT(vectorBytes(*inlined), vectorBytes(*referenced));
      std::vector<Id> live = idsUpTo(kCount);
      Id next = 10000;
      double found = 0.0, asked = 0.0;
      for (int round = 0; round < 24; ++round) {
        if (round == 12) {
          // The inlined graph reloaded: its records are filled again from the store and the saved
          // vectors of deleted nodes.
          const auto bytes = inlined->toBytes();
          inlined = std::make_unique<PersistentIndex>(PersistentIndex::fromBytes(bytes.data(), bytes.size(), "hnsw"));
        }
        // Built items removed from random rows (rows move, nodes are deleted), then new items that
        // take the freed slots.
        random.shuffle(live);
        const std::vector<Id> gone(live.end() - 15, live.end());
        live.resize(live.size() - 15);
        for (MipsIndex* index : {&**inlined, &**referenced, static_cast<MipsIndex*>(&oracle)}) index->remove(gone.data(), gone.size());
        std::vector<Id> added(12);
        for (Id& id : added) id = next++;
        add(added);
        live.insert(live.end(), added.begin(), added.end());
        const auto query = gaussian(random, kDim);
        // filterCrossover 0: filtered searches walk the graph (FilteredGraphSearch::search).
        SearchOptions filtered;
        filtered.labels = {static_cast<Label>(round % kLabels)};
        filtered.exclude.assign(live.begin(), live.begin() + 40);
        for (const SearchOptions& options : {SearchOptions{}, filtered}) {
          const SearchResult x = (*inlined)->search(query.data(), kDim, 10, options);
          const SearchResult y = (*referenced)->search(query.data(), kDim, 10, options);
          ASSERT_EQ(x.ids, y.ids) << "round " << round;
          ASSERT_EQ(x.scores, y.scores) << "round " << round;
          const SearchResult truth = oracle.search(query.data(), kDim, 10, options);
          for (const Id id : x.ids) found += std::count(truth.ids.begin(), truth.ids.end(), id);
          asked += static_cast<double>(truth.ids.size());
        }
      }
      Json a = (*inlined)->stats(), b = (*referenced)->stats();
      EXPECT_GT(a["graphSlots"].get<double>(), 0.0);
      EXPECT_GT(a["reusedSinceBuild"].get<double>() + a["compactions"].get<double>(), 0.0);
      a.erase("vectorBytesPerItem");
      b.erase("vectorBytesPerItem");
      EXPECT_EQ(a, b);
      EXPECT_GE(found / asked, 0.9);
    }
  }
}

// By default a graph inlines rows of at most a cache line only when the rows it would reach
// through references (64 + 4 bytes an item at 16 float dimensions) outgrow kInlineFromBytes: below,
// the compact store is as fast or faster. The layout shows in vectorBytesPerItem: the row and 8
// bytes of references, or the row twice.
TEST(QuantisedStorage, AutoInlinesShortRowsOnlyInAGraphBeyondTheCaches) {
  constexpr std::size_t kDim = 16;
  const auto boundary = static_cast<std::size_t>(HnswIndex::kInlineFromBytes / (4.0 * kDim + 4.0));
  for (const std::size_t count : {boundary - 1000, boundary + 1000}) {
    HnswIndex index(kDim, Json{{"M", 2}, {"efConstruction", 2}, {"build", "immediate"}, {"space", "inner-product"}});
    Random random(3);
    const auto vectors = gaussian(random, count * kDim);
    const auto ids = idsUpTo(count);
    index.add(ids.data(), count, vectors.data(), vectors.size());
    const bool inlined = count > boundary;
    EXPECT_EQ(index.stats()["vectorBytesPerItem"].get<double>(), inlined ? 64.0 + 64.0 : 64.0 + 8.0) << count << " items";
  }
}

TEST(QuantisedStorage, SavedStatesRestoreTheCodesAndTheGraphAndContinueExactly) {
  constexpr std::size_t kDim = 12;
  for (const char* type : {"exact", "hnsw"}) {
    for (const char* space : {"auto", "euclidean", "inner-product"}) {
      if (std::string(type) == "exact" && std::string(space) != "auto") continue;
      Json spec{{"type", type}, {"dim", kDim}, {"storage", "int8"}};
      if (std::string(type) == "hnsw") spec.update(Json{{"M", 6}, {"space", space}, {"seed", 3}});
      PersistentIndex index(spec);
      Random random(7);
      const auto vectors = gaussian(random, 1400 * kDim);
      const auto ids = idsUpTo(1400);
      index->add(ids.data(), 1400, vectors.data(), vectors.size());
      index->build(600);
      for (Id id = 0; id < 30; ++id) index->remove(&id, 1);  // built items: deleted nodes and free slots
      const auto query = gaussian(random, kDim);
      index->search(query.data(), kDim, 5);
      const auto bytes = index.toBytes();
      auto restored = PersistentIndex::fromBytes(bytes.data(), bytes.size(), type);
      EXPECT_EQ(restored->stats(), index->stats()) << type << " " << space;
      EXPECT_EQ(restored.toBytes(), bytes) << type << " " << space;
      for (int round = 0; round < 4; ++round) {
        const auto more = gaussian(random, 20 * kDim);
        std::vector<Id> added(20);
        for (std::size_t i = 0; i < 20; ++i) added[i] = static_cast<Id>(5000 + 20 * round + i);
        index->add(added.data(), 20, more.data(), more.size());
        restored->add(added.data(), 20, more.data(), more.size());
        const Id gone[] = {static_cast<Id>(100 + round), added[3]};
        index->remove(gone, 2);
        restored->remove(gone, 2);
        const auto q = gaussian(random, kDim);
        const SearchResult x = index->search(q.data(), kDim, 10);
        const SearchResult y = restored->search(q.data(), kDim, 10);
        EXPECT_EQ(x.ids, y.ids) << type << " " << space;
        EXPECT_EQ(x.scores, y.scores) << type << " " << space;
      }
      EXPECT_EQ(index->build(100000), 0u);
      EXPECT_EQ(restored->build(100000), 0u);
      EXPECT_EQ(restored.toBytes(), index.toBytes()) << type << " " << space;
    }
  }
}

TEST(QuantisedStorage, DamagedStatesAreCorruptState) {
  PersistentIndex index(Json{{"type", "hnsw"}, {"dim", 6}, {"storage", "int8"}, {"M", 4}, {"build", "immediate"}});
  Random random(8);
  const auto vectors = gaussian(random, 60 * 6);
  const auto ids = idsUpTo(60);
  index->add(ids.data(), 60, vectors.data(), vectors.size());
  const Id gone = 4;
  index->remove(&gone, 1);
  const std::vector<float> query(6, 0.5f);
  expectDamageDetected(index.toBytes(), [&](const Bytes& bytes) {
    auto restored = PersistentIndex::fromBytes(bytes.data(), bytes.size(), "");
    restored->search(query.data(), restored->dim(), 3);
  });
  // A code of -128 (outside the symmetric range) in the first stored row.
  const auto bytes = index.toBytes();
  const std::uint32_t firstId = index->items().idAt(0);
  std::uint8_t row[8];
  std::memcpy(row, &firstId, 4);
  const float scale = index->items().scaleAt(0);
  std::memcpy(row + 4, &scale, 4);
  Bytes damaged = bytes;
  const auto at = std::search(damaged.begin(), damaged.end(), row, row + 8);
  ASSERT_NE(at, damaged.end());
  *(at + 8) = 0x80;
  expectError(ErrorCode::CorruptState, "code", [&] {
    const Bytes sealed = resealed(damaged);
    PersistentIndex::fromBytes(sealed.data(), sealed.size(), "hnsw");
  });
}

TEST(QuantisedStorage, BadOptionsAreRefused) {
  expectError(ErrorCode::InvalidArgument, "storage", [] { makeMipsIndex(8, Json{{"type", "hnsw"}, {"storage", "int4"}}); });
  expectError(ErrorCode::InvalidArgument, "storage", [] { makeMipsIndex(8, Json{{"type", "exact"}, {"storage", 8}}); });
  expectError(ErrorCode::InvalidArgument, "storage", [] { makeMipsIndex(8, Json{{"type", "lsh"}, {"storage", "int8"}}); });
  expectError(ErrorCode::InvalidArgument, "65536", [] { makeMipsIndex(70000, Json{{"type", "exact"}, {"storage", "int8"}}); });
  expectError(ErrorCode::InvalidArgument, "base.storage", [] {
    makeMipsIndex(8, Json{{"type", "adaptive"}, {"base", Json{{"type", "hnsw"}, {"storage", "int8"}}}});
  });
  // Bad vectors leave the index unchanged, as with float storage.
  auto index = makeMipsIndex(4, Json{{"type", "hnsw"}, {"storage", "int8"}});
  const Id id = 1;
  const float bad[] = {1.0f, NAN, 0.0f, 0.0f};
  expectError(ErrorCode::NonFinite, "", [&] { index->add(&id, 1, bad, 4); });
  EXPECT_EQ(index->size(), 0u);
}

}  // namespace quantised_storage_test
}  // namespace sublinear::testing
