//===- GridExprTest.cpp - grid / workspace expression evaluator tests -----===//

#include "GridExpr.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

using namespace gdn::run;

namespace {

const ExprVariables kVars = {{"B", 2}, {"T", 4097}, {"H", 16}, {"HV", 32},
                             {"NT", 130}, {"N", 2}, {"zero", 0}};

int64_t eval(const std::string &text) {
  int64_t v = -12345;
  Status s = evaluateIntExpr(text, kVars, v);
  EXPECT_TRUE(s.ok()) << text << ": " << s.message();
  return v;
}

std::string evalError(const std::string &text) {
  int64_t v = 0;
  Status s = evaluateIntExpr(text, kVars, v);
  EXPECT_EQ(s.code(), ExitCode::BadInput) << text << " evaluated to " << v;
  return s.message();
}

} // namespace

TEST(GridExprTest, LiteralsAndNames) {
  EXPECT_EQ(eval("0"), 0);
  EXPECT_EQ(eval("42"), 42);
  EXPECT_EQ(eval("  7 "), 7);
  EXPECT_EQ(eval("HV"), 32);
  EXPECT_EQ(eval("NT"), 130);
  EXPECT_EQ(eval("9223372036854775807"), INT64_MAX);
}

TEST(GridExprTest, Precedence) {
  EXPECT_EQ(eval("2+3*4"), 14);
  EXPECT_EQ(eval("(2+3)*4"), 20);
  EXPECT_EQ(eval("10-4-3"), 3);       // left associative
  EXPECT_EQ(eval("100/10/5"), 2);     // left associative
  EXPECT_EQ(eval("2*3+4*5"), 26);
  EXPECT_EQ(eval("2*(3+4)*5"), 70);
  EXPECT_EQ(eval("B*T*HV*64"), 2 * 4097 * 32 * 64);
  EXPECT_EQ(eval("-3+5"), 2);
  EXPECT_EQ(eval("-(3+5)"), -8);
  EXPECT_EQ(eval("2*-3"), -6);
  EXPECT_EQ(eval("--4"), 4);
  EXPECT_EQ(eval("((((1))))"), 1);
}

TEST(GridExprTest, DivisionFloorsAndCdivCeils) {
  EXPECT_EQ(eval("7/2"), 3);
  EXPECT_EQ(eval("-7/2"), -4); // floor, not truncation
  EXPECT_EQ(eval("7/-2"), -4);
  EXPECT_EQ(eval("-7/-2"), 3);
  EXPECT_EQ(eval("8/2"), 4);
  EXPECT_EQ(eval("cdiv(7,2)"), 4);
  EXPECT_EQ(eval("cdiv(8, 2)"), 4);
  EXPECT_EQ(eval("cdiv(-7,2)"), -3);
  EXPECT_EQ(eval("cdiv(0,64)"), 0);
  EXPECT_EQ(eval("cdiv(T, 64)"), 65);
  EXPECT_EQ(eval("cdiv(cdiv(T,64), 4) * HV"), 17 * 32);
  EXPECT_EQ(eval("B*cdiv(T,64)+1"), 131);
  EXPECT_EQ(floorDiv(-1, 64), -1);
  EXPECT_EQ(ceilDivSigned(1, 64), 1);
}

TEST(GridExprTest, MinIsTheSmaller) {
  EXPECT_EQ(eval("min(NT, 65535)"), 130);
  EXPECT_EQ(eval("min(65535, NT * 1000)"), 65535);
  EXPECT_EQ(eval("min(-3, 2)"), -3);
  EXPECT_EQ(eval("HV * min(cdiv(T, 64), 4) + 1"), 32 * 4 + 1);
  EXPECT_CONTAINS(evalError("min(1)"), "expected ','");
  EXPECT_CONTAINS(evalError("min(1, foo)"), "unknown name 'foo'");
  EXPECT_CONTAINS(evalError("min(1, foo)"), "the functions cdiv, min");
}

TEST(GridExprTest, Errors) {
  EXPECT_CONTAINS(evalError("T/0"), "division by zero");
  EXPECT_CONTAINS(evalError("T/zero"), "in 'T/zero': division by zero");
  EXPECT_CONTAINS(evalError("cdiv(T, zero)"), "division by zero");
  EXPECT_CONTAINS(evalError("cdiv(T, 1-1)"), "(at column 1)");
  EXPECT_CONTAINS(evalError("NC*2"), "unknown name 'NC'");
  EXPECT_CONTAINS(evalError("NC*2"), "known: B, H, HV, N, NT, T, zero");
  EXPECT_CONTAINS(evalError("2 + foo"), "(at column 5)");
  EXPECT_CONTAINS(evalError(""), "empty expression");
  EXPECT_CONTAINS(evalError("   "), "empty expression");
  EXPECT_CONTAINS(evalError("2 +"), "got the end");
  EXPECT_CONTAINS(evalError("(2"), "expected ')'");
  EXPECT_CONTAINS(evalError("2)"), "unexpected ')'");
  EXPECT_CONTAINS(evalError("2 3"), "unexpected '3'");
  EXPECT_CONTAINS(evalError("cdiv(1)"), "expected ','");
  EXPECT_CONTAINS(evalError("cdiv 1"), "expected '('");
  EXPECT_CONTAINS(evalError("12abc"), "malformed or too large integer");
  EXPECT_CONTAINS(evalError("99999999999999999999"), "too large integer");
  EXPECT_CONTAINS(evalError("9223372036854775807+1"), "integer overflow");
  EXPECT_CONTAINS(evalError("4294967296*4294967296"), "integer overflow");
  EXPECT_CONTAINS(evalError("2 % 3"), "unexpected '%'");
  EXPECT_CONTAINS(evalError("2 ** 3"), "expected a number, a name or '('");
}

