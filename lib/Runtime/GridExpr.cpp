//===- GridExpr.cpp - integer expressions of launch grids -----------------===//
//
// A recursive-descent evaluator: one function per grammar rule, each
// consuming characters of the text and computing the value on the way (there
// is no syntax tree; expressions are a few dozen characters). The first
// error wins and stops the evaluation.
//
//===----------------------------------------------------------------------===//

#include "GridExpr.h"

#include "Manifest.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace gdn::run {

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    --q;
  return q;
}

int64_t ceilDivSigned(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) == (b < 0)))
    ++q;
  return q;
}

namespace {

class Evaluator {
public:
  Evaluator(const std::string &text, const ExprVariables &vars,
            bool syntaxOnly = false)
      : text_(text), vars_(vars), syntaxOnly_(syntaxOnly) {}

  /// Parses the whole text as one expression.
  Status run(int64_t &out) {
    int64_t v = 0;
    GDN_RUN_TRY(expr(v));
    skipSpace();
    if (pos_ < text_.size())
      return error(std::string("unexpected '") + text_[pos_] + "'");
    out = v;
    return Status::success();
  }

private:
  Status error(const std::string &problem) const {
    return errorAt(problem, pos_);
  }
  Status errorAt(const std::string &problem, size_t at) const {
    return Status::badInput("in '" + text_ + "': " + problem +
                            " (at column " + std::to_string(at + 1) + ")");
  }

