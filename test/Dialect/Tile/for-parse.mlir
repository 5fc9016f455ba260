// RUN: gdn-opt %s -split-input-file -verify-diagnostics

// tile.for resolves its bounds after parsing its body: a bound named after
// a value of the body used to be a forward reference that the body's
// definition freed (a segfault); it is now out of scope.

func.func @bound_defined_in_body() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{use of undeclared SSA value name}}
  tile.for %i = %c0 to %u step %c1 stages 1 {
    %u = arith.constant 4 : index
  }
  return
}

// -----

func.func @step_defined_in_body() {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  // expected-error @below {{use of undeclared SSA value name}}
  tile.for %i = %c0 to %c8 step %s stages 2 {
    %s = arith.addi %i, %i : index
  }
  return
}

// -----

func.func @bound_is_induction_variable() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{use of undeclared SSA value name}}
  tile.for %i = %c0 to %i step %c1 stages 1 {
  }
  return
}

// -----

// A bound defined after the loop is a forward reference that dominance
// rejects.
func.func @bound_defined_after() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{operand #1 does not dominate this use}}
  tile.for %i = %c0 to %u step %c1 stages 1 {
  }
  // expected-note @below {{operand defined here}}
  %u = arith.constant 4 : index
  return
}
