// The hardware checks of the triangular inverse (kernels/checks/
// tril_inverse.mlir, run by test/GPU/tril-inverse.test) reach every form of
// tile-expand-tril-inverse: one column per thread (16, 24), the diagonal
// phase with its size-16 merge alone (32), levels (48), merges up to size
// 32 (64; lower_only), packed levels (64) and merges up to size 64 (128).
//
// RUN: gdn-opt %gdn_kernels/checks/tril_inverse.mlir --pass-pipeline='builtin.module(func.func(tile-expand-tril-inverse))' | FileCheck %s
// RUN: rm -rf %t && mkdir -p %t
// RUN: gdn-opt %gdn_kernels/checks/tril_inverse.mlir --gdn-lower-to-ptx="output-dir=%t" -o /dev/null
// RUN: cat %t/tril_inverse_n128.manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: cat %t/tril_inverse_n64_lower_only_regs.manifest | FileCheck %s --check-prefix=REGS
// RUN: rm -rf %t.o && mkdir -p %t.o
// RUN: gdn-opt %gdn_kernels/checks/tril_inverse.mlir --gdn-lower-to-ptx="tril-overlap=1 kernel-suffix=_overlap output-dir=%t.o" -o /dev/null
// RUN: cat %t.o/tril_inverse_n64_lower_only_regs_overlap.manifest | FileCheck %s --check-prefix=OVER64
// RUN: cat %t.o/tril_inverse_n128_regs_overlap.manifest | FileCheck %s --check-prefix=OVER128
// RUN: cat %t.o/tril_inverse_n64_lower_only_overlap.manifest | FileCheck %s --check-prefix=GLOBAL64
// RUN: rm -rf %t.o4 && mkdir -p %t.o4
// RUN: gdn-opt %gdn_kernels/checks/tril_inverse.mlir --gdn-lower-to-ptx="tril-overlap=2 kernel-suffix=_overlap4 output-dir=%t.o4" -o /dev/null
// RUN: cat %t.o4/tril_inverse_n64_lower_only_regs_overlap4.manifest | FileCheck %s --check-prefix=OVER4
// RUN: gdn-opt %gdn_kernels/checks/tril_inverse.mlir --pass-pipeline='builtin.module(func.func(tile-expand-tril-inverse,tile-assign-layouts{overlap-tril-inverse=1},tile-plan-shared-memory))' | FileCheck %s --check-prefix=PLAN

// CHECK-LABEL: func.func @tril_inverse_n16
// CHECK:       tile.tril_inverse %
// CHECK-LABEL: func.func @tril_inverse_n24
// CHECK:       tile.tril_inverse %
// CHECK-LABEL: func.func @tril_inverse_n32
// CHECK:       tile.tril_inverse_diag {{.*}} {merge_pairs}
// CHECK-NOT:   tile.tril_inverse_merge
// CHECK-LABEL: func.func @tril_inverse_n48
// CHECK:       tile.tril_inverse_diag %{{.*}}, %{{.*}} : !tile.buffer<48x48xf32
// CHECK-NEXT:  tile.tril_inverse_level {{.*}} {level = 1 : i64}
// CHECK-NEXT:  tile.tril_inverse_level {{.*}} {level = 2 : i64}
// CHECK-LABEL: func.func @tril_inverse_n64
// CHECK:       tile.tril_inverse_diag {{.*}} {merge_pairs}
// CHECK-NEXT:  tile.tril_inverse_merge {{.*}} {size = 32 : i64}
// CHECK-LABEL: func.func @tril_inverse_n64_lower_only
// CHECK:       tile.tril_inverse_diag {{.*}} {lower_only, merge_pairs}
// CHECK-NEXT:  tile.tril_inverse_merge {{.*}} {size = 32 : i64}
// CHECK-LABEL: func.func @tril_inverse_n64_packed
// CHECK:       tile.tril_inverse_diag {{.*}} {packed}
// CHECK-NEXT:  tile.tril_inverse_level {{.*}} {level = 1 : i64, packed}
// CHECK-NEXT:  tile.tril_inverse_level {{.*}} {level = 2 : i64, packed}
// CHECK-NEXT:  tile.tril_inverse_level {{.*}} {level = 3 : i64, packed}
// CHECK-LABEL: func.func @tril_inverse_n128
// CHECK:       tile.tril_inverse_diag {{.*}} {merge_pairs}
// CHECK-NEXT:  tile.tril_inverse_merge {{.*}} {size = 32 : i64}
// CHECK-NEXT:  tile.tril_inverse_merge {{.*}} {size = 64 : i64}

// The 128x128 check: the checks' parameters and n, 128 threads, L and T
// in shared memory (two 64 KiB matrices, L's rows padded by 4 words, T's by
// 8 and 4 more after every fourth row).
// MANIFEST:      kernel = tril_inverse_n128
// MANIFEST:      block = 128,1,1
// MANIFEST:      shared_bytes = 135808
// MANIFEST:      param = L:ptr<f32>
// MANIFEST-NEXT: param = T:ptr<f32>
// MANIFEST-NEXT: param = count:i32
// MANIFEST:      meta.n = 128
// MANIFEST:      meta.op = tril_inverse

// L stored from registers (the _regs kernels): L padded by 4 words (68-word
// rows, 17,408 bytes), T by 8 and the skew (65 rows of 72 words, 18,720),
// side by side: 36,224 bytes. With tril-overlap=1 both take T's layout
// and T lies 32 rows (9,344 bytes) before L: 9,344 + 18,720 = 28,064.
// At n = 128 (rows of 136 words): 64 rows are 35,072 bytes, a buffer
// 70,176, 105,248 in all (137,856 without). L loaded straight from global
// memory keeps its plain rows, so the two layouts differ and nothing
// overlaps (35,200 bytes, as in the default build).
// With tril-overlap=2 both keep rows of 68 words: 8,704 + 17,408.
// REGS:     shared_bytes = 36224
// OVER4:    shared_bytes = 26112
// OVER64:   shared_bytes = 28064
// OVER128:  shared_bytes = 105248
// GLOBAL64: shared_bytes = 35200
// PLAN-LABEL: func.func @tril_inverse_n64_lower_only_regs
// PLAN:       tile.alloc {offset = 9344 : i64} : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
// PLAN:       tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
// PLAN-NEXT:  tile.tril_inverse_diag {{.*}} {lower_only, merge_pairs}
