// A host program against the installed C++ API: a saxpy kernel given as PTX text, run on the tk1
// preset (found in the installed tree), checked against the CPU. Exit 0 when every element matches.
#include <cstdio>
#include <vector>

#include "platform/platform.h"

namespace {

const char* kPtx = R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry saxpy(.param .u64 x, .param .u64 y, .param .f32 a, .param .u32 n)
{
	.reg .pred %p<2>;
	.reg .f32 %f<4>;
	.reg .b32 %r<6>;
	.reg .b64 %rd<6>;
	ld.param.u64 %rd1, [x];
	ld.param.u64 %rd2, [y];
	ld.param.f32 %f1, [a];
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ntid.x;
	mov.u32 %r4, %tid.x;
	mad.lo.s32 %r5, %r2, %r3, %r4;
	setp.ge.u32 %p1, %r5, %r1;
	@%p1 bra DONE;
	mul.wide.u32 %rd3, %r5, 4;
	add.s64 %rd4, %rd1, %rd3;
	add.s64 %rd5, %rd2, %rd3;
	ld.global.f32 %f2, [%rd4];
	ld.global.f32 %f3, [%rd5];
	fma.rn.f32 %f3, %f1, %f2, %f3;
	st.global.f32 [%rd5], %f3;
DONE:
	ret;
}
)";

}  // namespace

int sc_main(int, char**) {
  const uint32_t n = 1000;
  std::vector<float> x(n), y(n), out;
  for (uint32_t i = 0; i < n; ++i) x[i] = float(i), y[i] = 1.f;
  gpuvp::Platform p(gpuvp::Config::preset("tk1"));
  p.run([&](gpuvp::rt::Runtime& rt) {
    auto dx = rt.upload(x), dy = rt.upload(y);
    auto m = rt.load_module(kPtx, "saxpy.ptx");
    gpuvp::rt::KernelArgs args;
    args.ptr(dx).ptr(dy).f32(2.f).u32(n);
    rt.launch(m, "saxpy", {(n + 127) / 128}, {128}, args);
    out = rt.download<float>(dy, n);
  });
  for (uint32_t i = 0; i < n; ++i)
    if (out[i] != 2.f * float(i) + 1.f) {
      std::printf("consumer: y[%u] = %g, expected %g\n", i, out[i], 2.f * float(i) + 1.f);
      return 1;
    }
  std::printf("consumer: %u saxpy results correct on %s, presets from %s\n", n, p.config().s("platform.name").c_str(),
              gpuvp::Config::preset_dir().c_str());
  return 0;
}
