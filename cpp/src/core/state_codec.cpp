#include "sublinear/core/state_codec.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include "sublinear/core/error.hpp"

namespace sublinear {

namespace {
constexpr std::uint8_t kMagic[4] = {'S', 'B', 'S', 'T'};

void appendLittleEndian(std::vector<std::uint8_t>& out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
}

std::uint64_t readLittleEndian(const std::uint8_t* in, int bytes) {
  std::uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value |= static_cast<std::uint64_t>(in[i]) << (8 * i);
  return value;
}

[[noreturn]] void corrupt(const std::string& why) { fail(ErrorCode::CorruptState, "saved state is damaged: " + why); }

const std::array<std::uint32_t, 256>& crcTable() {
  static const auto table = [] {
    std::array<std::uint32_t, 256> entries{};
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1U) ? 0xEDB88320U ^ (c >> 1) : c >> 1;
      entries[i] = c;
    }
    return entries;
  }();
  return table;
}

// Fixed envelope sizes: magic + format version, the two string lengths, payload length, checksum.
constexpr std::size_t kMagicBytes = 4 + 2;
constexpr std::size_t kStringLengthBytes = 4;
constexpr std::size_t kLengthBytes = 8;
constexpr std::size_t kChecksumBytes = 4;
// The library version and type are short names: a longer length is damage, not a name to read.
constexpr std::size_t kLongestHeadString = 256;
static_assert(kLongestStateHead == kMagicBytes + 2 * (kStringLengthBytes + kLongestHeadString) + kLengthBytes);

void appendString(std::vector<std::uint8_t>& out, const std::string& value) {
  appendLittleEndian(out, value.size(), 4);
  out.insert(out.end(), value.begin(), value.end());
}

}  // namespace

#ifndef SUBLINEAR_VERSION
#error "SUBLINEAR_VERSION (package.json's version) must be defined by the build"
#endif
const char* const kLibraryVersion = SUBLINEAR_VERSION;

namespace {
// CRC-32's running register over more bytes (crc32 starts it at all ones and inverts it at the end).
std::uint32_t crcUpdate(std::uint32_t c, const std::uint8_t* bytes, std::size_t length) {
  for (std::size_t i = 0; i < length; ++i) c = crcTable()[(c ^ bytes[i]) & 0xFFU] ^ (c >> 8);
  return c;
}

// The envelope before the payload.
std::vector<std::uint8_t> stateHead(const std::string& type, std::uint64_t payloadLength) {
  std::vector<std::uint8_t> head(std::begin(kMagic), std::end(kMagic));
  appendLittleEndian(head, kStateFormatVersion, 2);
  appendString(head, kLibraryVersion);
  appendString(head, type);
  appendLittleEndian(head, payloadLength, 8);
  return head;
}
}  // namespace

std::uint32_t crc32(const std::uint8_t* bytes, std::size_t length) { return crcUpdate(0xFFFFFFFFU, bytes, length) ^ 0xFFFFFFFFU; }

namespace {
// CRC-32 as a linear map over GF(2): `matrix` (32 columns) times `vector`.
std::uint32_t gf2Times(const std::uint32_t* matrix, std::uint32_t vector) {
  std::uint32_t sum = 0;
  for (; vector != 0; vector >>= 1, ++matrix) {
    if (vector & 1U) sum ^= *matrix;
  }
  return sum;
}

void gf2Square(std::uint32_t* square, const std::uint32_t* matrix) {
  for (int n = 0; n < 32; ++n) square[n] = gf2Times(matrix, matrix[n]);
}
}  // namespace

