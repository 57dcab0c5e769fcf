// PTX parser: lexer, directives, declarations, and a per-instruction mapping to isa::Inst.
// Instruction handlers "take" the modifiers they understand; any modifier left over is an error,
// so an unsupported variant can never be accepted silently.
#include "sw/ptx/parser.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <unordered_map>

namespace gpuvp::ptx {

ParseError::ParseError(std::string f, uint32_t l, uint32_t c, std::string m, std::string t)
    : std::runtime_error(t.empty() ? fmt::format("{}:{}:{}: {}", f, l, c, m)
                                   : fmt::format("{}:{}:{}: {}: {}", f, l, c, m, t)),
      file(std::move(f)), line(l), column(c), message(std::move(m)), text(std::move(t)) {}

namespace {

using isa::DType;
using isa::Opcode;
using isa::OpKind;
using isa::Space;

// ---------------------------------------------------------------- lexer
enum class T { Ident, Num, Str, Punct, End };
struct Tok {
  T k = T::End;
  std::string s;
  uint32_t line = 0, col = 0;
  size_t off = 0;
};

std::vector<Tok> lex(const std::string& src, const std::string& file) {
  std::vector<Tok> out;
  uint32_t line = 1;
  size_t ls = 0, i = 0, n = src.size();
  auto ident_start = [](char c) { return std::isalpha((unsigned char)c) || c == '_' || c == '$' || c == '%' || c == '.'; };
  auto ident_char = [](char c) { return std::isalnum((unsigned char)c) || c == '_' || c == '$' || c == '%' || c == '.'; };
  while (i < n) {
    char c = src[i];
    if (c == '\n') { ++line; ls = ++i; continue; }
    if (std::isspace((unsigned char)c)) { ++i; continue; }
    if (c == '/' && i + 1 < n && src[i + 1] == '/') { while (i < n && src[i] != '\n') ++i; continue; }
    if (c == '/' && i + 1 < n && src[i + 1] == '*') {
      size_t e = src.find("*/", i + 2);
      if (e == std::string::npos) throw ParseError(file, line, uint32_t(i - ls + 1), "unterminated comment", "");
      for (size_t j = i; j < e; ++j)
        if (src[j] == '\n') { ++line; ls = j + 1; }
      i = e + 2;
      continue;
    }
    Tok t;
    t.line = line;
    t.col = uint32_t(i - ls + 1);
    t.off = i;
    size_t b = i;
    if (ident_start(c)) {
      ++i;
      for (;;) {
        if (i < n && ident_char(src[i])) ++i;
        else if (i + 1 < n && src[i] == ':' && src[i + 1] == ':') i += 2;  // shared::cta, L1::no_allocate
        else break;
      }
      t.k = T::Ident;
    } else if (std::isdigit((unsigned char)c)) {
      ++i;
      while (i < n && (std::isalnum((unsigned char)src[i]) || src[i] == '.' ||
                       ((src[i] == '-' || src[i] == '+') && (src[i - 1] == 'e' || src[i - 1] == 'E') &&
                        src.compare(b, 2, "0x") && src.compare(b, 2, "0f") && src.compare(b, 2, "0d"))))
        ++i;
      t.k = T::Num;
    } else if (c == '"') {
      ++i;
      while (i < n && src[i] != '"' && src[i] != '\n') ++i;
      if (i >= n || src[i] != '"') throw ParseError(file, line, t.col, "unterminated string", "");
      ++i;
      t.k = T::Str;
    } else {
      ++i;
      t.k = T::Punct;
    }
    t.s = src.substr(b, i - b);
    out.push_back(std::move(t));
  }
  Tok e;
  e.line = line;
  e.col = uint32_t(i - ls + 1);
  e.off = n;
  out.push_back(e);
  return out;
}

// ---------------------------------------------------------------- tables
const std::map<std::string, DType> kTypes = {
    {"pred", DType::Pred}, {"b8", DType::B8},   {"b16", DType::B16}, {"b32", DType::B32}, {"b64", DType::B64},
    {"u8", DType::U8},     {"u16", DType::U16}, {"u32", DType::U32}, {"u64", DType::U64}, {"s8", DType::S8},
    {"s16", DType::S16},   {"s32", DType::S32}, {"s64", DType::S64}, {"f16", DType::F16}, {"f32", DType::F32},
    {"f64", DType::F64}};

const std::map<std::string, isa::SReg> kSRegs = {
    {"%tid.x", isa::SReg::TidX},       {"%tid.y", isa::SReg::TidY},       {"%tid.z", isa::SReg::TidZ},
    {"%ntid.x", isa::SReg::NtidX},     {"%ntid.y", isa::SReg::NtidY},     {"%ntid.z", isa::SReg::NtidZ},
    {"%ctaid.x", isa::SReg::CtaidX},   {"%ctaid.y", isa::SReg::CtaidY},   {"%ctaid.z", isa::SReg::CtaidZ},
    {"%nctaid.x", isa::SReg::NctaidX}, {"%nctaid.y", isa::SReg::NctaidY}, {"%nctaid.z", isa::SReg::NctaidZ},
    {"%laneid", isa::SReg::LaneId},    {"%warpid", isa::SReg::WarpId},    {"%nwarpid", isa::SReg::NWarpId},
    {"%smid", isa::SReg::SmId},        {"%nsmid", isa::SReg::NSmId},      {"%clock", isa::SReg::Clock},
    {"%clock_hi", isa::SReg::ClockHi}, {"%clock64", isa::SReg::Clock64},  {"%globaltimer", isa::SReg::GlobalTimer},
    {"%globaltimer_lo", isa::SReg::GlobalTimerLo}, {"%globaltimer_hi", isa::SReg::GlobalTimerHi},
    {"%lanemask_eq", isa::SReg::LanemaskEq}, {"%lanemask_lt", isa::SReg::LanemaskLt},
    {"%lanemask_le", isa::SReg::LanemaskLe}, {"%lanemask_gt", isa::SReg::LanemaskGt},
    {"%lanemask_ge", isa::SReg::LanemaskGe}, {"%dynamic_smem_size", isa::SReg::DynamicSmemSize},
    {"%total_smem_size", isa::SReg::TotalSmemSize}, {"%gridid", isa::SReg::GridId}};

const std::map<std::string, isa::Cmp> kCmps = {
    {"eq", isa::Cmp::Eq},   {"ne", isa::Cmp::Ne},   {"lt", isa::Cmp::Lt},   {"le", isa::Cmp::Le},
    {"gt", isa::Cmp::Gt},   {"ge", isa::Cmp::Ge},   {"lo", isa::Cmp::Lo},   {"ls", isa::Cmp::Ls},
    {"hi", isa::Cmp::Hi},   {"hs", isa::Cmp::Hs},   {"equ", isa::Cmp::Equ}, {"neu", isa::Cmp::Neu},
    {"ltu", isa::Cmp::Ltu}, {"leu", isa::Cmp::Leu}, {"gtu", isa::Cmp::Gtu}, {"geu", isa::Cmp::Geu},
    {"num", isa::Cmp::Num}, {"nan", isa::Cmp::Nan}};
const std::map<std::string, isa::Round> kRounds = {
    {"rn", isa::Round::Rn},   {"rz", isa::Round::Rz},   {"rm", isa::Round::Rm},   {"rp", isa::Round::Rp},
    {"rni", isa::Round::Rni}, {"rzi", isa::Round::Rzi}, {"rmi", isa::Round::Rmi}, {"rpi", isa::Round::Rpi}};
const std::map<std::string, Space> kSpaces = {{"global", Space::Global}, {"shared", Space::Shared},
                                              {"shared::cta", Space::Shared}, {"const", Space::Const},
                                              {"param", Space::Param}, {"local", Space::Local}};
const std::map<std::string, isa::MemLevel> kScopes = {
    {"cta", isa::MemLevel::Cta}, {"gpu", isa::MemLevel::Gl}, {"sys", isa::MemLevel::Sys}};

DType wide_of(DType t) {
  switch (t) {
    case DType::U16: return DType::U32;
    case DType::S16: return DType::S32;
    case DType::U32: return DType::U64;
    case DType::S32: return DType::S64;
    case DType::B16: return DType::B32;
    case DType::B32: return DType::B64;
    default: return DType::None;
  }
}
char type_class(DType t) {
  if (t == DType::Pred) return 'p';
  if (t == DType::F32 || t == DType::F64) return 'f';
  if (t == DType::F16) return 'h';
  if (isa::is_signed(t)) return 's';
  if (t == DType::U8 || t == DType::U16 || t == DType::U32 || t == DType::U64) return 'u';
  return 'b';
}

// ---------------------------------------------------------------- parsed operands
struct Arg {
  enum K { Reg, Pred, SReg, Int, Flt, Sym, Mem, Vec, Sink, List } k = Int;
  uint32_t idx = 0;        // Reg/Pred index; SReg id; Mem base register
  bool neg = false;
  int pipe = -1;           // p|q: second predicate
  int64_t i = 0;           // Int value, Mem offset
  double f = 0;            // Flt decimal value
  int raw_bits = 0;        // Flt: 32 (0f), 64 (0d) or 0 (decimal)
  uint64_t raw = 0;
  bool base_reg = false;   // Mem: base is a register
  std::string name;        // Sym, Mem symbol base
  std::vector<Arg> el;     // Vec / List
  Tok tok;
};

struct Name {
  enum K { Reg, Pred, Var, Param, Ret } k;
  uint32_t idx;
};

// ---------------------------------------------------------------- parser
class Parser {
 public:
  Parser(const std::string& src, const std::string& file) : src_(src), file_(file), toks_(lex(src, file)) {
    mod_.source_name = file;
  }
  Module run();