TEST(GridExprTest, Triples) {
  std::array<int64_t, 3> g;
  ASSERT_TRUE(evaluateExprTriple("NT, HV, 1", kVars, g).ok());
  EXPECT_EQ(g, (std::array<int64_t, 3>{130, 32, 1}));
  ASSERT_TRUE(evaluateExprTriple("cdiv(T, 64),HV*B,(1)", kVars, g).ok());
  EXPECT_EQ(g, (std::array<int64_t, 3>{65, 64, 1}));
  Status s = evaluateExprTriple("NT, HV", kVars, g);
  EXPECT_CONTAINS(s.message(), "expected three comma-separated expressions");
  EXPECT_CONTAINS(s.message(), "got 2");
  s = evaluateExprTriple("1,2,3,4", kVars, g);
  EXPECT_CONTAINS(s.message(), "got 4");
  s = evaluateExprTriple("1, 2/0, 3", kVars, g);
  EXPECT_CONTAINS(s.message(), "in '2/0': division by zero");
  s = evaluateExprTriple("1, , 3", kVars, g);
  EXPECT_CONTAINS(s.message(), "empty expression");
}

TEST(GridExprTest, NestingDepthIsLimited) {
  // Up to kMaxExprDepth levels evaluate...
  auto nested = [](const std::string &open, const std::string &close,
                   int depth) {
    std::string s;
    for (int i = 0; i < depth; ++i)
      s += open;
    s += "1";
    for (int i = 0; i < depth; ++i)
      s += close;
    return s;
  };
  EXPECT_EQ(eval(nested("(", ")", kMaxExprDepth)), 1);
  EXPECT_EQ(eval(nested("-", "", kMaxExprDepth)), 1);
  EXPECT_EQ(eval(nested("cdiv(", ", 1)", kMaxExprDepth)), 1);
  EXPECT_EQ(eval(nested("(-", ")", kMaxExprDepth / 2)), 1);
  // ...deeper ones are an error, not a stack overflow (a million levels
  // of recursion would crash the evaluator without the limit).
  const int deep = 1000000;
  for (const auto &[open, close] :
       {std::pair<std::string, std::string>{"(", ")"},
        std::pair<std::string, std::string>{"-", ""},
        std::pair<std::string, std::string>{"cdiv(", ",1)"},
        std::pair<std::string, std::string>{"(-", ")"}}) {
    SCOPED_TRACE(open);
    std::string msg = evalError(nested(open, close, deep));
    EXPECT_CONTAINS(msg, "nested more than 64 levels deep");
    EXPECT_CONTAINS(evalError(nested(open, close, kMaxExprDepth + 1)),
                    "nested more than 64 levels deep");
    EXPECT_EQ(checkIntExprSyntax(nested(open, close, deep)).code(),
              ExitCode::BadInput);
  }
  // A grid triple of a hostile manifest: an error naming the problem.
  std::array<int64_t, 3> g;
  Status s = evaluateExprTriple("1, " + nested("(", ")", deep) + ", 1", kVars,
                                g);
  EXPECT_CONTAINS(s.message(), "nested more than 64 levels deep");
}

TEST(GridExprTest, ListsAndSyntaxOnlyChecks) {
  EXPECT_EQ(splitExprList("K, cdiv(M, 2) ,N"),
            (std::vector<std::string>{"K", "cdiv(M, 2)", "N"}));
  EXPECT_EQ(splitExprList(""), (std::vector<std::string>{""}));
  EXPECT_EQ(splitExprList("cdiv(M, 2"), (std::vector<std::string>{"cdiv(M, 2"}));
  std::vector<int64_t> v;
  ASSERT_TRUE(evaluateExprList("T, cdiv(T, 64)*64, HV", kVars, v).ok());
  EXPECT_EQ(v, (std::vector<int64_t>{4097, 4160, 32}));
  EXPECT_CONTAINS(evaluateExprList("T, Q", kVars, v).message(),
                  "unknown name 'Q'");
  // Syntax only: any name, no arithmetic errors, but syntax errors.
  EXPECT_TRUE(checkIntExprSyntax("Anything * cdiv(x, 0) - 1/0").ok());
  EXPECT_TRUE(checkIntExprSyntax("9223372036854775807 * 2 + 5").ok());
  EXPECT_TRUE(checkIntExprSyntax("-(-9223372036854775807 - 1)").ok());
  EXPECT_CONTAINS(checkIntExprSyntax("M +").message(), "in 'M +'");
  EXPECT_CONTAINS(checkIntExprSyntax("cdiv(M)").message(), "expected ','");
  EXPECT_CONTAINS(checkIntExprSyntax("(M").message(), "expected ')'");
  EXPECT_CONTAINS(checkIntExprSyntax(" ").message(), "empty expression");
  EXPECT_CONTAINS(checkIntExprSyntax("99999999999999999999").message(),
                  "too large integer");
}
