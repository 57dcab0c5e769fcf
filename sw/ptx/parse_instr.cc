// One PTX instruction: `[@[!]p] opcode[.mod...] [operand, ...];`. Reads the guard, splits the
// opcode into mnemonic and modifiers, reads the operands, and hands them to the family builder
// registered for the mnemonic (build_*.cc), which fills the isa::Inst.
#include <set>

#include "sw/ptx/parser_internal.h"

namespace gpuvp::ptx::detail {

namespace {

// "ld.global.v2.u32" -> {"ld", "global", "v2", "u32"}
std::vector<std::string> split_opcode(const std::string& s) {
  std::vector<std::string> parts;
  size_t b = 0;
  for (;;) {
    size_t d = s.find('.', b);
    parts.push_back(s.substr(b, d == std::string::npos ? std::string::npos : d - b));
    if (d == std::string::npos) break;
    b = d + 1;
  }
  return parts;
}

// Instruction families the platform has no hardware for: refused by name before their operands (whose
// syntax is theirs) are read, so that the message names what the kernel needs.
std::string unsupported_family(const std::string& name) {
  static const std::set<std::string> tex = {"tex", "tld4", "txq", "istypep"}, surf = {"suld", "sust", "sured", "suq"};
  if (tex.count(name)) return fmt::format("textures are not supported ('{}')", name);
  if (surf.count(name)) return fmt::format("surfaces are not supported ('{}')", name);
  return {};
}

}  // namespace

// Mnemonic -> builder. A new instruction adds its builder to a build_*.cc family and one line here
// (or, when it fits the regular arithmetic pattern, one kArith line in build_arith.cc).
const std::map<std::string, Parser::Builder>& Parser::builders() {
  static const std::map<std::string, Builder> table = [] {
    std::map<std::string, Builder> t = {
        {"shf", &Parser::shf},           {"prmt", &Parser::prmt},
        {"testp", &Parser::testp},       {"setp", &Parser::setp},
        {"set", &Parser::setp},          {"slct", &Parser::slct},
        {"cvt", &Parser::cvt},           {"cvta", &Parser::cvta},
        {"mov", &Parser::mov},           {"ld", &Parser::ld_st},
        {"st", &Parser::ld_st},          {"atom", &Parser::atom_red},
        {"red", &Parser::atom_red},      {"bar", &Parser::bar},
        {"barrier", &Parser::bar},       {"membar", &Parser::membar},
        {"fence", &Parser::membar},      {"shfl", &Parser::shfl},
        {"vote", &Parser::vote},         {"activemask", &Parser::activemask},
        {"bra", &Parser::bra},           {"call", &Parser::call},
        {"ret", &Parser::ret_exit_trap}, {"exit", &Parser::ret_exit_trap},
        {"trap", &Parser::ret_exit_trap}, {"nanosleep", &Parser::nanosleep},
        {"addc", &Parser::carry},        {"subc", &Parser::carry},
        {"madc", &Parser::carry},        {"match", &Parser::match},
        {"vabsdiff4", &Parser::vabsdiff4}};
    for (const std::string& name : arith_mnemonics()) t.emplace(name, &Parser::arith);
    return t;
  }();
  return table;
}

void Parser::instruction() {
  Instr in;
  Tok first = cur();
  in.line = first.line;
  in.col = first.col;
  in.text = stmt_text();
  guard(in);
  Tok op = cur();
  if (op.k != T::Ident || op.s[0] == '.' || op.s[0] == '%') err(op, fmt::format("expected an instruction, got '{}'", op.s));
  next();
  std::vector<std::string> parts = split_opcode(op.s);
  std::string name = parts[0];
  std::vector<std::string> mods(parts.begin() + 1, parts.end());
  if (const std::string why = unsupported_family(name); !why.empty()) err(op, why);
  std::vector<Arg> args = operand_list();
  Ictx c{op, name, mods, std::vector<bool>(mods.size(), false), std::move(args), in, *fn_,
         [this](const Tok& t, const std::string& m) { err(t, m); }};
  auto b = builders().find(name);
  if (b == builders().end()) err(op, fmt::format("unknown instruction '{}'", name));
  (this->*(b->second))(c);
  fn_->body.push_back(std::move(in));
}

// `@p` / `@!p` before the opcode.
void Parser::guard(Instr& in) {
  if (!accept("@")) return;
  bool gneg = accept("!");
  const Tok& g = cur();
  std::string gn = ident("guard predicate");
  Name* nm = lookup(gn);
  if (!nm || nm->k != Name::Pred) err(g, fmt::format("undeclared predicate '{}'", gn));
  in.inst.guard = int16_t(nm->idx);
  in.inst.guard_neg = gneg;
}

// The comma-separated operands up to and including the terminating ';'.
std::vector<Arg> Parser::operand_list() {
  std::vector<Arg> args;
  if (!at(";")) {
    args.push_back(operand());
    while (accept(",")) args.push_back(operand());
  }
  if (!at(";")) err(cur(), cur().k == T::End ? "missing ';'" : fmt::format("expected ';', got '{}'", cur().s));
  next();
  return args;
}

}  // namespace gpuvp::ptx::detail
