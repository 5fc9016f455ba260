//===- GdnLaunch.cpp - binding and launching a GDN prefill sequence -------===//

#include "GdnLaunch.h"

#include <cstring>

namespace gdn::run {

void bindGdnScalars(const GdnStage &stage, const ExprVariables &scalars,
                    double scale, double cpTheta, KernelArgs &args) {
  for (size_t j = 0; j < stage.args.size(); ++j) {
    const GdnArg &arg = stage.args[j];
    if (arg.kind != GdnArg::Scalar)
      continue;
    if (arg.index == static_cast<int>(GdnScalarId::Scale))
      args.setF32(j, static_cast<float>(scale)); // the oracle's value
    else if (arg.index == static_cast<int>(GdnScalarId::CpTheta))
      args.setF32(j, static_cast<float>(cpTheta));
    else
      args.setInt(j, scalars.at(arg.param->name));
  }
}

std::vector<unsigned char> gdnIndexTensorBytes(const GdnProblem &p,
                                               const GdnSequence &seq,
                                               const GdnCpSegments &segments,
                                               GdnTensorId id) {
  std::vector<int64_t> cu;
  const std::vector<int64_t> *values = &cu;
  switch (id) {
  case GdnTensorId::CpBounds:
    values = &segments.bounds;
    break;
  case GdnTensorId::CpSeq:
    values = &segments.seq;
    break;
  case GdnTensorId::CpLast:
    values = &segments.last;
    break;
  case GdnTensorId::CpSegStart:
    values = &segments.segStart;
    break;
  case GdnTensorId::ChunkMap:
    cu = gdnChunkMap(p.deviceCuSeqlens());
    break;
  default:
    cu = p.deviceCuSeqlens();
    break;
  }
  const DType type = seq.typeOf(id);
  std::vector<unsigned char> bytes(values->size() * dtypeSize(type));
  for (size_t i = 0; i < values->size(); ++i) {
    if (type == DType::I32) {
      int32_t v = static_cast<int32_t>((*values)[i]);
      std::memcpy(bytes.data() + 4 * i, &v, 4);
    } else {
      std::memcpy(bytes.data() + 8 * i, &(*values)[i], 8);
    }
  }
  return bytes;
}

size_t gdnWorkspaceLayout(const GdnSequence &seq,
                          std::vector<size_t> &offsets) {
  offsets.clear();
  size_t end = 0;
  for (const GdnWorkspace &ws : seq.workspaces) {
    size_t at = (end + kGdnWorkspaceAlign - 1) / kGdnWorkspaceAlign *
                kGdnWorkspaceAlign;
    offsets.push_back(at);
    end = at + std::max<size_t>(ws.bytes(), 16);
  }
  return end;
}

Status bindGdnStage(const CudaDriver &driver, const GdnStage &stage,
                    const ExprVariables &scalars, double scale, double cpTheta,
                    const GdnTensorPointers &tensors,
                    const std::vector<CUdeviceptr> &workspaces,
                    KernelArgs &args, bool verbose) {
  bindGdnScalars(stage, scalars, scale, cpTheta, args);
  for (size_t j = 0; j < stage.args.size(); ++j) {
    const GdnArg &arg = stage.args[j];
    if (arg.kind == GdnArg::Tensor)
      args.setPointer(j, tensors[arg.index]);
    else if (arg.kind == GdnArg::Workspace)
      args.setPointer(j, workspaces[arg.index]);
  }
  Status s = args.bindTensorMaps(driver, scalars, verbose);
  if (!s.ok())
    return Status(s.code(), "stage '" + stage.name + "': " + s.message());
  return Status::success();
}

} // namespace gdn::run
