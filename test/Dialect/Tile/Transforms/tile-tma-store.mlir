// RUN: gdn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-tma-store))' -verify-diagnostics | FileCheck %s

// tile.copy_engine = "tma": a copy of a whole shared buffer to a global
// view becomes one TMA store by one thread; the kernel gains the tensor map
// (the tensor before tile.take, the narrow start added to the row); the
// issuing thread waits for the store's read of the buffer before the next
// iteration writes it, and once more after the loop.

// CHECK-LABEL: func.func @loop_store
// CHECK-SAME:    %[[MAP:[^:]*]]: !tile.tensormap<64x1x64xf16, swizzle = 128> {tile.name = "o_tma", tile.tensor_map = {base = "o", dims = ["T", "HV", "128"], strides = ["(HV)*(128)", "128"]}}
// CHECK:       %[[SO:.*]] = tile.alloc : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>
// CHECK:       scf.for %[[I:.*]] =
// CHECK:         %[[T0:.*]] = arith.muli %[[I]], %{{.*}} : index
// CHECK-NEXT:    tile.producer {
// CHECK-NEXT:      tile.tma_store_wait {read}
// CHECK-NEXT:    }
// CHECK-NEXT:    tile.copy %{{.*}} to %[[SO]] :
// CHECK-NEXT:    %[[ROW:.*]] = arith.addi %[[BOS:.*]], %[[T0]] : index
// CHECK-NEXT:    tile.producer {
// CHECK-NEXT:      tile.tma_store %[[SO]] to %[[MAP]][%[[ROW]], %[[HV:.*]], %{{.*}}] : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>, !tile.tensormap<64x1x64xf16, swizzle = 128>
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NEXT:  tile.producer {
// CHECK-NEXT:    tile.tma_store_wait {read}
// CHECK-NEXT:  }
// CHECK-NEXT:  return
// CHECK-NOT:   tile.copy %[[SO]] to
func.func @loop_store(%po: !tile.ptr<f16> {tile.name = "o"}, %T: i32 {tile.name = "T"},
                      %HV: i32 {tile.name = "HV"}, %hv: index, %bos: index, %len: index, %n: index)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %t = arith.index_cast %T : i32 to index
  %hvs = arith.index_cast %HV : i32 to index
  %O = tile.view %po[%t, %hvs] : !tile.ptr<f16> -> !tile.buffer<?x?x128xf16, global>
  %Oh = tile.take %O[%hv] dims [1] : !tile.buffer<?x?x128xf16, global> -> !tile.buffer<?x128xf16, global>
  %Os = tile.narrow %Oh[%bos, %len] dim 0 : !tile.buffer<?x128xf16, global> -> !tile.buffer<?x128xf16, global>
  %sO = tile.alloc : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>
  %acc = tile.alloc : !tile.buffer<64x128xf32, fragment>
  tile.fill %acc, %zero : !tile.buffer<64x128xf32, fragment>, f32
  scf.for %i = %c0 to %n step %c1 {
    %t0 = arith.muli %i, %c64 : index
    tile.copy %acc to %sO : !tile.buffer<64x128xf32, fragment> to !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>
    tile.copy %sO to %Os[%t0, %c0] : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>> to !tile.buffer<?x128xf16, global>
  }
  return
}

// -----

// A store at the top level waits right after it (which also orders the
// next write of the buffer); a second store of the
// same tensor and box reuses the tensor map (here one an earlier pass
// added, found by its recipe), an unswizzled tile is one box.

