//===- Status.h - gdn-run error reporting without exceptions ----*- C++ -*-===//
//
// gdn-run is built without C++ exceptions, so every fallible step returns a
// Status: an exit code (the process exit status the error maps to) plus a
// human-readable message. The exit codes are part of gdn-run's interface (CI
// skips GPU tests on 77), see `gdn-run --help`.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_TOOLS_GDN_RUN_STATUS_H
#define GDN_TOOLS_GDN_RUN_STATUS_H

#include <string>
#include <utility>

namespace gdn::run {

/// Process exit codes of gdn-run.
enum class ExitCode : int {
  Ok = 0,          ///< every check passed
  CheckFailed = 1, ///< a result mismatched or was not finite
  BadInput = 2,    ///< bad usage, unreadable/malformed manifest or PTX, bad shape
  CudaError = 3,   ///< a CUDA driver call failed
  NoDevice = 77,   ///< no CUDA driver or no CUDA device (CI: skip)
};

/// Result of a fallible operation: Ok, or an exit code with a message.
class [[nodiscard]] Status {
public:
  Status() = default;
  Status(ExitCode code, std::string message)
      : code_(code), message_(std::move(message)) {}

  static Status success() { return Status(); }
  static Status badInput(std::string message) {
    return Status(ExitCode::BadInput, std::move(message));
  }
  static Status cudaError(std::string message) {
    return Status(ExitCode::CudaError, std::move(message));
  }
  static Status noDevice(std::string message) {
    return Status(ExitCode::NoDevice, std::move(message));
  }

  bool ok() const { return code_ == ExitCode::Ok; }
  ExitCode code() const { return code_; }
  const std::string &message() const { return message_; }

private:
  ExitCode code_ = ExitCode::Ok;
  std::string message_;
};

/// Returns from the enclosing Status-returning function if `expr` failed.
#define GDN_RUN_TRY(expr)                                                      \
  do {                                                                         \
    ::gdn::run::Status gdnRunStatus_ = (expr);                                 \
    if (!gdnRunStatus_.ok())                                                   \
      return gdnRunStatus_;                                                    \
  } while (0)

} // namespace gdn::run

#endif // GDN_TOOLS_GDN_RUN_STATUS_H
