// Device printf's formatter: each conversion is parsed, its argument read from the packed buffer
// with the size and alignment nvcc gives it, and the conversion handed to the host's snprintf with
// the argument at its C type, so the text is what C's printf makes of the same value.
#include "models/sm/printf_format.h"

#include <cstdio>
#include <cstring>
#include <vector>

namespace gpuvp::sm {

namespace {

// The text being made, bounded: what would go beyond `max` bytes is never made (a `%99999d` per
// thread must not allocate gigabytes), only noted as cut.
struct Out {
  std::string& text;
  size_t max;
  bool cut = false;
  bool room(size_t n) {
    if (!cut && n > max - text.size()) cut = true;
    return !cut;
  }
  void add(const char* p, size_t n) {
    if (room(n)) text.append(p, n);
  }
  void add(char c) { add(&c, 1); }
};

// One parsed conversion: "%" flags width .precision length conv.
struct Spec {
  std::string flags;
  int width = -1, precision = -1;
  int longs = 0, shorts = 0;  // l/ll, h/hh
  char conv = 0;
};

constexpr size_t kMaxDigits = 5;  // widths and precisions up to 99999: no runaway allocation

// Parses the conversion starting after '%' at fmt[i]; false if it is not one gpuvp knows. `i` ends
// after the conversion character (or where parsing stopped).
bool parse_number(const std::string& fmt, size_t& i, int& v) {
  size_t start = i;
  v = 0;
  while (i < fmt.size() && fmt[i] >= '0' && fmt[i] <= '9') v = v * 10 + (fmt[i++] - '0');
  return i - start <= kMaxDigits;
}

bool parse_spec(const std::string& fmt, size_t& i, Spec& s) {
  while (i < fmt.size() && std::strchr("-+ #0", fmt[i])) s.flags += fmt[i++];
  if (i < fmt.size() && fmt[i] >= '1' && fmt[i] <= '9' && !parse_number(fmt, i, s.width)) return false;
  if (i < fmt.size() && fmt[i] == '.') {
    ++i;
    if (!parse_number(fmt, i, s.precision)) return false;
  }
  while (i < fmt.size() && fmt[i] == 'l' && s.longs < 2) ++s.longs, ++i;
  while (s.longs == 0 && i < fmt.size() && fmt[i] == 'h' && s.shorts < 2) ++s.shorts, ++i;
  if (i >= fmt.size() || !std::strchr("diuxXocsfFeEgGaAp", fmt[i])) return false;
  s.conv = fmt[i++];
  return true;
}

// The host format of a spec, with `len` as its C length modifier.
std::string host_format(const Spec& s, const char* len) {
  std::string f = "%" + s.flags;
  if (s.width >= 0) f += std::to_string(s.width);
  if (s.precision >= 0) f += "." + std::to_string(s.precision);
  return f + len + s.conv;
}

template <class T>
void append(Out& out, const std::string& f, T v) {
  int n = std::snprintf(nullptr, 0, f.c_str(), v);
  if (n <= 0 || !out.room(size_t(n))) return;
  std::vector<char> buf(size_t(n) + 1);
  std::snprintf(buf.data(), buf.size(), f.c_str(), v);
  out.add(buf.data(), size_t(n));
}

// Integers: C's default promotions make h/hh arguments ints in the buffer; the host conversion
// then narrows them as the format says.
void format_int(const Spec& s, uint64_t raw, Out& out) {
  bool is_signed = s.conv == 'd' || s.conv == 'i';
  if (s.longs) {
    if (is_signed) append(out, host_format(s, "ll"), static_cast<long long>(raw));
    else append(out, host_format(s, "ll"), static_cast<unsigned long long>(raw));
    return;
  }
  const char* len = s.shorts == 2 ? "hh" : s.shorts == 1 ? "h" : "";
  if (is_signed) append(out, host_format(s, len), static_cast<int>(static_cast<uint32_t>(raw)));
  else append(out, host_format(s, len), static_cast<unsigned>(raw));
}

void format_double(const Spec& s, uint64_t raw, Out& out) {
  double d;
  std::memcpy(&d, &raw, sizeof d);
  append(out, host_format(s, ""), d);
}

// The argument a conversion takes: its size in the buffer.
unsigned arg_size(const Spec& s) {
  if (std::strchr("fFeEgGaAsp", s.conv)) return 8;
  return s.longs ? 8 : 4;
}

bool format_one(const Spec& s, PrintfSource& src, uint64_t raw, Out& out) {
  switch (s.conv) {
    case 'c': append(out, host_format(s, ""), static_cast<int>(static_cast<uint32_t>(raw))); return true;
    case 'p': append(out, host_format(s, ""), reinterpret_cast<void*>(static_cast<uintptr_t>(raw))); return true;
    case 's': {
      std::string str = "(null)";
      if (raw && !src.string(raw, str)) return false;
      append(out, host_format(s, ""), str.c_str());
      return true;
    }
    default: break;
  }
  if (std::strchr("fFeEgGaA", s.conv)) format_double(s, raw, out);
  else format_int(s, raw, out);
  return true;
}

// Every conversion, arguments read even once the text is cut (the return value counts them, and a
// bad argument address is still a device error).
bool format_all(const std::string& fmt, PrintfSource& src, Out& out, int& nargs) {
  nargs = 0;
  uint64_t off = 0;
  for (size_t i = 0; i < fmt.size();) {
    if (fmt[i] != '%') {
      out.add(fmt[i++]);
      continue;
    }
    if (i + 1 < fmt.size() && fmt[i + 1] == '%') {
      out.add('%');
      i += 2;
      continue;
    }
    size_t start = i++;
    Spec s;
    if (!parse_spec(fmt, i, s)) {  // printed as written, up to where it stopped making sense
      out.add(fmt.data() + start, i - start);
      continue;
    }
    unsigned size = arg_size(s);
    off = (off + size - 1) / size * size;
    uint64_t raw = 0;
    if (!src.arg(off, size, raw) || !format_one(s, src, raw, out)) return false;
    off += size;
    ++nargs;
  }
  return true;
}

}  // namespace

bool format_printf(const std::string& fmt, PrintfSource& src, std::string& text, int& nargs) {
  bool cut = false;
  return format_printf(fmt, src, text, nargs, ~size_t{0}, cut);
}

bool format_printf(const std::string& fmt, PrintfSource& src, std::string& text, int& nargs, size_t max_bytes,
                   bool& cut) {
  Out out{text, max_bytes};
  const bool ok = format_all(fmt, src, out, nargs);
  cut = out.cut;
  return ok;
}

}  // namespace gpuvp::sm
