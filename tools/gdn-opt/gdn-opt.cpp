//===- gdn-opt.cpp - the gdn optimizer driver ------------------------------===//
//
// mlir-opt for gdn: the tile dialect, its passes, the lowering to NVVM and
// the gdn-lower-to-ptx pipeline (which also writes PTX files and launch
// manifests with output-dir=...).
//
//===----------------------------------------------------------------------===//

#include "gdn/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::gdn::registerAllDialects(registry);
  mlir::gdn::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "gdn optimizer driver\n", registry));
}