 private:
  const std::string& src_;
  std::string file_;
  std::vector<Tok> toks_;
  size_t p_ = 0;
  size_t stmt_ = 0;  // first token of the current statement, for messages
  Module mod_;
  Function* fn_ = nullptr;
  std::vector<std::map<std::string, Name>> scopes_;
  std::map<std::string, uint32_t> labels_;
  struct LabelUse { uint32_t instr; size_t ref; Tok tok; };
  std::vector<LabelUse> label_uses_;
  struct CallUse { size_t fn, instr; Tok tok; };
  std::vector<CallUse> call_uses_;

  // --- token helpers
  const Tok& cur() const { return toks_[p_]; }
  const Tok& peek(size_t k = 1) const { return toks_[std::min(p_ + k, toks_.size() - 1)]; }
  bool at(const char* s) const { return cur().k != T::End && cur().k != T::Str && cur().s == s; }
  bool accept(const char* s) {
    if (!at(s)) return false;
    ++p_;
    return true;
  }
  const Tok& next() {
    const Tok& t = toks_[p_];
    if (t.k != T::End) ++p_;
    return t;
  }
  std::string stmt_text() const {
    size_t b = toks_[stmt_].off;
    size_t e = src_.find(';', b);
    size_t nl = src_.find('\n', b);
    if (e == std::string::npos || (nl != std::string::npos && nl < e && toks_[stmt_].s[0] == '.'))
      e = nl == std::string::npos ? src_.size() : nl;
    else
      ++e;
    std::string out;
    for (size_t j = b; j < e && j < src_.size(); ++j) {
      char c = src_[j];
      if (std::isspace((unsigned char)c)) {
        if (!out.empty() && out.back() != ' ') out += ' ';
      } else {
        out += c;
      }
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
  }
  [[noreturn]] void err(const Tok& t, const std::string& msg) const {
    throw ParseError(file_, t.line, t.col, msg, stmt_text());
  }
  void expect(const char* s) {
    if (!accept(s)) err(cur(), cur().k == T::End ? fmt::format("expected '{}' before end of file", s)
                                                 : fmt::format("expected '{}', got '{}'", s, cur().s));
  }
  std::string ident(const char* what) {
    if (cur().k != T::Ident || cur().s[0] == '.') err(cur(), fmt::format("expected {}, got '{}'", what, cur().s));
    return next().s;
  }
  uint64_t number(const char* what) {
    if (cur().k != T::Num) err(cur(), fmt::format("expected {}, got '{}'", what, cur().s));
    const Tok& t = next();
    int64_t v;
    if (!parse_int(t.s, v)) err(t, fmt::format("bad integer '{}'", t.s));
    return uint64_t(v);
  }
  static bool parse_int(const std::string& s0, int64_t& v) {
    std::string s = s0;
    if (!s.empty() && (s.back() == 'U' || s.back() == 'u')) s.pop_back();
    if (s.empty()) return false;
    int base = 10;
    size_t b = 0;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) base = 16, b = 2;
    else if (s.size() > 1 && s[0] == '0') base = 8, b = 1;
    uint64_t acc = 0;
    for (size_t j = b; j < s.size(); ++j) {
      int d = std::isdigit((unsigned char)s[j]) ? s[j] - '0'
              : std::isxdigit((unsigned char)s[j]) ? std::tolower(s[j]) - 'a' + 10 : 99;
      if (d >= base) return false;
      if (acc > (~uint64_t(0) - uint64_t(d)) / uint64_t(base)) return false;
      acc = acc * uint64_t(base) + uint64_t(d);
    }
    v = int64_t(acc);
    return true;
  }

  // --- names
  Name* lookup(const std::string& n) {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto f = it->find(n);
      if (f != it->end()) return &f->second;
    }
    return nullptr;
  }
  int module_var(const std::string& n) const {
    for (size_t j = 0; j < mod_.vars.size(); ++j)
      if (mod_.vars[j].name == n) return int(j);
    return -1;
  }
  void declare(const Tok& t, const std::string& n, Name nm) {
    if (scopes_.back().count(n)) err(t, fmt::format("redeclaration of '{}'", n));
    scopes_.back()[n] = nm;
  }

