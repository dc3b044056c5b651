// `sublinear-native mips-bench '<json config>'`: the native side of bench/mips.mjs, timing the same
// searches on the same data as the wasm build.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "sublinear/core/options.hpp"
#include "sublinear/core/random.hpp"
#include "sublinear/mips/index_factory.hpp"

#include "native_commands.hpp"

namespace {

using sublinear::Json;

double millisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// 32-bit FNV-1a over result ids, word by word (bench/mips.mjs computes the same in JavaScript).
std::uint32_t fnv(std::uint32_t hash, std::uint32_t word) { return (hash ^ word) * 16777619u; }

}  // namespace

namespace sublinear::tools {

// Config: { seed, n, dim, queries, k, churn, repeats, dataPath?, indexes: [{ label, spec, shortlists }] }.
// Items (n x dim) then queries (queries x dim) are standard normals from sublinear::Random(seed), as
// float32; with dataPath they are also written there (raw little-endian float32, items then queries)
// so that the wasm side of the benchmark runs on exactly the same numbers.
Json runMipsBench(const Json& config) {
  const auto n = config.at("n").get<std::size_t>();
  const auto dim = config.at("dim").get<std::size_t>();
  const auto queryCount = config.at("queries").get<std::size_t>();
  const auto k = config.value("k", std::size_t{10});
  const auto churn = std::min(n, config.value("churn", std::size_t{1000}));
  const auto repeats = config.value("repeats", std::size_t{3});
  sublinear::Random random(config.at("seed").get<std::uint64_t>());
  std::vector<float> items(n * dim), queries(queryCount * dim);
  for (auto& value : items) value = static_cast<float>(random.normal());
  for (auto& value : queries) value = static_cast<float>(random.normal());
  if (config.contains("dataPath")) {
    std::ofstream out(config.at("dataPath").get<std::string>(), std::ios::binary);
    out.write(reinterpret_cast<const char*>(items.data()), static_cast<std::streamsize>(items.size() * sizeof(float)));
    out.write(reinterpret_cast<const char*>(queries.data()), static_cast<std::streamsize>(queries.size() * sizeof(float)));
  }
  std::vector<sublinear::Id> ids(n);
  std::iota(ids.begin(), ids.end(), 0u);

  // The exact answers, for recall.
  auto exact = sublinear::makeMipsIndex(dim, Json{{"type", "exact"}});
  exact->add(ids.data(), n, items.data(), items.size());
  std::vector<std::set<sublinear::Id>> truth(queryCount);
  for (std::size_t q = 0; q < queryCount; ++q) {
    const auto result = exact->search(queries.data() + q * dim, dim, k);
    truth[q].insert(result.ids.begin(), result.ids.end());
  }

  Json results = Json::array();
  for (const auto& entry : config.at("indexes")) {
    Json spec = entry.at("spec");
    auto start = std::chrono::steady_clock::now();
    auto index = sublinear::makeMipsIndex(dim, spec);
    index->add(ids.data(), n, items.data(), items.size());
    Json row = {{"label", entry.at("label")}, {"buildMs", millisecondsSince(start)}, {"runs", Json::array()}};
    const std::vector<std::size_t> shortlists = entry.value("shortlists", std::vector<std::size_t>{0});
    for (const std::size_t shortlist : shortlists) {
      sublinear::SearchOptions options;
      options.shortlist = shortlist;
      std::vector<double> times;
      double recall = 0;
      std::uint32_t checksum = 2166136261u;
      // Pass 0 warms caches up (as in the wasm run) and gives recall and the checksum.
      for (std::size_t repeat = 0; repeat <= repeats; ++repeat) {
        start = std::chrono::steady_clock::now();
        for (std::size_t q = 0; q < queryCount; ++q) {
          const auto result = index->search(queries.data() + q * dim, dim, k, options);
          if (repeat == 0) {
            for (const auto id : result.ids) {
              recall += static_cast<double>(truth[q].count(id)) / static_cast<double>(truth[q].size());
              checksum = fnv(checksum, id);
            }
          }
        }
        if (repeat > 0) times.push_back(millisecondsSince(start) / static_cast<double>(queryCount));
      }
      row["runs"].push_back({{"shortlist", shortlist}, {"msPerQuery", median(times)},
                             {"recall", recall / static_cast<double>(queryCount)}, {"checksum", checksum}});
    }
    // Churn: the first `churn` items leave and come back (the same ids and vectors).
    start = std::chrono::steady_clock::now();
    index->remove(ids.data(), churn);
    row["removeMs"] = millisecondsSince(start);
    start = std::chrono::steady_clock::now();
    index->add(ids.data(), churn, items.data(), churn * dim);
    row["addMs"] = millisecondsSince(start);
    row["churn"] = churn;
    {
      sublinear::SearchOptions options;
      options.shortlist = shortlists.front();
      double recall = 0;
      for (std::size_t q = 0; q < queryCount; ++q) {
        for (const auto id : index->search(queries.data() + q * dim, dim, k, options).ids) {
          recall += static_cast<double>(truth[q].count(id)) / static_cast<double>(truth[q].size());
        }
      }
      row["recallAfterChurn"] = recall / static_cast<double>(queryCount);
    }
    row["stats"] = index->stats();
    results.push_back(row);
  }
  return Json{{"n", n}, {"dim", dim}, {"queries", queryCount}, {"k", k}, {"indexes", results}};
}


}  // namespace sublinear::tools
