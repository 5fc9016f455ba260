//===- GridExpr.h - integer expressions of launch grids ---------*- C++ -*-===//
//
// Kernels of a multi-kernel operator (meta.op = gdn_prefill) state their
// launch grid and workspace sizes as integer expressions over named problem
// scalars, e.g.
//
//   meta.grid = cdiv(NT, 2), HV, 1
//   meta.ws_A = B*T*HV*64
//
// Grammar (whitespace is insignificant):
//
//   expr    := term (('+' | '-') term)*
//   term    := unary (('*' | '/') unary)*
//   unary   := '-' unary | primary
//   primary := INTEGER | NAME | ('cdiv' | 'min') '(' expr ',' expr ')'
//            | '(' expr ')'
//
// Arithmetic is on int64: '/' is floor division (rounds toward negative
// infinity, like Python's //), cdiv(a, b) is ceiling division, min(a, b)
// the smaller (a grid dimension's hardware limit: min(NT, 65535)). Division by
// zero, overflow, unknown names and syntax errors are reported as BadInput
// with a message that quotes the expression and the offending position.
// Nesting (parentheses, cdiv, min, unary minus) is limited to kMaxExprDepth
// levels, so that a hostile manifest cannot overflow the evaluator's stack.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_TOOLS_GDN_RUN_GRIDEXPR_H
#define GDN_TOOLS_GDN_RUN_GRIDEXPR_H

#include "Status.h"

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gdn::run {

/// Values of the names an expression may use.
using ExprVariables = std::map<std::string, int64_t>;

/// The deepest nesting of parentheses, cdiv(), min() and unary minus accepted.
constexpr int kMaxExprDepth = 64;

/// Evaluates one expression. On error returns BadInput with a message of the
/// form "in 'TEXT': PROBLEM (at column C)" (columns count from 1).
Status evaluateIntExpr(const std::string &text, const ExprVariables &vars,
                       int64_t &out);

/// Checks the syntax of one expression without evaluating it: any name is
/// accepted and arithmetic errors (overflow, division by zero) are not
/// reported. Used at manifest parse time, before the names have values.
Status checkIntExprSyntax(const std::string &text);

/// Splits a comma-separated list of expressions ("K, cdiv(M, 2)": commas
/// inside parentheses do not separate); every item is trimmed. An empty
/// text gives one empty item.
std::vector<std::string> splitExprList(const std::string &text);

/// Evaluates a comma-separated list of expressions into `out` (one value
/// per item). BadInput naming the item on a malformed one.
Status evaluateExprList(const std::string &text, const ExprVariables &vars,
                        std::vector<int64_t> &out);

/// Evaluates three comma-separated expressions ("x, y, z"; commas inside
/// cdiv(...) do not separate). BadInput when there are not exactly three or
/// one of them is malformed.
Status evaluateExprTriple(const std::string &text, const ExprVariables &vars,
                          std::array<int64_t, 3> &out);

/// Floor and ceiling division of int64 (b != 0; the caller checks).
int64_t floorDiv(int64_t a, int64_t b);
int64_t ceilDivSigned(int64_t a, int64_t b);

} // namespace gdn::run

#endif // GDN_TOOLS_GDN_RUN_GRIDEXPR_H
