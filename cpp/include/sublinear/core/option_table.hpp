#pragma once

// Option tables: every class that takes an options object has one table listing each
// option it accepts with its type, default, range and a one-line description. The constructors read
// their options through the table (so a default or a range is written once), the factories refuse
// a key outside the table naming the nearest valid one, and the bindings hand the tables to
// JavaScript (optionTable(kind, type)), where a test holds the .d.ts files and the README to them.
//
// A table is made of groups: the options one piece of code reads (e.g. every ridge-regression
// policy's lambda, delta, ...). A class's table is the union of the groups its code reads.
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "sublinear/core/options.hpp"

namespace sublinear {

enum class OptionType { Integer, Number, Boolean, String, Object, Array, Seed };

struct OptionSpec;
using OptionGroup = std::vector<OptionSpec>;

struct OptionSpec {
  const char* name;
  OptionType type;
  // Integer, Number and Seed: the accepted range (open ends where lowOpen / highOpen).
  double low = 0.0;
  double high = 0.0;
  bool lowOpen = false;
  bool highOpen = false;
  // The default of a number, integer, seed or boolean (booleans: 0 or 1). A computed default (one
  // that depends on other options or on the data) has `computed` set and is described in `fallbackText`.
  double fallback = 0.0;
  bool computed = false;
  // The default of a string, the description of a computed default, or "required".
  const char* fallbackText = "";
  // The accepted strings, "a|b" (String only); empty when any string is accepted.
  const char* choices = "";
  const char* doc = "";
  // Set by the package's own layers, not by a user (the class's `type`, simulate()'s `blocks`):
  // accepted, but not part of the documented options.
  bool internal = false;
  // An Object whose keys OptionTable::check checks too, against optionTable(nestedKind, t): t is
  // the object's `nestedSelector` key when it names a table of that kind (an index spec's `type`),
  // else nestedType. nestedExtra lists the keys the owner reads itself before passing the object on
  // (the cls policy's index: shortlist, certify, delta). Empty nestedKind: not checked inside.
  const char* nestedKind = "";
  const char* nestedSelector = "";
  const char* nestedType = "";
  const OptionGroup* nestedExtra = nullptr;
};


struct OptionTable {
  // "index", "linear-policy", "catalogue", "semi-bandit-policy", "cls-policy", "simulation", "evaluation", "environment", or
  // "nested" for the tables of nested objects that are not classes of their own (an environment's
  // `change`, the matroid environment's `matroid`), whose type is their path ("linear.change").
  std::string kind;
  std::string type;  // the kebab-case type, e.g. "hnsw"
  std::vector<const OptionGroup*> groups;

  const OptionSpec* find(const std::string& name) const;
  // Fails with INVALID_ARGUMENT on the first key of `options` outside the table, and of its nested
  // objects outside theirs (OptionSpec::nestedKind), naming the key with its path:
  // "unknown option 'efSerch' for hnsw (did you mean 'efSearch'?)",
  // "unknown option 'matroid.rnak' for matroid (did you mean 'matroid.rank'?)".
  void check(const Json& options) const;
  // [{ name, type, default, low, high, lowOpen, highOpen, choices, doc, internal }, ...]
  Json describe() const;
};

// The table of one class; INVALID_ARGUMENT when there is none.
const OptionTable& optionTable(const std::string& kind, const std::string& type);
// The same, or nullptr when there is none.
const OptionTable* findOptionTable(const std::string& kind, const std::string& type);
// Every table: the built-in ones (the core's, then each layer's, added at static initialisation),
// then those added at run time. A deque, so that a table handed out stays where it is when one is added.
const std::deque<OptionTable>& optionTables();
// Adds a layer's built-in tables: `const bool k<Layer>TablesAdded = addOptionTables({...})` (named after the layer, for unity builds) in the layer's
// <layer>_option_tables.cpp, beside the classes whose options they are, so that the core includes
// no higher layer. std::logic_error (at static initialisation: a programming error) on a duplicate.
bool addOptionTables(std::vector<OptionTable> tables);
// Adds the table of a type registered at run time (TypeRegistry::add); std::logic_error when the
// kind already has that type. Not synchronised: add tables before any thread reads one.
void addOptionTable(OptionTable table);

// The valid name nearest to `key` (edit distance, ignoring case) if it is near enough, else "".
std::string nearestOptionName(const std::string& key, const std::vector<std::string>& names);

// Reading one option through its group: the default and the range come from the spec. The forms
// with `fallback` are for options whose default is computed (spec.computed).
double readOption(const OptionGroup& group, const Json& options, const char* name);
double readOption(const OptionGroup& group, const Json& options, const char* name, double fallback);
long long readIntegerOption(const OptionGroup& group, const Json& options, const char* name);
long long readIntegerOption(const OptionGroup& group, const Json& options, const char* name, long long fallback);
bool readBoolOption(const OptionGroup& group, const Json& options, const char* name);
// A String spec with `choices` accepts only those (INVALID_ARGUMENT naming `path` + name otherwise,
// path being the enclosing object's, e.g. "matroid.").
std::string readStringOption(const OptionGroup& group, const Json& options, const char* name, const char* path = "");
// The group's `seed` spec (its own default).
std::uint64_t readSeedOption(const OptionGroup& group, const Json& options);
// The part of an integer option's range that the data set (a matroid's rank at most K, a promotion's
// users at least k), checked on a value read through its table's widest range: INVALID_ARGUMENT
// "option 'name' must be an integer in [low, high]", as a read over that range says.
void requireIntegerOptionWithin(const char* name, long long value, long long low, long long high);
bool optionGiven(const Json& options, const char* name);

// The core's own groups (cpp/src/core/option_tables.cpp). Each higher layer declares the groups its
// code reads in <layer>/<layer>_option_tables.hpp.
namespace option_groups {
// Every class: `type` (internal), `seed`.
const OptionGroup& typed();
// Every linear policy's `forgetting`, and the keys of its object form (core/forgetting.hpp).
const OptionGroup& forgetting();
const OptionGroup& forgettingSpec();
}  // namespace option_groups

}  // namespace sublinear
