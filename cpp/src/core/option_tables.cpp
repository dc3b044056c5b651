#include <deque>
#include <stdexcept>

#include "sublinear/core/option_specs.hpp"
#include "sublinear/core/option_table.hpp"

// The store of every option table, and the core's own groups: `type` and `seed` of every class, and
// forgetting (core/forgetting.hpp), which the linear, matroid and combinatorial policies share.
// Each higher layer adds its tables beside its classes (cpp/src/<layer>/<layer>_option_tables.cpp);
// the core includes none of them.
namespace sublinear {

namespace option_groups {

using namespace option_specs;

const OptionGroup& typed() {
  static const OptionGroup group{
      internal(text("type", "", "", "the kebab-case class name; set by the class (JavaScript) or given in a spec")),
  };
  return group;
}

// Forgetting (Forgetting, cpp/src/linear/forgetting.cpp): every linear policy's model, over its own
// arms or a catalogue, and the semi-bandit policies' counts (SemiBanditPolicy) and ridge models
// (ClsPolicy), whose windows and discounts count rounds. 'auto' detects a change of the rewards from the model's own prediction errors
// and starts the model again from its prior when it finds one; it costs O(d) an observation and
// nothing where nothing changes (README, "Tastes that change", for the measurements).
const OptionGroup& forgetting() {
  static const OptionGroup group{
      nested(object("forgetting", "'auto'",
                    "'auto' (restart the model when its prediction errors show a change), 'none', { discount } (weigh an observation by discount^age) or { window } (only the last window observations)"),
             "nested", "", "policy.forgetting"),
  };
  return group;
}

const OptionGroup& forgettingSpec() {
  static const OptionGroup group{
      number("discount", 0.99, 0, 1, "each observation's weight is discount^age (exponential forgetting, D-LinUCB)", true, true, "required (or window)"),
      integer("window", 1000, 1, 1e6, "only the last window observations count (sliding window)", "required (or discount)"),
      // 'auto' with other detector settings: for the drift benchmark's calibration, not documented.
      internal(number("threshold", 18, 0, 1e6, "'auto': the CUSUM's alarm level", true, false)),
      internal(number("drift", 0.25, 0, 10, "'auto': the CUSUM's half-slope")),
      internal(number("margin", 1.0, 0, 10, "'auto': the selection margin, in widths")),
      internal(number("warmUp", 2.0, 0, 1e3, "'auto': the observations a model holds, per dimension, before the detector listens")),
      internal(number("likelihoodThreshold", 9, 0, 1e6, "'auto' over binary rewards: the likelihood-ratio CUSUM's alarm level, in nats", true, false)),
      internal(number("dropRatio", 0.1, 0, 1, "'auto' over binary rewards: the drop of the click rate the likelihood ratio tests for", true, true)),
      internal(number("likelihoodMargin", 1.0, 0, 10, "'auto' over binary rewards: the selection margin, in widths")),
      internal(number("alarmKeeps", 0.0, 0, 1, "'auto' over binary rewards: the share of the past a change keeps (0.25 for Linear TS and Sub-TS)", false, true)),
  };
  return group;
}

}  // namespace option_groups

namespace {
std::deque<OptionTable>& tableStore() {
  using namespace option_groups;
  static std::deque<OptionTable> tables{
      {"nested", "policy.forgetting", {&forgettingSpec()}},
  };
  return tables;
}
}  // namespace

const std::deque<OptionTable>& optionTables() { return tableStore(); }

void addOptionTable(OptionTable table) {
  if (findOptionTable(table.kind, table.type) != nullptr) {
    throw std::logic_error("option table " + table.kind + "/" + table.type + " exists already");
  }
  tableStore().push_back(std::move(table));
}

bool addOptionTables(std::vector<OptionTable> tables) {
  for (OptionTable& table : tables) addOptionTable(std::move(table));
  return true;
}

}  // namespace sublinear
