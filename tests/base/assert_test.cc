// base/assert.h: MIRRA_ASSERT and MIRRA_ASSERT_OWNER abort with the condition, file:line and
// message where assertions are active (Debug, sanitizer builds), and cost nothing where they
// are not (the release build: neither the condition nor the message is evaluated). Each test
// asserts the behaviour of the build it runs in.
#include "base/assert.h"

#include <thread>

#include <gtest/gtest.h>

namespace mirra {
namespace {

TEST(AssertTest, ActiveExactlyWhenTheBuildAsksForIt) {
#if !defined(NDEBUG) || (defined(MIRRA_ASSERTIONS) && MIRRA_ASSERTIONS)
  EXPECT_TRUE(kAssertionsActive);
#else
  EXPECT_FALSE(kAssertionsActive);
#endif
}

TEST(AssertTest, HoldingConditionPasses) {
  int evaluated = 0;
  MIRRA_ASSERT(++evaluated == 1, "never shown {}", evaluated);
  EXPECT_EQ(evaluated, kAssertionsActive ? 1 : 0);
}

TEST(AssertTest, FailingConditionAbortsWithWhereAndWhy) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const int offset = 7;
  auto check = [&] { MIRRA_ASSERT(offset < 5, "offset {} past the end", offset); };
  if (kAssertionsActive) {
    EXPECT_DEATH(check(),
                 "assert_test.cc:[0-9]+: assertion 'offset < 5' failed: offset 7 past "
                 "the end");
  } else {
    check();  // compiled out: nothing happens
    SUCCEED();
  }
}

TEST(AssertTest, ReleaseBuildEvaluatesNeitherConditionNorMessage) {
  int condition_calls = 0;
  int message_calls = 0;
  auto cond = [&] {
    ++condition_calls;
    return true;
  };
  auto arg = [&] {
    ++message_calls;
    return 1;
  };
  MIRRA_ASSERT(cond(), "{}", arg());
  EXPECT_EQ(condition_calls, kAssertionsActive ? 1 : 0);
  EXPECT_EQ(message_calls, 0);  // the message is built only for a failed check
}

TEST(ThreadOwnerTest, FirstCheckingThreadOwns) {
  ThreadOwner owner;
  EXPECT_TRUE(owner.is_current());
  EXPECT_TRUE(owner.is_current());
  bool elsewhere = true;
  std::thread([&] { elsewhere = owner.is_current(); }).join();
  EXPECT_FALSE(elsewhere);
  owner.release();
  std::thread([&] { elsewhere = owner.is_current(); }).join();
  EXPECT_TRUE(elsewhere);
  EXPECT_FALSE(owner.is_current());
}

TEST(ThreadOwnerTest, CopyStartsUnbound) {
  ThreadOwner owner;
  ASSERT_TRUE(owner.is_current());
  const ThreadOwner copy(owner);
  bool elsewhere = false;
  std::thread([&] { elsewhere = copy.is_current(); }).join();
  EXPECT_TRUE(elsewhere);
}

TEST(ThreadOwnerTest, AssertOwnerAbortsOffTheOwningThread) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  ThreadOwner owner;
  auto from_another_thread = [&] {
    std::thread([&] { (void)owner.is_current(); }).join();  // binds to that thread
    MIRRA_ASSERT_OWNER(owner);
  };
  if (kAssertionsActive) {
    EXPECT_DEATH(from_another_thread(),
                 "assertion '.*is_current\\(\\)' failed: called off the "
                 "thread that owns this state");
  } else {
    from_another_thread();
    SUCCEED();
  }
}

}  // namespace
}  // namespace mirra
