#pragma once

// One persistence family for every object a user holds and saves (a MIPS index, a linear policy, a
// matroid semi-bandit policy, a combinatorial linear policy): Persistent<T> keeps the options the
// object was made from and what it was made over (its context: a catalogue, or nothing), writes the
// envelope of its saved state (core/state_codec.hpp: format, type, checksum) around the options and
// the object's fields, and restores it: which type the bytes hold is looked up in the family's
// registry of types (core/type_registry.hpp), and any damage is CORRUPT_STATE (loadSnapshot).
//
// The object's own calls are the object's: a caller reaches them through `->` (Persistent adds no
// layer that forwards them). What differs between families is a PersistenceFamily<T>
// specialisation beside the family (mips/persistent_index.hpp, ...), deriving from
// PersistenceFamilyDefaults for the hooks it does not need:
//
//   static constexpr const char* kName; the family in refusals ("MIPS index")
//   static constexpr const char* kNoun; the type in "saved options are of another <noun> type"
//   static std::vector<std::string> stateTypes();   the envelope types a restore accepts (the registry's)
//   static std::unique_ptr<T> make(const Json& spec[, const Context&]);   (where options make one)
//   static std::unique_ptr<T> restore(StateReader&, const Json& spec, const std::string& type, const Context&);
//       reads what writeHead wrote, refuses options that ask for more than the state holds (before
//       the constructor allocates for them) and makes the object that then loads its fields
//   with defaults (below): Context, stateType, expectedStateType, checkContext, writeHead, afterLoad.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sublinear/core/options.hpp"
#include "sublinear/core/piece_source.hpp"
#include "sublinear/core/snapshot.hpp"
#include "sublinear/core/state_codec.hpp"

namespace sublinear {

// The context of a family whose objects are made from their options alone.
struct NoContext {};

template <class T>
struct PersistenceFamily;

struct PersistenceFamilyDefaults {
  // What the object is made over besides its options.
  using Context = NoContext;
  // The envelope type toBytes writes.
  template <class T, class Made>
  static std::string stateType(const T& object, const Made&) {
    return object.type();
  }
  // The type a restore expects in the envelope when the caller expects `expectedType` (empty: any).
  static std::string expectedStateType(const std::string& expectedType, const ByteSource&) { return expectedType; }
  // Checks, before the payload is read, that the caller's context suits the state (INVALID_ARGUMENT:
  // the bytes are intact, the argument is wrong).
  template <class Made>
  static void checkContext(const ByteSource&, const std::string&, const Made&) {}
  // What the state holds between the options and the object's fields.
  template <class T, class Made>
  static void writeHead(StateWriter&, const T&, const Made&) {}
  // Checks on the loaded object (CORRUPT_STATE through loadSnapshot).
  template <class T>
  static void afterLoad(const T&) {}
};

template <class T>
class Persistent {
 public:
  using Family = PersistenceFamily<T>;
  using Context = typename Family::Context;

  // The object the family makes from `spec` alone, or over `context` (a family with a context may
  // refuse one that is missing: a null catalogue).
  explicit Persistent(Json spec) : spec_(std::move(spec)), object_(Family::make(spec_)) {}
  Persistent(Json spec, Context context)
      : spec_(std::move(spec)), context_(std::move(context)), object_(Family::make(spec_, context_)) {}
  // An object already made from `spec` (a family whose objects take more than their options).
  Persistent(Json spec, Context context, std::unique_ptr<T> object)
      : spec_(std::move(spec)), context_(std::move(context)), object_(std::move(object)) {}

  // Restores toBytes() of an object of `expectedType` (any type of the family when empty).
  // CORRUPT_STATE for damaged bytes or the state of another type; OUT_OF_MEMORY when a state that
  // passed every check does not fit (loadSnapshot).
  static Persistent fromBytes(const std::uint8_t* bytes, std::size_t length, const std::string& expectedType,
                              Context context = Context{}) {
    return fromBytes(BytesInMemory(bytes, length), expectedType, std::move(context));
  }

  // The same from a state read a piece at a time when it lies outside memory (a JS array beside the
  // wasm heap): one pass for the checksum, one to decode, so that no whole copy of it ever sits
  // beside the object it makes (where memory never shrinks, wasm's, that copy would stay the
  // process's high-water mark). The same checks, errors and object as from memory.
  static Persistent fromBytes(const ByteSource& bytes, const std::string& expectedType, Context context = Context{}) {
    const std::string type = savedTypeOf(bytes, Family::stateTypes(), Family::expectedStateType(expectedType, bytes), Family::kName);
    Family::checkContext(bytes, type, context);
    StateReader reader(bytes, type);
    std::optional<Persistent> restored;
    loadSnapshot(reader, [&](StateReader& in) {
      Json spec = readOptions(in);
      std::unique_ptr<T> object = Family::restore(in, spec, type, context);
      in.check(Family::stateType(*object, context) == type, std::string("saved options are of another ") + Family::kNoun + " type");
      object->load(in);
      Family::afterLoad(*object);
      restored.emplace(std::move(spec), context, std::move(object));
    });
    return std::move(*restored);
  }

  // The saved state: the envelope of stateType, the options, the family's head, the object's fields.
  std::vector<std::uint8_t> toBytes() const {
    StateWriter out(Family::stateType(*object_, context_));
    write(out);
    return out.finish();
  }

  // The same bytes handed to `sink` a piece at a time as the fields fill it, then the head and
  // checksum, so that the state is never whole in memory beside the object (where memory never
  // shrinks, wasm's, a whole copy would stay the process's high-water mark).
  void saveTo(StateSink& sink) const {
    StateWriter out(Family::stateType(*object_, context_), sink);
    write(out);
    out.finishStream();
  }

  T& operator*() { return *object_; }
  const T& operator*() const { return *object_; }
  T* operator->() { return object_.get(); }
  const T* operator->() const { return object_.get(); }

  // The options the object was made from, as saved.
  const Json& spec() const { return spec_; }
  const Context& context() const { return context_; }

 private:
  // The options, the family's head, the object's fields.
  void write(StateWriter& out) const {
    out.json(spec_);
    Family::writeHead(out, *object_, context_);
    object_->save(out);
  }

  Json spec_;
  Context context_;
  std::unique_ptr<T> object_;
};

}  // namespace sublinear
