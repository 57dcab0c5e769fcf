#pragma once
// Parser for the PTX subset nvcc emits (docs/isa-encoding.md lists what is accepted). The parser
// resolves names (registers, labels, variables, functions) and maps every instruction to an
// isa::Inst whose register operands are function-local indices; the assembler lays out memory and
// registers. Everything it cannot execute faithfully is rejected with a ParseError.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "sw/isa/isa.h"

namespace gpuvp::ptx {

// what() is "file:line:column: message: <instruction text>" (": <text>" omitted when empty).
struct ParseError : std::runtime_error {
  ParseError(std::string file, uint32_t line, uint32_t column, std::string message, std::string text);
  std::string file;
  uint32_t line;
  uint32_t column;
  std::string message;
  std::string text;
};

// A variable: module-level .global/.const/.shared, function-level .local/.param, or a parameter.
struct Var {
  std::string name;
  isa::Space space = isa::Space::Global;
  uint32_t size = 0;
  uint32_t align = 1;
  isa::DType type = isa::DType::None;  // element type (a launch checks arguments against a parameter's)
  std::vector<uint8_t> init;  // empty = zero-initialised
  bool dynamic = false;       // `.extern .shared ... name[]`: dynamic shared memory
  uint32_t line = 0;
};

// A symbolic reference in an operand: the assembler adds the referenced entity's value to the
// operand's imm (labels: code address; variables: address/offset in their space).
enum class RefKind : uint8_t { Label, ModuleVar, FuncVar, Param, Ret };
struct Ref {
  int op = 0;
  RefKind kind = RefKind::Label;
  uint32_t index = 0;  // instruction index (Label), Module::vars, Function::vars/params/rets
};

struct Instr {
  isa::Inst inst;  // registers/predicates/guard are function-local indices
  std::vector<Ref> refs;
  uint32_t line = 0, col = 0;
  std::string text;  // source statement, for messages
  // Call only: callee (Module::funcs index) and argument/return .param variables (Function::vars).
  int callee = -1;
  std::vector<uint32_t> call_args, call_rets;
};

struct RegDecl {
  std::string name;
  isa::DType type = isa::DType::B32;
};

struct Function {
  std::string name;
  bool entry = false;      // .entry (kernel) vs .func
  bool has_body = false;   // false: prototype / .extern declaration
  bool visible = false, is_extern = false, weak = false;
  std::vector<Var> params;  // space Param
  std::vector<Var> rets;    // .func return parameters
  std::vector<RegDecl> regs;
  std::vector<std::string> preds;
  std::vector<Var> vars;    // .local (incl. __local_depot) and call-block .param variables
  std::vector<Instr> body;
  uint32_t maxntid[3] = {0, 0, 0};
  uint32_t reqntid[3] = {0, 0, 0};
  uint32_t line = 0;
};

struct Module {
  std::string source_name;
  std::vector<Var> vars;  // .global, .const, .shared
  std::vector<Function> funcs;
  const Function* find(const std::string& name) const {
    for (auto& f : funcs)
      if (f.name == name) return &f;
    return nullptr;
  }
};

// Parses one PTX module. Throws ParseError.
Module parse(const std::string& text, const std::string& source_name);

}  // namespace gpuvp::ptx
