// Assembler: a pipeline of stages (asm_internal.h lists them and their files) that lays out
// registers, memories and code of a parsed module and encodes it into an Image.
#include "sw/ptx/assembler.h"

#include <fmt/format.h>

#include "sw/ptx/asm_internal.h"

namespace gpuvp::ptx {

namespace detail {

[[noreturn]] void fail(const Module& m, const Instr& in, const std::string& msg) {
  throw ParseError(m.source_name, in.line, in.col, msg, in.text);
}
[[noreturn]] void fail_fn(const Module& m, const Function& f, const std::string& msg) {
  throw ParseError(m.source_name, f.line, 1, msg, f.name);
}

uint32_t place_var(const Module& m, const Var& v, uint64_t& o, const std::string& region) {
  o = align_up(o, v.align);
  const uint64_t at = o;
  o += v.size;
  if (o > kMaxRegion)
    throw ParseError(m.source_name, v.line, 1,
                     fmt::format("'{}' takes {} to {} bytes, beyond {}", v.name, region, o, kMaxRegion), v.name);
  return uint32_t(at);
}

}  // namespace detail

Image assemble(const Module& m, const Layout& layout) {
  Image img;
  img.source_name = m.source_name;
  img.layout = layout;
  detail::Program p(m, layout);
  detail::build_call_graph(p);        // components, recursive functions
  detail::plan_saves(p);              // registers saved around recursive calls
  detail::lay_out_frames(p);          // local-memory and call stack frames
  detail::allocate_slots(p);          // register/predicate slot bases
  detail::lay_out_module_vars(p, img);  // .global, .const
  detail::lay_out_shared(p);          // .shared
  detail::fill_kernel_infos(p, img);  // parameters, sizes, slots
  detail::order_code(p);              // callees first, then kernels
  detail::lower_functions(p, img);    // sites: slots, symbols, call lowering
  detail::lay_out_code(p);            // sizes, addresses, label/call targets
  detail::encode_sites(p, img);
  detail::finish_kernel_infos(p, img);  // entry/end, register estimate, functions
  return img;
}

Image assemble_text(const std::string& text, const std::string& source_name, const Layout& layout,
                    Schedule schedule) {
  return assemble(reschedule(parse(text, source_name), schedule), layout);
}

}  // namespace gpuvp::ptx