  // --- module level
  void module_directive();
  void var_decl(Space sp, bool is_extern, std::vector<Var>* into);
  std::vector<uint8_t> initializer(DType t, uint32_t elems);
  void function(bool entry, bool visible, bool is_extern, bool weak);
  Var param_decl(Space sp);
  DType decl_type(Var& v, bool param);
  uint64_t array_elems(uint64_t max_dim, bool* unsized);
  void body();
  void statement();
  void instruction();
  Arg operand();
  void finish_function();
};

// ---------------------------------------------------------------- declarations
Module Parser::run() {
  while (cur().k != T::End) {
    stmt_ = p_;
    module_directive();
  }
  for (auto& cu : call_uses_) {
    auto& in = mod_.funcs[cu.fn].body[cu.instr];
    const std::string& name = cu.tok.s;
    int callee = -1;
    for (size_t j = 0; j < mod_.funcs.size(); ++j)
      if (mod_.funcs[j].name == name) callee = int(j);
    stmt_ = 0;
    auto fail = [&](const std::string& m) { throw ParseError(file_, cu.tok.line, cu.tok.col, m, in.text); };
    if (callee < 0) fail(fmt::format("unknown function '{}'", name));
    auto& f = mod_.funcs[size_t(callee)];
    if (f.entry) fail(fmt::format("call of kernel '{}'", name));
    if (!f.has_body) fail(fmt::format("function '{}' has no body in this module (no linking)", name));
    if (f.params.size() != in.call_args.size() || f.rets.size() != in.call_rets.size())
      fail(fmt::format("call of '{}' with {} arguments and {} results, it has {} and {}", name,
                       in.call_args.size(), in.call_rets.size(), f.params.size(), f.rets.size()));
    auto& caller = mod_.funcs[cu.fn];
    for (size_t j = 0; j < f.params.size(); ++j)
      if (caller.vars[in.call_args[j]].size != f.params[j].size) fail(fmt::format("argument {} size mismatch", j));
    for (size_t j = 0; j < f.rets.size(); ++j)
      if (caller.vars[in.call_rets[j]].size != f.rets[j].size) fail(fmt::format("result {} size mismatch", j));
    in.callee = callee;
  }
  return std::move(mod_);
}

void Parser::module_directive() {
  const Tok& t = cur();
  if (accept(".version")) {
    if (cur().k != T::Num) err(cur(), "expected version number");
    next();
    return;
  }
  if (accept(".target")) {
    ident("target");
    while (accept(",")) ident("target");
    return;
  }
  if (accept(".address_size")) {
    const Tok& n = cur();
    if (number("address size") != 64) err(n, "only .address_size 64 is supported");
    return;
  }
  if (accept(".file")) {  // debug info: .file N "name"[, ts, size]
    number("file index");
    if (cur().k == T::Str) next();
    while (accept(",")) next();
    return;
  }
  bool visible = false, is_extern = false, weak = false;
  for (;;) {
    if (accept(".visible")) visible = true;
    else if (accept(".extern")) is_extern = true;
    else if (accept(".weak")) weak = true;
    else break;
  }
  if (accept(".entry")) return function(true, visible, is_extern, weak);
  if (accept(".func")) return function(false, visible, is_extern, weak);
  if (accept(".global")) return var_decl(Space::Global, is_extern, &mod_.vars);
  if (accept(".const")) return var_decl(Space::Const, is_extern, &mod_.vars);
  if (accept(".shared")) return var_decl(Space::Shared, is_extern, &mod_.vars);
  if (cur().k == T::End) err(t, "expected a declaration before end of file");
  err(cur(), fmt::format("unsupported directive '{}'", cur().s));
}

// `.space [.align N] .type name[N]... [= init];` (the space token is already consumed)
void Parser::var_decl(Space sp, bool is_extern, std::vector<Var>* into) {
  Var v;
  v.space = sp;
  v.line = cur().line;
  DType type = decl_type(v, false);
  if (type == DType::None) err(cur(), fmt::format("unsupported variable declaration at '{}'", cur().s));
  Tok nt = cur();
  v.name = ident("variable name");
  uint32_t esz = bits_of(type) / 8;
  if (v.align < esz) v.align = esz;
  bool unsized = false;
  uint64_t elems = array_elems(1u << 30, &unsized);
  if (unsized) {
    if (!(is_extern && sp == Space::Shared)) err(nt, "unsized array is only supported for .extern .shared");
    v.dynamic = true;
    elems = 0;
  }
  if (elems * esz > (1ull << 31)) err(nt, "variable too large");
  v.size = uint32_t(elems * esz);
  if (accept("=")) {
    if (sp != Space::Global && sp != Space::Const) err(cur(), "initialiser only allowed on .global/.const");
    v.init = initializer(type, uint32_t(elems));
  }
  expect(";");
  if (into == &mod_.vars) {
    if (module_var(v.name) >= 0) err(nt, fmt::format("redeclaration of '{}'", v.name));
  }
  into->push_back(std::move(v));
}

std::vector<uint8_t> Parser::initializer(DType t, uint32_t elems) {
  std::vector<uint8_t> out;
  unsigned sz = bits_of(t) / 8;
  std::function<void()> item = [&]() {
    if (accept("{")) {
      if (!at("}")) {
        item();
        while (accept(",")) item();
      }
      expect("}");
      return;
    }
    Arg a = operand();
    uint64_t bits = 0;
    if (a.k == Arg::Int) {
      if (isa::is_float(t)) {
        bits = t == DType::F32 ? [&] { float f = float(a.i); uint32_t u; std::memcpy(&u, &f, 4); return uint64_t(u); }()
                               : [&] { double d = double(a.i); uint64_t u; std::memcpy(&u, &d, 8); return u; }();
      } else {
        bits = uint64_t(a.i);
      }
    } else if (a.k == Arg::Flt && isa::is_float(t) && t != DType::F16) {
      if (t == DType::F32) {
        float f = a.raw_bits == 32 ? [&] { float x; uint32_t u = uint32_t(a.raw); std::memcpy(&x, &u, 4); return x; }()
                  : a.raw_bits == 64 ? [&] { double x; std::memcpy(&x, &a.raw, 8); return float(x); }() : float(a.f);
        uint32_t u;
        std::memcpy(&u, &f, 4);
        bits = u;
      } else {
        double d = a.raw_bits == 64 ? [&] { double x; std::memcpy(&x, &a.raw, 8); return x; }()
                   : a.raw_bits == 32 ? [&] { float x; uint32_t u = uint32_t(a.raw); std::memcpy(&x, &u, 4); return double(x); }() : a.f;
        std::memcpy(&bits, &d, 8);
      }
    } else {
      err(a.tok, "unsupported initialiser value (only numeric constants)");
    }
    for (unsigned j = 0; j < sz; ++j) out.push_back(uint8_t(bits >> (8 * j)));
  };
  item();
  if (out.size() > size_t(elems) * sz) err(cur(), fmt::format("too many initialisers ({} elements declared)", elems));
  out.resize(size_t(elems) * sz, 0);
  return out;
}

Var Parser::param_decl(Space sp) {
  expect(".param");
  Var v;
  v.space = sp;
  v.line = cur().line;
  DType type = decl_type(v, true);
  if (type == DType::None) err(cur(), fmt::format("expected a parameter type, got '{}'", cur().s));
  v.name = ident("parameter name");
  uint32_t esz = bits_of(type) / 8;
  if (v.align < esz) v.align = esz;
  uint64_t elems = array_elems(1u << 20, nullptr);
  v.size = uint32_t(elems * esz);
  return v;
}

// `.align N` and the type of a declaration, in any order; a parameter may also carry `.ptr` and a
// state space (`.ptr.global.align 4`), which change nothing here.
DType Parser::decl_type(Var& v, bool param) {
  DType type = DType::None;
  for (;;) {
    if (accept(".align")) {
      const Tok& a = cur();
      uint64_t al = number("alignment");
      if (al == 0 || (al & (al - 1)) || al > 4096) err(a, fmt::format("bad alignment {}", al));
      v.align = uint32_t(al);
    } else if (param && (accept(".ptr") || accept(".global") || accept(".shared") || accept(".const") ||
                         accept(".local"))) {
    } else if (cur().k == T::Ident && cur().s[0] == '.' && kTypes.count(cur().s.substr(1)) && cur().s != ".pred") {
      type = kTypes.at(next().s.substr(1));
    } else {
      return type;
    }
  }
}

// `[N][M]...`: the element count. `[]` is accepted (and reported through *unsized) only where
// unsized is given.
uint64_t Parser::array_elems(uint64_t max_dim, bool* unsized) {
  uint64_t elems = 1;
  while (accept("[")) {
    if (unsized && accept("]")) {
      *unsized = true;
      continue;
    }
    const Tok& n = cur();
    uint64_t d = number("array size");
    if (d == 0 || d > max_dim) err(n, fmt::format("bad array size {}", d));
    elems *= d;
    expect("]");
  }
  return elems;
}

void Parser::function(bool entry, bool visible, bool is_extern, bool weak) {
  Function f;
  f.entry = entry;
  f.visible = visible;
  f.is_extern = is_extern;
  f.weak = weak;
  f.line = cur().line;
  if (!entry && accept("(")) {
    if (!at(")")) {
      f.rets.push_back(param_decl(Space::Param));
      while (accept(",")) f.rets.push_back(param_decl(Space::Param));
    }
    expect(")");
  }
  Tok nt = cur();
  f.name = ident("function name");
  if (accept("(")) {
    if (!at(")")) {
      f.params.push_back(param_decl(Space::Param));
      while (accept(",")) f.params.push_back(param_decl(Space::Param));
    }
    expect(")");
  }
  // Performance directives.
  for (;;) {
    if (at(".maxntid") || at(".reqntid")) {
      uint32_t* dst = at(".maxntid") ? f.maxntid : f.reqntid;
      next();
      dst[0] = dst[1] = dst[2] = 1;
      for (int d = 0; d < 3; ++d) {
        const Tok& n = cur();
        uint64_t v = number("thread count");
        if (v == 0 || v > 1024) err(n, fmt::format("bad thread count {}", v));
        dst[d] = uint32_t(v);
        if (!accept(",")) break;
      }
    } else if (accept(".minnctapersm") || accept(".maxnreg") || accept(".maxnctapersm")) {
      number("count");  // occupancy hints: no effect on the model
    } else if (accept(".noreturn")) {
    } else if (accept(".pragma")) {
      if (cur().k != T::Str) err(cur(), "expected a string after .pragma");
      next();
      expect(";");
    } else {
      break;
    }
  }
  // Merge with a previous prototype of the same function.
  int prev = -1;
  for (size_t j = 0; j < mod_.funcs.size(); ++j)
    if (mod_.funcs[j].name == f.name) prev = int(j);
  if (prev >= 0 && (mod_.funcs[size_t(prev)].has_body || mod_.funcs[size_t(prev)].entry != entry))
    if (at("{") || mod_.funcs[size_t(prev)].entry != entry) err(nt, fmt::format("redefinition of '{}'", f.name));
  if (accept(";")) {
    if (prev < 0) mod_.funcs.push_back(std::move(f));
    return;
  }
  if (!at("{")) err(cur(), fmt::format("expected '{{' or ';' after function header, got '{}'", cur().s));
  if (is_extern) err(nt, "an .extern function cannot have a body");
  size_t idx;
  if (prev >= 0) {
    mod_.funcs[size_t(prev)] = std::move(f);
    idx = size_t(prev);
  } else {
    mod_.funcs.push_back(std::move(f));
    idx = mod_.funcs.size() - 1;
  }
  fn_ = &mod_.funcs[idx];
  fn_->has_body = true;
  scopes_.assign(1, {});
  labels_.clear();
  label_uses_.clear();
  for (uint32_t j = 0; j < fn_->params.size(); ++j) declare(nt, fn_->params[j].name, {Name::Param, j});
  for (uint32_t j = 0; j < fn_->rets.size(); ++j) declare(nt, fn_->rets[j].name, {Name::Ret, j});
  body();
  finish_function();
  fn_ = nullptr;
}

void Parser::finish_function() {
  for (auto& u : label_uses_) {
    auto it = labels_.find(u.tok.s);
    auto& in = fn_->body[u.instr];
    if (it == labels_.end()) throw ParseError(file_, u.tok.line, u.tok.col, fmt::format("unknown label '{}'", u.tok.s), in.text);
    in.refs[u.ref].index = it->second;
  }
}

void Parser::body() {
  Tok open = cur();
  expect("{");
  int depth = 1;
  scopes_.emplace_back();
  while (depth > 0) {
    stmt_ = p_;
    if (cur().k == T::End)
      throw ParseError(file_, open.line, open.col, "unterminated block: missing '}'", "");
    if (accept("{")) {
      ++depth;
      scopes_.emplace_back();
    } else if (accept("}")) {
      --depth;
      scopes_.pop_back();
    } else {
      statement();
    }
  }
}

void Parser::statement() {
  const Tok& t = cur();
  if (t.k == T::Ident && t.s[0] != '.' && t.s[0] != '%' && peek().s == ":" && peek().k == T::Punct) {
    if (labels_.count(t.s)) err(t, fmt::format("duplicate label '{}'", t.s));
    labels_[t.s] = uint32_t(fn_->body.size());
    p_ += 2;
    return;
  }
  if (accept(".reg")) {
    if (cur().k != T::Ident || !kTypes.count(cur().s.substr(1)) || cur().s[0] != '.')
      err(cur(), fmt::format("expected a register type, got '{}'", cur().s));
    DType type = kTypes.at(next().s.substr(1));
    for (;;) {
      Tok nt = cur();
      std::string name = ident("register name");
      uint64_t count = 0;
      bool ranged = false;
      if (accept("<")) {
        const Tok& n = cur();
        count = number("register count");
        if (count > 65536) err(n, "too many registers");
        expect(">");
        ranged = true;
      }
      auto add = [&](const std::string& n) {
        if (type == DType::Pred) {
          declare(nt, n, {Name::Pred, uint32_t(fn_->preds.size())});
          fn_->preds.push_back(n);
        } else {
          declare(nt, n, {Name::Reg, uint32_t(fn_->regs.size())});
          fn_->regs.push_back({n, type});
        }
      };
      if (ranged)
        for (uint64_t j = 0; j < count; ++j) add(name + std::to_string(j));
      else
        add(name);
      if (!accept(",")) break;
    }
    expect(";");
    return;
  }
  if (accept(".local") || accept(".param")) {
    Space sp = toks_[p_ - 1].s == ".local" ? Space::Local : Space::Param;
    Tok nt = peek(0);
    var_decl(sp, false, &fn_->vars);
    // find the name token for the declaration message
    auto& v = fn_->vars.back();
    declare(nt, v.name, {Name::Var, uint32_t(fn_->vars.size() - 1)});
    return;
  }
  if (accept(".shared")) {  // nvcc "demotes" __shared__ variables into the kernel body
    var_decl(Space::Shared, false, &mod_.vars);
    return;
  }
  if (accept(".pragma")) {
    if (cur().k != T::Str) err(cur(), "expected a string after .pragma");
    next();
    expect(";");
    return;
  }
  if (accept(".loc")) {  // debug line info: skip to end of line
    uint32_t l = t.line;
    while (cur().k != T::End && cur().line == l) next();
    return;
  }
  if (t.k == T::Ident && t.s[0] == '.') err(t, fmt::format("unsupported directive '{}'", t.s));
  if (t.k == T::Ident || at("@")) return instruction();
  err(t, fmt::format("unexpected '{}'", t.s));
}

// ---------------------------------------------------------------- operands
Arg Parser::operand() {
  Arg a;
  a.tok = cur();
  if (accept("{")) {
    a.k = Arg::Vec;
    a.el.push_back(operand());
    while (accept(",")) a.el.push_back(operand());
    expect("}");
    return a;
  }
  if (accept("(")) {
    a.k = Arg::List;
    if (!at(")")) {
      a.el.push_back(operand());
      while (accept(",")) a.el.push_back(operand());
    }
    expect(")");
    return a;
  }
  if (accept("[")) {
    a.k = Arg::Mem;
    const Tok& b = cur();
    if (b.k == T::Num) {
      a.i = int64_t(number("address"));
    } else {
      std::string n = ident("address");
      Name* nm = lookup(n);
      if (nm && nm->k == Name::Reg) {
        a.base_reg = true;
        a.idx = nm->idx;
        if (bits_of(fn_->regs[nm->idx].type) < 32) err(b, fmt::format("address register '{}' is narrower than 32 bits", n));
      } else if (nm && nm->k == Name::Pred) {
        err(b, fmt::format("predicate '{}' used as an address", n));
      } else if (n[0] == '%') {
        err(b, fmt::format("undeclared register '{}'", n));
      } else {
        a.name = n;
      }
      if (accept("+")) {
        bool neg = accept("-");
        const Tok& o = cur();
        int64_t v = int64_t(number("offset"));
        if (v < 0) err(o, "offset out of range");
        a.i = neg ? -v : v;
      } else if (accept("-")) {
        const Tok& o = cur();
        int64_t v = int64_t(number("offset"));
        if (v < 0) err(o, "offset out of range");
        a.i = -v;
      }
    }
    expect("]");
    return a;
  }
  bool neg = false;
  if (accept("!")) neg = true;
  bool minus = false;
  if (!neg && accept("-")) minus = true;
  const Tok& t = cur();
  a.tok = t;
  if (t.k == T::Num) {
    next();
    const std::string& s = t.s;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F' || s[1] == 'd' || s[1] == 'D')) {
      a.k = Arg::Flt;
      a.raw_bits = (s[1] == 'f' || s[1] == 'F') ? 32 : 64;
      int64_t v;
      if (s.size() != size_t(2 + a.raw_bits / 4) || !parse_int("0x" + s.substr(2), v))
        err(t, fmt::format("bad immediate '{}'", s));
      a.raw = uint64_t(v);
      if (minus) a.raw ^= a.raw_bits == 32 ? 0x80000000ull : 0x8000000000000000ull;
    } else if (s.find_first_of(".eE") != std::string::npos && s.compare(0, 2, "0x") && s.compare(0, 2, "0X")) {
      a.k = Arg::Flt;
      char* end = nullptr;
      a.f = std::strtod(s.c_str(), &end);
      if (!end || *end) err(t, fmt::format("bad immediate '{}'", s));
      if (minus) a.f = -a.f;
    } else {
      a.k = Arg::Int;
      int64_t v;
      if (!parse_int(s, v)) err(t, fmt::format("bad immediate '{}'", s));
      if (minus) {
        if (uint64_t(v) > (1ull << 63)) err(t, fmt::format("bad immediate '-{}'", s));
        v = int64_t(0 - uint64_t(v));
      }
      a.i = v;
    }
    return a;
  }
  if (minus) err(t, fmt::format("bad immediate '-{}'", t.s));
  if (t.k != T::Ident || t.s[0] == '.') err(t, fmt::format("expected an operand, got '{}'", t.s));
  next();
  if (t.s == "_") {
    a.k = Arg::Sink;
    return a;
  }
  Name* nm = lookup(t.s);
  if (nm && (nm->k == Name::Reg || nm->k == Name::Pred)) {
    a.k = nm->k == Name::Reg ? Arg::Reg : Arg::Pred;
    a.idx = nm->idx;
    a.neg = neg;
    if (neg && a.k != Arg::Pred) err(t, "'!' applies only to predicates");
    if (accept("|")) {
      const Tok& q = cur();
      std::string qn = ident("predicate");
      Name* qm = lookup(qn);
      if (!qm || qm->k != Name::Pred) err(q, fmt::format("undeclared predicate '{}'", qn));
      a.pipe = int(qm->idx);
    }
    return a;
  }
  if (neg) err(t, fmt::format("undeclared predicate '{}'", t.s));
  if (t.s[0] == '%') {
    auto s = kSRegs.find(t.s);
    if (s != kSRegs.end()) {
      a.k = Arg::SReg;
      a.idx = uint32_t(s->second);
      return a;
    }
    err(t, fmt::format("undeclared register '{}'", t.s));
  }
  a.k = Arg::Sym;
  a.name = t.s;
  return a;
}

