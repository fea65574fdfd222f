// Invariant checks: MIRRA_ASSERT(cond, "fmt", args...) and MIRRA_ASSERT_OWNER(owner).
//
// Active when NDEBUG is not defined (Debug builds) or when MIRRA_ASSERTIONS is 1 (the
// sanitizer builds set it: -DMIRRA_SANITIZE=ON, see CMakeLists.txt). The release build
// (RelWithDebInfo, NDEBUG) compiles them out: the condition and the message are still
// type-checked, so a variable used only in a check raises no warning, but neither is evaluated.
//
// A failed check is a bug, never bad input (base/README.md: bad input is a Status): it logs
//   ERROR [assert] file.cc:42: assertion 'cond' failed: message
// through the log sink and aborts.
//
//   MIRRA_ASSERT(offset >= log_start, "{}-{}: offset {} below the log start {}", t, p, o, s);
//
// ThreadOwner: which thread owns a piece of state. It binds to the first thread that checks it
// (objects are often built on one thread and handed to the one that runs them), and from then
// on MIRRA_ASSERT_OWNER(owner_) checks that the caller runs on that thread.
//
//   class GroupCoordinator { ... ThreadOwner owner_; };  // Threading: the core thread
//   void GroupCoordinator::join(...) { MIRRA_ASSERT_OWNER(owner_); ... }
#pragma once

#include <atomic>
#include <string_view>
#include <thread>

#include <fmt/format.h>

#if !defined(NDEBUG) || (defined(MIRRA_ASSERTIONS) && MIRRA_ASSERTIONS)
#define MIRRA_ASSERTIONS_ACTIVE 1
#else
#define MIRRA_ASSERTIONS_ACTIVE 0
#endif

namespace mirra {

// Whether MIRRA_ASSERT and MIRRA_ASSERT_OWNER check anything in this build.
inline constexpr bool kAssertionsActive = MIRRA_ASSERTIONS_ACTIVE != 0;

namespace detail {
// Logs the failed check and aborts.
[[noreturn]] void assertion_failed(std::string_view condition, std::string_view file, int line,
                                   std::string_view message);
}  // namespace detail

class ThreadOwner {
 public:
  ThreadOwner() = default;
  // Copies and moves start unbound: the new object's owner is whoever uses it first.
  ThreadOwner(const ThreadOwner&) {}
  ThreadOwner& operator=(const ThreadOwner&) { return *this; }

  // True when the calling thread owns the state, binding it to the caller if nobody does yet.
  bool is_current() const {
    const std::thread::id me = std::this_thread::get_id();
    std::thread::id expected{};
    if (owner_.compare_exchange_strong(expected, me, std::memory_order_relaxed)) return true;
    return expected == me;
  }
  // Forgets the owner (an object whose state moves to another thread as a whole).
  void release() { owner_.store(std::thread::id{}, std::memory_order_relaxed); }

 private:
  mutable std::atomic<std::thread::id> owner_{};
};

}  // namespace mirra

#if MIRRA_ASSERTIONS_ACTIVE
#define MIRRA_ASSERT(cond, ...)                                                                 \
  do {                                                                                          \
    if (!(cond)) [[unlikely]] {                                                                 \
      ::mirra::detail::assertion_failed(#cond, __FILE__, __LINE__, ::fmt::format(__VA_ARGS__)); \
    }                                                                                           \
  } while (0)
#else
#define MIRRA_ASSERT(cond, ...)                      \
  do {                                               \
    if constexpr (false) {                           \
      static_cast<void>(cond);                       \
      static_cast<void>(::fmt::format(__VA_ARGS__)); \
    }                                                \
  } while (0)
#endif

#define MIRRA_ASSERT_OWNER(owner) \
  MIRRA_ASSERT((owner).is_current(), "called off the thread that owns this state")