// CHECK-LABEL: func.func @top_level
// CHECK-SAME:    %[[MAP:[^:]*]]: !tile.tensormap<32x64xf32, swizzle = 0> {tile.name = "C_tma", tile.tensor_map = {base = "C", dims = ["M", "64"], strides = ["64"]}})
// CHECK-NOT:   tile.tensormap
// CHECK:       tile.producer {
// CHECK-NEXT:    tile.tma_store %[[SC:.*]] to %[[MAP]][%{{.*}}, %{{.*}}] : !tile.buffer<32x64xf32, shared>, !tile.tensormap<32x64xf32, swizzle = 0>
// CHECK-NEXT:  }
// CHECK-NEXT:  tile.producer {
// CHECK-NEXT:    tile.tma_store_wait {read}
// CHECK-NEXT:  }
// CHECK-NEXT:  tile.copy %{{.*}} to %[[SC]] :
// CHECK-NEXT:  tile.producer {
// CHECK-NEXT:    tile.tma_store %[[SC]] to %[[MAP]]
// CHECK-NEXT:  }
// CHECK-NEXT:  tile.producer {
// CHECK-NEXT:    tile.tma_store_wait {read}
// CHECK-NEXT:  }
// CHECK-NEXT:  return
func.func @top_level(%pc: !tile.ptr<f32> {tile.name = "C"}, %M: i32 {tile.name = "M"}, %bm: index,
                     %map: !tile.tensormap<32x64xf32, swizzle = 0> {tile.name = "C_tma", tile.tensor_map = {base = "C", dims = ["M", "64"], strides = ["64"]}})
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma"} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %one = arith.constant 1.0 : f32
  %m = arith.index_cast %M : i32 to index
  %C = tile.view %pc[%m] : !tile.ptr<f32> -> !tile.buffer<?x64xf32, global>
  %sC = tile.alloc : !tile.buffer<32x64xf32, shared>
  %acc = tile.alloc : !tile.buffer<32x64xf32, fragment>
  tile.fill %acc, %one : !tile.buffer<32x64xf32, fragment>, f32
  %m0 = arith.muli %bm, %c32 : index
  tile.copy %sC to %C[%m0, %c0] : !tile.buffer<32x64xf32, shared> to !tile.buffer<?x64xf32, global>
  tile.copy %acc to %sC : !tile.buffer<32x64xf32, fragment> to !tile.buffer<32x64xf32, shared>
  tile.copy %sC to %C[%m0, %c0] : !tile.buffer<32x64xf32, shared> to !tile.buffer<?x64xf32, global>
  return
}

// -----

// Copies TMA cannot do stay per-thread copies, with the reason.

func.func @not_tma(%po: !tile.ptr<f16> {tile.name = "o"}, %T: i32 {tile.name = "T"}, %r: index, %c: index)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma"} {
  %c0 = arith.constant 0 : index
  %t = arith.index_cast %T : i32 to index
  %O = tile.view %po[%t] : !tile.ptr<f16> -> !tile.buffer<?x128xf16, global>
  %sO = tile.alloc : !tile.buffer<64x128xf16, shared>
  %sW = tile.alloc : !tile.buffer<64x64xf16, shared>
  // expected-remark @below {{stored per thread instead of with TMA: a masked store (a TMA box is stored whole)}}
  tile.copy %sO to %O[%r, %c0] {masked} : !tile.buffer<64x128xf16, shared> to !tile.buffer<?x128xf16, global>
  // expected-remark @below {{stored per thread instead of with TMA: the innermost coordinate is not provably a multiple of 8 elements (16 bytes)}}
  tile.copy %sW to %O[%r, %c] : !tile.buffer<64x64xf16, shared> to !tile.buffer<?x128xf16, global>
  return
}

// -----

// The slice of a multi-buffer is not a whole buffer.

func.func @slice_source(%po: !tile.ptr<f16> {tile.name = "o"}, %T: i32 {tile.name = "T"}, %r: index)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma"} {
  %c0 = arith.constant 0 : index
  %t = arith.index_cast %T : i32 to index
  %O = tile.view %po[%t] : !tile.ptr<f16> -> !tile.buffer<?x64xf16, global>
  %s2 = tile.alloc : !tile.buffer<2x64x64xf16, shared>
  %half = tile.slice %s2[%c0] : !tile.buffer<2x64x64xf16, shared> -> !tile.buffer<64x64xf16, shared>
  // expected-remark @below {{stored per thread instead of with TMA: the source is not a whole shared buffer (a tile.alloc)}}
  tile.copy %half to %O[%r, %c0] : !tile.buffer<64x64xf16, shared> to !tile.buffer<?x64xf16, global>
  return
}