std::uint32_t crc32Combine(std::uint32_t first, std::uint32_t second, std::uint64_t secondLength) {
  // zlib's crc32_combine: `first` advanced over secondLength zero bytes (the operator for one zero
  // bit squared up to bytes, then by the binary digits of the length), XORed with `second`.
  if (secondLength == 0) return first;
  std::uint32_t even[32];
  std::uint32_t odd[32];
  odd[0] = 0xEDB88320U;
  for (int n = 1; n < 32; ++n) odd[n] = std::uint32_t{1} << (n - 1);
  gf2Square(even, odd);  // two zero bits
  gf2Square(odd, even);  // four
  do {
    gf2Square(even, odd);
    if (secondLength & 1U) first = gf2Times(even, first);
    secondLength >>= 1;
    if (secondLength == 0) break;
    gf2Square(odd, even);
    if (secondLength & 1U) first = gf2Times(odd, first);
    secondLength >>= 1;
  } while (secondLength != 0);
  return first ^ second;
}

StateHeader StateHeader::read(const std::uint8_t* bytes, std::size_t available, std::size_t length) {
  available = std::min(available, length);
  if (bytes == nullptr || available < kMagicBytes || std::memcmp(bytes, kMagic, 4) != 0) corrupt("not a sublinear-bandits state");
  StateHeader head;
  head.format = static_cast<std::uint16_t>(readLittleEndian(bytes + 4, 2));
  std::size_t at = kMagicBytes;
  // A string of the head, or nothing when the bytes given end before it.
  auto nextString = [&](std::string& value) {
    if (available - at < kStringLengthBytes) return false;
    const std::size_t size = readLittleEndian(bytes + at, 4);
    if (size > available - at - kStringLengthBytes || size > kLongestHeadString) return false;
    value.assign(reinterpret_cast<const char*>(bytes + at + kStringLengthBytes), size);
    at += kStringLengthBytes + size;
    return true;
  };
  // Format 1 (library 0.1.x) had no library version field.
  if (head.format == 1) head.library = "0.1.x";
  else if (!nextString(head.library)) corrupt("truncated header");
  // A state of another format keeps the first three fields only: its version is what can be said.
  if (!nextString(head.type)) {
    head.requireCurrentFormat();
    corrupt("truncated header");
  }
  if (head.format != kStateFormatVersion) return head;
  // Bytes that end before the payload length and checksum leave the head without them (truncated).
  if (length < at + kLengthBytes + kChecksumBytes || available < at + kLengthBytes) return head;
  head.payloadStart = at + kLengthBytes;
  head.payloadLength = readLittleEndian(bytes + at, 8);
  head.complete = head.payloadLength == length - head.payloadStart - kChecksumBytes;
  return head;
}

void StateHeader::requireCurrentFormat() const {
  if (format == kStateFormatVersion) return;
  fail(ErrorCode::CorruptState, "saved state has format version " + std::to_string(format) + " (written by sublinear-bandits " + library +
                                    "); this is sublinear-bandits " + kLibraryVersion + ", which reads format version " +
                                    std::to_string(kStateFormatVersion) +
                                    (format < kStateFormatVersion ? " (build the object again from its data)"
                                                                  : " (load it with sublinear-bandits " + library + " or later)"));
}

StateWriter::StateWriter(const std::string& type) : type_(type) {}

StateWriter::StateWriter(const std::string& type, StateSink& sink) : type_(type), sink_(&sink) {
  // A piece and the numbers appended after its end before the flush: the buffer never doubles (a
  // vector's growth), which would take two pieces of memory at once.
  payload_.reserve(kPieceBytes + 64);
}

void StateWriter::flush() {
  crc_ = crcUpdate(crc_, payload_.data(), payload_.size());
  sink_->payload(payload_.data(), payload_.size());
  flushed_ += payload_.size();
  payload_.clear();
}

void StateWriter::u8(std::uint8_t value) {
  payload_.push_back(value);
  flushWhenFull();
}

void StateWriter::u32(std::uint32_t value) {
  appendLittleEndian(payload_, value, 4);
  flushWhenFull();
}

void StateWriter::u64(std::uint64_t value) {
  appendLittleEndian(payload_, value, 8);
  flushWhenFull();
}

void StateWriter::f64(double value) {
  std::uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  u64(bits);
}