// ---------------------------------------------------------------- instructions
enum ModBits : unsigned { M_RND = 1, M_FTZ = 2, M_SAT = 4, M_APPROX = 8, M_FULL = 16, M_MUL = 32, M_SHIFTAMT = 64 };

struct ArithSpec {
  Opcode op;
  const char* classes;  // allowed type classes (u s b f p h)
  unsigned mods;
  const char* pat;      // operand types: T instr type, u u32, b b32, p pred
};

const std::unordered_map<std::string, ArithSpec> kArith = {
    {"add", {Opcode::Add, "usf", M_RND | M_FTZ | M_SAT, "TTT"}},
    {"sub", {Opcode::Sub, "usf", M_RND | M_FTZ | M_SAT, "TTT"}},
    {"mul", {Opcode::Mul, "usf", M_RND | M_FTZ | M_SAT | M_MUL, "TTT"}},
    {"mad", {Opcode::Mad, "usf", M_RND | M_FTZ | M_SAT | M_MUL, "TTTT"}},
    {"mul24", {Opcode::Mul24, "us", M_MUL, "TTT"}},
    {"mad24", {Opcode::Mad24, "us", M_MUL | M_SAT, "TTTT"}},
    {"fma", {Opcode::Fma, "f", M_RND | M_FTZ | M_SAT, "TTTT"}},
    {"div", {Opcode::Div, "usf", M_RND | M_FTZ | M_APPROX | M_FULL, "TTT"}},
    {"rem", {Opcode::Rem, "us", 0, "TTT"}},
    {"abs", {Opcode::Abs, "sf", M_FTZ, "TT"}},
    {"neg", {Opcode::Neg, "sf", M_FTZ, "TT"}},
    {"min", {Opcode::Min, "usf", M_FTZ, "TTT"}},
    {"max", {Opcode::Max, "usf", M_FTZ, "TTT"}},
    {"sad", {Opcode::Sad, "us", 0, "TTTT"}},
    {"sqrt", {Opcode::Sqrt, "f", M_RND | M_FTZ | M_APPROX, "TT"}},
    {"rsqrt", {Opcode::Rsqrt, "f", M_FTZ | M_APPROX, "TT"}},
    {"rcp", {Opcode::Rcp, "f", M_RND | M_FTZ | M_APPROX, "TT"}},
    {"sin", {Opcode::Sin, "f", M_FTZ | M_APPROX, "TT"}},
    {"cos", {Opcode::Cos, "f", M_FTZ | M_APPROX, "TT"}},
    {"ex2", {Opcode::Ex2, "f", M_FTZ | M_APPROX, "TT"}},
    {"lg2", {Opcode::Lg2, "f", M_FTZ | M_APPROX, "TT"}},
    {"tanh", {Opcode::Tanh, "f", M_APPROX, "TT"}},
    {"copysign", {Opcode::Copysign, "f", 0, "TTT"}},
    {"and", {Opcode::And, "bp", 0, "TTT"}},
    {"or", {Opcode::Or, "bp", 0, "TTT"}},
    {"xor", {Opcode::Xor, "bp", 0, "TTT"}},
    {"not", {Opcode::Not, "bp", 0, "TT"}},
    {"cnot", {Opcode::Cnot, "b", 0, "TT"}},
    {"lop3", {Opcode::Lop3, "b", 0, "TTTTu"}},
    {"shl", {Opcode::Shl, "b", 0, "TTu"}},
    {"shr", {Opcode::Shr, "bus", 0, "TTu"}},
    {"popc", {Opcode::Popc, "b", 0, "uT"}},
    {"clz", {Opcode::Clz, "b", 0, "uT"}},
    {"brev", {Opcode::Brev, "b", 0, "TT"}},
    {"bfe", {Opcode::Bfe, "us", 0, "TTuu"}},
    {"bfi", {Opcode::Bfi, "b", 0, "TTTuu"}},
    {"bfind", {Opcode::Bfind, "us", M_SHIFTAMT, "uT"}},
    {"selp", {Opcode::Selp, "usbf", 0, "TTTp"}},
};

// Helper state for one instruction being mapped.
struct Ictx {
  const Tok& op;
  std::vector<std::string> mods;
  std::vector<bool> used;
  std::vector<Arg> args;
  Instr& in;
  const Function& fn;
  std::function<void(const Tok&, const std::string&)> fail;