// -----

// Without tile.copy_engine = "tma" nothing changes.

// CHECK-LABEL: func.func @no_tma
// CHECK-NOT:   tile.producer
// CHECK:       tile.copy %{{.*}} to %{{.*}}[%{{.*}}, %{{.*}}] : !tile.buffer<64x128xf16, shared> to !tile.buffer<?x128xf16, global>
func.func @no_tma(%po: !tile.ptr<f16> {tile.name = "o"}, %T: i32 {tile.name = "T"}, %r: index)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %t = arith.index_cast %T : i32 to index
  %O = tile.view %po[%t] : !tile.ptr<f16> -> !tile.buffer<?x128xf16, global>
  %sO = tile.alloc : !tile.buffer<64x128xf16, shared>
  tile.copy %sO to %O[%r, %c0] : !tile.buffer<64x128xf16, shared> to !tile.buffer<?x128xf16, global>
  return
}

// -----

// After tile-pipeline: a tile loaded by TMA and stored back to the same
// tensor with the same box shares one tensor map (the one tile-pipeline
// added, found again by its recipe).

// RUN: gdn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-pipeline,tile-tma-store))' 2>&1 | FileCheck %s --check-prefix=SHARED
// SHARED-LABEL: func.func @load_then_store
// SHARED-SAME:    %[[MAP:[^:]*]]: !tile.tensormap<64x64xf16, swizzle = 128> {tile.name = "X_tma", tile.tensor_map = {base = "X", dims = ["T", "64"], strides = ["64"]}})
// SHARED-NOT:   tile.tensormap
// SHARED:       tile.tma_load %[[MAP]]
// SHARED:       tile.tma_store %{{.*}} to %[[MAP]]
func.func @load_then_store(%px: !tile.ptr<f16> {tile.name = "X"}, %T: i32 {tile.name = "T"})
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma"} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %t = arith.index_cast %T : i32 to index
  %X = tile.view %px[%t] : !tile.ptr<f16> -> !tile.buffer<?x64xf16, global>
  %sIn = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %sOut = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.for %r = %c0 to %t step %c64 stages 2 {
    tile.copy %X[%r, %c0] to %sIn : !tile.buffer<?x64xf16, global> to !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
    tile.copy %sIn to %acc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>> to !tile.buffer<64x64xf32, fragment>
    tile.copy %acc to %sOut : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
    tile.copy %sOut to %X[%r, %c0] : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>> to !tile.buffer<?x64xf16, global>
  }
  return
}

// -----

// A copy inside a tile.producer region (one thread's) stays as written.

func.func @in_producer(%po: !tile.ptr<f16> {tile.name = "o"}, %T: i32 {tile.name = "T"}, %r: index)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma"} {
  %c0 = arith.constant 0 : index
  %t = arith.index_cast %T : i32 to index
  %O = tile.view %po[%t] : !tile.ptr<f16> -> !tile.buffer<?x64xf16, global>
  %sO = tile.alloc : !tile.buffer<64x64xf16, shared>
  tile.producer {
    // expected-remark @below {{stored per thread instead of with TMA: the copy is one thread's already (inside a tile.producer)}}
    tile.copy %sO to %O[%r, %c0] : !tile.buffer<64x64xf16, shared> to !tile.buffer<?x64xf16, global>
  }
  return
}

// -----

// Two buffers stored in one loop: one wait before each buffer's write, one
// after the loop (a wait covers every store of the thread before it).