void StateWriter::f32(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  u32(bits);
}

void StateWriter::string(const std::string& value) {
  u64(value.size());
  payload_.insert(payload_.end(), value.begin(), value.end());
  flushWhenFull();
}

void StateWriter::f64s(const double* values, std::size_t count) {
  u64(count);
  for (std::size_t i = 0; i < count; ++i) f64(values[i]);
}

void StateWriter::f32s(const float* values, std::size_t count) {
  u64(count);
  for (std::size_t i = 0; i < count; ++i) f32(values[i]);
}

void StateWriter::u32s(const std::uint32_t* values, std::size_t count) {
  u64(count);
  for (std::size_t i = 0; i < count; ++i) u32(values[i]);
}

void StateWriter::u64s(const std::uint64_t* values, std::size_t count) {
  u64(count);
  for (std::size_t i = 0; i < count; ++i) u64(values[i]);
}

void StateWriter::json(const Json& value) { string(value.dump()); }

void StateWriter::random(const Random& engine) {
  const Random::State state = engine.state();
  for (const std::uint64_t word : state.words) u64(word);
  u8(state.hasSpareNormal ? 1 : 0);
  f64(state.spareNormal);
}

void StateWriter::vector(const Eigen::VectorXd& value) { f64s(value.data(), static_cast<std::size_t>(value.size())); }

void StateWriter::matrix(const Eigen::MatrixXd& value) {
  u64(static_cast<std::uint64_t>(value.rows()));
  f64s(value.data(), static_cast<std::size_t>(value.size()));
}

std::vector<std::uint8_t> StateWriter::finish() {
  const std::vector<std::uint8_t> head = stateHead(type_, payload_.size());
  // The payload becomes the output in place (one copy of the state at a time, not two).
  std::vector<std::uint8_t> out = std::move(payload_);
  payload_ = {};
  out.insert(out.begin(), head.begin(), head.end());
  appendLittleEndian(out, crc32(out.data(), out.size()), 4);
  return out;
}

void StateWriter::finishStream() {
  if (!payload_.empty()) flush();
  const std::vector<std::uint8_t> head = stateHead(type_, flushed_);
  std::vector<std::uint8_t> checksum;
  appendLittleEndian(checksum, crc32Combine(crc32(head.data(), head.size()), crc_ ^ 0xFFFFFFFFU, flushed_), 4);
  sink_->finish(head.data(), head.size(), checksum.data(), checksum.size());
}

std::string StateReader::peekType(const std::uint8_t* bytes, std::size_t length) {
  const StateHeader head = StateHeader::read(bytes, length, length);
  head.requireCurrentFormat();
  return head.type;
}

StateHeader StateHeader::read(const ByteSource& source) {
  const std::size_t length = source.length();
  if (const std::uint8_t* all = source.data()) return read(all, length, length);
  std::vector<std::uint8_t> first(std::min(length, kLongestStateHead));
  source.read(0, first.size(), first.data());
  return read(first.data(), first.size(), length);
}

std::string StateReader::peekType(const ByteSource& source) {
  const StateHeader head = StateHeader::read(source);
  head.requireCurrentFormat();
  return head.type;
}

StateReader::StateReader(const std::uint8_t* bytes, std::size_t length, const std::string& expectedType) {
  openInMemory(bytes, length, expectedType);
}

void StateReader::openInMemory(const std::uint8_t* bytes, std::size_t length, const std::string& expectedType) {
  const StateHeader head = StateHeader::read(bytes, length, length);
  head.requireCurrentFormat();
  if (head.type != expectedType) corrupt("it holds a " + head.type + ", not a " + expectedType);
  if (head.payloadStart == 0) corrupt("truncated");
  if (!head.complete) corrupt("length does not match");
  const std::uint32_t stored = static_cast<std::uint32_t>(readLittleEndian(bytes + length - kChecksumBytes, 4));
  if (stored != crc32(bytes, length - kChecksumBytes)) corrupt("checksum mismatch");
  cursor_ = bytes + head.payloadStart;
  end_ = bytes + length - kChecksumBytes;
}

