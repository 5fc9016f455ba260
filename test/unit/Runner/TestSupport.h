//===- TestSupport.h - helpers shared by the gdn-run unit tests -*- C++ -*-===//

#ifndef GDN_TEST_UNIT_RUNNER_TESTSUPPORT_H
#define GDN_TEST_UNIT_RUNNER_TESTSUPPORT_H

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include <unistd.h>

/// Expects `needle` to occur in `haystack` (error messages name the problem).
#define EXPECT_CONTAINS(haystack, needle)                                      \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos)            \
      << "'" << (haystack) << "' does not contain '" << (needle) << "'"

namespace gdn::run::test {

/// A fresh temporary directory, removed (with its files) on destruction.
struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/gdn-run-test-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() {
    std::string cmd = "rm -rf '" + path + "'";
    (void)std::system(cmd.c_str());
  }
  std::string file(const std::string &name) const { return path + "/" + name; }
};

} // namespace gdn::run::test

#endif // GDN_TEST_UNIT_RUNNER_TESTSUPPORT_H