// CHECK-LABEL: func.func @two_stores
// CHECK:       scf.for
// CHECK:         tile.producer {
// CHECK-NEXT:      tile.tma_store_wait {read}
// CHECK-NEXT:    }
// CHECK-NEXT:    tile.copy %{{.*}} to %[[SA:.*]] :
// CHECK-NEXT:    tile.producer {
// CHECK-NEXT:      tile.tma_store_wait {read}
// CHECK-NEXT:    }
// CHECK-NEXT:    tile.copy %{{.*}} to %[[SB:.*]] :
// CHECK-NEXT:    tile.producer {
// CHECK-NEXT:      tile.tma_store %[[SA]]
// CHECK-NEXT:    }
// CHECK-NEXT:    tile.producer {
// CHECK-NEXT:      tile.tma_store %[[SB]]
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NEXT:  tile.producer {
// CHECK-NEXT:    tile.tma_store_wait {read}
// CHECK-NEXT:  }
// CHECK-NEXT:  return
func.func @two_stores(%pa: !tile.ptr<f16> {tile.name = "A"}, %pb: !tile.ptr<f16> {tile.name = "B"},
                      %T: i32 {tile.name = "T"}, %n: index)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1.0 : f32
  %t = arith.index_cast %T : i32 to index
  %A = tile.view %pa[%t] : !tile.ptr<f16> -> !tile.buffer<?x64xf16, global>
  %B = tile.view %pb[%t] : !tile.ptr<f16> -> !tile.buffer<?x64xf16, global>
  %sA = tile.alloc : !tile.buffer<64x64xf16, shared>
  %sB = tile.alloc : !tile.buffer<64x64xf16, shared>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.fill %acc, %one : !tile.buffer<64x64xf32, fragment>, f32
  scf.for %i = %c0 to %n step %c1 {
    %r = arith.muli %i, %c64 : index
    tile.copy %acc to %sA : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64x64xf16, shared>
    tile.copy %acc to %sB : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64x64xf16, shared>
    tile.copy %sA to %A[%r, %c0] : !tile.buffer<64x64xf16, shared> to !tile.buffer<?x64xf16, global>
    tile.copy %sB to %B[%r, %c0] : !tile.buffer<64x64xf16, shared> to !tile.buffer<?x64xf16, global>
  }
  return
}

// -----

// A block barrier that runs before the next iteration's write on every path
// (here in the loop body, before the write's scf.if) takes the read wait in
// front of it, as a plain wait of every thread (no branch to the storing
// thread; the others have no store groups): that barrier then also orders
// the buffer's reuse, and the write needs no barrier of its own.

// CHECK-LABEL: func.func @wait_at_barrier
// CHECK:       %[[SO:.*]] = tile.alloc : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>
// CHECK:       scf.for
// CHECK:         tile.fill
// CHECK-NEXT:    tile.tma_store_wait {read}
// CHECK-NEXT:    tile.barrier
// CHECK-NEXT:    scf.if
// CHECK-NEXT:      tile.copy %{{.*}} to %[[SO]] :
// CHECK-NEXT:      arith.addi
// CHECK-NEXT:      tile.producer {
// CHECK-NEXT:        tile.tma_store %[[SO]]
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NEXT:  tile.producer {
// CHECK-NEXT:    tile.tma_store_wait {read}
// CHECK-NEXT:  }
// CHECK-NEXT:  return
func.func @wait_at_barrier(%po: !tile.ptr<f16> {tile.name = "o"}, %T: i32 {tile.name = "T"},
                           %HV: i32 {tile.name = "HV"}, %hv: index, %bos: index, %len: index, %n: index, %full: i1)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %t = arith.index_cast %T : i32 to index
  %hvs = arith.index_cast %HV : i32 to index
  %O = tile.view %po[%t, %hvs] : !tile.ptr<f16> -> !tile.buffer<?x?x128xf16, global>
  %Oh = tile.take %O[%hv] dims [1] : !tile.buffer<?x?x128xf16, global> -> !tile.buffer<?x128xf16, global>
  %Os = tile.narrow %Oh[%bos, %len] dim 0 : !tile.buffer<?x128xf16, global> -> !tile.buffer<?x128xf16, global>
  %sO = tile.alloc : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>
  %acc = tile.alloc : !tile.buffer<64x128xf32, fragment>
  scf.for %i = %c0 to %n step %c1 {
    %t0 = arith.muli %i, %c64 : index
    tile.fill %acc, %zero : !tile.buffer<64x128xf32, fragment>, f32
    tile.barrier
    scf.if %full {
      tile.copy %acc to %sO : !tile.buffer<64x128xf32, fragment> to !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>
      tile.copy %sO to %Os[%t0, %c0] : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>> to !tile.buffer<?x128xf16, global>
    }
  }
  return
}