StateReader StateReader::payloadPrefix(const StateHeader& head, const std::uint8_t* bytes, std::size_t available) {
  if (head.format != kStateFormatVersion || !head.complete) return StateReader(bytes, bytes);
  const std::size_t payloadEnd = head.payloadStart + static_cast<std::size_t>(head.payloadLength);
  return StateReader(bytes + head.payloadStart, bytes + std::max(head.payloadStart, std::min(available, payloadEnd)));
}

StateReader::StateReader(const ByteSource& source, const std::string& expectedType) {
  const std::size_t length = source.length();
  if (const std::uint8_t* all = source.data()) {
    openInMemory(all, length, expectedType);
    return;
  }
  source_ = &source;
  const StateHeader head = StateHeader::read(source);
  head.requireCurrentFormat();
  if (head.type != expectedType) corrupt("it holds a " + head.type + ", not a " + expectedType);
  if (head.payloadStart == 0) corrupt("truncated");
  if (!head.complete) corrupt("length does not match");
  // complete: the length holds the head and the checksum.
  const std::size_t checked = length - kChecksumBytes;
  std::uint32_t c = 0xFFFFFFFFU;
  window_.resize(std::min(checked, ByteSource::kPieceValues));
  for (std::size_t at = 0; at < checked; at += window_.size()) {
    const std::size_t count = std::min(window_.size(), checked - at);
    source.read(at, count, window_.data());
    c = crcUpdate(c, window_.data(), count);
  }
  std::uint8_t stored[kChecksumBytes];
  source.read(checked, kChecksumBytes, stored);
  if (static_cast<std::uint32_t>(readLittleEndian(stored, 4)) != (c ^ 0xFFFFFFFFU)) corrupt("checksum mismatch");
  next_ = head.payloadStart;
  payloadEnd_ = checked;
}

const std::uint8_t* StateReader::take(std::size_t size) {
  if (static_cast<std::size_t>(end_ - cursor_) < size) return takeAcross(size);
  const std::uint8_t* at = cursor_;
  cursor_ += size;
  return at;
}

const std::uint8_t* StateReader::takeAcross(std::size_t size) {
  if (source_ == nullptr || size > remaining()) corrupt("payload ends early");
  // The rest of the window, then as much of the next pieces as the read asks for.
  across_.assign(cursor_, end_);
  while (across_.size() < size) {
    const std::size_t count = std::min(ByteSource::kPieceValues, payloadEnd_ - next_);
    window_.resize(count);
    source_->read(next_, count, window_.data());
    next_ += count;
    cursor_ = window_.data();
    end_ = cursor_ + count;
    const std::size_t part = std::min(size - across_.size(), count);
    across_.insert(across_.end(), cursor_, cursor_ + part);
    cursor_ += part;
  }
  return across_.data();
}

std::uint8_t StateReader::u8() { return *take(1); }
std::uint32_t StateReader::u32() { return static_cast<std::uint32_t>(readLittleEndian(take(4), 4)); }
std::uint64_t StateReader::u64() { return readLittleEndian(take(8), 8); }

