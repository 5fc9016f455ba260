//===- TestSupport.h - helpers shared by the gdn-run unit tests -*- C++ -*-===//

#ifndef GDN_TEST_UNIT_RUNNER_TESTSUPPORT_H
#define GDN_TEST_UNIT_RUNNER_TESTSUPPORT_H

#include "Manifest.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

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

/// Parses manifest texts as files m0.manifest, m1.manifest, ... (so that
/// messages name them), appending to `owned` and their pointers to `ptrs`.
inline Status parseManifestTexts(const std::vector<std::string> &texts,
                                 std::vector<std::unique_ptr<Manifest>> &owned,
                                 std::vector<const Manifest *> &ptrs) {
  for (size_t i = 0; i < texts.size(); ++i) {
    owned.push_back(std::make_unique<Manifest>());
    Status s = parseManifest(texts[i], "m" + std::to_string(i) + ".manifest",
                             *owned.back());
    if (!s.ok())
      return s;
    ptrs.push_back(owned.back().get());
  }
  return Status::success();
}

} // namespace gdn::run::test

#endif // GDN_TEST_UNIT_RUNNER_TESTSUPPORT_H
