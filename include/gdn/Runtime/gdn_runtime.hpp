//===- gdn_runtime.hpp - a thin C++ wrapper of gdn_runtime.h ----*- C++ -*-===//
//
// Header-only RAII over the C API: gdn::Runtime owns a gdn_runtime, plans
// are looked up (and cached) by gdn::Runtime::plan, failures throw
// gdn::Error with the status and the library's message.
//
//   gdn::Runtime rt(0);
//   gdn::Problem p;  p.T = 32768; p.H = 16; p.HV = 16;
//   gdn::Plan plan = rt.plan(p);
//   plan.run(tensors, workspace, plan.workspaceBytes(), stream);
//
//===----------------------------------------------------------------------===//

#ifndef GDN_RUNTIME_GDN_RUNTIME_HPP
#define GDN_RUNTIME_GDN_RUNTIME_HPP

#include "gdn/Runtime/gdn_runtime.h"

#include <stdexcept>
#include <string>

namespace gdn {

/// A failed call: the status and gdn_last_error()'s message.
class Error : public std::runtime_error {
public:
  explicit Error(gdn_status status)
      : std::runtime_error(std::string(gdn_status_name(status)) + ": " +
                           gdn_last_error()),
        status_(status) {}
  gdn_status status() const { return status_; }

private:
  gdn_status status_;
};

inline void check(gdn_status status) {
  if (status != GDN_SUCCESS)
    throw Error(status);
}

/// gdn_problem with the defaults of gdn_problem_init.
struct Problem : gdn_problem {
  Problem() { gdn_problem_init(this); }
};

/// A plan owned by its runtime's cache (a cheap handle).
class Plan {
public:
  explicit Plan(const gdn_plan *plan) : plan_(plan) {}
  size_t workspaceBytes() const { return gdn_plan_workspace_bytes(plan_); }
  gdn_plan_info info() const {
    gdn_plan_info i;
    check(gdn_plan_get_info(plan_, &i));
    return i;
  }
  void run(const gdn_tensors &tensors, void *workspace, size_t workspaceBytes,
           gdn_stream stream, unsigned flags = 0) const {
    check(gdn_run(plan_, &tensors, workspace, workspaceBytes, stream, flags));
  }
  const gdn_plan *get() const { return plan_; }

private:
  const gdn_plan *plan_;
};

/// One device's runtime.
class Runtime {
public:
  explicit Runtime(int device = 0, const char *kernelDir = nullptr) {
    check(gdn_runtime_create(device, kernelDir, &rt_));
  }
  ~Runtime() { gdn_runtime_destroy(rt_); }
  Runtime(const Runtime &) = delete;
  Runtime &operator=(const Runtime &) = delete;
  Runtime(Runtime &&o) noexcept : rt_(o.rt_) { o.rt_ = nullptr; }

  Plan plan(const gdn_problem &problem) {
    const gdn_plan *p = nullptr;
    check(gdn_plan_get(rt_, &problem, &p));
    return Plan(p);
  }
  gdn_runtime *get() const { return rt_; }

private:
  gdn_runtime *rt_ = nullptr;
};

} // namespace gdn

#endif // GDN_RUNTIME_GDN_RUNTIME_HPP
