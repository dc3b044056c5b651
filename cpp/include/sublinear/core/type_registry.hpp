#pragma once

// A family of types (MIPS indexes, linear policies, semi-bandit policies, combinatorial policies,
// environments) as one list of entries: each entry is a type name and what builds it (a loader too
// where the family restores saved states), and its options are the option table of the same
// kind and type. Factories, the "known: ..." refusals, the type lists that restores accept and the
// tests that loop over every type read this list, so a new type is one entry, not one line in each.
//
// Entry: any struct with a `std::string type` member and the family's constructors, and optionally
// a `std::string className` member: the name of the type's JavaScript class (web/src makes a family's
// classes from the registry the module reports, so a type added here needs no JavaScript), and a
// `std::vector<const OptionGroup*> groups` member: the groups of the type's option table when the
// table is not among the built-in ones (a type added later keeps its options beside its class).
#include <deque>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"

namespace sublinear {

template <class Entry, class = void>
struct EntryHasGroups : std::false_type {};
template <class Entry>
struct EntryHasGroups<Entry, std::void_t<decltype(std::declval<Entry&>().groups)>> : std::true_type {};

template <class Entry, class = void>
struct EntryHasClassName : std::false_type {};
template <class Entry>
struct EntryHasClassName<Entry, std::void_t<decltype(std::declval<Entry&>().className)>> : std::true_type {};

template <class Entry>
class TypeRegistry {
 public:
  // kind: the option tables' kind of the family ("index"); unknown: how a refusal names a type
  // the family lacks ("unknown index type"). An entry's table is its `groups` when it has some,
  // else the built-in table of that kind and type, which its layer adds (<layer>_option_tables.cpp;
  // std::logic_error when there is none: a programming error the tests catch).
  TypeRegistry(std::string kind, std::string unknown, std::vector<Entry> entries)
      : kind_(std::move(kind)), unknown_(std::move(unknown)) {
    for (Entry& entry : entries) {
      if constexpr (EntryHasGroups<Entry>::value) {
        if (!entry.groups.empty()) {
          std::vector<const OptionGroup*> groups = entry.groups;
          add(std::move(entry), std::move(groups));
          continue;
        }
      }
      if (findOptionTable(kind_, entry.type) == nullptr) {
        throw std::logic_error("type '" + entry.type + "' of family '" + kind_ + "' has no option table");
      }
      insert(std::move(entry));
    }
  }
  TypeRegistry(const TypeRegistry&) = delete;
  TypeRegistry& operator=(const TypeRegistry&) = delete;

  // A type added at run time with the groups of its option table (a test build's toy index). Not
  // synchronised: add types before any thread builds one. std::logic_error when the type exists.
  // Nothing is kept when the entry is refused (its table included).
  void add(Entry entry, std::vector<const OptionGroup*> groups) {
    check(entry);
    addOptionTable(OptionTable{kind_, entry.type, std::move(groups)});
    entries_.push_back(std::move(entry));
  }

  const Entry* find(const std::string& type) const {
    for (const Entry& entry : entries_) {
      if (entry.type == type) return &entry;
    }
    return nullptr;
  }
  // The entry of `type`; INVALID_ARGUMENT "<unknown> 'x' (known: a, b, ...)" when there is none.
  const Entry& at(const std::string& type) const {
    if (const Entry* entry = find(type)) return *entry;
    fail(ErrorCode::InvalidArgument, unknown_ + " '" + type + "' (known: " + known() + ")");
  }
  // The entry of `type` once `options` passed its option table's key check.
  const Entry& checked(const std::string& type, const Json& options) const {
    const Entry& entry = at(type);
    optionTable(kind_, type).check(options);
    return entry;
  }

  // Every entry, in registration order (the bindings list the class names from it).
  const std::deque<Entry>& entries() const { return entries_; }

  std::vector<std::string> types() const {
    std::vector<std::string> names;
    for (const Entry& entry : entries_) names.push_back(entry.type);
    return names;
  }
  // "a, b, c": the types in registration order.
  std::string known() const {
    std::string list;
    for (const Entry& entry : entries_) list += (list.empty() ? "" : ", ") + entry.type;
    return list;
  }
  const std::string& kind() const { return kind_; }

 private:
  void insert(Entry entry) {
    check(entry);
    entries_.push_back(std::move(entry));
  }
  // std::logic_error when the type is registered already or its class name is refused.
  void check(const Entry& entry) const {
    if (find(entry.type) != nullptr) throw std::logic_error("type '" + entry.type + "' registered twice in family '" + kind_ + "'");
    if constexpr (EntryHasClassName<Entry>::value) checkClassName(entry);
  }

  // A class name is a JavaScript identifier that starts with a capital (it becomes `sb.<className>`)
  // and names one type of the family.
  void checkClassName(const Entry& entry) const {
    const std::string& name = entry.className;
    bool valid = !name.empty() && name[0] >= 'A' && name[0] <= 'Z';
    for (char c : name) valid = valid && ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'));
    if (!valid) throw std::logic_error("type '" + entry.type + "' of family '" + kind_ + "' has no valid class name ('" + name + "')");
    for (const Entry& other : entries_) {
      if (other.className == name) throw std::logic_error("class name '" + name + "' given to two types of family '" + kind_ + "'");
    }
  }

  std::string kind_;
  std::string unknown_;
  // A deque: entries handed out by find() stay where they are when a type is added.
  std::deque<Entry> entries_;
};

}  // namespace sublinear
