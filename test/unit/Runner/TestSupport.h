//===- TestSupport.h - helpers shared by the gdn-run unit tests -*- C++ -*-===//

#ifndef GDN_TEST_UNIT_RUNNER_TESTSUPPORT_H
#define GDN_TEST_UNIT_RUNNER_TESTSUPPORT_H

#include "Manifest.h"
#include "Operator.h"
#include "Options.h"

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

/// A manifest text parsed as file `path`, a command line (`args` + that
/// path) and the operator driver the manifest's meta.op names, prepared.
struct DriverFixture {
  explicit DriverFixture(std::string path) : path(std::move(path)) {}
  std::string path;
  Manifest manifest;
  RunOptions options;
  std::unique_ptr<OperatorDriver> driver;

  Status prepare(const std::string &text,
                 std::vector<std::string> args = {}) {
    Status s = parseManifest(text, path, manifest);
    if (!s.ok())
      return s;
    args.push_back(path);
    s = parseCommandLine(args, options);
    if (!s.ok())
      return s;
    s = createOperatorDriver(manifest, driver);
    if (!s.ok())
      return s;
    return driver->prepare(manifest, options);
  }
  template <typename Driver> const Driver &as() const {
    return static_cast<const Driver &>(*driver);
  }
};

/// The message of preparing `text` (as file `path`) with `args`, which must
/// fail with BadInput.
inline std::string prepareDriverError(const std::string &path,
                                      const std::string &text,
                                      std::vector<std::string> args = {}) {
  DriverFixture f(path);
  Status s = f.prepare(text, std::move(args));
  EXPECT_EQ(s.code(), ExitCode::BadInput) << s.message();
  return s.message();
}

} // namespace gdn::run::test

#endif // GDN_TEST_UNIT_RUNNER_TESTSUPPORT_H
