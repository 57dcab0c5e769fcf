// Device printf: vprintf, the external function nvcc calls for printf, as one instruction
// (docs/isa-encoding.md, "Device printf"). Each active lane, in lane order, formats its line from
// the format string and argument buffer its call-block variables point to, hands it to the
// platform (CoreEnv::print) and gets CUDA's return value: the number of arguments, -1 for a null
// format. Strings are read without bus time (debug transport), as the printf hardware path of a
// GPU is not what gpuvp models; the instruction costs a branch's latency.
#include <fmt/format.h>

#include <cstring>

#include "models/sm/exec.h"
#include "models/sm/printf_format.h"

namespace gpuvp::sm {

namespace {

using isa::Space;

// Longest string (format or %s) read before giving up: a pointer into zeroed memory ends at once,
// one into memory full of non-zero bytes must not read for ever.
constexpr size_t kMaxString = 65536;

// The formatter's view of one lane: generic addresses through the shared/local windows or, for
// everything else, global memory; a failed read is a device error naming the address.
class LaneSource : public PrintfSource {
 public:
  LaneSource(Exec& x, unsigned lane, uint64_t args) : x_(x), lane_(lane), args_(args) {}

  bool read(uint64_t addr, uint8_t* dst, unsigned n, const char* what) {
    if (addr - isa::kSharedWindowBase < isa::kSharedWindowSize) return onchip(Space::Shared, addr - isa::kSharedWindowBase, dst, n);
    if (addr - isa::kLocalWindowBase < isa::kLocalWindowSize) return onchip(Space::Local, addr - isa::kLocalWindowBase, dst, n);
    CoreEnv::Fault f;
    if (x_.env().peek(CoreEnv::Port::GlobalRead, addr, dst, n, f)) return true;
    x_.fail(f.kind, fmt::format("printf {} at {:#x} is outside every memory ({})", what, addr, f.message), int(lane_),
            addr);
    return false;
  }

  bool arg(uint64_t off, unsigned size, uint64_t& value) override {
    uint8_t b[8] = {};
    if (!read(args_ + off, b, size, "argument")) return false;
    value = 0;
    for (unsigned i = size; i-- > 0;) value = value << 8 | b[i];
    return true;
  }

  bool string(uint64_t addr, std::string& s) override { return c_string(addr, s, "string"); }

  bool c_string(uint64_t addr, std::string& s, const char* what) {
    s.clear();
    for (size_t i = 0; i < kMaxString; ++i) {
      uint8_t c = 0;
      if (!read(addr + i, &c, 1, what)) return false;
      if (c == 0) return true;
      s += char(c);
    }
    x_.fail("address", fmt::format("printf {} at {:#x} has no end within {} bytes", what, addr, kMaxString), int(lane_),
            addr);
    return false;
  }

 private:
  bool onchip(Space sp, uint64_t off, uint8_t* dst, unsigned n) {
    const uint8_t* p = x_.onchip(lane_, sp, off, n);
    if (p) std::memcpy(dst, p, n);
    if (p) x_.onchip_read(p, n);
    return p != nullptr;
  }

  Exec& x_;
  unsigned lane_;
  uint64_t args_;
};

// 8 bytes of the lane's call-block variable at local offset `off`.
bool local_u64(Exec& x, unsigned lane, uint64_t off, uint64_t& v) {
  const uint8_t* p = x.onchip(lane, Space::Local, off, 8);
  if (p) std::memcpy(&v, p, 8);
  return p != nullptr;
}

// The local offsets of the call-block variables of vprintf's operands (a recursive function's
// are on its call stack: relative to the stack pointer register).
struct PrintfVars {
  uint64_t ret[32], format[32], args[32];
};

// One lane's printf; false after a device error.
bool print_lane(Exec& x, const PrintfVars& v, unsigned lane) {
  uint64_t fmt_ptr = 0, args = 0;
  if (!local_u64(x, lane, v.format[lane], fmt_ptr) || !local_u64(x, lane, v.args[lane], args)) return false;
  int32_t result = -1;  // CUDA: a null format prints nothing and returns -1
  if (fmt_ptr) {
    LaneSource src(x, lane, args);
    std::string format, text;
    int nargs = 0;
    bool cut = false;  // longer than the whole FIFO: made only up to its size, dropped by the sink
    if (!src.c_string(fmt_ptr, format, "format string") ||
        !format_printf(format, src, text, nargs, x.env().print_capacity(), cut))
      return false;
    x.env().print({x.block_linear(), x.thread_in_block(lane), std::move(text), cut});
    result = nargs;
  }
  if (x.in.ops[0].kind != isa::OpKind::Mem) return true;
  uint8_t* r = x.onchip(lane, Space::Local, v.ret[lane], 4);
  if (r) std::memcpy(r, &result, 4);
  return r != nullptr;
}

void vprintf_op(Exec& x) {
  x.lat() = x.cfg().lat.branch;
  PrintfVars v;  // Mem operands: their addresses land in the scratch arrays
  x.src(0, v.ret), x.src(1, v.format), x.src(2, v.args);
  for (unsigned l = 0; l < 32; ++l)
    if ((x.m >> l & 1) && !print_lane(x, v, l)) return;
}

}  // namespace

void add_printf_ops(OpTable& t) { t[size_t(isa::Opcode::Vprintf)].fn = vprintf_op; }

}  // namespace gpuvp::sm
