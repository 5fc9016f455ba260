//===- Passes.td - PTX emission -----------------------------*- tablegen -*-===//

#ifndef GDN_TARGET_PTX_PASSES_TD
#define GDN_TARGET_PTX_PASSES_TD

include "mlir/Pass/PassBase.td"

def GdnExportPTX : Pass<"gdn-export-ptx", "::mlir::ModuleOp"> {
  let summary = "write PTX files and launch manifests (ahead-of-time emission)";
  let description = [{
    For every `gpu.binary` holding PTX (`gpu-module-to-binary{format=isa}`),
    writes `<output-dir>/<binary>.ptx`; for every kernel recorded in the
    module's `gdn.kernels` attribute by `convert-tile-to-nvvm`, writes
    `<output-dir>/<kernel>.manifest`, the launch manifest `gdn-run` reads:

    ```
    gdn_manifest = 1
    kernel = gemm_f16
    ptx = gemm.ptx
    target = sm_90a
    block = 128,1,1
    shared_bytes = 98304
    param = A:ptr<f16>
    ...
    meta.op = gemm
    ```

    The IR is left unchanged.
  }];
  let options = [
    Option<"outputDir", "output-dir", "std::string", "\"\"",
           "Directory for the .ptx and .manifest files (must exist)">
  ];
  let statistics = [
    Statistic<"numPtx", "ptx-files", "PTX files written">,
    Statistic<"numManifests", "manifests", "Launch manifests written">
  ];
}

#endif // GDN_TARGET_PTX_PASSES_TD
