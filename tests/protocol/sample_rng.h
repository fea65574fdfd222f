// Deterministic random values for message round-trip tests (used by the generated
// random_messages.h). Owns the bytes that RecordsView fields point into.
#pragma once

#include <cstdint>
#include <deque>
#include <limits>
#include <random>
#include <string>

#include "protocol/wire.h"

namespace mirra::protocol::testing {

class SampleRng {
 public:
  explicit SampleRng(uint64_t seed) : gen_(seed) {}

  template <typename T>
  T integer() {
    // Mix small values (common on the wire, exercise varints) with full-range ones.
    if (one_in(2)) return static_cast<T>(pick(0, 300) - 5);
    return static_cast<T>(std::uniform_int_distribution<uint64_t>()(gen_));
  }
  double real() { return std::uniform_real_distribution<double>(-1e6, 1e6)(gen_); }
  bool flag() { return one_in(2); }
  bool one_in(int n) { return pick(0, n - 1) == 0; }
  size_t count() { return static_cast<size_t>(pick(0, 3)); }
  Uuid uuid() { return one_in(4) ? Uuid{} : Uuid::random(); }

  std::string text() {
    std::string s(static_cast<size_t>(pick(0, 12)), 'a');
    for (char& c : s) c = static_cast<char>(pick(0x20, 0x7e));
    return s;
  }
  Bytes blob() {
    Bytes b(static_cast<size_t>(pick(0, 16)));
    for (uint8_t& x : b) x = static_cast<uint8_t>(pick(0, 255));
    return b;
  }
  RecordsView records() {
    Bytes& b = owned_.emplace_back(blob());
    return RecordsView{b.data(), b.size()};
  }

 private:
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(gen_); }

  std::mt19937_64 gen_;
  std::deque<Bytes> owned_;  // deque: growing never moves earlier elements
};

}  // namespace mirra::protocol::testing
