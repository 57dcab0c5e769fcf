// Stall arbiter of block-scheduler.md: N requesters, round robin after the last one served.
// `sequential` is a static strap: 0 picks the next requester in one cycle, 1 looks at one requester
// per cycle (last+1; when it does not request, last moves on and the search goes on next cycle).
// Cycle-for-cycle the behaviour of models/arbiter/stall_arbiter.h (StallArbiter::next): a Moore
// machine whose outputs grant/stall are the flip-flops themselves.
//
// One clock (rising edge), asynchronous active-high reset (FlexGripPlus style), no delays.
// Flip-flops (names = registry leaf names of the SystemC model):
//   state 2 bits (0 IDLE, 1 REQUESTED, 2 WAITING_ACK, 3 behaves as IDLE)
//   last  W bits (index of the last requester served; reset N-1)
//   grant N bits (one-hot, drives the grant pins)
//   stall N bits (drives the stall pins)
module stall_arbiter #(
    parameter int N = 2
) (
    input  logic         clk,
    input  logic         reset,
    input  logic         sequential,
    input  logic [N-1:0] req,
    input  logic [N-1:0] ack,
    output logic [N-1:0] grant,
    output logic [N-1:0] stall
);
  localparam int W = (N > 1) ? $clog2(N) : 1;
  localparam logic [1:0] IDLE = 2'd0, REQUESTED = 2'd1, WAITING_ACK = 2'd2;
  localparam logic [W-1:0] LAST_RESET = W'(N - 1);

  logic [1:0] state, state_d;
  logic [W-1:0] last, last_d;
  logic [N-1:0] grant_d, stall_d;

  // Round-robin pick: the first requester after `last` (modulo N) with req set.
  logic [N-1:0] pick_onehot;
  always_comb begin
    pick_onehot = '0;
    for (int j = N; j >= 1; j--) begin
      // Scanning backwards lets the first candidate in round-robin order win.
      if (req[(int'(last) + j) % N]) pick_onehot = N'(1) << ((int'(last) + j) % N);
    end
  end

  // Index of the lowest set bit of grant (the requester that acknowledged).
  logic [W-1:0] grant_index;
  always_comb begin
    grant_index = '0;
    for (int i = N - 1; i >= 0; i--) begin
      if (grant[i]) grant_index = W'(i);
    end
  end

  logic [N-1:0] pending;
  assign pending = req & ~grant;

  // The one requester a sequential search looks at this cycle.
  logic [W-1:0] next_index;
  assign next_index = W'((int'(last) + 1) % N);

  always_comb begin
    state_d = state;
    last_d  = last;
    grant_d = grant;
    stall_d = stall;
    unique case (state)
      REQUESTED: begin
        if (|req && sequential && !req[next_index]) begin
          last_d  = next_index;
          grant_d = '0;
          stall_d = req;
        end else if (|req) begin
          grant_d = pick_onehot;
          stall_d = req & ~pick_onehot;
          state_d = WAITING_ACK;
        end else begin
          grant_d = '0;
          stall_d = '0;
          state_d = IDLE;
        end
      end
      WAITING_ACK: begin
        if (|(ack & grant)) begin
          last_d  = grant_index;
          grant_d = '0;
          stall_d = pending;
          state_d = (|pending) ? REQUESTED : IDLE;
        end else begin
          stall_d = pending;
        end
      end
      default: begin  // IDLE and the unused encoding 3
        state_d = (|req) ? REQUESTED : IDLE;
        grant_d = '0;
        stall_d = req;
      end
    endcase
  end

  always_ff @(posedge clk or posedge reset) begin
    if (reset) begin
      state <= IDLE;
      last  <= LAST_RESET;
      grant <= '0;
      stall <= '0;
    end else begin
      state <= state_d;
      last  <= last_d;
      grant <= grant_d;
      stall <= stall_d;
    end
  end
endmodule
