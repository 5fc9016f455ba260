//===- GdnLaunch.h - binding and launching a GDN prefill sequence -*- C++ -*-=//
//
// The device half of a GDN prefill shared by gdn-run's check (GdnDriver) and
// the runtime library (gdn_runtime.h): the host-computed index tensors
// (cu_seqlens and the CP segmentation) in the kernels' element types, one
// buffer's layout of the workspaces, and the binding of every kernel
// parameter by name (GdnSequence.h) to device pointers, problem scalars and
// TMA tensor maps.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_RUNTIME_GDNLAUNCH_H
#define GDN_RUNTIME_GDNLAUNCH_H

#include "CudaDriver.h"
#include "GdnCp.h"
#include "GdnProblem.h"
#include "GdnSequence.h"
#include "TensorMaps.h"

#include <array>
#include <cstddef>
#include <vector>

namespace gdn::run {

/// Binds the scalar parameters of `stage` (the integer ones from `scalars`,
/// scale and cp_theta as f32) into `args`.
void bindGdnScalars(const GdnStage &stage, const ExprVariables &scalars,
                    double scale, double cpTheta, KernelArgs &args);

/// The host bytes of index tensor `id` (cu_seqlens or a cp_* tensor of
/// `segments`, GdnCp.h) in the element type the kernels of `seq` declare.
std::vector<unsigned char> gdnIndexTensorBytes(const GdnProblem &problem,
                                               const GdnSequence &seq,
                                               const GdnCpSegments &segments,
                                               GdnTensorId id);

/// Device pointers of the GDN tensors, by GdnTensorId (0: not bound).
using GdnTensorPointers = std::array<CUdeviceptr, kGdnTensorCount>;

/// Alignment of each workspace inside one workspace buffer.
constexpr size_t kGdnWorkspaceAlign = 256;

/// Byte offsets of the workspaces of `seq` (evaluated) in one buffer, each
/// aligned to kGdnWorkspaceAlign; returns the buffer's size (0 when there
/// are no workspaces).
size_t gdnWorkspaceLayout(const GdnSequence &seq, std::vector<size_t> &offsets);

/// Binds every parameter of `stage`: tensors from `tensors`, workspaces
/// from `workspaces` (by index into seq.workspaces), scalars from `scalars`
/// and `scale` / `cpTheta`, then builds its tensor maps (printed with
/// `verbose`). Errors name the stage.
Status bindGdnStage(const CudaDriver &driver, const GdnStage &stage,
                    const ExprVariables &scalars, double scale, double cpTheta,
                    const GdnTensorPointers &tensors,
                    const std::vector<CUdeviceptr> &workspaces,
                    KernelArgs &args, bool verbose = false);

} // namespace gdn::run

#endif // GDN_RUNTIME_GDNLAUNCH_H