double StateReader::f64() {
  const std::uint64_t bits = u64();
  double value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

float StateReader::f32() {
  const std::uint32_t bits = u32();
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

std::size_t StateReader::count(std::size_t elementBytes) {
  const std::uint64_t n = u64();
  if (elementBytes > 0 && n > static_cast<std::uint64_t>(remaining()) / elementBytes) corrupt("a count exceeds the data");
  return static_cast<std::size_t>(n);
}

std::string StateReader::string() {
  const std::size_t n = count(1);
  const auto* at = take(n);
  return std::string(reinterpret_cast<const char*>(at), n);
}

std::vector<double> StateReader::f64s() {
  std::vector<double> values;
  f64s(values);
  return values;
}

void StateReader::f64s(std::vector<double>& into) {
  into.resize(count(8));
  for (auto& value : into) value = f64();
}

std::vector<float> StateReader::f32s() {
  std::vector<float> values(count(4));
  for (auto& value : values) value = f32();
  return values;
}

std::vector<std::uint32_t> StateReader::u32s() {
  std::vector<std::uint32_t> values(count(4));
  for (auto& value : values) value = u32();
  return values;
}

std::vector<std::uint64_t> StateReader::u64s() {
  std::vector<std::uint64_t> values;
  u64s(values);
  return values;
}

void StateReader::u64s(std::vector<std::uint64_t>& into) {
  into.resize(count(8));
  for (auto& value : into) value = u64();
}

Json StateReader::json() {
  const std::string text = string();
  Json value = Json::parse(text, nullptr, false);
  if (value.is_discarded()) corrupt("stored options are not JSON");
  return value;
}

void StateReader::random(Random& engine) {
  Random::State state{};
  for (auto& word : state.words) word = u64();
  const std::uint8_t spare = u8();
  check(spare <= 1, "bad random-engine flag");
  state.hasSpareNormal = spare == 1;
  state.spareNormal = f64();
  check((state.words[0] | state.words[1] | state.words[2] | state.words[3]) != 0, "random-engine state is all zero");
  engine.setState(state);
}

// Vectors and matrices are decoded into their own storage, not through f64s(): a passing copy as
// large as the matrix would double the memory a restore of a large model reaches (wasm's never
// shrinks). The checks are f64s()'s and the shape's, with the same errors.
Eigen::VectorXd StateReader::vector(Eigen::Index expectedSize) {
  Eigen::VectorXd values;
  vector(values, expectedSize);
  return values;
}

void StateReader::vector(Eigen::VectorXd& into, Eigen::Index expectedSize) {
  const std::size_t size = count(8);
  check(size == static_cast<std::size_t>(expectedSize), "a vector has the wrong size");
  into.resize(expectedSize);
  for (Eigen::Index i = 0; i < expectedSize; ++i) into[i] = f64();
}

Eigen::MatrixXd StateReader::matrix(Eigen::Index expectedRows, Eigen::Index expectedColumns) {
  Eigen::MatrixXd values;
  matrix(values, expectedRows, expectedColumns);
  return values;
}

void StateReader::matrix(Eigen::MatrixXd& into, Eigen::Index expectedRows, Eigen::Index expectedColumns) {
  const std::uint64_t rows = u64();
  const std::size_t size = count(8);
  check(rows == static_cast<std::uint64_t>(expectedRows) && size == static_cast<std::size_t>(expectedRows * expectedColumns),
        "a matrix has the wrong shape");
  into.resize(expectedRows, expectedColumns);
  double* out = into.data();
  for (std::size_t i = 0; i < size; ++i) out[i] = f64();
}

void StateReader::check(bool condition, const std::string& why) const {
  if (!condition) corrupt(why);
}

void StateReader::finish() const {
  if (!atEnd()) corrupt("unexpected bytes after the state");
}

namespace {
std::string savedTypeIn(const StateHeader& head, const std::vector<std::string>& knownTypes, const std::string& expectedType,
                        const std::string& family) {
  head.requireCurrentFormat();
  const std::string& type = head.type;
  if (std::find(knownTypes.begin(), knownTypes.end(), type) == knownTypes.end() || (!expectedType.empty() && type != expectedType)) {
    corrupt("it is not of a " + (expectedType.empty() ? family : expectedType) + " (it holds a " + type + ")");
  }
  return type;
}

}  // namespace

std::string savedTypeOf(const ByteSource& bytes, const std::vector<std::string>& knownTypes, const std::string& expectedType,
                        const std::string& family) {
  return savedTypeIn(StateHeader::read(bytes), knownTypes, expectedType, family);
}

}  // namespace sublinear
