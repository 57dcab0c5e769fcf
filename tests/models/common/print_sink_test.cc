// PrintSink: device printf's texts come out in block, then thread order, each thread's in the order
// it printed them, whatever order the SMs delivered them in; take() empties the sink.
#include <catch2/catch.hpp>

#include "models/common/print_sink.h"

using gpuvp::PrintSink;

TEST_CASE("print sink: block order, then thread order, each thread's texts in printing order", "[printf]") {
  PrintSink s;
  s.add({1, 0, "b1 t0 first\n"});
  s.add({0, 33, "b0 t33\n"});
  s.add({0, 2, "b0 t2 first\n"});
  s.add({1, 0, "b1 t0 second\n"});
  s.add({0, 2, "b0 t2 second, "});
  s.add({0, 2, "no newline\n"});
  CHECK(s.take() == "b0 t2 first\nb0 t2 second, no newline\nb0 t33\nb1 t0 first\nb1 t0 second\n");
  CHECK(s.take().empty());
  s.add({5, 1, "later kernel\n"});
  CHECK(s.take() == "later kernel\n");
}

TEST_CASE("print sink: the hash covers everything added, in order, and survives take", "[printf]") {
  PrintSink a, b, c, d;
  const uint64_t empty = a.hash();
  a.add({0, 1, "x=1\n"});
  b.add({0, 1, "x=1\n"});
  c.add({0, 1, "x=2\n"});  // other text
  d.add({0, 2, "x=1\n"});  // other thread
  CHECK(a.hash() != empty);
  CHECK(a.hash() == b.hash());
  CHECK(a.hash() != c.hash());
  CHECK(a.hash() != d.hash());
  const uint64_t before = a.hash();
  a.take();
  CHECK(a.hash() == before);
}
