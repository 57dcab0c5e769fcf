#pragma once
// The golden run's access log in compact form (models/common/registry.h, AccessEvent): the events
// in the order they were reported, each encoded in a few bytes instead of AccessEvent's 32. Recording
// millions of events wrote tens of MB whose fresh pages (zeroed by the kernel, faulted in by the
// recording process and again by the one it sends them to) were most of what recording cost; the
// encoded log is about a sixth of that.
//
// An entry: a header byte (bits 0-1 the kind, bit 2 lanes follow, bit 3 same target as the previous
// entry, bit 4 same instant as the previous entry), then as LEB128 varints: the instant's difference
// from the previous entry's (zigzag, modulo 2^64) unless the same, the target unless the same, the
// index, with lanes the lane mask and the stride byte, and for a ReadSpan until_ps - time_ps (modulo
// 2^64). Decoding gives back every field exactly.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <new>
#include <utility>
#include <vector>

namespace gpuvp {

enum class Access : uint8_t { Read = 0, Write = 1, ReadSpan = 2 };
// One access (see registry.h): what the log's entries decode to.
struct AccessEvent {
  uint64_t time_ps = 0;
  uint64_t until_ps = 0;  // ReadSpan only: the last edge read
  uint32_t index = 0;     // word (with lanes: the first word of lane 0); a target has < 2^32 words
  uint32_t target = 0;    // Target::serial
  uint32_t lanes = 0;     // 0: the one word `index`
  Access kind = Access::Read;
  uint8_t stride = 0;     // with lanes: words per lane
};
static_assert(sizeof(AccessEvent) == 32);

class AccessLog {
 public:
  // The longest entry: header, time (10), target (5), index (5), lanes (5), stride, until (10).
  static constexpr size_t kMaxEntry = 1 + 10 + 5 + 5 + 5 + 1 + 10;

  AccessLog() = default;
  AccessLog(const std::vector<AccessEvent>& events) {  // NOLINT: a log from decoded events (tests)
    for (const AccessEvent& e : events) push_back(e);
  }
  AccessLog(const AccessLog& o) { *this = o; }
  AccessLog(AccessLog&& o) noexcept { swap(o); }
  AccessLog& operator=(const AccessLog& o) {
    if (this == &o) return *this;
    clear();
    reserve_bytes(o.size_);
    if (o.size_) std::memcpy(data_, o.data_, o.size_);
    size_ = o.size_;
    count_ = o.count_;
    prev_time_ = o.prev_time_;
    prev_target_ = o.prev_target_;
    return *this;
  }
  AccessLog& operator=(AccessLog&& o) noexcept {
    AccessLog(std::move(o)).swap(*this);
    return *this;
  }
  ~AccessLog() { std::free(data_); }
  void swap(AccessLog& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(cap_, o.cap_);
    std::swap(count_, o.count_);
    std::swap(prev_time_, o.prev_time_);
    std::swap(prev_target_, o.prev_target_);
  }

  // Events logged.
  uint64_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  // The encoded bytes.
  const uint8_t* data() const { return data_; }
  size_t bytes() const { return size_; }
  size_t capacity_bytes() const { return cap_; }
  void clear() {
    size_ = 0;
    count_ = 0;
    prev_time_ = 0;
    prev_target_ = 0;
  }
  // Room for `bytes` encoded bytes: address space, touched only as entries arrive. False when refused.
  bool reserve_bytes(size_t bytes) {
    if (bytes <= cap_) return true;
    void* p = std::realloc(data_, bytes);
    if (!p) return false;
    data_ = static_cast<uint8_t*>(p);
    cap_ = bytes;
    return true;
  }
  // The encoder's state after the last entry (a log sent whole goes on from it where it arrives).
  uint64_t last_time() const { return prev_time_; }
  uint32_t last_target() const { return prev_target_; }
  // The log another AccessLog encoded, its bytes written in place by `fill(uint8_t* to, size_t n)`
  // (a pipe's reader): `size` bytes of `count` entries, with that log's last_time() and last_target().
  // False when the room is refused or fill fails. The bytes are trusted (this log's own encoding).
  template <class Fill>
  bool receive_encoded(size_t size, uint64_t count, uint64_t last_time, uint32_t last_target, Fill fill) {
    clear();
    if (!reserve_bytes(size) || !fill(data_, size)) return false;
    size_ = size;
    count_ = count;
    prev_time_ = last_time;
    prev_target_ = last_target;
    return true;
  }

