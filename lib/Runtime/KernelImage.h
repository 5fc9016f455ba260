//===- KernelImage.h - host-side checks of PTX and cubin files --*- C++ -*-===//
//
// Before the device is opened, every module file a manifest names is checked
// on the host, so that a wrong file or a wrong kernel name is bad input
// (exit 2) with a message, not a JIT error or CUDA_ERROR_NOT_FOUND later:
//
//   PTX    text without NUL bytes, a `.version X.Y` directive, a `.target`
//          whose first architecture is the manifest's `target`, and an
//          `.entry NAME` for the manifest's kernel whose parameters are the
//          manifest's `param` lines, one for one (a pointer or i64 a 64-bit
//          integer, i32 a 32-bit one, f32 .f32 or .b32, a tensormap
//          `.align 64 .b8 NAME[128]`): a manifest from another build would
//          bind arguments to the wrong parameters, or make a TMA load wait
//          for bytes its tensor map never brings;
//   cubin  an ELF header (magic, 64-bit little-endian, e_machine EM_CUDA =
//          190) and, when the file has a symbol table, a function symbol
//          named like the kernel (without a symbol table the name is not
//          checked: a note says so). The architecture in e_flags and the
//          parameters (.nv.info) are not read (their layouts changed
//          between CUDA ABI versions).
//
// Once the device is known, checkTargetForDevice() tells whether the
// manifest's target can run on its compute capability.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_TOOLS_GDN_RUN_KERNELIMAGE_H
#define GDN_TOOLS_GDN_RUN_KERNELIMAGE_H

#include "Manifest.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gdn::run {

/// True when `image` starts with the ELF magic (a cubin).
bool isElfImage(const std::string &image);

/// The `.entry` names of a PTX text, in order.
std::vector<std::string> ptxEntryNames(const std::string &ptx);

/// One `.param` declaration of a PTX entry.
struct PtxParam {
  std::string type;   ///< ".u64", ".f32", ".b8", ...; empty if unreadable
  uint64_t align = 0; ///< `.align N`, 0 when not given
  uint64_t count = 0; ///< the array length of `NAME[N]`, 0 for a scalar
  std::string text;   ///< the declaration, whitespace collapsed
  /// Its size in bytes (an array's elements times the type's width).
  size_t bytes() const;
};

/// The parameters of `.entry kernel` in `ptx`, in order; false when the
/// PTX has no such entry (or no parenthesized parameter list).
bool ptxEntryParams(const std::string &ptx, const std::string &kernel,
                    std::vector<PtxParam> &out);

/// Checks `image` (the contents of manifest.ptxPath) for `manifest`'s
/// kernel; BadInput "PTXPATH: error: ... (named by MANIFEST)" otherwise.
/// `note` receives a remark for the user when a check had to be skipped.
Status validateKernelImage(const Manifest &manifest, const std::string &image,
                           std::string *note = nullptr);

/// Parses a known target ("sm_90a") into its compute capability and
/// suffix ('a', 'f' or 0). False for anything else.
bool parseTarget(const std::string &target, int &major, int &minor,
                 char &suffix);

/// Whether code for `target` runs on a device of compute capability
/// ccMajor.ccMinor: sm_XXa only on exactly X.X; sm_XXf on the same major
/// with minor >= X; plain cubin code on the same major with minor >= X;
/// plain PTX on any device of capability >= X.X (the driver JIT-compiles
/// it). BadInput naming the kernel, the target and the device otherwise.
Status checkTargetForDevice(const Manifest &manifest, bool cubin, int ccMajor,
                            int ccMinor, const std::string &deviceName);

} // namespace gdn::run

#endif // GDN_TOOLS_GDN_RUN_KERNELIMAGE_H
