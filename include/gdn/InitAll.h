//===- InitAll.h - register gdn dialects and passes -------------*- C++ -*-===//

#ifndef GDN_INITALL_H
#define GDN_INITALL_H

namespace mlir {
class DialectRegistry;
namespace gdn {

/// The dialects gdn tools parse and produce: tile plus the upstream ones its
/// kernels and lowering use (func, arith, math, scf, cf, gpu, llvm, nvvm).
void registerAllDialects(DialectRegistry &registry);

/// gdn passes, the upstream passes of the lowering pipeline, and the
/// gdn-lower-to-ptx pipeline.
void registerAllPasses();

} // namespace gdn
} // namespace mlir

#endif // GDN_INITALL_H
