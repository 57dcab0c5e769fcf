// Device printf's formatter (models/sm/printf_format.h) against the host's snprintf: every check
// packs its arguments as nvcc does (each aligned to its size, floats promoted to double, strings
// as addresses) and compares with what snprintf makes of the same format and values.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "models/sm/printf_format.h"

using gpuvp::sm::format_printf;
using gpuvp::sm::PrintfSource;

namespace {

// An argument buffer and the strings its %s arguments point to (fake device addresses).
struct Args : PrintfSource {
  std::vector<uint8_t> bytes;
  std::map<uint64_t, std::string> strings;

  template <class T>
  void put(T v) {
    size_t off = (bytes.size() + sizeof(T) - 1) / sizeof(T) * sizeof(T);
    bytes.resize(off + sizeof(T));
    std::memcpy(bytes.data() + off, &v, sizeof(T));
  }
  void add(int v) { put(int32_t(v)); }
  void add(unsigned v) { put(uint32_t(v)); }
  void add(long long v) { put(int64_t(v)); }
  void add(unsigned long long v) { put(uint64_t(v)); }
  void add(double v) { put(v); }
  void add(const char* s) {
    uint64_t addr = s ? 0x1000'0000 + 0x100 * (strings.size() + 1) : 0;
    if (s) strings[addr] = s;
    put(addr);
  }

  bool arg(uint64_t off, unsigned size, uint64_t& value) override {
    if (off + size > bytes.size()) return false;
    value = 0;
    std::memcpy(&value, bytes.data() + off, size);
    return true;
  }
  bool string(uint64_t addr, std::string& s) override {
    auto it = strings.find(addr);
    if (it == strings.end()) return false;
    s = it->second;
    return true;
  }
};

struct Formatted {
  bool ok;
  std::string text;
  int nargs;
};

Formatted run(const std::string& fmt, Args& a) {
  Formatted f{false, "", -5};
  f.ok = format_printf(fmt, a, f.text, f.nargs);
  return f;
}

// The formatter's text and argument count for `fmt` and `args` equal snprintf's text and the
// number of arguments.
template <class... T>
void check(const char* fmt, T... args) {
  char want[512];
  std::snprintf(want, sizeof want, fmt, args...);
  Args a;
  (a.add(args), ...);
  Formatted f = run(fmt, a);
  INFO("format \"" << fmt << "\"");
  REQUIRE(f.ok);
  CHECK(f.text == want);
  CHECK(f.nargs == int(sizeof...(T)));
}

}  // namespace

TEST_CASE("printf formatter: integers with flags, width, precision and length", "[sm][printf]") {
  check("%d %i %u", -42, 17, 4000000000u);
  check("%x %X %o %#x %#o %#X", 0xbeefu, 0xbeefu, 8u, 255u, 8u, 0xabcu);
  check("[%5d|%-5d|%05d|%+d|% d|%.3d|%8.4d]", 42, 42, 42, 42, 42, 7, -7);
  check("%d %d", int(0x80000000u), 0x7fffffff);
  check("%lld %llu %llx %ld %lu %lX", -(1LL << 40), ~0ULL, 0xABCDEF0123456789ULL, -5LL, 6ULL, 0xffULL);
  check("%hd %hu %hhd %hhu %hx", 70000, 70000u, 300, 300u, 0x12345u);
  // a 4-byte int before an 8-byte value: the long long is aligned to 8, padding skipped
  check("%d %lld %d %f", 1, -2LL, 3, 4.5);
}

TEST_CASE("printf formatter: doubles, floats promoted, chars, strings, %%", "[sm][printf]") {
  check("%f %e %g %E %G", 3.14159, 1e-5, 0.5 / 3, 12345.678, 1e20);
  check("%.3f|%8.2f|%-10.1e|%+.0f|%#g|%010.3f", 2.0 / 3, -1.25, 6.02e23, 2.5, 1.0, -3.5);
  check("%f %g", double(1.25f * 3), double(0.1f));
  check("%f %f %e", 1.0 / 0.0, -1.0 / 0.0, 0.0 / 0.0);
  check("%c%c%c|%3c|%-3c|", 'A', 'b', '0', 'x', 'y');
  check("%s|%10s|%-6s|%.2s|%5.1s", "hello", "right", "left", "cut", "xyz");
  check("100%% of %d%%", 3);
  Args none;
  Formatted f = run("no conversions at all\n", none);
  CHECK(f.text == "no conversions at all\n");
  CHECK(f.nargs == 0);
}

TEST_CASE("printf formatter: pointers as the host prints them", "[sm][printf]") {
  Args a;
  a.put(uint64_t(0x1000'0040));
  Formatted f = run("%p", a);
  char want[64];
  std::snprintf(want, sizeof want, "%p", reinterpret_cast<void*>(uintptr_t(0x1000'0040)));
  CHECK(f.text == want);
  CHECK(f.nargs == 1);
}

TEST_CASE("printf formatter: unknown conversions are printed as written and take no argument", "[sm][printf]") {
  Args a;
  a.add(5);
  Formatted f = run("%y %*d %n %Lf %d %", a);
  REQUIRE(f.ok);
  CHECK(f.text == "%y %*d %n %Lf 5 %");
  CHECK(f.nargs == 1);
  Args w;
  w.add(1);
  f = run("%123456d|%.123456d|%d", w);  // widths past 5 digits: no giant allocation
  CHECK(f.text == "%123456d|%.123456d|1");
}

TEST_CASE("printf formatter: a null %s prints (null), a failed read stops formatting", "[sm][printf]") {
  Args a;
  a.add(static_cast<const char*>(nullptr));
  a.add(7);
  Formatted f = run("[%s] %d", a);
  CHECK(f.text == "[(null)] 7");
  CHECK(f.nargs == 2);
  Args missing;  // no bytes: the first argument cannot be read
  f = run("x %d y", missing);
  CHECK_FALSE(f.ok);
  Args bad;
  bad.put(uint64_t(0x99));  // a string address the source does not know
  f = run("%s", bad);
  CHECK_FALSE(f.ok);
}

TEST_CASE("printf formatter: text beyond the FIFO's size is never made, arguments are still read", "[sm][printf]") {
  // "ab" (2) + "%99999d" (99999) + "cd" (2): 100003 bytes. Within 100003 all of it; within 1000 the
  // 99999-byte conversion is not made: the text stops at "ab", cut, and both arguments count.
  Args a;
  a.add(7);
  a.add(8);
  std::string text;
  int nargs = 0;
  bool cut = false;
  REQUIRE(format_printf("ab%99999dcd%d", a, text, nargs, 100004, cut));
  CHECK_FALSE(cut);
  CHECK(text.size() == 100004);
  std::string small;
  REQUIRE(format_printf("ab%99999dcd%d", a, small, nargs, 1000, cut));
  CHECK(cut);
  CHECK(small == "ab");
  CHECK(small.capacity() < 1000);  // no 100 kB buffer was made for it
  CHECK(nargs == 2);
  text.clear();
  REQUIRE(format_printf("abc", a, text, nargs, 2, cut));  // plain text is bounded too
  CHECK(cut);
  CHECK(text == "ab");
}
