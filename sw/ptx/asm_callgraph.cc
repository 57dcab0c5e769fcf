// Assembler stage: the call graph. Functions on a call cycle are recursive: their activations get
// frames on the thread's call stack (asm_frames.cc); code is ordered callees first.
#include <algorithm>
#include <vector>

#include "sw/ptx/asm_internal.h"

namespace gpuvp::ptx::detail {

using isa::Opcode;

namespace {

// Depth-first walk of the calls below `root` with an explicit stack (a chain of thousands of
// functions must not overflow the host's): on_call(instr, callee) says whether to descend into the
// callee; on_leave(f) runs once all of f's calls are walked.
template <class OnCall, class OnLeave>
void walk_calls(const Module& m, size_t root, OnCall on_call, OnLeave on_leave) {
  struct Frame {
    size_t f, next;
  };
  std::vector<Frame> stack{{root, 0}};
  while (!stack.empty()) {
    const size_t f = stack.back().f;
    const auto& body = m.funcs[f].body;
    if (stack.back().next == body.size()) {
      stack.pop_back();
      on_leave(f);
      continue;
    }
    const Instr& in = body[stack.back().next++];
    if (in.inst.op == Opcode::Call && on_call(in, size_t(in.callee))) stack.push_back({size_t(in.callee), 0});
  }
}

// Tarjan's strongly connected components with an explicit stack (a chain of thousands of functions
// must not overflow the host's). Components are numbered callees first.
class Components {
 public:
  explicit Components(Program& p) : p_(p), index_(p.nf, kNone), low_(p.nf, 0), on_(p.nf, 0) {
    p.scc.assign(p.nf, kNone);
  }
  void run() {
    for (size_t r = 0; r < p_.nf; ++r)
      if (index_[r] == kNone) walk(r);
  }

 private:
  static constexpr size_t kNone = ~size_t{0};
  struct Frame {
    size_t f;
    std::set<size_t>::const_iterator next;
  };

  void enter(size_t f) {
    index_[f] = low_[f] = count_++;
    open_.push_back(f);
    on_[f] = 1;
    path_.push_back({f, p_.callees[f].begin()});
  }
  void walk(size_t root) {
    enter(root);
    while (!path_.empty()) {
      const size_t f = path_.back().f;
      if (path_.back().next != p_.callees[f].end()) {
        const size_t c = *path_.back().next++;
        if (index_[c] == kNone) enter(c);
        else if (on_[c]) low_[f] = std::min(low_[f], index_[c]);
        continue;
      }
      path_.pop_back();
      if (!path_.empty()) low_[path_.back().f] = std::min(low_[path_.back().f], low_[f]);
      if (low_[f] == index_[f]) close(f);
    }
  }
  // f is the root of a component: everything above it on the open stack belongs to it.
  void close(size_t f) {
    size_t g;
    do {
      g = open_.back();
      open_.pop_back();
      on_[g] = 0;
      p_.scc[g] = ncomp_;
    } while (g != f);
    ++ncomp_;
  }

  Program& p_;
  std::vector<size_t> index_, low_;
  std::vector<char> on_;
  std::vector<size_t> open_;  // functions whose component is not closed yet
  std::vector<Frame> path_;   // the depth-first path
  size_t count_ = 0, ncomp_ = 0;
};

}  // namespace

void build_call_graph(Program& p) {
  const Module& m = p.m;
  size_t nf = p.nf;
  p.callees.assign(nf, {});
  for (size_t f = 0; f < nf; ++f)
    for (auto& in : m.funcs[f].body)
      if (in.inst.op == Opcode::Call) p.callees[f].insert(size_t(in.callee));
  Components(p).run();
  std::vector<size_t> members(nf, 0);
  for (size_t f = 0; f < nf; ++f) ++members[p.scc[f]];
  p.recursive.assign(nf, 0);
  for (size_t f = 0; f < nf; ++f) p.recursive[f] = members[p.scc[f]] > 1 || p.callees[f].count(f);
}

// Functions reachable through calls from k (k itself when it is recursive).
std::set<size_t> reachable(const Program& p, size_t k) {
  std::set<size_t> r;
  std::vector<size_t> work{k};
  while (!work.empty()) {
    size_t f = work.back();
    work.pop_back();
    for (size_t c : p.callees[f])
      if (r.insert(c).second) work.push_back(c);
  }
  return r;
}

// Code order: every .func with a body before the kernels, callees before their callers
// (post-order of the call graph), then the kernels in module order. A callee then always sits
// at lower addresses than its call sites (but on a call cycle), so the SM's thread-frontier rule
// (lowest PC first) runs lanes inside a call before lanes that skipped it, and they reconverge
// after the call.
void order_code(Program& p) {
  const Module& m = p.m;
  std::vector<char> placed(p.nf, 0);
  auto leave = [&](size_t f) {
    if (!m.funcs[f].entry) p.order.push_back(f);
  };
  for (size_t f = 0; f < p.nf; ++f) {
    if (m.funcs[f].entry || placed[f]) continue;
    placed[f] = 1;
    walk_calls(
        m, f,
        [&](const Instr&, size_t c) {
          if (placed[c]) return false;
          placed[c] = 1;
          return true;
        },
        leave);
  }
  for (size_t f = 0; f < p.nf; ++f)
    if (m.funcs[f].entry) p.order.push_back(f);
}

}  // namespace gpuvp::ptx::detail
