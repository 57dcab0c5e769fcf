// Block scheduler of block-scheduler.md for SM_TOT streaming multiprocessors (FlexGripPlus-style
// FSM IDLE -> CALC_BLOCKS -> CHECK_BLOCKS -> SCHEDULE_BLOCKS -> SCHEDULE_WAIT -> CALC_BLOCKS ...).
// Cycle-for-cycle the behaviour of models/scheduler/block_scheduler.h (BlockScheduler::next):
// every output is a flip-flop, the next-state function is the documented one.
//
// One clock (rising edge), asynchronous active-high power-on reset `reset` (FlexGripPlus style)
// plus the synchronous `rst` pin of the model; no delays, no initial blocks.
// `policy` and `seed` are static straps (tied off by the integration): policy 0 round robin,
// 1 ordered, 2 even/odd, 3 random (splitmix64 prng, reset value = seed).
//
// Flip-flops (names = registry leaf names of the SystemC model): state, blocks_scheduled_cnt,
// num_blocks[i], smp_done_array, block_idx[i], block_x/y/z, grid_x/y/z, threads_per_block,
// shmem_per_block, rdy, kernel_done, smp_en, smp_reset, prng.
module block_scheduler #(
    parameter int SM_TOT = 1,   // number of SMs, 1..16
    parameter int BPC_W  = 8,   // blocks_per_core and num_blocks width
    parameter int DIM_W  = 16,  // block and grid dimension width
    parameter int CNT_W  = 32   // blocks_scheduled_cnt and block_idx width
) (
    input  logic              clk,
    input  logic              reset,
    input  logic              rst,
    input  logic              en,
    input  logic [       1:0] policy,
    input  logic [      63:0] seed,
    input  logic [ BPC_W-1:0] cfg_blocks_per_core,
    input  logic [ DIM_W-1:0] cfg_grid_x,
    input  logic [ DIM_W-1:0] cfg_grid_y,
    input  logic [ DIM_W-1:0] cfg_grid_z,
    input  logic [ DIM_W-1:0] cfg_block_x,
    input  logic [ DIM_W-1:0] cfg_block_y,
    input  logic [ DIM_W-1:0] cfg_block_z,
    input  logic [      31:0] cfg_shmem_size,
    input  logic [      31:0] cfg_dyn_shmem_size,
    input  logic [      31:0] cfg_param_size,
    input  logic [SM_TOT-1:0] smp_done,
    output logic              rdy,
    output logic              kernel_done,
    output logic [ BPC_W-1:0] num_blocks       [SM_TOT],
    output logic [ CNT_W-1:0] block_idx        [SM_TOT],
    output logic [SM_TOT-1:0] smp_en,
    output logic [SM_TOT-1:0] smp_reset,
    output logic [ DIM_W-1:0] block_x,
    output logic [ DIM_W-1:0] block_y,
    output logic [ DIM_W-1:0] block_z,
    output logic [ DIM_W-1:0] grid_x,
    output logic [ DIM_W-1:0] grid_y,
    output logic [ DIM_W-1:0] grid_z,
    output logic [      31:0] threads_per_block,
    output logic [      31:0] shmem_per_block
);
  localparam int SMW = (SM_TOT > 1) ? $clog2(SM_TOT) : 1;
  localparam int GW = 3 * DIM_W;  // grid_dimension width
  localparam logic [2:0] IDLE = 3'd0, CALC_BLOCKS = 3'd1, CHECK_BLOCKS = 3'd2,
      SCHEDULE_BLOCKS = 3'd3, SCHEDULE_WAIT = 3'd4;
  localparam logic [1:0] ROUND_ROBIN = 2'd0, EVEN_ODD = 2'd2, RANDOM = 2'd3;

  // ---------------------------------------------------------------- flip-flops
  logic [       2:0] state;
  logic [ CNT_W-1:0] blocks_scheduled_cnt;
  logic [SM_TOT-1:0] smp_done_array;
  logic [      63:0] prng;

  // ---------------------------------------------------------------- next state
  logic [       2:0] state_d;
  logic [ CNT_W-1:0] cnt_d;
  logic [SM_TOT-1:0] done_d;
  logic [      63:0] prng_d;
  logic              rdy_d, kernel_done_d;
  logic [ BPC_W-1:0] num_blocks_d [SM_TOT];
  logic [ CNT_W-1:0] block_idx_d  [SM_TOT];
  logic [SM_TOT-1:0] smp_en_d, smp_reset_d;
  logic [ DIM_W-1:0] bx_d, by_d, bz_d, gx_d, gy_d, gz_d;
  logic [      31:0] tpb_d, shmem_d;

  function automatic logic [63:0] splitmix64(input logic [63:0] s);
    logic [63:0] z;
    z = s + 64'h9E37_79B9_7F4A_7C15;
    z = (z ^ (z >> 30)) * 64'hBF58_476D_1CE4_E5B9;
    z = (z ^ (z >> 27)) * 64'h94D0_49BB_1331_11EB;
    return z ^ (z >> 31);
  endfunction

  // SMs that received blocks in the current batch.
  logic [SM_TOT-1:0] active;
  always_comb begin
    for (int i = 0; i < SM_TOT; i++) active[i] = num_blocks[i] != '0;
  end

  // grid_dimension and blocks_remaining (meaningful when blocks_scheduled_cnt < grid_dim).
  logic [GW-1:0] grid_dim, remaining;
  assign grid_dim  = GW'(cfg_grid_x) * GW'(cfg_grid_y) * GW'(cfg_grid_z);
  assign remaining = grid_dim - GW'(blocks_scheduled_cnt);

  // prng value after this batch's step (random policy only).
  logic [63:0] prng_step;
  assign prng_step = (policy == RANDOM) ? splitmix64(prng) : prng;

  // SM order of the batch: identity, even SMs then odd SMs, or a Fisher-Yates permutation driven
  // by successive splitmix64 outputs of prng_step.
  logic [SMW-1:0] order[SM_TOT];
  logic [   63:0] shuffle;
  logic [SMW-1:0] swap_tmp;
  logic [SMW-1:0] shuffle_k;
  always_comb begin
    shuffle   = prng_step;
    swap_tmp  = '0;
    shuffle_k = '0;
    if (policy == EVEN_ODD) begin
      for (int i = 0; i < SM_TOT; i++) begin
        order[i] = (2 * i < SM_TOT) ? SMW'(2 * i) : SMW'(2 * i - SM_TOT + 1 - (SM_TOT % 2));
      end
    end else begin
      for (int i = 0; i < SM_TOT; i++) order[i] = SMW'(i);
    end
    if (policy == RANDOM) begin
      for (int i = SM_TOT; i > 1; i--) begin
        shuffle = splitmix64(shuffle);
        shuffle_k = SMW'(shuffle % 64'(i));
        swap_tmp = order[i-1];
        order[i-1] = order[shuffle_k];
        order[shuffle_k] = swap_tmp;
      end
    end
  end

  // Per-SM block counts of the next batch.
  logic [GW-1:0] max_occupancy, rr_r, fill_left, fill_take;
  logic [BPC_W-1:0] rr_q;  // < blocks_per_core whenever it is used
  logic [BPC_W-1:0] counts[SM_TOT];
  always_comb begin
    max_occupancy = GW'(SM_TOT) * GW'(cfg_blocks_per_core);
    rr_q = BPC_W'(remaining / GW'(SM_TOT));
    rr_r = remaining % GW'(SM_TOT);
    fill_left = remaining;
    fill_take = '0;
    for (int i = 0; i < SM_TOT; i++) counts[i] = '0;
    if (remaining >= max_occupancy) begin
      for (int i = 0; i < SM_TOT; i++) counts[i] = cfg_blocks_per_core;
    end else if (policy == ROUND_ROBIN) begin
      for (int i = 0; i < SM_TOT; i++) counts[i] = rr_q + ((GW'(i) < rr_r) ? BPC_W'(1) : '0);
    end else begin
      for (int pos = 0; pos < SM_TOT; pos++) begin
        fill_take = (fill_left < GW'(cfg_blocks_per_core)) ? fill_left : GW'(cfg_blocks_per_core);
        counts[order[pos]] = BPC_W'(fill_take);
        fill_left = fill_left - fill_take;
      end
    end
  end

  // Block indices of the batch: round robin gives every SM the first block; fill policies give SM
  // i the first block of its contiguous range, ranges in SM-id order.
  logic [CNT_W-1:0] range_off;
  logic [CNT_W-1:0] batch_sum;
  always_comb begin
    range_off = '0;
    for (int i = 0; i < SM_TOT; i++) begin
      block_idx_d[i] = blocks_scheduled_cnt + ((policy == ROUND_ROBIN) ? '0 : range_off);
      range_off = range_off + CNT_W'(num_blocks[i]);
    end
    batch_sum = range_off;
  end

  // Shared memory per block: 16-byte header + static + dynamic + parameters, rounded up to 256.
  logic [31:0] shmem_rounded;
  assign shmem_rounded = 32'((36'd16 + 36'(cfg_shmem_size) + 36'(cfg_dyn_shmem_size) +
                              (36'(cfg_param_size) << 2) + 36'd255) & ~36'd255);

  logic [31:0] threads;
  assign threads = 32'(GW'(cfg_block_x) * GW'(cfg_block_y) * GW'(cfg_block_z));

  always_comb begin
    state_d       = state;
    cnt_d         = blocks_scheduled_cnt;
    done_d        = smp_done_array;
    prng_d        = prng;
    rdy_d         = rdy;
    kernel_done_d = 1'b0;
    smp_en_d      = '0;
    smp_reset_d   = '0;
    num_blocks_d  = num_blocks;
    bx_d          = block_x;
    by_d          = block_y;
    bz_d          = block_z;
    gx_d          = grid_x;
    gy_d          = grid_y;
    gz_d          = grid_z;
    tpb_d         = threads_per_block;
    shmem_d       = shmem_per_block;
    unique case (state)
      CALC_BLOCKS: begin
        if (GW'(blocks_scheduled_cnt) >= grid_dim) begin
          kernel_done_d = 1'b1;
          rdy_d         = 1'b1;
          state_d       = IDLE;
        end else begin
          prng_d       = prng_step;
          num_blocks_d = counts;
          state_d      = CHECK_BLOCKS;
        end
      end
      CHECK_BLOCKS: begin
        bx_d    = cfg_block_x;
        by_d    = cfg_block_y;
        bz_d    = cfg_block_z;
        gx_d    = cfg_grid_x;
        gy_d    = cfg_grid_y;
        gz_d    = cfg_grid_z;
        tpb_d   = threads;
        shmem_d = shmem_rounded;
        state_d = SCHEDULE_BLOCKS;
      end
      SCHEDULE_BLOCKS: begin
        cnt_d    = blocks_scheduled_cnt + batch_sum;
        smp_en_d = active;
        done_d   = '0;
        state_d  = SCHEDULE_WAIT;
      end
      SCHEDULE_WAIT: begin
        done_d = smp_done_array | smp_done;
        if ($countones(smp_done_array) == $countones(active) && active != '0) begin
          smp_reset_d = active;
          state_d     = CALC_BLOCKS;
        end
      end
      default: begin  // IDLE and the unused encodings 5..7
        rdy_d   = 1'b1;
        cnt_d   = '0;
        state_d = IDLE;
        if (en) begin
          rdy_d   = 1'b0;
          state_d = CALC_BLOCKS;
        end
      end
    endcase
  end

  // block_idx is loaded only in CHECK_BLOCKS.
  logic load_idx;
  assign load_idx = state == CHECK_BLOCKS;

  always_ff @(posedge clk or posedge reset) begin
    if (reset) begin
      state                <= IDLE;
      blocks_scheduled_cnt <= '0;
      smp_done_array       <= '0;
      prng                 <= seed;
      rdy                  <= 1'b1;
      kernel_done          <= 1'b0;
      smp_en               <= '0;
      smp_reset            <= '0;
      block_x              <= '0;
      block_y              <= '0;
      block_z              <= '0;
      grid_x               <= '0;
      grid_y               <= '0;
      grid_z               <= '0;
      threads_per_block    <= '0;
      shmem_per_block      <= '0;
      for (int i = 0; i < SM_TOT; i++) begin
        num_blocks[i] <= '0;
        block_idx[i]  <= '0;
      end
    end else if (rst) begin
      state                <= IDLE;
      blocks_scheduled_cnt <= '0;
      smp_done_array       <= '0;
      prng                 <= seed;
      rdy                  <= 1'b1;
      kernel_done          <= 1'b0;
      smp_en               <= '0;
      smp_reset            <= '0;
      block_x              <= '0;
      block_y              <= '0;
      block_z              <= '0;
      grid_x               <= '0;
      grid_y               <= '0;
      grid_z               <= '0;
      threads_per_block    <= '0;
      shmem_per_block      <= '0;
      for (int i = 0; i < SM_TOT; i++) begin
        num_blocks[i] <= '0;
        block_idx[i]  <= '0;
      end
    end else begin
      state                <= state_d;
      blocks_scheduled_cnt <= cnt_d;
      smp_done_array       <= done_d;
      prng                 <= prng_d;
      rdy                  <= rdy_d;
      kernel_done          <= kernel_done_d;
      smp_en               <= smp_en_d;
      smp_reset            <= smp_reset_d;
      block_x              <= bx_d;
      block_y              <= by_d;
      block_z              <= bz_d;
      grid_x               <= gx_d;
      grid_y               <= gy_d;
      grid_z               <= gz_d;
      threads_per_block    <= tpb_d;
      shmem_per_block      <= shmem_d;
      for (int i = 0; i < SM_TOT; i++) begin
        num_blocks[i] <= num_blocks_d[i];
        if (load_idx) block_idx[i] <= block_idx_d[i];
      end
    end
  end
endmodule
