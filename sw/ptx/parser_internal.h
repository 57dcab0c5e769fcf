#pragma once
// Internal to sw/ptx: the parser's stages and what they share. The parser reads a module in
// stages, one file each:
//   lexer.cc          tokens and the token cursor (TokenStream)
//   parser.cc         module driver: directives loop, call resolution
//   parse_decl.cc     module directives, .entry/.func headers and bodies, statements, labels
//   parse_var.cc      variable, parameter and register declarations, initialisers
//   parse_operand.cc  operand syntax (Arg) and its conversion to isa::Operand (Ictx::dst/src/imm)
//   modifiers.cc      modifier tables (text -> isa enums) and modifier consumption (Ictx::take...)
//   parse_instr.cc    one instruction: guard, opcode + modifiers, operands, dispatch to a builder
//   build_*.cc        per-family instruction builders (arith, carry, compare, move, memory, control,
//                     warp, video)
// Instruction builders "take" the modifiers they understand; any modifier left over is an error,
// so an unsupported variant can never be accepted silently.
#include <fmt/format.h>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "sw/ptx/lexer.h"
#include "sw/ptx/parser.h"

namespace gpuvp::ptx::detail {

using isa::DType;
using isa::Opcode;
using isa::OpKind;
using isa::Space;

// ---------------------------------------------------------------- tables (modifiers.cc)
extern const std::map<std::string, DType> kTypes;
extern const std::map<std::string, isa::SReg> kSRegs;
extern const std::map<std::string, isa::Cmp> kCmps;
extern const std::map<std::string, isa::Round> kRounds;
extern const std::map<std::string, Space> kSpaces;
extern const std::map<std::string, isa::MemLevel> kScopes;

DType wide_of(DType t);
// Type class letter: p pred, f f32/f64, h f16, s signed, u unsigned, b bits.
char type_class(DType t);
// The modifier text of a type ("u32"), "?" when none.
std::string type_name(DType t);
// Mnemonics of the table-driven arithmetic family (build_arith.cc).
std::vector<std::string> arith_mnemonics();

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

// ---------------------------------------------------------------- one instruction being mapped
struct Ictx {
  const Tok& op;                   // the opcode token ("add.s32")
  std::string name;                // the mnemonic ("add")
  std::vector<std::string> mods;   // the modifiers ("s32"), in source order
  std::vector<bool> used;
  std::vector<Arg> args;
  Instr& in;
  const Function& fn;
  std::function<void(const Tok&, const std::string&)> fail;

  [[noreturn]] void die(const Tok& t, const std::string& m) const {
    fail(t, m);
    std::abort();
  }

  // --- modifiers (modifiers.cc)
  bool take(const char* m);
  template <class E>
  E take_of(const std::map<std::string, E>& table, E none) {
    for (size_t j = 0; j < mods.size(); ++j)
      if (!used[j] && table.count(mods[j])) {
        used[j] = true;
        return table.at(mods[j]);
      }
    return none;
  }
  DType type(bool required = true);
  void done() const;
  // Memory-model qualifiers (.relaxed/.acquire/... + scope): recorded as kRelaxed + level.
  void scope_sem();

  // --- operands (parse_operand.cc)
  void count(size_t lo, size_t hi) const;
  void set_ops(std::initializer_list<isa::Operand> ops);
  DType reg_type(const Arg& a) const { return fn.regs[a.idx].type; }
  isa::Operand dst(const Arg& a, DType t, bool sink_ok = true) const;
  void check_width(const Arg& a, DType t) const;
  isa::Operand src(const Arg& a, DType t, bool neg_ok = false) const;
  int64_t imm(const Arg& a, DType t) const;
};

// ---------------------------------------------------------------- parser
class Parser : TokenStream {
 public:
  Parser(const std::string& src, const std::string& file) : TokenStream(src, file) { mod_.source_name = file; }
  Module run();

 private:
  Module mod_;
  Function* fn_ = nullptr;
  std::vector<std::map<std::string, Name>> scopes_;
  std::map<std::string, uint32_t> labels_;
  struct LabelUse { uint32_t instr; size_t ref; Tok tok; };
  std::vector<LabelUse> label_uses_;
  struct CallUse { size_t fn, instr; Tok tok; };
  std::vector<CallUse> call_uses_;

  // {vectors}, (lists) and initialiser braces are read recursively, once per level: deeper than
  // kMaxNesting is an error at the bracket, not a stack overflow.
  static constexpr unsigned kMaxNesting = 32;
  unsigned nesting_ = 0;
  struct Nest {
    Parser& p;
    Nest(Parser& parser, const Tok& open) : p(parser) {
      if (p.nesting_ >= kMaxNesting) p.err(open, fmt::format("nested deeper than {} levels", kMaxNesting));
      ++p.nesting_;
    }
    ~Nest() { --p.nesting_; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;
  };

  // --- names
  Name* lookup(const std::string& n);
  int module_var(const std::string& n) const;
  void declare(const Tok& t, const std::string& n, Name nm);

  // --- module level (parser.cc)
  void resolve_call(const CallUse& cu);
  void resolve_vprintf(const CallUse& cu, int callee);

  // --- directives, functions, statements (parse_decl.cc)
  void module_directive();
  void debug_section();
  void function(bool entry, bool visible, bool is_extern, bool weak);
  void param_list(std::vector<Var>& out);
  void perf_directives(Function& f);
  void body();
  void statement();
  void finish_function();

  // --- variables, parameters, registers (parse_var.cc)
  void var_decl(Space sp, bool is_extern, std::vector<Var>* into);
  std::vector<uint8_t> initializer(DType t, uint32_t elems);
  void initializer_item(DType t, std::vector<uint8_t>& out);
  Var param_decl(Space sp);
  DType decl_type(Var& v, bool param);
  uint64_t array_elems(uint64_t max_dim, bool* unsized);
  void reg_decl();

  // --- operands (parse_operand.cc)
  Arg operand();
  void mem_address(Arg& a);
  void number_operand(Arg& a, const Tok& t, bool minus);
  void name_operand(Arg& a, const Tok& t, bool neg);

  // --- instructions (parse_instr.cc)
  void instruction();
  void guard(Instr& in);
  std::vector<Arg> operand_list();

  // --- per-family builders (build_*.cc); each maps one mnemonic family to isa::Inst
  using Builder = void (Parser::*)(Ictx&);
  static const std::map<std::string, Builder>& builders();
  void arith(Ictx& c);
  void shf(Ictx& c);
  void prmt(Ictx& c);
  void testp(Ictx& c);
  void carry(Ictx& c);
  uint16_t carry_slot();  // the function's hidden carry-flag predicate (build_carry.cc)
  void setp(Ictx& c);
  void slct(Ictx& c);
  void cvt(Ictx& c);
  void cvta(Ictx& c);
  void mov(Ictx& c);
  void mov_address(Ictx& c);
  void ld_st(Ictx& c);
  void atom_red(Ictx& c);
  void membar(Ictx& c);
  isa::Operand mem(Ictx& c, const Arg& a, int opi);
  void bar(Ictx& c);
  void shfl(Ictx& c);
  void vote(Ictx& c);
  void match(Ictx& c);
  void vabsdiff4(Ictx& c);  // build_video.cc
  void activemask(Ictx& c);
  void bra(Ictx& c);
  void call(Ictx& c);
  void ret_exit_trap(Ictx& c);
  void nanosleep(Ictx& c);
};

}  // namespace gpuvp::ptx::detail
