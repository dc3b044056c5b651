#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "sublinear/core/options.hpp"
#include "sublinear/core/piece_source.hpp"
#include "sublinear/core/random.hpp"

namespace sublinear {

// The saved-state format of every object (toBytes/fromBytes), documented in docs/state-format.md:
//   magic "SBST" | format version u16 | library version (u32 length + bytes) |
//   type name (u32 length + bytes) | payload length u64 | payload | CRC-32 of everything before it (u32)
// The first three fields keep this layout in every format version, so any later library can name
// the versions of a state it cannot read. All integers little-endian and doubles as IEEE-754 bit
// patterns, whatever the platform. Any damage (magic, version, type, length, checksum, truncation)
// is reported as CORRUPT_STATE.
// The longest head a state can have (magic, format, two strings of at most 256 bytes, payload length):
// a caller that holds a state's first kLongestStateHead bytes can read its head.
constexpr std::size_t kLongestStateHead = 4 + 2 + 2 * (4 + 256) + 8;

// The head of a saved state, the one reader of it (loaders, inspectState, the JavaScript fromBytes
// through inspectState): it reads only the envelope's first fields, from the first `available` of
// the state's `length` bytes, and allocates nothing sized by what they claim.
struct StateHeader {
  std::uint16_t format = 0;
  // The library version that wrote the state ("0.1.x" for format 1, which did not record it).
  std::string library;
  std::string type;
  // For a state of the current format whose bytes reach past the payload length: where the payload
  // starts, its declared length, and whether that length accounts for every byte given (head,
  // payload, checksum). Otherwise 0, 0, false: a state of another format is not read further.
  std::size_t payloadStart = 0;
  std::uint64_t payloadLength = 0;
  bool complete = false;

  // CORRUPT_STATE unless the bytes start as a state (the magic, the version strings readable, or
  // for another format the version message below when its type cannot be read).
  static StateHeader read(const std::uint8_t* bytes, std::size_t available, std::size_t length);
  // The same from the first kLongestStateHead bytes of `source`.
  static StateHeader read(const ByteSource& source);
  // CORRUPT_STATE naming both format versions unless the state is of this library's format.
  void requireCurrentFormat() const;
};

// Where a state goes a piece at a time (StateWriter's streamed form): payload() of the payload's
// bytes in order, a piece at a time, then finish() with the envelope's head, which holds the
// payload's length (known only at the end), and the checksum. The state is the head, the payload,
// then the checksum.
class StateSink {
 public:
  virtual ~StateSink() = default;
  virtual void payload(const std::uint8_t* bytes, std::size_t count) = 0;
  virtual void finish(const std::uint8_t* head, std::size_t headLength, const std::uint8_t* checksum, std::size_t checksumLength) = 0;
};

class StateWriter {
 public:
  explicit StateWriter(const std::string& type);
  // A writer that hands the payload to `sink` a piece at a time as the fields fill it, then the head
  // and checksum (finishStream): the state is never whole in memory, and its fields are written once.
  StateWriter(const std::string& type, StateSink& sink);

  void u8(std::uint8_t value);
  void u32(std::uint32_t value);
  void u64(std::uint64_t value);
  void f64(double value);
  void f32(float value);
  void string(const std::string& value);
  void f64s(const double* values, std::size_t count);
  void f32s(const float* values, std::size_t count);
  void u32s(const std::uint32_t* values, std::size_t count);
  void u64s(const std::uint64_t* values, std::size_t count);
  // Options and other small structured values, as their JSON text.
  void json(const Json& value);
  void random(const Random& engine);
  // Dense Eigen vectors and matrices: rows, columns, then the doubles in column-major order.
  void vector(const Eigen::VectorXd& value);
  void matrix(const Eigen::MatrixXd& value);

  // Seals the header and checksum; the writer is spent afterwards.
  std::vector<std::uint8_t> finish();
  // The streamed form's end: the last piece, then the head and the checksum into the sink.
  void finishStream();

 private:
  // A streamed writer keeps at most a piece of the payload.
  void flushWhenFull() {
    if (sink_ != nullptr && payload_.size() >= kPieceBytes) flush();
  }
  void flush();
  static constexpr std::size_t kPieceBytes = std::size_t{1} << 20;

  std::string type_;
  std::vector<std::uint8_t> payload_;
  // A streamed writer's sink (null for a whole one), the payload's bytes it took and their running
  // CRC-32 (the head's is combined with it at the end: the head comes first but is known last).
  StateSink* sink_ = nullptr;
  std::uint64_t flushed_ = 0;
  std::uint32_t crc_ = 0xFFFFFFFFU;
};

class StateReader {
 public:
  // Checks the envelope; fails with CORRUPT_STATE unless it is intact and of `expectedType`.
  StateReader(const std::uint8_t* bytes, std::size_t length, const std::string& expectedType);
  // The same over a state read a piece at a time (a pass for the checksum, then the payload as the
  // reads reach it), which is never whole in memory; over the bytes themselves when `source` lies
  // in memory. `source` must outlive the reader.
  StateReader(const ByteSource& source, const std::string& expectedType);