// -----

// Not before a barrier outside the loop or in another op's region, nor a
// named one (it syncs only some threads), nor before one that a store of
// the buffer follows before the write (the wait must come after the
// store): then right before the write, by the storing thread.

// CHECK-LABEL: func.func @wait_at_write
// CHECK:       tile.barrier
// CHECK-NEXT:  scf.for
// CHECK-NEXT:    scf.if
// CHECK-NEXT:      tile.barrier
// CHECK-NEXT:    }
// CHECK-NEXT:    tile.barrier {id = 1 : i64, threads = 128 : i64}
// CHECK-NEXT:    tile.producer {
// CHECK-NEXT:      tile.tma_store_wait {read}
// CHECK-NEXT:    }
// CHECK-NEXT:    tile.copy %{{.*}} to %[[SA:.*]] :
// CHECK-NEXT:    tile.producer {
// CHECK-NEXT:      tile.tma_store %[[SA]]
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NEXT:  tile.producer {
// CHECK-NEXT:    tile.tma_store_wait {read}
// CHECK-NEXT:  }
// CHECK-NEXT:  scf.for
// CHECK-NEXT:    tile.tma_store_wait {read}
// CHECK-NEXT:    tile.barrier
// CHECK-NEXT:    tile.copy %{{.*}} to %[[SB:.*]] :
// CHECK-NEXT:    tile.producer {
// CHECK-NEXT:      tile.tma_store %[[SB]]
// CHECK-NEXT:    }
// CHECK-NEXT:    tile.producer {
// CHECK-NEXT:      tile.tma_store_wait {read}
// CHECK-NEXT:    }
// CHECK-NEXT:    tile.copy %{{.*}} to %[[SB]] :
// CHECK-NEXT:    tile.producer {
// CHECK-NEXT:      tile.tma_store %[[SB]]
// CHECK-NEXT:    }
// CHECK-NEXT:  }
func.func @wait_at_write(%po: !tile.ptr<f16> {tile.name = "o"}, %T: i32 {tile.name = "T"}, %n: index, %c: i1)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %t = arith.index_cast %T : i32 to index
  %O = tile.view %po[%t] : !tile.ptr<f16> -> !tile.buffer<?x64xf16, global>
  %sA = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %sB = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.fill %acc, %zero : !tile.buffer<64x64xf32, fragment>, f32
  tile.barrier
  scf.for %i = %c0 to %n step %c1 {
    scf.if %c {
      tile.barrier
    }
    tile.barrier {id = 1, threads = 128}
    tile.copy %acc to %sA : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
    tile.copy %sA to %O[%i, %c0] : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>> to !tile.buffer<?x64xf16, global>
  }
  scf.for %i = %c0 to %n step %c1 {
    tile.barrier
    tile.copy %acc to %sB : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
    tile.copy %sB to %O[%i, %c0] : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>> to !tile.buffer<?x64xf16, global>
    tile.copy %acc to %sB : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
    tile.copy %sB to %O[%i, %c0] : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>> to !tile.buffer<?x64xf16, global>
  }
  return
}

// -----

// Nested branches: the writes in either branch of the inner scf.if reach
// the loop body's barrier (the store in the then branch never runs before
// the write in the else branch); the write after the inner scf.if follows
// that store on one path, so it waits right before itself.

