#pragma once
// How long a target is busy with a transaction. An arbiter attaches this to what it forwards; a
// pipelined target (DRAM) sets `hold` to the time the port must stay with it (DRAM: its wait for the
// data bus; memory.cc), and the rest of the delay it annotates (the transfer and the latency) overlaps
// with later transactions. The arbiter keeps the grant only for `hold` and
// hands the remaining latency back to the requester as annotated delay. A target that does not
// set it is busy for the whole delay.
#include <systemc>
#include <tlm>

namespace gpuvp {

struct HoldExtension : tlm::tlm_extension<HoldExtension> {
  bool valid = false;
  sc_core::sc_time hold;

  tlm_extension_base* clone() const override { return new HoldExtension(*this); }
  void copy_from(const tlm_extension_base& e) override { *this = static_cast<const HoldExtension&>(e); }
};

}  // namespace gpuvp

namespace gpuvp {

// When the arbitrated port a transaction went through is free again, set by the arbiter if the
// initiator attached this: a transaction-level arbiter returns at the grant with the whole latency
// annotated, so the instant the call returns no longer says when the port frees.
struct ReleaseExtension : tlm::tlm_extension<ReleaseExtension> {
  bool valid = false;
  sc_core::sc_time at;

  tlm_extension_base* clone() const override { return new ReleaseExtension(*this); }
  void copy_from(const tlm_extension_base& e) override { *this = static_cast<const ReleaseExtension&>(e); }
};

}  // namespace gpuvp
