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

TEST_CASE("print sink: a FIFO of fixed size keeps the lines that fit, drops and counts the rest", "[printf]") {
  PrintSink s;
  s.set_capacity(10);
  s.add({1, 0, "abcd\n"});  // 5 bytes: 5 used
  s.add({0, 0, "0123456\n"});  // 8 bytes: only 5 left, dropped
  s.add({0, 1, "xyz\n"});   // 4 bytes: 9 used
  s.add({0, 2, "!!\n"});    // 3 bytes: only 1 left, dropped
  s.add({0, 3, "\n"});      // 1 byte: 10 used
  s.add({0, 4, "cut", true});  // longer than the whole FIFO when it was formatted: dropped
  CHECK(s.take() == "xyz\n\nabcd\ngpuvp: device printf FIFO full (10 bytes): 3 lines dropped "
                    "(host.printf_fifo_bytes sets its size)\n");
  s.add({0, 0, "0123456\n"});  // a synchronisation empties the FIFO
  CHECK(s.take() == "0123456\n");
}

TEST_CASE("print sink: dropped lines count in the hash", "[printf]") {
  PrintSink a, b;
  a.set_capacity(4);
  b.set_capacity(4);
  a.add({0, 0, "1234"});
  b.add({0, 0, "1234"});
  a.add({0, 0, "dropped A\n"});
  b.add({0, 0, "dropped B\n"});
  CHECK(a.take() == b.take());  // the same text printed, other text dropped
  CHECK(a.hash() != b.hash());
}
