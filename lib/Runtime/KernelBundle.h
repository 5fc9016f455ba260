//===- KernelBundle.h - the AOT kernels embedded in the runtime -*- C++ -*-===//
//
// libgdn_runtime carries gdn-opt's output for the GDN prefill: each
// gdn_prefill manifest, each PTX module it names and the module's cubin
// (ptxas -arch=<target>, made at build time), as files by name. The table
// is generated (KernelBundle.cmake writes a .S with .incbin and a .cpp with
// this table); the runtime finds kernels by name in it, not in a directory.
// Every file ends with a NUL byte (not counted in `size`), so that PTX can be
// handed to the driver as C text.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_RUNTIME_KERNELBUNDLE_H
#define GDN_RUNTIME_KERNELBUNDLE_H

#include <cstddef>

namespace gdn::run {

/// One embedded file: "gdn_prefill_f16.manifest", "gdn_prefill_f16.ptx",
/// "gdn_prefill_f16.sm_90a.cubin", ...
struct BundleFile {
  const char *name;
  const unsigned char *data;
  size_t size;
};

/// The embedded files (count 0 when the runtime was built without kernels).
const BundleFile *kernelBundle(size_t &count);

} // namespace gdn::run

#endif // GDN_RUNTIME_KERNELBUNDLE_H
