// Warp scheduling policies (models/sm/warp_scheduler.h) on hand-built warp states.
#include <catch2/catch.hpp>

#include <initializer_list>
#include <utility>
#include <vector>

#include "models/sm/warp_scheduler.h"

using namespace gpuvp;
using namespace gpuvp::sm;

namespace {
std::vector<Warp> warps(std::initializer_list<std::pair<Warp::State, uint64_t>> states) {
  std::vector<Warp> ws;
  for (auto [st, ready] : states) {
    Warp w;
    w.state = st;
    w.ready = ready;
    ws.push_back(w);
  }
  return ws;
}
// The slots' issue cycles the core keeps beside its warps (SimtCore::issue_at_).
IssueCycles at(const std::vector<Warp>& ws) {
  IssueCycles a;
  for (const Warp& w : ws) a.push_back(w.issue_at());
  return a;
}
}  // namespace

TEST_CASE("warp scheduler: round robin") {
  auto rr = make_warp_scheduler(WarpPolicy::RoundRobin);
  auto ws = warps({{Warp::Ready, 0}, {Warp::Barrier, 0}, {Warp::Ready, 10}, {Warp::Ready, 0}});
  CHECK(rr->pick(at(ws), -1, 5) == 0);
  CHECK(rr->pick(at(ws), 0, 5) == 3);   // 1 waits at a barrier, 2 is not ready before cycle 10
  CHECK(rr->pick(at(ws), 3, 5) == 0);   // wraps around
  CHECK(rr->pick(at(ws), 0, 10) == 2);
  ws[0].state = ws[3].state = Warp::Exited;
  CHECK(rr->pick(at(ws), 2, 5) == -1);
}

TEST_CASE("warp scheduler: greedy then oldest") {
  auto gto = make_warp_scheduler(WarpPolicy::Gto);
  auto ws = warps({{Warp::Ready, 0}, {Warp::Ready, 0}, {Warp::Ready, 0}});
  CHECK(gto->pick(at(ws), -1, 0) == 0);
  CHECK(gto->pick(at(ws), 2, 0) == 2);  // keeps the last warp while it is ready
  ws[2].ready = 8;
  CHECK(gto->pick(at(ws), 2, 0) == 0);  // else the oldest ready one
  ws[0].state = Warp::Barrier;
  CHECK(gto->pick(at(ws), 2, 0) == 1);
  CHECK(gto->pick(at(ws), 2, 8) == 2);
}
