//===- Parallel.h - thread helper of the GDN oracle (private) --*- C++ -*-===//
//
// A minimal work-sharing loop over std::thread, shared by the oracle's source
// files. Items are claimed one at a time from an atomic counter; callers make
// every item own its outputs, so results never depend on the thread count.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_LIB_REFERENCE_PARALLEL_H
#define GDN_LIB_REFERENCE_PARALLEL_H

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

namespace gdn::ref::detail {

/// Runs fn(i) for i in [0, n) on up to `numThreads` threads (<= 0: all
/// hardware threads); the calling thread works too.
inline void parallelFor(int64_t n, int numThreads,
                        const std::function<void(int64_t)> &fn) {
  if (n <= 0)
    return;
  int64_t threads = numThreads;
  if (threads <= 0) {
    unsigned hw = std::thread::hardware_concurrency();
    threads = hw == 0 ? 1 : static_cast<int64_t>(hw);
  }
  threads = std::min(threads, n);
  if (threads <= 1) {
    for (int64_t i = 0; i < n; ++i)
      fn(i);
    return;
  }
  std::atomic<int64_t> next{0};
  auto worker = [&]() {
    for (;;) {
      int64_t i = next.fetch_add(1, std::memory_order_relaxed);
      if (i >= n)
        return;
      fn(i);
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(static_cast<size_t>(threads - 1));
  for (int64_t t = 1; t < threads; ++t)
    pool.emplace_back(worker);
  worker();
  for (std::thread &t : pool)
    t.join();
}

} // namespace gdn::ref::detail

#endif // GDN_LIB_REFERENCE_PARALLEL_H