  [[noreturn]] void die(const Tok& t, const std::string& m) const {
    fail(t, m);
    std::abort();
  }
  bool take(const char* m) {
    for (size_t j = 0; j < mods.size(); ++j)
      if (!used[j] && mods[j] == m) return used[j] = true;
    return false;
  }
  template <class E>
  E take_of(const std::map<std::string, E>& table, E none) {
    for (size_t j = 0; j < mods.size(); ++j)
      if (!used[j] && table.count(mods[j])) {
        used[j] = true;
        return table.at(mods[j]);
      }
    return none;
  }
  DType type(bool required = true) {
    DType t = take_of(kTypes, DType::None);
    if (t == DType::None && required) die(op, "missing type modifier");
    return t;
  }
  void done() const {
    for (size_t j = 0; j < mods.size(); ++j)
      if (!used[j]) die(op, fmt::format("unknown modifier '.{}'", mods[j]));
  }
  void count(size_t lo, size_t hi) const {
    if (args.size() < lo || args.size() > hi) {
      if (lo == hi) die(op, fmt::format("expected {} operands, got {}", lo, args.size()));
      die(op, fmt::format("expected {} to {} operands, got {}", lo, hi, args.size()));
    }
  }
  DType reg_type(const Arg& a) const { return fn.regs[a.idx].type; }
  isa::Operand dst(const Arg& a, DType t, bool sink_ok = true) const {
    isa::Operand o;
    if (t == DType::Pred) {
      if (a.k == Arg::Pred && !a.neg && a.pipe < 0) return {OpKind::Pred, false, uint16_t(a.idx), 0};
      if (a.k == Arg::Sink && sink_ok) return {OpKind::Sink, false, isa::kNoReg, 0};
      die(a.tok, "expected a predicate destination");
    }
    if (a.k == Arg::Reg && a.pipe < 0) {
      check_width(a, t);
      return {OpKind::Reg, false, uint16_t(a.idx), 0};
    }
    if (a.k == Arg::Sink && sink_ok) return {OpKind::Sink, false, isa::kNoReg, 0};
    die(a.tok, "expected a register destination");
  }
  // A register narrower than the instruction's type cannot hold the value.
  void check_width(const Arg& a, DType t) const {
    DType rt = reg_type(a);
    if (bits_of(rt) < bits_of(t) && !(t == DType::F16 && bits_of(rt) >= 16))
      die(a.tok, fmt::format("register '{}' is too narrow for .{}", fn.regs[a.idx].name, tname(t)));
  }
  static std::string tname(DType t) {
    for (auto& [k, v] : kTypes)
      if (v == t) return k;
    return "?";
  }
  isa::Operand src(const Arg& a, DType t, bool neg_ok = false) const {
    if (t == DType::Pred) {
      if (a.k == Arg::Pred && a.pipe < 0) {
        if (a.neg && !neg_ok) die(a.tok, "negated predicate not allowed here");
        return {OpKind::Pred, a.neg, uint16_t(a.idx), 0};
      }
      // Predicate constants (nvcc: `mov.pred %p2, 0;`): the SM reads an immediate as all lanes 0/1.
      if (a.k == Arg::Int && (a.i == 0 || a.i == 1)) return {OpKind::Imm, false, isa::kNoReg, a.i};
      die(a.tok, "expected a predicate");
    }
    if (a.k == Arg::Reg) {
      check_width(a, t);
      return {OpKind::Reg, false, uint16_t(a.idx), 0};
    }
    if (a.k == Arg::Int || a.k == Arg::Flt) return {OpKind::Imm, false, isa::kNoReg, imm(a, t)};
    if (a.k == Arg::Pred) die(a.tok, "predicate used as a value operand");
    if (a.k == Arg::SReg) die(a.tok, "special registers can only be read by mov");
    if (a.k == Arg::Sym) die(a.tok, fmt::format("symbol '{}' not allowed here", a.name));
    die(a.tok, "expected a register or immediate");
  }
  int64_t imm(const Arg& a, DType t) const {
    auto f2b = [](float f) { uint32_t u; std::memcpy(&u, &f, 4); return int64_t(u); };
    auto d2b = [](double d) { int64_t u; std::memcpy(&u, &d, 8); return u; };
    auto b2f = [](uint64_t r) { float f; uint32_t u = uint32_t(r); std::memcpy(&f, &u, 4); return f; };
    auto b2d = [](uint64_t r) { double d; std::memcpy(&d, &r, 8); return d; };
    // PTX float instructions take only float literals (0f/0d hex or decimal with '.'/exponent).
    if (isa::is_float(t) && a.k == Arg::Int) die(a.tok, fmt::format("bad immediate '{}' for .{}", a.tok.s, tname(t)));
    if (t == DType::F32) {
      if (a.raw_bits == 32) return int64_t(a.raw);
      if (a.raw_bits == 64) return f2b(float(b2d(a.raw)));
      return f2b(float(a.f));
    }
    if (t == DType::F64) {
      if (a.raw_bits == 64) return int64_t(a.raw);
      if (a.raw_bits == 32) return d2b(double(b2f(a.raw)));
      return d2b(a.f);
    }
    if (t == DType::F16) die(a.tok, "f16 immediates are not supported");
    if (a.k != Arg::Int) die(a.tok, fmt::format("bad immediate '{}' for .{}", a.tok.s, tname(t)));
    unsigned n = bits_of(t);
    if (n >= 64) return a.i;
    int64_t lo = -(int64_t(1) << (n - 1)), hi = (int64_t(1) << n) - 1;
    if (a.i < lo || a.i > hi) die(a.tok, fmt::format("immediate {} out of range for .{}", a.i, tname(t)));
    uint64_t v = uint64_t(a.i) & ((uint64_t(1) << n) - 1);
    if (isa::is_signed(t) && (v >> (n - 1))) v |= ~((uint64_t(1) << n) - 1);
    return int64_t(v);
  }
};

