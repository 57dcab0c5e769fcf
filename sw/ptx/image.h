#pragma once
// What the assembler makes of a PTX module and the loader places in the platform's memories.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace gpuvp::ptx {

// Where the loader will put the module's sections; the assembler resolves every symbol and branch
// target to absolute addresses in these spaces.
struct Layout {
  uint64_t code_base = 0;    // system memory byte address of the first instruction
  uint64_t const_base = 0;   // constant memory byte address of the module's .const data
  uint64_t global_base = 0;  // global memory byte address of the module's .global variables
  // Bytes the module's .const and .global variables may take (what the memories have left): a
  // variable beyond is an assembler error naming it, before any of its bytes are allocated.
  uint64_t const_capacity = ~uint64_t{0};
  uint64_t global_capacity = ~uint64_t{0};
};

struct ParamInfo {
  std::string name;
  uint32_t offset = 0;  // byte offset in the kernel's parameter buffer
  uint32_t size = 0;    // bytes (.u64 pointers are 8)
  uint32_t align = 0;
  std::string type;     // PTX element type without the dot: "u32", "f32", "b64" (b8 for byte arrays)
};

struct KernelInfo {
  std::string name;
  uint64_t entry = 0;               // absolute code address
  uint64_t end = 0;                 // one past the last instruction of the kernel
  std::vector<ParamInfo> params;
  uint32_t param_bytes = 0;
  uint32_t static_shared_bytes = 0; // .shared declarations the kernel uses
  uint32_t local_bytes = 0;         // per-thread local memory (depot + parameter frames)
  // Reaches recursive functions: their frames are on a per-thread call stack, which the runtime
  // adds after local_bytes (the SM's stack_bytes; docs/isa-encoding.md, "Call stack").
  bool call_stack = false;
  uint32_t num_regs = 0;            // 64-bit register slots
  uint32_t num_preds = 0;           // predicate slots
  std::vector<std::string> reg_names;  // register slot -> PTX register ("%r1", "func:%rd2"), num_regs of them
  uint32_t regs_per_thread = 0;     // 32-bit registers a thread needs (liveness estimate, for occupancy)
  uint32_t max_ntid[3] = {0, 0, 0}; // .maxntid when given
  uint32_t reqntid[3] = {0, 0, 0};  // .reqntid when given
  // Threads per block its directives allow (nvcc's __launch_bounds__ is .maxntid); 0: no limit.
  uint32_t thread_limit() const {
    const uint32_t* d = max_ntid[0] ? max_ntid : reqntid;
    return d[0] ? d[0] * std::max(d[1], 1u) * std::max(d[2], 1u) : 0;
  }
};

// A .func with a body (device errors name the function of their PC).
struct FuncInfo {
  std::string name;
  uint64_t entry = 0, end = 0;  // absolute code addresses: first instruction, one past the last
  bool recursive = false;       // on a call cycle
  uint32_t stack_frame = 0;     // recursive: bytes each activation takes on the call stack
};

struct GlobalVar {
  std::string name;
  uint64_t address = 0;  // absolute global memory address
  uint32_t size = 0;
  std::vector<uint8_t> init;  // the initialised bytes (the rest, up to size, is zero)
};

struct Image {
  std::string source_name;         // file the PTX came from (for messages)
  Layout layout;
  std::vector<uint8_t> code;       // encoded instructions, to be written at layout.code_base
  std::vector<uint8_t> const_data; // written at layout.const_base
  uint64_t global_bytes = 0;       // bytes of .global variables at layout.global_base
  std::vector<GlobalVar> globals;
  std::vector<GlobalVar> consts;   // .const variables: address in constant memory (CUDA's __constant__ symbols)
  std::vector<KernelInfo> kernels;
  std::vector<FuncInfo> functions;  // in module order

  const KernelInfo* find_kernel(const std::string& name) const {
    for (auto& k : kernels)
      if (k.name == name) return &k;
    return nullptr;
  }
  // The .func whose code holds `pc`, or nullptr.
  const FuncInfo* function_at(uint64_t pc) const {
    for (auto& f : functions)
      if (pc >= f.entry && pc < f.end) return &f;
    return nullptr;
  }
};

}  // namespace gpuvp::ptx