  void push(uint64_t time_ps, uint64_t until_ps, uint32_t index, uint32_t target, uint32_t lanes, Access kind,
            uint8_t stride) {
    if (cap_ - size_ < kMaxEntry) grow();
    uint8_t* p = data_ + size_;
    uint8_t* h = p++;
    uint8_t head = uint8_t(kind) & 3u;
    if (lanes) head |= 4u;
    if (target == prev_target_ && count_) head |= 8u;
    else p = put(p, target);
    if (time_ps == prev_time_ && count_) {
      head |= 16u;
    } else {
      const uint64_t d = time_ps - prev_time_;
      // The difference's bits move up by one, the sign to bit 0 (zigzag): a small difference of either
      // sign takes few bytes.
      p = put(p, (d << 1) ^ uint64_t(int64_t(d) >> 63));
    }
    *h = head;
    p = put(p, index);
    if (lanes) {
      p = put(p, lanes);
      *p++ = stride;
    }
    if (kind == Access::ReadSpan) p = put(p, until_ps - time_ps);
    size_ = size_t(p - data_);
    prev_time_ = time_ps;
    prev_target_ = target;
    ++count_;
  }
  void push_back(const AccessEvent& e) { push(e.time_ps, e.until_ps, e.index, e.target, e.lanes, e.kind, e.stride); }

  // Decoding, in logged order.
  class const_iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = AccessEvent;
    using difference_type = std::ptrdiff_t;
    using pointer = const AccessEvent*;
    using reference = const AccessEvent&;
    const_iterator() = default;
    const_iterator(const uint8_t* p, const uint8_t* end) : p_(p), end_(end) { decode(); }
    reference operator*() const { return e_; }
    pointer operator->() const { return &e_; }
    const_iterator& operator++() {
      p_ = next_;
      decode();
      return *this;
    }
    bool operator==(const const_iterator& o) const { return p_ == o.p_; }
    bool operator!=(const const_iterator& o) const { return p_ != o.p_; }

   private:
    void decode() {
      if (p_ >= end_) return;
      const uint8_t* q = p_;
      const uint8_t head = *q++;
      e_.kind = Access(head & 3u);
      if (!(head & 8u)) e_.target = uint32_t(get(q));
      if (!(head & 16u)) {
        const uint64_t z = get(q);
        e_.time_ps += (z >> 1) ^ (~(z & 1) + 1);
      }
      e_.index = uint32_t(get(q));
      e_.lanes = 0;
      e_.stride = 0;
      if (head & 4u) {
        e_.lanes = uint32_t(get(q));
        e_.stride = *q++;
      }
      e_.until_ps = e_.kind == Access::ReadSpan ? e_.time_ps + get(q) : 0;
      next_ = q;
    }
    const uint8_t* p_ = nullptr;
    const uint8_t* end_ = nullptr;
    const uint8_t* next_ = nullptr;
    AccessEvent e_;
  };
  const_iterator begin() const { return {data_, data_ + size_}; }
  const_iterator end() const { return {data_ + size_, data_ + size_}; }
  // Every event decoded (tests, small logs).
  std::vector<AccessEvent> events() const { return {begin(), end()}; }

 private:
  static uint8_t* put(uint8_t* p, uint64_t v) {
    while (v >= 0x80) {
      *p++ = uint8_t(v | 0x80);
      v >>= 7;
    }
    *p++ = uint8_t(v);
    return p;
  }
  static uint64_t get(const uint8_t*& p) {
    uint64_t v = 0;
    for (unsigned s = 0;; s += 7) {
      const uint8_t b = *p++;
      v |= uint64_t(b & 0x7f) << s;
      if (!(b & 0x80)) return v;
    }
  }
  void grow() {
    if (!reserve_bytes(std::max<size_t>(2 * cap_, 1 << 16))) throw std::bad_alloc();
  }
  uint8_t* data_ = nullptr;
  size_t size_ = 0, cap_ = 0;
  uint64_t count_ = 0;
  uint64_t prev_time_ = 0;
  uint32_t prev_target_ = 0;
};

}  // namespace gpuvp