  void skipSpace() {
    while (pos_ < text_.size() &&
           std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
  }
  /// Consumes `c` (after whitespace) if it is next.
  bool accept(char c) {
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  Status expect(char c) {
    if (accept(c))
      return Status::success();
    if (pos_ >= text_.size())
      return error(std::string("expected '") + c + "', got the end");
    return error(std::string("expected '") + c + "', got '" + text_[pos_] +
                 "'");
  }
  /// Integer overflow at `at`; ignored (the value becomes 1) when only the
  /// syntax is checked.
  Status overflow(size_t at, int64_t &value) const {
    if (syntaxOnly_) {
      value = 1;
      return Status::success();
    }
    return errorAt("integer overflow", at);
  }

  /// Enters one nesting level (a parenthesis, cdiv or unary minus); the
  /// recursion of the evaluator is bounded by kMaxExprDepth.
  struct Nest {
    int &depth;
    explicit Nest(int &d) : depth(d) { ++depth; }
    ~Nest() { --depth; }
  };
  Status tooDeep() const {
    return error("nested more than " + std::to_string(kMaxExprDepth) +
                 " levels deep");
  }

  Status expr(int64_t &out) {
    GDN_RUN_TRY(term(out));
    while (true) {
      skipSpace();
      size_t at = pos_;
      bool plus = accept('+');
      if (!plus && !accept('-'))
        return Status::success();
      int64_t rhs = 0;
      GDN_RUN_TRY(term(rhs));
      bool bad = plus ? __builtin_add_overflow(out, rhs, &out)
                      : __builtin_sub_overflow(out, rhs, &out);
      if (bad)
        GDN_RUN_TRY(overflow(at, out));
    }
  }

  Status term(int64_t &out) {
    GDN_RUN_TRY(unary(out));
    while (true) {
      skipSpace();
      size_t at = pos_;
      bool mul = accept('*');
      if (!mul && !accept('/'))
        return Status::success();
      int64_t rhs = 0;
      GDN_RUN_TRY(unary(rhs));
      if (mul) {
        if (__builtin_mul_overflow(out, rhs, &out))
          GDN_RUN_TRY(overflow(at, out));
        continue;
      }
      GDN_RUN_TRY(divide(out, rhs, at, /*ceil=*/false, out));
    }
  }

  Status divide(int64_t a, int64_t b, size_t at, bool ceil, int64_t &out) {
    if (syntaxOnly_ && b == 0) {
      out = 1;
      return Status::success();
    }
    if (b == 0)
      return errorAt("division by zero", at);
    if (a == INT64_MIN && b == -1)
      return overflow(at, out);
    out = ceil ? ceilDivSigned(a, b) : floorDiv(a, b);
    return Status::success();
  }

  Status unary(int64_t &out) {
    skipSpace();
    size_t at = pos_;
    if (accept('-')) {
      Nest nest(depth_);
      if (depth_ > kMaxExprDepth)
        return tooDeep();
      GDN_RUN_TRY(unary(out));
      if (out == INT64_MIN)
        return overflow(at, out);
      out = -out;
      return Status::success();
    }
    return primary(out);
  }

  Status primary(int64_t &out) {
    skipSpace();
    if (pos_ >= text_.size())
      return error("expected a number, a name or '(', got the end");
    char c = text_[pos_];
    size_t start = pos_;
    if (c == '(') {
      ++pos_;
      Nest nest(depth_);
      if (depth_ > kMaxExprDepth)
        return tooDeep();
      GDN_RUN_TRY(expr(out));
      return expect(')');
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      while (pos_ < text_.size() &&
             std::isalnum(static_cast<unsigned char>(text_[pos_])))
        ++pos_;
      std::string digits = text_.substr(start, pos_ - start);
      if (!parseInt64(digits, out))
        return errorAt("malformed or too large integer '" + digits + "'",
                       start);
      return Status::success();
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      while (pos_ < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
              text_[pos_] == '_'))
        ++pos_;
      std::string name = text_.substr(start, pos_ - start);
      if (name == "cdiv" || name == "min") {
        Nest nest(depth_);
        if (depth_ > kMaxExprDepth)
          return tooDeep();
        GDN_RUN_TRY(expect('('));
        int64_t a = 0, b = 0;
        GDN_RUN_TRY(expr(a));
        GDN_RUN_TRY(expect(','));
        GDN_RUN_TRY(expr(b));
        GDN_RUN_TRY(expect(')'));
        if (name == "min") {
          out = std::min(a, b);
          return Status::success();
        }
        return divide(a, b, start, /*ceil=*/true, out);
      }
      auto it = vars_.find(name);
      if (syntaxOnly_) {
        out = 1;
        return Status::success();
      }
      if (it == vars_.end()) {
        std::string known;
        for (const auto &entry : vars_)
          known += (known.empty() ? "" : ", ") + entry.first;
        return errorAt("unknown name '" + name + "' (known: " + known +
                           ", and the functions cdiv, min)",
                       start);
      }
      out = it->second;
      return Status::success();
    }
    return error(std::string("expected a number, a name or '(', got '") + c +
                 "'");
  }

  const std::string &text_;
  const ExprVariables &vars_;
  bool syntaxOnly_ = false;
  size_t pos_ = 0;
  int depth_ = 0;
};

} // namespace

Status evaluateIntExpr(const std::string &text, const ExprVariables &vars,
                       int64_t &out) {
  if (trim(text).empty())
    return Status::badInput("empty expression");
  Evaluator e(text, vars);
  return e.run(out);
}

Status checkIntExprSyntax(const std::string &text) {
  if (trim(text).empty())
    return Status::badInput("empty expression");
  static const ExprVariables none;
  Evaluator e(text, none, /*syntaxOnly=*/true);
  int64_t ignored = 0;
  return e.run(ignored);
}

std::vector<std::string> splitExprList(const std::string &text) {
  std::vector<std::string> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    char c = i < text.size() ? text[i] : ',';
    if (c == '(')
      ++depth;
    else if (c == ')')
      --depth;
    else if ((c == ',' && depth <= 0) || i == text.size()) {
      // The end always closes the last item, even inside an unbalanced
      // parenthesis (the evaluator then reports it).
      parts.push_back(trim(text.substr(start, i - start)));
      start = i + 1;
    }
  }
  return parts;
}

Status evaluateExprList(const std::string &text, const ExprVariables &vars,
                        std::vector<int64_t> &out) {
  std::vector<std::string> parts = splitExprList(text);
  std::vector<int64_t> values(parts.size(), 0);
  for (size_t i = 0; i < parts.size(); ++i)
    GDN_RUN_TRY(evaluateIntExpr(parts[i], vars, values[i]));
  out = std::move(values);
  return Status::success();
}

Status evaluateExprTriple(const std::string &text, const ExprVariables &vars,
                          std::array<int64_t, 3> &out) {
  std::vector<std::string> parts = splitExprList(text);
  if (parts.size() != 3)
    return Status::badInput("expected three comma-separated expressions "
                            "'x, y, z', got " +
                            std::to_string(parts.size()) + " in '" + text +
                            "'");
  std::array<int64_t, 3> v = {0, 0, 0};
  for (size_t i = 0; i < 3; ++i)
    GDN_RUN_TRY(evaluateIntExpr(parts[i], vars, v[i]));
  out = v;
  return Status::success();
}

} // namespace gdn::run
