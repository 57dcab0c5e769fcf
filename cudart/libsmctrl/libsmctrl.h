/* libsmctrl's API (Bakita & Anderson, RTAS 2023) for programs run under `gpuvp cuda` (docs/cuda.md,
 * "SM partitions"). A program written for the real library builds against this header and libsmctrl.so
 * of the build tree unchanged. Masks: a set bit DISABLES that TPC; on the platform a TPC is one SM, so
 * bit i is SM i. Bits of SMs the GPU lacks are ignored. */
#ifndef GPUVP_LIBSMCTRL_H
#define GPUVP_LIBSMCTRL_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The mask of every launch whose stream has no mask of its own. */
void libsmctrl_set_global_mask(uint64_t mask);
/* The mask of `stream`'s later launches (a cudaStream_t; NULL is the default stream); overrides the global one. */
void libsmctrl_set_stream_mask(void* stream, uint64_t mask);
/* The same with 128 bits (GPUs of more than 64 TPCs): the platform's have at most 64 SMs, so bits 64 to
 * 127 name none. */
void libsmctrl_set_stream_mask_ext(void* stream, unsigned __int128 mask);
/* The mask of the calling thread's next launch only; overrides the stream's and the global one. */
void libsmctrl_set_next_mask(uint64_t mask);
/* The number of TPCs (SMs) of device `dev` (a CUDA device number); 0 on success, else a cudaError_t. */
int libsmctrl_get_tpc_info(uint32_t* num_tpcs, int dev);
int libsmctrl_get_tpc_info_cuda(uint32_t* num_tpcs, int cuda_dev);

#ifdef __cplusplus
}
#endif
#endif
