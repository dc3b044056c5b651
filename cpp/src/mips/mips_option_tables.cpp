#include "sublinear/mips/mips_option_tables.hpp"

#include "sublinear/core/option_specs.hpp"

// The options of MIPS indexes, as data: their constructors read them through these groups, the
// factories check keys against the tables, JavaScript sees the tables through optionTable(kind,
// type). Every default is written here and only here; comments elsewhere cite it.
namespace sublinear {

namespace option_groups {

using namespace option_specs;

const OptionGroup& indexDim() {
  static const OptionGroup group{required("dim", 1, 1000000, "vector dimension")};
  return group;
}

const OptionGroup& exact() {
  static const OptionGroup group{
      seed(0, "accepted like every index's seed (a policy gives one to any index type); the exact scan draws no random numbers"),
      text("storage", "f32", "f32|int8",
           "item vectors as floats, or as 8-bit codes with a scale per row (a quarter of the memory; scores are those of the decoded rows)"),
  };
  return group;
}

const OptionGroup& hnsw() {
  static const OptionGroup group{
      integer("M", 16, 2, 1000, "links per node"),
      integer("efConstruction", 200, 1, 1000000, "candidate list size while building"),
      computedInteger("efSearch", 1, 1000000, "64 below 256 dimensions, 144 from 256",
                      "candidates kept while searching beyond those asked for"),
      text("space", "auto", "auto|inner-product|euclidean",
           "the graph's distance: measured on a sample (auto), inner product, or the Euclidean reduction"),
      text("build", "incremental", "incremental|immediate",
           "incremental: searches scan the items not yet in the graph and insert some; immediate: add() builds"),
      number("buildCredit", 1.0, 0, 1000000, "graph building per search, in full scans of the items (incremental build)", true, false),
      number("filterCrossover", 450.0, 0, 1e9,
             "a filtered graph search's cost in scan rows per beam entry at fraction 1: it scans the eligible items (fraction f) exactly when that costs at most filterCrossover x beam / f rows",
             false, false),
      seed(100, "seed of the level generator"),
      text("storage", "f32", "f32|int8",
           "item vectors as floats, or as 8-bit codes with a scale per row (a quarter of the memory; scores are those of the decoded rows)"),
      // Internal: tests build both layouts of the same graph with it (hnsw_index.hpp, "Vectors in the graph").
      internal(text("inlineRows", "auto", "auto|always|never",
                    "whether the graph's node records keep a copy of their rows, where searches read them with the node: auto for rows of at most 64 bytes in a graph beyond the caches")),
      // Internal: tests compare a graph renumbered for locality with the same graph as built.
      internal(text("orderNodes", "auto", "auto|never",
                    "whether a bulk build renumbers the graph's nodes (and orders the built rows) so that neighbours lie near each other in memory")),
  };
  return group;
}

const OptionGroup& lsh() {
  static const OptionGroup group{
      integer("bits", 8, 1, 64, "a: sign bits ANDed into one key"),
      integer("tables", 16, 1, 1000, "b: hash tables ORed together"),
      seed(0, "seed of the hyperplanes"),
  };
  return group;
}

const OptionGroup& adaptive() {
  static const OptionGroup group{
      nested(object("base", "{ type: 'hnsw' }", "{ type, ...options } of the index of each copy; its seed is set per copy"), "index",
             "type", "hnsw"),
      integer("copies", 3, 1, 64, "kappa: independent copies"),
      number("epsilon", 0.01, 0, 1, "queries are normalised and rounded to multiples of epsilon / dim", true, true),
      seed(0, "seed of the copies"),
  };
  return group;
}

const OptionGroup& boundedMe() {
  static const OptionGroup group{
      number("epsilon", 0.1, 0, 1, "accuracy of the (epsilon, delta) guarantee", true, true),
      number("delta", 0.1, 0, 1, "failure probability of the (epsilon, delta) guarantee", true, true),
      seed(0, "seed of the coordinate permutations"),
  };
  return group;
}

const OptionGroup& boundedMeSolver() {
  static const OptionGroup group{
      integer("k", 1, 1, kMaxUint32, "arms to return (at most K)"),
      number("low", 0.0, -1e300, 1e300, "lower bound of every reward"),
      number("high", 1.0, -1e300, 1e300, "upper bound of every reward"),
  };
  return group;
}

const OptionGroup& greedy() {
  static const OptionGroup group{
      computedInteger("budget", 1, kMaxUint32, "budgetFraction x size", "candidates screened per query (not with budgetFraction)"),
      number("budgetFraction", 0.1, 0, 1, "candidates screened per query as a fraction of the size (not with budget)", true, false),
      seed(0, "accepted like every index's seed; Greedy-MIPS draws no random numbers"),
  };
  return group;
}

const OptionGroup& pcaTree() {
  static const OptionGroup group{
      computedInteger("depth", 0, 20, "floor(log2(size / 1024)) at each build, so that leaves hold 1024 to 2047 items",
                      "levels of the tree; a given depth is kept whatever the size"),
      seed(0, "seed of the randomized subspace iteration"),
  };
  return group;
}

}  // namespace option_groups

namespace {
using namespace option_groups;
// Named after the layer: a unity build (the sanitizers' and the fuzzer's) puts several layers' tables in one file.
const bool kMipsTablesAdded = addOptionTables({
    {"index", "exact", {&typed(), &indexDim(), &exact()}},
    {"index", "hnsw", {&typed(), &indexDim(), &hnsw()}},
    {"index", "lsh", {&typed(), &indexDim(), &lsh()}},
    {"index", "adaptive", {&typed(), &indexDim(), &adaptive()}},
    {"index", "bounded-me", {&typed(), &indexDim(), &boundedMe()}},
    {"index", "greedy", {&typed(), &indexDim(), &greedy()}},
    {"index", "pca-tree", {&typed(), &indexDim(), &pcaTree()}},
});
}  // namespace

}  // namespace sublinear
