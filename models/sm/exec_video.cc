// SIMD video instructions: vabsdiff4 (byte-wise absolute differences) with the default byte
// selectors and mask, the forms the parser accepts (sw/ptx/build_video.cc).
#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "models/sm/exec.h"

namespace gpuvp::sm {

namespace {

// Byte i of v, sign- or zero-extended as the operand type says.
int byte_of(uint64_t v, unsigned i, bool is_signed) {
  uint32_t b = uint32_t(v >> (8 * i)) & 0xFF;
  return is_signed ? int(int8_t(uint8_t(b))) : int(b);
}

// vabsdiff4: t[i] = |a.byte[i] - b.byte[i]|. .add: d = c + the four (wrapping at 32 bits); else d packs
// them (.sat: clamped to the destination's byte range) and c is not used (default mask).
void vabsdiff4(Exec& x) {
  uint64_t sa[32], sb[32], sc[32], sd[32];
  const uint64_t *a = x.src(1, sa), *b = x.src(2, sb), *c = x.src(3, sc);
  const bool src_signed = isa::is_signed(x.in.type2), add = x.in.mod.atom == isa::AtomOp::Add;
  const int hi = !(x.in.mod.flags & isa::kSat) ? 0xFF : isa::is_signed(x.in.type) ? 127 : 255;
  uint64_t r[32];
  lanes(x.m, [&](unsigned l) {
    uint32_t packed = 0, sum = 0;
    for (unsigned i = 0; i < 4; ++i) {
      int t = std::abs(byte_of(a[l], i, src_signed) - byte_of(b[l], i, src_signed));
      sum += uint32_t(t);
      packed |= uint32_t(std::min(t, hi) & 0xFF) << (8 * i);
    }
    r[l] = add ? uint32_t(uint32_t(c[l]) + sum) : packed;
  });
  uint64_t* d = x.dst(0, sd);  // after the reads: d may be a source
  lanes(x.m, [&](unsigned l) { d[l] = r[l]; });
}

}  // namespace

void add_video_ops(OpTable& t) { t[size_t(isa::Opcode::Vabsdiff4)].fn = vabsdiff4; }

}  // namespace gpuvp::sm
