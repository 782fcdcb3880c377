#include "capture/call_site.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace xport::capture {
namespace {

std::string here(int line) { return "call_site_test.cpp:" + std::to_string(line); }

TEST(CallSite, UserSourceIsTheLineThatCalledIntoXport) {
  const int line = __LINE__ + 1;
  CallSite site = detail::capture_call_site_for_test(4);
  EXPECT_GT(site.depth, 5);
  EXPECT_EQ(user_source(site), here(line));
}

TEST(CallSite, UserFunctionNamesTheCallingFunction) {
  CallSite site = detail::capture_call_site_for_test(2);
  EXPECT_NE(user_function(site).find("CallSite_UserFunctionNamesTheCallingFunction_Test::TestBody"),
            std::string::npos)
      << user_function(site);
}

// Kept out of line so the stack has a user frame of its own between the test and xport.
[[gnu::noinline]] CallSite capture_from_helper(int* line) {
  *line = __LINE__ + 1;
  CallSite site = detail::capture_call_site_for_test(1);
  asm volatile("" : : "r"(&site) : "memory");  // no tail call
  return site;
}

TEST(CallSite, UserStackListsEveryUserFrameInnermostFirst) {
  int helper_line = 0;
  const int line = __LINE__ + 1;
  CallSite site = capture_from_helper(&helper_line);
  std::vector<std::string> stack = user_stack(site, 8);
  ASSERT_GE(stack.size(), 2u);
  EXPECT_EQ(stack[0].rfind(here(helper_line) + " in ", 0), 0u) << stack[0];
  EXPECT_NE(stack[0].find("capture_from_helper"), std::string::npos) << stack[0];
  EXPECT_EQ(stack[1].rfind(here(line) + " in ", 0), 0u) << stack[1];
  EXPECT_EQ(user_stack(site, 1).size(), 1u);
}

TEST(CallSite, CaptureFromALambdaNamesTheLambdaLine) {
  const int line = __LINE__ + 1;
  auto capture = [] { return detail::capture_call_site_for_test(2); };
  const int call_line = __LINE__ + 1;
  CallSite site = capture();
  EXPECT_EQ(user_source(site), here(line));
  // Whether or not the lambda was inlined, its caller is the next user frame.
  std::vector<std::string> stack = user_stack(site, 2);
  ASSERT_EQ(stack.size(), 2u);
  EXPECT_EQ(stack[1].rfind(here(call_line), 0), 0u) << stack[1];
}

TEST(CallSite, SameCallSiteGivesTheSameSourceEveryTime) {
  std::vector<std::string> sources;
  const int line = __LINE__ + 1;
  for (int i = 0; i < 3; ++i) sources.push_back(user_source(detail::capture_call_site_for_test(3)));
  for (const std::string& source : sources) EXPECT_EQ(source, here(line));
}

TEST(CallSite, EmptySiteHasNoUserFrame) {
  CallSite site;
  EXPECT_EQ(user_source(site), "");
  EXPECT_EQ(user_function(site), "");
  EXPECT_TRUE(user_stack(site, 4).empty());
}

TEST(CallSite, CapturesAndSymbolizesConcurrently) {
  constexpr int kThreads = 4;
  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &failures] {
      for (int i = 0; i < 200; ++i) {
        const int line = __LINE__ + 1;
        CallSite site = detail::capture_call_site_for_test(1 + (i + t) % 4);
        std::string source = user_source(site);
        if (source != here(line)) {
          failures[t] = source;
          return;
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const std::string& failure : failures) EXPECT_EQ(failure, "");
}

}  // namespace
}  // namespace xport::capture
