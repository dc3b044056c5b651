#include "sublinear/core/random_checksum.hpp"

#include <cstdio>
#include <cstring>

#include "sublinear/core/random.hpp"

namespace sublinear {

namespace {
class Fnv1a {
 public:
  void add(double value) {
    std::uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    add(bits);
  }
  void add(std::uint64_t bits) {
    for (int i = 0; i < 8; ++i) {
      hash_ ^= (bits >> (8 * i)) & 0xFFU;
      hash_ *= 0x100000001B3ULL;
    }
  }
  std::uint64_t value() const { return hash_; }

 private:
  std::uint64_t hash_ = 0xCBF29CE484222325ULL;
};
}  // namespace

std::string randomChecksum(std::uint64_t seed, std::size_t count) {
  Random random(seed);
  Fnv1a hash;
  for (std::size_t i = 0; i < count; ++i) {
    hash.add(random.uniform());
    hash.add(random.normal());
    hash.add(random.uniformInt(1000003));
    hash.add(random.exponential(1.5));
    hash.add(random.gamma(0.5));
    hash.add(random.gamma(3.0));
    hash.add(random.beta(2.0, 5.0));
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash.value()));
  return text;
}

}  // namespace sublinear
