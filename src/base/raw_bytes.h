// RawBytes: a byte vector whose new elements are left uninitialized. A buffer that a socket
// read or a decoder fills at once gains nothing from being zeroed first; for fetch responses
// of many megabytes that memset was a tenth of the mirror's CPU.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace mirra {

// std::allocator, except that value-initialization (resize(n), vector(n)) default-initializes,
// which for bytes means: leaves them as they are.
template <typename T>
struct DefaultInitAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() = default;
  template <typename U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}

  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    std::allocator_traits<std::allocator<T>>::construct(static_cast<std::allocator<T>&>(*this), p,
                                                        std::forward<Args>(args)...);
  }
};

using RawBytes = std::vector<uint8_t, DefaultInitAllocator<uint8_t>>;

}  // namespace mirra
