#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "sublinear/core/state_codec.hpp"

namespace sublinear {

using Label = std::uint32_t;

// A numeric condition of a filter: the item's value called `name` lies in [low, high] (an item
// without that value never does).
struct ValueRange {
  std::string name;
  double low = 0.0;
  double high = 0.0;
};

// The conditions of a filter on items' attributes, combined with AND (each empty list asks nothing):
// at least one of `labels`, every one of `allLabels`, none of `noLabels`, and each range of `where`.
struct AttributeFilter {
  std::vector<Label> labels;
  std::vector<Label> allLabels;
  std::vector<Label> noLabels;
  std::vector<ValueRange> where;
  bool empty() const { return labels.empty() && allLabels.empty() && noLabels.empty() && where.empty(); }
  // INVALID_ARGUMENT for a range with a NaN bound or low > high, a name that no store could hold
  // (empty or longer than kMaxValueNameBytes), a name twice, or more labels than kMaxFilterLabels.
  void check() const;
  // In a saved state (a policy's pending audit keeps the filter of the search it audits): the label
  // lists, then each range's name and bounds. load() checks what check() does (CORRUPT_STATE).
  void save(StateWriter& out) const;
  static AttributeFilter load(StateReader& in);
};

// The attributes of the rows of an index's or a policy's store: each row's labels (a category, tags,
// a shop: whatever the caller's filters ask about; label 0 when none was given) and named numeric
// values (price, stock: NaN where a row has none), kept beside the rows and moved with them, and per
// label the rows that carry it. The posting lists make a filter's eligible count a sum of a few list
// sizes, and an exact search of only the eligible items a walk over their rows, whatever the store's
// size. Changing a row's attributes touches only these lists: no index structure reads them.
// Rows follow the store: removal moves the last row into the hole (RowStore::remove), swapRows
// exchanges two. A batch of new rows is itself an ItemAttributes (rows 0..n-1), checked as it is made.
class ItemAttributes {
 public:
  std::size_t size() const { return counts_.size(); }

  // A row's labels, sorted and distinct.
  std::size_t labelCount(std::size_t row) const { return counts_[row]; }
  // Inline: graph searches and scans read it for every row they check.
  const Label* labelsAt(std::size_t row) const {
    const std::uint32_t count = counts_[row];
    if (count == 1) return &single_[row];
    return count == 0 ? nullptr : several_[single_[row]].labels.data();
  }
  bool hasLabel(std::size_t row, Label label) const;
  // The label of a row that has exactly one (every row's, unless severalLabels()).
  Label singleLabel(std::size_t row) const { return counts_[row] == 1 ? single_[row] : 0; }
  // Whether some row has other than one label: filters then read rows' label lists.
  bool severalLabels() const { return several_.size() > freeSlots_.size() || unlabelledRows_ > 0; }
  // Rows carrying `label`, in no particular order.
  std::size_t count(Label label) const;
  const std::vector<std::uint32_t>& rowsOf(Label label) const;
  std::size_t distinctLabels() const { return postings_.size(); }

  // The value names, in the order they first came; a name's column, or -1.
  const std::vector<std::string>& valueNames() const { return names_; }
  int valueColumn(const std::string& name) const;
  double valueAt(std::size_t column, std::size_t row) const { return values_[column][row]; }

  // A batch of `count` rows with one label each (labels[i], or 0 for every row when labels is null).
  static ItemAttributes withLabels(const Label* labels, std::size_t count);

  void reserve(std::size_t rows);
  // A new last row with one label, or with `count` labels (INVALID_ARGUMENT beyond kMaxLabelsPerItem;
  // repeats are kept once), and no values.
  void append(Label label);
  void append(const Label* labels, std::size_t count);
  // A value column for `name` (INVALID_ARGUMENT: a name empty or longer than kMaxValueNameBytes,
  // given twice, or beyond kMaxValueNames columns), NaN in every row; returns it.
  std::size_t addValueColumn(const std::string& name);
  // NON_FINITE unless finite.
  void setValue(std::size_t column, std::size_t row, double value);

  // The columns `batch` names that this store lacks, checked against kMaxValueNames (INVALID_ARGUMENT)
  // before anything changes.
  void checkColumns(const ItemAttributes& batch) const;
  // Rows of `batch` appended in order (after checkColumns): the columns it names are added, values it
  // lacks are NaN.
  void appendRows(const ItemAttributes& batch, std::size_t first, std::size_t count);
  // Row `row` of `from` as a new last row (its values by name, adding columns as needed).
  void appendRowOf(const ItemAttributes& from, std::size_t row);
  // Changes to existing rows: the labels of `row`, and the values `batch` holds for its row `batchRow`
  // (after checkColumns); values the batch does not name stay.
  void setLabels(std::size_t row, const ItemAttributes& batch, std::size_t batchRow);
  void setValues(std::size_t row, const ItemAttributes& batch, std::size_t batchRow);

  // As RowStore::remove: the last row's attributes move into `row`.
  void removeRow(std::size_t row);
  void swapRows(std::size_t a, std::size_t b);

  // Whether row `a` of this and row `b` of `other` carry the same labels and values.
  bool sameRow(std::size_t a, const ItemAttributes& other, std::size_t b) const;

  // In row order (docs/state-format.md); load() runs on an empty store and validates (CORRUPT_STATE).
  void save(StateWriter& out) const;
  void load(StateReader& in, std::size_t rows);

 private:
  struct Several {
    std::vector<Label> labels;
    // Where the row sits in each label's posting list.
    std::vector<std::uint32_t> positions;
  };
  // Posting list maintenance: the row's entries added, removed, or pointed at `row` after a move.
  void link(std::size_t row);
  void unlink(std::size_t row);
  void relink(std::size_t row);
  std::uint32_t& positionOf(std::size_t row, Label label);
  // The row's labels replaced by `count` distinct sorted ones (posting lists untouched).
  void assignLabels(std::size_t row, const Label* labels, std::size_t count);
  // A slot of several_ for a row's labels, and its release.
  std::uint32_t takeSlot(Several several);
  void releaseSlot(std::uint32_t slot);

  // Per row: how many labels; the one label when there is exactly one, else the slot of several_
  // that holds them (two or more); and the one label's place in its list.
  std::vector<std::uint32_t> counts_;
  std::vector<Label> single_;
  std::vector<std::uint32_t> positions_;
  // The labels of rows with two or more, in slots that move with single_ (a vector, not a map by
  // row: a filter reads a row's labels without hashing, and moving a row moves no slot), the free
  // slots, and how many rows have no label.
  std::vector<Several> several_;
  std::vector<std::uint32_t> freeSlots_;
  std::size_t unlabelledRows_ = 0;
  std::unordered_map<Label, std::vector<std::uint32_t>> postings_;
  std::vector<std::string> names_;
  std::vector<std::vector<double>> values_;
};

}  // namespace sublinear