void Parser::instruction() {
  Instr in;
  Tok first = cur();
  in.line = first.line;
  in.col = first.col;
  in.text = stmt_text();
  if (accept("@")) {
    bool gneg = accept("!");
    const Tok& g = cur();
    std::string gn = ident("guard predicate");
    Name* nm = lookup(gn);
    if (!nm || nm->k != Name::Pred) err(g, fmt::format("undeclared predicate '{}'", gn));
    in.inst.guard = int16_t(nm->idx);
    in.inst.guard_neg = gneg;
  }
  Tok op = cur();
  if (op.k != T::Ident || op.s[0] == '.' || op.s[0] == '%') err(op, fmt::format("expected an instruction, got '{}'", op.s));
  next();
  std::vector<std::string> parts;
  {
    size_t b = 0;
    for (;;) {
      size_t d = op.s.find('.', b);
      parts.push_back(op.s.substr(b, d == std::string::npos ? std::string::npos : d - b));
      if (d == std::string::npos) break;
      b = d + 1;
    }
  }
  std::string name = parts[0];
  std::vector<std::string> mods(parts.begin() + 1, parts.end());
  std::vector<Arg> args;
  if (!at(";")) {
    args.push_back(operand());
    while (accept(",")) args.push_back(operand());
  }
  if (!at(";")) err(cur(), cur().k == T::End ? "missing ';'" : fmt::format("expected ';', got '{}'", cur().s));
  next();

  Ictx c{op, mods, std::vector<bool>(mods.size(), false), std::move(args), in, *fn_,
         [this](const Tok& t, const std::string& m) { err(t, m); }};
  auto& I = in.inst;
  auto& A = c.args;
  auto set_ops = [&](std::initializer_list<isa::Operand> ops) {
    I.nops = 0;
    for (auto& o : ops) I.ops[I.nops++] = o;
  };
  auto scope_sem = [&]() {  // memory-model qualifiers: accepted, recorded as kRelaxed + scope
    bool any = false;
    for (const char* s : {"relaxed", "acquire", "release", "acq_rel", "weak"})
      if (c.take(s)) any = true;
    auto lv = c.take_of(kScopes, isa::MemLevel::None);
    if (lv != isa::MemLevel::None) I.mod.level = lv;
    if (any && !c.used.empty()) I.mod.flags |= isa::kRelaxed;
    if (lv != isa::MemLevel::None && !any) c.die(op, "scope qualifier without a memory-ordering qualifier");
  };
  // Symbolic memory operand / address-of.
  auto mem = [&](const Arg& a, int opi) -> isa::Operand {
    if (a.k != Arg::Mem) c.die(a.tok, "expected a memory operand [...]");
    isa::Operand o{OpKind::Mem, false, a.base_reg ? uint16_t(a.idx) : isa::kNoReg, a.i};
    if (!a.name.empty()) {
      Space sp;
      Ref r;
      r.op = opi;
      Name* nm = lookup(a.name);
      if (nm && nm->k == Name::Var) {
        r.kind = RefKind::FuncVar;
        r.index = nm->idx;
        sp = fn_->vars[nm->idx].space;
      } else if (nm && (nm->k == Name::Param || nm->k == Name::Ret)) {
        r.kind = nm->k == Name::Param ? RefKind::Param : RefKind::Ret;
        r.index = nm->idx;
        sp = Space::Param;
      } else if (int mv = module_var(a.name); mv >= 0) {
        r.kind = RefKind::ModuleVar;
        r.index = uint32_t(mv);
        sp = mod_.vars[size_t(mv)].space;
      } else {
        c.die(a.tok, fmt::format("unknown symbol '{}'", a.name));
      }
      bool ok = sp == I.mod.space ||
                (I.mod.space == Space::Generic && (sp == Space::Global || sp == Space::Shared || sp == Space::Local));
      if (!ok) c.die(a.tok, fmt::format("symbol '{}' is not in the instruction's state space", a.name));
      in.refs.push_back(r);
    } else if (I.mod.space == Space::Param && !a.base_reg) {
      c.die(a.tok, "absolute .param address");
    }
    if (I.mod.space == Space::Param && a.base_reg) c.die(a.tok, "register-based .param addressing is not supported");
    // 32-bit addresses only reach the small per-block/per-thread spaces (nvcc uses them for .shared).
    if (a.base_reg && bits_of(fn_->regs[a.idx].type) < 64 && I.mod.space != Space::Shared && I.mod.space != Space::Local)
      c.die(a.tok, fmt::format("32-bit address register '{}' needs .shared or .local", fn_->regs[a.idx].name));
    return o;
  };

  auto ai = kArith.find(name);
  if (ai != kArith.end()) {
    const ArithSpec& s = ai->second;
    I.op = s.op;
    if (s.mods & M_MUL) {
      static const std::map<std::string, isa::MulMode> mm = {
          {"lo", isa::MulMode::Lo}, {"hi", isa::MulMode::Hi}, {"wide", isa::MulMode::Wide}};
      I.mod.mul = c.take_of(mm, isa::MulMode::None);
    }
    if (s.mods & M_RND) I.mod.round = c.take_of(kRounds, isa::Round::None);
    if ((s.mods & M_FTZ) && c.take("ftz")) I.mod.flags |= isa::kFtz;
    if ((s.mods & M_SAT) && c.take("sat")) I.mod.flags |= isa::kSat;
    if ((s.mods & M_APPROX) && c.take("approx")) I.mod.flags |= isa::kApprox;
    if ((s.mods & M_FULL) && c.take("full")) I.mod.flags |= isa::kFull;
    if ((s.mods & M_SHIFTAMT) && c.take("shiftamt")) I.mod.flags |= isa::kShiftAmt;
    I.type = c.type();
    c.done();
    char cls = type_class(I.type);
    if (!std::strchr(s.classes, cls)) c.die(op, fmt::format("type .{} not supported by {}", Ictx::tname(I.type), name));
    bool fl = cls == 'f';
    if (!fl && (I.mod.round != isa::Round::None || (I.mod.flags & (isa::kFtz | isa::kApprox | isa::kFull))))
      c.die(op, "floating-point modifier on an integer instruction");
    if (fl && I.mod.mul != isa::MulMode::None) c.die(op, ".lo/.hi/.wide on a floating-point instruction");
    if (!fl && (I.op == Opcode::Mul || I.op == Opcode::Mad) && I.mod.mul == isa::MulMode::None)
      c.die(op, "integer mul/mad needs .lo, .hi or .wide");
    if ((I.op == Opcode::Mul24 || I.op == Opcode::Mad24) &&
        (bits_of(I.type) != 32 || I.mod.mul == isa::MulMode::None || I.mod.mul == isa::MulMode::Wide))
      c.die(op, "mul24/mad24 need .lo or .hi and a 32-bit type");
    if (I.mod.round > isa::Round::Rp) c.die(op, "integer rounding modifier on arithmetic");
    if (I.op == Opcode::Fma && I.mod.round == isa::Round::None) c.die(op, "fma needs a rounding modifier");
    if ((I.mod.flags & isa::kSat) && !(fl || I.type == DType::S32)) c.die(op, ".sat needs .s32 or a float type");
    if (I.op == Opcode::Div && fl && I.type == DType::F32 && I.mod.round == isa::Round::None &&
        !(I.mod.flags & (isa::kApprox | isa::kFull)))
      c.die(op, "div.f32 needs .approx, .full or a rounding modifier");
    if ((I.op == Opcode::Sqrt || I.op == Opcode::Rcp) && I.mod.round == isa::Round::None && !(I.mod.flags & isa::kApprox))
      c.die(op, fmt::format("{} needs .approx or a rounding modifier", name));
    if ((I.op == Opcode::Rsqrt || I.op == Opcode::Sin || I.op == Opcode::Cos || I.op == Opcode::Ex2 ||
         I.op == Opcode::Lg2 || I.op == Opcode::Tanh) && !(I.mod.flags & isa::kApprox))
      c.die(op, fmt::format("{} needs .approx", name));
    if ((I.op == Opcode::Bfe || I.op == Opcode::Bfind) && bits_of(I.type) < 32) c.die(op, "needs a 32/64-bit type");
    if ((I.op == Opcode::Lop3) && I.type != DType::B32) c.die(op, "lop3 needs .b32");
    std::string pat = s.pat;
    bool wide = I.mod.mul == isa::MulMode::Wide;
    if (wide) {
      if (wide_of(I.type) == DType::None || bits_of(I.type) > 32) c.die(op, ".wide needs a 16/32-bit type");
      pat[0] = 'w';
      if (I.op == Opcode::Mad) pat[3] = 'w';
    }
    c.count(pat.size(), pat.size());
    I.nops = uint8_t(pat.size());
    for (size_t j = 0; j < pat.size(); ++j) {
      DType t = pat[j] == 'T' ? I.type : pat[j] == 'w' ? wide_of(I.type) : pat[j] == 'u' ? DType::U32
                : pat[j] == 'b' ? DType::B32 : DType::Pred;
      I.ops[j] = j == 0 ? c.dst(A[j], t) : c.src(A[j], t);
    }
    if (I.op == Opcode::Lop3 && (I.ops[4].kind != OpKind::Imm || I.ops[4].imm > 255))
      c.die(A[4].tok, "lop3 lookup table must be an immediate 0..255");
  } else if (name == "shf") {
    I.op = Opcode::Shf;
    if (c.take("l")) I.mod.flags |= isa::kShfLeft;
    else if (!c.take("r")) c.die(op, "shf needs .l or .r");
    if (c.take("wrap")) I.mod.flags |= isa::kShfWrap;
    else if (!c.take("clamp")) c.die(op, "shf needs .wrap or .clamp");
    I.type = c.type();
    c.done();
    if (I.type != DType::B32) c.die(op, "shf needs .b32");
    c.count(4, 4);
    set_ops({c.dst(A[0], I.type), c.src(A[1], I.type), c.src(A[2], I.type), c.src(A[3], DType::U32)});
  } else if (name == "prmt") {
    I.op = Opcode::Prmt;
    I.type = c.type();
    static const std::map<std::string, isa::PrmtMode> pm = {
        {"f4e", isa::PrmtMode::F4e}, {"b4e", isa::PrmtMode::B4e}, {"rc8", isa::PrmtMode::Rc8},
        {"ecl", isa::PrmtMode::Ecl}, {"ecr", isa::PrmtMode::Ecr}, {"rc16", isa::PrmtMode::Rc16}};
    I.mod.prmt = c.take_of(pm, isa::PrmtMode::None);
    c.done();
    if (I.type != DType::B32) c.die(op, "prmt needs .b32");
    c.count(4, 4);
    set_ops({c.dst(A[0], I.type), c.src(A[1], I.type), c.src(A[2], I.type), c.src(A[3], I.type)});
  } else if (name == "testp") {
    I.op = Opcode::Testp;
    static const std::map<std::string, isa::TestpMode> tm = {
        {"finite", isa::TestpMode::Finite}, {"infinite", isa::TestpMode::Infinite},
        {"number", isa::TestpMode::Number}, {"notanumber", isa::TestpMode::NotANumber},
        {"normal", isa::TestpMode::Normal}, {"subnormal", isa::TestpMode::Subnormal}};
    I.mod.testp = c.take_of(tm, isa::TestpMode::None);
    if (I.mod.testp == isa::TestpMode::None) c.die(op, "testp needs a test mode");
    I.type = c.type();
    c.done();
    if (type_class(I.type) != 'f') c.die(op, "testp needs .f32 or .f64");
    c.count(2, 2);
    set_ops({c.dst(A[0], DType::Pred, false), c.src(A[1], I.type)});
  } else if (name == "setp" || name == "set") {
    I.op = name == "setp" ? Opcode::Setp : Opcode::Set;
    I.mod.cmp = c.take_of(kCmps, isa::Cmp::None);
    if (I.mod.cmp == isa::Cmp::None) c.die(op, fmt::format("{} needs a comparison", name));
    static const std::map<std::string, isa::BoolOp> bm = {
        {"and", isa::BoolOp::And}, {"or", isa::BoolOp::Or}, {"xor", isa::BoolOp::Xor}};
    I.mod.boolop = c.take_of(bm, isa::BoolOp::None);
    if (c.take("ftz")) I.mod.flags |= isa::kFtz;
    DType st;
    if (I.op == Opcode::Set) {
      I.type = c.type();
      st = I.type2 = c.type();
      if (I.type != DType::U32 && I.type != DType::S32 && I.type != DType::F32) c.die(op, "set needs .u32/.s32/.f32 result");
    } else {
      st = I.type = c.type();
    }
    c.done();
    char cls = type_class(st);
    if (cls == 'p' || cls == 'h') c.die(op, fmt::format("{} does not support .{}", name, Ictx::tname(st)));
    bool ucmp = I.mod.cmp >= isa::Cmp::Equ;
    if (cls != 'f' && ucmp) c.die(op, "unordered comparison on an integer type");
    if (cls == 'f' && I.mod.cmp >= isa::Cmp::Lo && I.mod.cmp <= isa::Cmp::Hs) c.die(op, "unsigned comparison on a float type");
    if (cls == 'b' && I.mod.cmp != isa::Cmp::Eq && I.mod.cmp != isa::Cmp::Ne) c.die(op, "bit types only compare eq/ne");
    size_t n = I.mod.boolop == isa::BoolOp::None ? 3 : 4;
    c.count(n, n);
    isa::Operand cc{};
    if (n == 4) cc = c.src(A[3], DType::Pred, true);
    if (I.op == Opcode::Setp) {
      if (A[0].k != Arg::Pred || A[0].neg) c.die(A[0].tok, "expected a predicate destination");
      isa::Operand p{OpKind::Pred, false, uint16_t(A[0].idx), 0};
      isa::Operand q{};
      if (A[0].pipe >= 0) q = {OpKind::Pred, false, uint16_t(A[0].pipe), 0};
      set_ops({p, q, c.src(A[1], st), c.src(A[2], st)});
      if (n == 4) I.ops[I.nops++] = cc;
    } else {
      set_ops({c.dst(A[0], I.type), c.src(A[1], st), c.src(A[2], st)});
      if (n == 4) I.ops[I.nops++] = cc;
    }
  } else if (name == "slct") {
    I.op = Opcode::Slct;
    if (c.take("ftz")) I.mod.flags |= isa::kFtz;
    I.type = c.type();
    I.type2 = c.type();
    c.done();
    if (I.type2 != DType::S32 && I.type2 != DType::F32) c.die(op, "slct selector must be .s32 or .f32");
    c.count(4, 4);
    set_ops({c.dst(A[0], I.type), c.src(A[1], I.type), c.src(A[2], I.type), c.src(A[3], I.type2)});
  } else if (name == "cvt") {
    I.op = Opcode::Cvt;
    I.mod.round = c.take_of(kRounds, isa::Round::None);
    if (c.take("ftz")) I.mod.flags |= isa::kFtz;
    if (c.take("sat")) I.mod.flags |= isa::kSat;
    I.type = c.type();
    I.type2 = c.type();
    c.done();
    if (I.type == DType::Pred || I.type2 == DType::Pred) c.die(op, "cvt does not convert predicates");
    bool df = isa::is_float(I.type), sf = isa::is_float(I.type2);
    bool irnd = I.mod.round >= isa::Round::Rni, frnd = I.mod.round != isa::Round::None && !irnd;
    if (sf && !df && frnd) c.die(op, "float-to-integer cvt needs an integer rounding (.rni/.rzi/.rmi/.rpi)");
    if (!sf && !df && I.mod.round != isa::Round::None) c.die(op, "rounding modifier on an integer cvt");
    if (!sf && df && irnd) c.die(op, "integer rounding on an integer-to-float cvt");
    if (sf && !df && I.mod.round == isa::Round::None) c.die(op, "float-to-integer cvt needs a rounding modifier");
    if (sf && df && bits_of(I.type) < bits_of(I.type2) && I.mod.round == isa::Round::None)
      c.die(op, "narrowing float cvt needs a rounding modifier");
    c.count(2, 2);
    set_ops({c.dst(A[0], I.type), c.src(A[1], I.type2)});
  } else if (name == "cvta") {
    I.op = Opcode::Cvta;
    if (c.take("to")) I.mod.flags |= isa::kToSpace;
    I.mod.space = c.take_of(kSpaces, Space::Generic);
    I.type = c.type();
    c.done();
    if (I.mod.space != Space::Global && I.mod.space != Space::Shared && I.mod.space != Space::Local)
      c.die(op, "cvta supports .global, .shared and .local only");
    if (I.type != DType::U64) c.die(op, "cvta needs .u64");
    c.count(2, 2);
    set_ops({c.dst(A[0], I.type), c.src(A[1], I.type)});
  } else if (name == "mov") {
    I.op = Opcode::Mov;
    I.type = c.type();
    c.done();
    c.count(2, 2);
    if (A[1].k == Arg::Vec || A[0].k == Arg::Vec) {
      bool pack = A[1].k == Arg::Vec;
      const Arg& v = pack ? A[1] : A[0];
      if (A[pack ? 0 : 1].k == Arg::Vec) c.die(A[0].tok, "vector on both sides of mov");
      size_t n = v.el.size();
      if ((n != 2 && n != 4) || bits_of(I.type) < 16 || type_class(I.type) != 'b')
        c.die(v.tok, "pack/unpack needs .b16/.b32/.b64 and 2 or 4 elements");
      DType et = bits_of(I.type) / n == 8 ? DType::B8 : bits_of(I.type) / n == 16 ? DType::B16 : DType::B32;
      if (bits_of(I.type) / n < 8) c.die(v.tok, "bad element count");
      I.vec = uint8_t(n);
      I.mod.flags |= pack ? isa::kPack : isa::kUnpack;
      I.nops = 0;
      if (pack) {
        I.ops[I.nops++] = c.dst(A[0], I.type, false);
        for (auto& e : v.el) I.ops[I.nops++] = c.src(e, et);
      } else {
        for (auto& e : v.el) I.ops[I.nops++] = c.dst(e, et);
        I.ops[I.nops++] = c.src(A[1], I.type);
      }
    } else if (A[1].k == Arg::SReg) {
      isa::SReg s = isa::SReg(A[1].idx);
      unsigned need = (s == isa::SReg::Clock64 || s == isa::SReg::GlobalTimer) ? 64 : 32;
      if (bits_of(I.type) != need) c.die(A[1].tok, fmt::format("{} needs a {}-bit mov", A[1].tok.s, need));
      set_ops({c.dst(A[0], I.type, false), {OpKind::SReg, false, uint16_t(A[1].idx), 0}});
    } else if (A[1].k == Arg::Sym) {
      Ref r;
      r.op = 1;
      Name* nm = lookup(A[1].name);
      if (nm && nm->k == Name::Var && fn_->vars[nm->idx].space == Space::Local) {
        r.kind = RefKind::FuncVar;
        r.index = nm->idx;
      } else if (nm) {
        c.die(A[1].tok, fmt::format("taking the address of .param '{}' is not supported", A[1].name));
      } else if (int mv = module_var(A[1].name); mv >= 0) {
        r.kind = RefKind::ModuleVar;
        r.index = uint32_t(mv);
      } else if (mod_.find(A[1].name)) {
        c.die(A[1].tok, "function pointers are not supported");
      } else {
        c.die(A[1].tok, fmt::format("unknown symbol '{}'", A[1].name));
      }
      Space vs = r.kind == RefKind::FuncVar ? Space::Local : mod_.vars[r.index].space;
      bool small = vs == Space::Shared || vs == Space::Local;
      if ((bits_of(I.type) != 64 && !(small && bits_of(I.type) == 32)) || type_class(I.type) == 'f')
        c.die(op, "address mov needs a 64-bit integer type (32-bit allowed for .shared/.local)");
      in.refs.push_back(r);
      set_ops({c.dst(A[0], I.type, false), {OpKind::Imm, false, isa::kNoReg, 0}});
    } else {
      set_ops({c.dst(A[0], I.type, false), c.src(A[1], I.type)});
    }
  } else if (name == "ld" || name == "st") {
    bool ld = name == "ld";
    I.op = ld ? Opcode::Ld : Opcode::St;
    if (c.take("volatile")) I.mod.flags |= isa::kVolatile;
    scope_sem();
    I.mod.space = c.take_of(kSpaces, Space::Generic);
    if (ld && c.take("nc")) I.mod.flags |= isa::kNc;
    // Cache policy hints: no functional effect.
    for (const char* h : {"ca", "cg", "cs", "lu", "cv", "wb", "wt", "L1::evict_normal", "L1::evict_unchanged",
                          "L1::evict_first", "L1::evict_last", "L1::no_allocate", "L2::64B", "L2::128B", "L2::256B"})
      c.take(h);
    if (c.take("v2")) I.vec = 2;
    else if (c.take("v4")) I.vec = 4;
    I.type = c.type();
    c.done();
    if (I.type == DType::Pred) c.die(op, "ld/st of .pred");
    if ((I.mod.flags & isa::kNc) && I.mod.space != Space::Global) c.die(op, ".nc needs .global");
    if (!ld && I.mod.space == Space::Const) c.die(op, "store to .const");
    if (I.vec * bits_of(I.type) > 128) c.die(op, "vector access wider than 128 bits");
    c.count(2, 2);
    const Arg& data = ld ? A[0] : A[1];
    std::vector<const Arg*> els;
    if (I.vec > 1) {
      if (data.k != Arg::Vec || data.el.size() != I.vec)
        c.die(data.tok, fmt::format("expected a {{...}} vector of {} elements", I.vec));
      for (auto& e : data.el) els.push_back(&e);
    } else {
      if (data.k == Arg::Vec) c.die(data.tok, "vector operand without .v2/.v4");
      els.push_back(&data);
    }
    I.nops = 0;
    if (ld) {
      for (auto* e : els) I.ops[I.nops++] = c.dst(*e, I.type);
      I.ops[I.nops] = mem(A[1], I.nops);
      ++I.nops;
    } else {
      I.ops[I.nops++] = mem(A[0], 0);
      for (auto* e : els) I.ops[I.nops++] = c.src(*e, I.type);
    }
    if (!ld && I.mod.space == Space::Param && fn_->entry) {
      for (auto& r : in.refs)
        if (r.kind == RefKind::Param) c.die(A[0].tok, "store to a kernel parameter");
    }
  } else if (name == "atom" || name == "red") {
    bool atom = name == "atom";
    I.op = atom ? Opcode::Atom : Opcode::Red;
    scope_sem();
    I.mod.space = c.take_of(kSpaces, Space::Generic);
    static const std::map<std::string, isa::AtomOp> am = {
        {"add", isa::AtomOp::Add},   {"min", isa::AtomOp::Min}, {"max", isa::AtomOp::Max},
        {"and", isa::AtomOp::And},   {"or", isa::AtomOp::Or},   {"xor", isa::AtomOp::Xor},
        {"exch", isa::AtomOp::Exch}, {"cas", isa::AtomOp::Cas}, {"inc", isa::AtomOp::Inc},
        {"dec", isa::AtomOp::Dec}};
    I.mod.atom = c.take_of(am, isa::AtomOp::None);
    if (I.mod.atom == isa::AtomOp::None) c.die(op, fmt::format("{} needs an operation", name));
    I.type = c.type();
    c.done();
    if (I.mod.space != Space::Generic && I.mod.space != Space::Global && I.mod.space != Space::Shared)
      c.die(op, fmt::format("{} supports .global, .shared and generic addresses only", name));
    char cls = type_class(I.type);
    unsigned b = bits_of(I.type);
    bool ok = false;
    switch (I.mod.atom) {
      case isa::AtomOp::Add: ok = (cls == 'u' || cls == 's' || cls == 'f') && b >= 32 && I.type != DType::S64; break;
      case isa::AtomOp::Min: case isa::AtomOp::Max: ok = (cls == 'u' || cls == 's') && b >= 32; break;
      case isa::AtomOp::And: case isa::AtomOp::Or: case isa::AtomOp::Xor: ok = cls == 'b' && b >= 32; break;
      case isa::AtomOp::Exch: case isa::AtomOp::Cas: ok = cls == 'b' && b >= 32; break;
      case isa::AtomOp::Inc: case isa::AtomOp::Dec: ok = I.type == DType::U32; break;
      default: break;
    }
    if (!ok) c.die(op, fmt::format("{}.{} does not support .{}", name, mods[0], Ictx::tname(I.type)));
    size_t n = (atom ? 3 : 2) + (I.mod.atom == isa::AtomOp::Cas ? 1 : 0);
    if (!atom && I.mod.atom == isa::AtomOp::Cas) c.die(op, "red.cas does not exist");
    c.count(n, n);
    if (atom) {
      set_ops({c.dst(A[0], I.type), isa::Operand{}, c.src(A[2], I.type)});
      I.ops[1] = mem(A[1], 1);
      if (n == 4) I.ops[I.nops++] = c.src(A[3], I.type);
    } else {
      set_ops({isa::Operand{}, c.src(A[1], I.type)});
      I.ops[0] = mem(A[0], 0);
    }
  } else if (name == "bar" || name == "barrier") {
    if (name == "bar" && c.take("warp")) {
      if (!c.take("sync")) c.die(op, "expected bar.warp.sync");
      c.done();
      I.op = Opcode::BarWarp;
      c.count(1, 1);
      set_ops({c.src(A[0], DType::B32)});
    } else {
      if (!c.take("sync")) c.die(op, fmt::format("only {}.sync is supported", name));
      c.take("aligned");
      c.done();
      I.op = Opcode::Bar;
      c.count(1, 2);
      set_ops({c.src(A[0], DType::U32), isa::Operand{}});
      if (A.size() == 2) I.ops[1] = c.src(A[1], DType::U32);
      if (I.ops[0].kind == OpKind::Imm && I.ops[0].imm > 15) c.die(A[0].tok, "barrier id must be 0..15");
    }
  } else if (name == "membar" || name == "fence") {
    I.op = Opcode::Membar;
    if (name == "membar") {
      static const std::map<std::string, isa::MemLevel> lm = {
          {"cta", isa::MemLevel::Cta}, {"gl", isa::MemLevel::Gl}, {"sys", isa::MemLevel::Sys}};
      I.mod.level = c.take_of(lm, isa::MemLevel::None);
    } else {
      if (!c.take("sc") && !c.take("acq_rel")) c.die(op, "fence needs .sc or .acq_rel");
      I.mod.level = c.take_of(kScopes, isa::MemLevel::None);
    }
    if (I.mod.level == isa::MemLevel::None) c.die(op, fmt::format("{} needs a scope", name));
    c.done();
    c.count(0, 0);
  } else if (name == "shfl") {
    I.op = Opcode::Shfl;
    if (!c.take("sync")) c.die(op, "only shfl.sync is supported");
    static const std::map<std::string, isa::ShflMode> sm = {
        {"up", isa::ShflMode::Up}, {"down", isa::ShflMode::Down}, {"bfly", isa::ShflMode::Bfly}, {"idx", isa::ShflMode::Idx}};
    I.mod.shfl = c.take_of(sm, isa::ShflMode::None);
    if (I.mod.shfl == isa::ShflMode::None) c.die(op, "shfl needs a mode");
    I.type = c.type();
    c.done();
    if (I.type != DType::B32) c.die(op, "shfl needs .b32");
    c.count(5, 5);
    if (A[0].k != Arg::Reg) c.die(A[0].tok, "expected a register destination");
    isa::Operand p{};
    Arg d0 = A[0];
    if (d0.pipe >= 0) p = {OpKind::Pred, false, uint16_t(d0.pipe), 0};
    d0.pipe = -1;
    set_ops({c.dst(d0, I.type, false), p, c.src(A[1], I.type), c.src(A[2], DType::B32), c.src(A[3], DType::B32),
             c.src(A[4], DType::B32)});
  } else if (name == "vote") {
    I.op = Opcode::Vote;
    if (!c.take("sync")) c.die(op, "only vote.sync is supported");
    static const std::map<std::string, isa::VoteMode> vm = {
        {"all", isa::VoteMode::All}, {"any", isa::VoteMode::Any}, {"uni", isa::VoteMode::Uni}, {"ballot", isa::VoteMode::Ballot}};
    I.mod.vote = c.take_of(vm, isa::VoteMode::None);
    if (I.mod.vote == isa::VoteMode::None) c.die(op, "vote needs a mode");
    I.type = c.type();
    c.done();
    if ((I.mod.vote == isa::VoteMode::Ballot) != (I.type == DType::B32) ||
        (I.mod.vote != isa::VoteMode::Ballot && I.type != DType::Pred))
      c.die(op, "vote.ballot needs .b32, all/any/uni need .pred");
    c.count(3, 3);
    set_ops({c.dst(A[0], I.type, false), c.src(A[1], DType::Pred, true), c.src(A[2], DType::B32)});
  } else if (name == "activemask") {
    I.op = Opcode::Activemask;
    I.type = c.type();
    c.done();
    if (I.type != DType::B32) c.die(op, "activemask needs .b32");
    c.count(1, 1);
    set_ops({c.dst(A[0], I.type, false)});
  } else if (name == "bra") {
    I.op = Opcode::Bra;
    if (c.take("uni")) I.mod.flags |= isa::kUni;
    c.done();
    c.count(1, 1);
    if (A[0].k != Arg::Sym) c.die(A[0].tok, "expected a label");
    set_ops({{OpKind::Target, false, isa::kNoReg, 0}});
    in.refs.push_back({0, RefKind::Label, 0});
    label_uses_.push_back({uint32_t(fn_->body.size()), in.refs.size() - 1, A[0].tok});
  } else if (name == "call") {
    I.op = Opcode::Call;
    if (c.take("uni")) I.mod.flags |= isa::kUni;
    c.done();
    size_t k = 0;
    std::vector<uint32_t> rets, cargs;
    auto params_of = [&](const Arg& l, std::vector<uint32_t>& out) {
      for (auto& e : l.el) {
        Name* nm = e.k == Arg::Sym ? lookup(e.name) : nullptr;
        if (!nm || nm->k != Name::Var || fn_->vars[nm->idx].space != Space::Param)
          c.die(e.tok, "call arguments must be .param variables declared in the calling function");
        out.push_back(nm->idx);
      }
    };
    if (k < A.size() && A[k].k == Arg::List) params_of(A[k++], rets);
    if (k >= A.size() || A[k].k != Arg::Sym) c.die(k < A.size() ? A[k].tok : op, "expected a function name");
    const Tok& ft = A[k++].tok;
    if (lookup(ft.s)) c.die(ft, "indirect calls are not supported");
    if (k < A.size() && A[k].k == Arg::List) params_of(A[k++], cargs);
    if (k != A.size()) c.die(A[k].tok, "unsupported call form (prototypes / indirect calls)");
    set_ops({{OpKind::Target, false, isa::kNoReg, 0}});
    in.call_args = cargs;
    in.call_rets = rets;
    call_uses_.push_back({size_t(fn_ - mod_.funcs.data()), fn_->body.size(), ft});
  } else if (name == "ret" || name == "exit" || name == "trap") {
    I.op = name == "ret" ? Opcode::Ret : name == "exit" ? Opcode::Exit : Opcode::Trap;
    if (I.op == Opcode::Ret && c.take("uni")) I.mod.flags |= isa::kUni;
    c.done();
    c.count(0, 0);
  } else if (name == "nanosleep") {
    I.op = Opcode::Nanosleep;
    I.type = c.type();
    c.done();
    if (I.type != DType::U32) c.die(op, "nanosleep needs .u32");
    c.count(1, 1);
    set_ops({c.src(A[0], DType::U32)});
  } else {
    err(op, fmt::format("unknown instruction '{}'", name));
  }
  fn_->body.push_back(std::move(in));
}

}  // namespace

Module parse(const std::string& text, const std::string& source_name) {
  Parser p(text, source_name);
  return p.run();
}

}  // namespace gpuvp::ptx
