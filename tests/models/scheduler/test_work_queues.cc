// The queue rules of tx2-scheduling.md on the work table alone: each scenario is worked by hand
// from the rule it names.
#include <catch2/catch.hpp>

#include "models/scheduler/work_queues.h"

using namespace gpuvp;

namespace {

WorkItem kernel(uint32_t stream, uint32_t blocks, uint64_t tag, uint32_t level = 1) {
  WorkItem w;
  w.kind = WorkItem::Kernel;
  w.stream = stream;
  w.blocks = blocks;
  w.tag = tag;
  w.priority = level;
  return w;
}
WorkItem of_kind(WorkItem::Kind k, uint32_t stream, uint32_t event, uint64_t tag) {
  WorkItem w;
  w.kind = k;
  w.stream = stream;
  w.event = event;
  w.tag = tag;
  return w;
}
WorkItem non_blocking(WorkItem w) {
  w.non_blocking = true;
  return w;
}
// Assigns every block of the head kernel; returns its slot.
int assign_all(WorkQueues& q) {
  int k = q.head_kernel();
  REQUIRE(k >= 0);
  for (uint32_t b = q.next_block(k); b < q.item(k).blocks; ++b) q.block_assigned(k);
  return k;
}
void complete_all(WorkQueues& q, int k) {
  const uint32_t n = q.item(k).blocks;
  for (uint32_t b = 0; b < n; ++b) CHECK(q.block_completed(k) == (b + 1 == n));
}

struct Fixture {
  Registry reg;
  WorkQueues q{reg, "gpu.sched", 8, 4};
};

}  // namespace

TEST_CASE_METHOD(Fixture, "work queues: G2/X1/G3: the next kernel's blocks only after the head kernel is fully assigned") {
  int a = q.submit(kernel(1, 3, 100));
  int b = q.submit(kernel(2, 2, 200));
  q.settle();
  CHECK(q.state(a) == WorkQueues::InEE);
  CHECK(q.state(b) == WorkQueues::InEE);
  CHECK(q.head_kernel() == a);
  q.block_assigned(a);
  q.block_assigned(a);
  CHECK(q.head_kernel() == a);  // X1: one block of A still unassigned
  q.block_assigned(a);
  CHECK(q.state(a) == WorkQueues::Assigned);  // G3: left the EE queue, still in its stream queue
  CHECK(q.head_kernel() == b);
  CHECK(q.next_block(b) == 0);
}

TEST_CASE_METHOD(Fixture, "work queues: G4: a kernel behind another in its stream joins the EE queue when that one completes") {
  int a = q.submit(kernel(1, 2, 1));
  int b = q.submit(kernel(1, 1, 2));
  q.settle();
  CHECK(q.state(b) == WorkQueues::InStream);
  assign_all(q);
  CHECK(q.head_kernel() == -1);  // B may not start while A's blocks still run
  q.settle();
  CHECK(q.state(b) == WorkQueues::InStream);
  complete_all(q, a);
  q.settle();
  CHECK(q.state(a) == WorkQueues::Free);
  CHECK(q.head_kernel() == b);
}

TEST_CASE_METHOD(Fixture, "work queues: A1/A2: a high-priority kernel goes first, without taking back assigned blocks") {
  int low = q.submit(kernel(1, 4, 1, 1));
  q.settle();
  q.block_assigned(low);  // one low block runs
  int high = q.submit(kernel(2, 2, 2, 0));
  q.settle();
  CHECK(q.head_kernel() == high);  // A2: the low EE queue waits while the high one is not empty
  assign_all(q);
  CHECK(q.head_kernel() == low);
  CHECK(q.next_block(low) == 1);  // the low kernel resumes with its second block
}

TEST_CASE_METHOD(Fixture, "work queues: N1: the NULL stream waits for kernels launched before it in other streams") {
  int a = q.submit(kernel(1, 1, 1));
  int n = q.submit(kernel(0, 1, 2));
  q.settle();
  CHECK(q.state(a) == WorkQueues::InEE);
  CHECK(q.state(n) == WorkQueues::InStream);
  assign_all(q);
  q.settle();
  CHECK(q.state(n) == WorkQueues::InStream);  // A is still at the head of stream 1 (running)
  complete_all(q, a);
  q.settle();
  CHECK(q.head_kernel() == n);
}

TEST_CASE_METHOD(Fixture, "work queues: N2: a kernel launched after the NULL stream's head waits for it; one launched before does not") {
  int before = q.submit(kernel(2, 1, 1));
  int n = q.submit(kernel(0, 1, 2));
  int after = q.submit(kernel(3, 1, 3));
  q.settle();
  CHECK(q.state(before) == WorkQueues::InEE);
  CHECK(q.state(n) == WorkQueues::InStream);
  CHECK(q.state(after) == WorkQueues::InStream);
  complete_all(q, assign_all(q));
  q.settle();
  CHECK(q.head_kernel() == n);
  CHECK(q.state(after) == WorkQueues::InStream);
  complete_all(q, assign_all(q));  // the NULL kernel
  q.settle();
  CHECK(q.head_kernel() == after);
}