// CHECK-LABEL: func.func @wait_in_branches
// CHECK:       scf.for
// CHECK-NEXT:    tile.tma_store_wait {read}
// CHECK-NEXT:    tile.barrier
// CHECK-NEXT:    scf.if
// CHECK-NEXT:      scf.if
// CHECK-NEXT:        tile.copy %{{.*}} to %[[S:[^ ]*]] :
// CHECK-NEXT:        tile.producer {
// CHECK-NEXT:          tile.tma_store %[[S]]
// CHECK-NEXT:        }
// CHECK-NEXT:      } else {
// CHECK-NEXT:        tile.copy %{{.*}} to %[[S]] :
// CHECK-NEXT:      }
// CHECK-NEXT:      tile.producer {
// CHECK-NEXT:        tile.tma_store_wait {read}
// CHECK-NEXT:      }
// CHECK-NEXT:      tile.copy %{{.*}} to %[[S]] :
// CHECK-NEXT:    }
// CHECK-NEXT:  }
func.func @wait_in_branches(%po: !tile.ptr<f16> {tile.name = "o"}, %T: i32 {tile.name = "T"}, %n: index, %c: i1, %d: i1)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %t = arith.index_cast %T : i32 to index
  %O = tile.view %po[%t] : !tile.ptr<f16> -> !tile.buffer<?x64xf16, global>
  %sO = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.fill %acc, %zero : !tile.buffer<64x64xf32, fragment>, f32
  scf.for %i = %c0 to %n step %c1 {
    tile.barrier
    scf.if %c {
      scf.if %d {
        tile.copy %acc to %sO : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
        tile.copy %sO to %O[%i, %c0] : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>> to !tile.buffer<?x64xf16, global>
      } else {
        tile.copy %acc to %sO : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
      }
      tile.copy %acc to %sO : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
    }
  }
  return
}

// -----

// A producer task's copies to global memory stay per-thread copies (TMA
// stores are issued by one consumer thread and waited for by it).
// CHECK-LABEL: func.func @task_store
// CHECK-NOT:     tile.tma_store
// CHECK:         tile.producer_task warps 4 {
// CHECK-NEXT:      tile.alloc
// CHECK-NEXT:      tile.copy %{{.*}} to %{{.*}}[%{{.*}}, %{{.*}}] : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>> to !tile.buffer<?x128xf16, global>
// CHECK-NOT:     tile.tma_store
func.func @task_store(%po: !tile.ptr<f16> {tile.name = "o"}, %T: i32 {tile.name = "T"})
    attributes {tile.kernel, tile.num_warps = 8 : i64, tile.copy_engine = "tma",
                tile.warp_specialize = {producer_registers = 72 : i64, consumer_registers = 216 : i64}} {
  %c0 = arith.constant 0 : index
  %t = arith.index_cast %T : i32 to index
  %O = tile.view %po[%t] : !tile.ptr<f16> -> !tile.buffer<?x128xf16, global>
  tile.producer_task warps 4 {
    %sO = tile.alloc : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>
    tile.copy %sO to %O[%c0, %c0] : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>> to !tile.buffer<?x128xf16, global>
  }
  return
}

// -----

// A store with an L2 eviction priority still becomes a TMA store, which
// takes no cache hint here: the pass says that it drops it.

// CHECK-LABEL: func.func @hinted_store
// CHECK:       tile.producer {
// CHECK-NEXT:    tile.tma_store %{{.*}} to %{{.*}}[%{{.*}}, %{{.*}}] : !tile.buffer<32x64xf32, shared>
// CHECK-NOT:   l2_hint
func.func @hinted_store(%pc: !tile.ptr<f32> {tile.name = "C"}, %M: i32 {tile.name = "M"}, %bm: index)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma"} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %m = arith.index_cast %M : i32 to index
  %C = tile.view %pc[%m] : !tile.ptr<f32> -> !tile.buffer<?x64xf32, global>
  %r = arith.muli %bm, %c32 : index
  %s = tile.alloc : !tile.buffer<32x64xf32, shared>
  // expected-remark @below {{the TMA store drops the copy's l2_hint}}
  tile.copy %s to %C[%r, %c0] {l2_hint = #tile.l2_hint<evict_first>} : !tile.buffer<32x64xf32, shared> to !tile.buffer<?x64xf32, global>
  return
}