  std::uint8_t u8();
  std::uint32_t u32();
  std::uint64_t u64();
  double f64();
  float f32();
  std::string string();
  std::vector<double> f64s();
  std::vector<float> f32s();
  std::vector<std::uint32_t> u32s();
  std::vector<std::uint64_t> u64s();
  Json json();
  void random(Random& engine);
  // Fail with CORRUPT_STATE unless the stored shape is the expected one.
  Eigen::VectorXd vector(Eigen::Index expectedSize);
  Eigen::MatrixXd matrix(Eigen::Index expectedRows, Eigen::Index expectedColumns);
  // The same decoded into a decoder's own storage (`into`, resized after the shape's check: kept as
  // it is when it has the shape already), rather than a passing copy beside it: wasm memory never
  // shrinks, so a copy as large as the object would set the process's size for good.
  void vector(Eigen::VectorXd& into, Eigen::Index expectedSize);
  void matrix(Eigen::MatrixXd& into, Eigen::Index expectedRows, Eigen::Index expectedColumns);
  void f64s(std::vector<double>& into);
  void u64s(std::vector<std::uint64_t>& into);
  // Fails with CORRUPT_STATE (and `why`) when `condition` is false: for checks of decoded values.
  void check(bool condition, const std::string& why) const;
  // A count read from the payload, checked against the bytes that remain (each element taking at
  // least `elementBytes`), so damaged counts cannot trigger huge allocations.
  std::size_t count(std::size_t elementBytes);
  bool atEnd() const { return remaining() == 0; }
  // Fails unless every payload byte was consumed.
  void finish() const;

  // The type name stored in an envelope, without checking the rest (CORRUPT_STATE if unreadable,
  // or if it is of another format version, naming both versions).
  static std::string peekType(const std::uint8_t* bytes, std::size_t length);
  static std::string peekType(const ByteSource& source);
  // Bytes left in the payload: decoders bound their allocations by it.
  std::size_t remaining() const { return static_cast<std::size_t>(end_ - cursor_) + (payloadEnd_ - next_); }

  // A reader of the payload's first bytes, as far as the first `available` bytes of the state go,
  // for a complete state of the current format (of nothing otherwise: its first read fails). The
  // checksum is not checked and a read past those bytes fails (CORRUPT_STATE): for inspecting a
  // state's head cheaply, not loading it.
  static StateReader payloadPrefix(const StateHeader& head, const std::uint8_t* bytes, std::size_t available);

 private:
  StateReader(const std::uint8_t* cursor, const std::uint8_t* end) : cursor_(cursor), end_(end) {}
  // The in-memory constructor's checks, and the payload in view.
  void openInMemory(const std::uint8_t* bytes, std::size_t length, const std::string& expectedType);
  const std::uint8_t* take(std::size_t size);
  // take() past the window of a streamed reader: the next pieces into view.
  const std::uint8_t* takeAcross(std::size_t size);
  // The bytes in view: the whole payload, or a streamed reader's window (a piece of it).
  const std::uint8_t* cursor_ = nullptr;
  const std::uint8_t* end_ = nullptr;
  // A streamed reader's source, where its bytes after the window start and where the payload ends
  // (both 0 for a reader of bytes in memory), its window and the bytes of a read across windows.
  const ByteSource* source_ = nullptr;
  std::size_t next_ = 0;
  std::size_t payloadEnd_ = 0;
  std::vector<std::uint8_t> window_;
  std::vector<std::uint8_t> across_;
};

// 1: journals of calls (0.1.x); 2: snapshots of the structures; 3: HnswIndex's incremental build
// (0.3.0); 4: every index stores its items' labels (filtered search); 5: the linear policies' forgetting
// (0.4.0).
constexpr std::uint16_t kStateFormatVersion = 5;
// The package version (package.json), recorded in every state.
extern const char* const kLibraryVersion;

// The type stored in an envelope, which must be one of `knownTypes` and, when `expectedType` is not
// empty, that one: CORRUPT_STATE ("saved state is not of a <expected or family> ...") otherwise.
// `bytes` is read a piece at a time when it lies outside memory (its first kLongestStateHead bytes).
std::string savedTypeOf(const ByteSource& bytes, const std::vector<std::string>& knownTypes, const std::string& expectedType,
                        const std::string& family);

std::uint32_t crc32(const std::uint8_t* bytes, std::size_t length);
// The CRC-32 of A followed by B from crc32(A), crc32(B) and B's length (zlib's crc32_combine).
std::uint32_t crc32Combine(std::uint32_t first, std::uint32_t second, std::uint64_t secondLength);

}  // namespace sublinear