// Streams 1 and 3 non-blocking, stream 2 blocking, launched A (1), N (NULL), B (2), C (3): N skips A
// (N1 does not count stream 1), C skips N (N2 does not hold stream 3), B waits for N as before. N
// waits for nothing, so all but B join the EE queue at once; B joins when N completes.
TEST_CASE_METHOD(Fixture, "work queues: N1/N2 skip non-blocking streams in both directions") {
  int a = q.submit(non_blocking(kernel(1, 1, 1)));
  int n = q.submit(kernel(0, 1, 2));
  int b = q.submit(kernel(2, 1, 3));
  int c = q.submit(non_blocking(kernel(3, 1, 4)));
  q.settle();
  CHECK(q.state(a) == WorkQueues::InEE);
  CHECK(q.state(n) == WorkQueues::InEE);
  CHECK(q.state(b) == WorkQueues::InStream);
  CHECK(q.state(c) == WorkQueues::InEE);
  CHECK(q.item(c).non_blocking);
  CHECK_FALSE(q.item(b).non_blocking);
  CHECK(reg.read("gpu.sched.work.kind", uint64_t(c)) == 4);  // bit 2 over kind 0 (kernel)
  complete_all(q, assign_all(q));  // A
  complete_all(q, assign_all(q));  // N
  q.settle();
  CHECK(q.head_kernel() == c);
  complete_all(q, assign_all(q));
  q.settle();
  CHECK(q.head_kernel() == b);
}

// The bit is registered state: a flip of it in a blocking stream's kernel lifts N2 for that kernel.
TEST_CASE_METHOD(Fixture, "work queues: a flipped non-blocking bit lets a kernel pass the NULL stream") {
  int n = q.submit(kernel(0, 1, 1));
  int b = q.submit(of_kind(WorkItem::Copy, 2, 0, 2));
  q.settle();
  CHECK(q.state(n) == WorkQueues::InEE);
  CHECK(q.state(b) == WorkQueues::InStream);
  reg.flip("gpu.sched.work.kind", 2, uint64_t(b));
  q.settle();
  CHECK(q.state(b) == WorkQueues::InCE);
  CHECK(q.item(b).kind == WorkItem::Copy);
}

TEST_CASE_METHOD(Fixture, "work queues: C1-C4: one copy on the copy engine at a time, in CE-queue order") {
  int c1 = q.submit(of_kind(WorkItem::Copy, 1, 0, 11));
  int c2 = q.submit(of_kind(WorkItem::Copy, 2, 0, 12));
  int k = q.submit(kernel(1, 1, 13));
  q.settle();
  CHECK(q.head_copy() == c1);
  q.copy_started(c1);
  CHECK(q.head_copy() == -1);  // C2: the engine is busy
  CHECK(q.state(c2) == WorkQueues::InCE);
  CHECK(q.state(k) == WorkQueues::InStream);  // behind its stream's copy (C4 not yet)
  q.copy_completed(c1);
  q.settle();
  CHECK(q.head_copy() == c2);
  CHECK(q.head_kernel() == k);
}

TEST_CASE_METHOD(Fixture, "work queues: an event recorded after a kernel releases a wait in another stream when the kernel completes") {
  int a = q.submit(kernel(1, 1, 1));
  q.submit(of_kind(WorkItem::Record, 1, 2, 77));
  q.submit(of_kind(WorkItem::Wait, 2, 2, 78));
  int b = q.submit(kernel(2, 1, 2));
  CHECK(q.settle().empty());
  CHECK(q.state(b) == WorkQueues::InStream);
  complete_all(q, assign_all(q));
  CHECK(q.state(a) == WorkQueues::Free);
  CHECK(q.settle() == std::vector<uint64_t>{77, 78});  // the record completes, then the wait, then B joins
  CHECK(q.head_kernel() == b);
}

TEST_CASE_METHOD(Fixture, "work queues: a wait for an event never recorded does not block") {
  q.submit(of_kind(WorkItem::Wait, 1, 3, 0));
  int k = q.submit(kernel(1, 1, 1));
  q.settle();
  CHECK(q.head_kernel() == k);
}

TEST_CASE_METHOD(Fixture, "work queues: a full table refuses work until a slot frees") {
  for (int i = 0; i < 8; ++i) REQUIRE(q.submit(kernel(1, 1, uint64_t(i))) == i);
  CHECK(q.submit(kernel(1, 1, 99)) == -1);
  q.settle();
  complete_all(q, assign_all(q));
  CHECK(q.submit(kernel(1, 1, 99)) == 0);
}

TEST_CASE_METHOD(Fixture, "work queues: the table is registered state and corrupt values stay safe") {
  int a = q.submit(kernel(1, 2, 1));
  q.settle();
  CHECK(reg.read("gpu.sched.work.state", uint64_t(a)) == WorkQueues::InEE);
  CHECK(reg.read("gpu.sched.work.blocks", uint64_t(a)) == 2);
  q.block_assigned(a);
  CHECK(reg.read("gpu.sched.work.assigned", uint64_t(a)) == 1);
  // A flip that makes the kernel look fully assigned: it leaves the EE queue at the next assignment.
  reg.flip("gpu.sched.work.assigned", 4, uint64_t(a));
  q.block_assigned(a);
  CHECK(q.state(a) == WorkQueues::Assigned);
  CHECK(q.head_kernel() == -1);
  // A state out of range reads as a free slot: the slot is reused, nothing loops or crashes.
  reg.write("gpu.sched.work.state", 7, uint64_t(a));
  CHECK(q.idle());
  CHECK(q.submit(kernel(1, 1, 2)) == 1);
  q.settle();
  CHECK(q.head_kernel() == 1);
}
