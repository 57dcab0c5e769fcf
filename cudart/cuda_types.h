#pragma once
// The CUDA 13 runtime's types as the application's binary sees them (layouts and values from the
// toolkit's driver_types.h and vector_types.h, nvcc 13.0). The library builds without the toolkit, so
// it declares them itself; the offsets the library writes are checked below, and the test programs
// built by nvcc read them back (docs/cuda.md).
#include <cstddef>
#include <cstdint>

namespace gpuvp::cudart {

// cudaError_t values (driver_types.h).
enum Error : int {
  kSuccess = 0,
  kErrorInvalidValue = 1,
  kErrorMemoryAllocation = 2,
  kErrorInitializationError = 3,
  kErrorCudartUnloading = 4,
  kErrorInvalidConfiguration = 9,
  kErrorMissingConfiguration = 52,
  kErrorInvalidPitchValue = 12,
  kErrorInvalidSymbol = 13,
  kErrorInvalidHostPointer = 16,
  kErrorInvalidDevicePointer = 17,
  kErrorInvalidMemcpyDirection = 21,
  kErrorInvalidDeviceFunction = 98,
  kErrorNoDevice = 100,
  kErrorInvalidDevice = 101,
  kErrorNoKernelImageForDevice = 209,
  kErrorUnsupportedLimit = 215,
  kErrorInvalidPtx = 218,
  kErrorInvalidResourceHandle = 400,
  kErrorNotReady = 600,
  kErrorHostMemoryAlreadyRegistered = 712,
  kErrorHostMemoryNotRegistered = 713,
  kErrorIllegalAddress = 700,
  kErrorLaunchOutOfResources = 701,
  kErrorLaunchTimeout = 702,
  kErrorHardwareStackError = 714,
  kErrorIllegalInstruction = 715,
  kErrorMisalignedAddress = 716,
  kErrorInvalidAddressSpace = 717,
  kErrorInvalidPc = 718,
  kErrorLaunchFailure = 719,
  kErrorNotPermitted = 800,
  kErrorNotSupported = 801,
  kErrorUnknown = 999,
};

struct dim3 {
  unsigned x, y, z;
};

// cudaChannelFormatDesc (x, y, z, w, cudaChannelFormatKind): 20 bytes, returned through memory.
struct ChannelFormatDesc {
  int x, y, z, w, f;
};
static_assert(sizeof(ChannelFormatDesc) == 20);

// cudaPointerAttributes (CUDA 13: 88 bytes, reserved words that must be zero) and cudaMemoryType.
struct PointerAttributes {
  int type;
  int device;
  void* devicePointer;
  void* hostPointer;
  long reserved[8];
};
static_assert(sizeof(PointerAttributes) == 88);
enum MemoryType : int { kMemoryUnregistered = 0, kMemoryHost = 1, kMemoryDevice = 2, kMemoryManaged = 3 };
constexpr int kInvalidDeviceId = -2;  // cudaInvalidDeviceId: the device of unregistered memory

// cudaMemcpyKind.
enum MemcpyKind : int { kHostToHost = 0, kHostToDevice = 1, kDeviceToHost = 2, kDeviceToDevice = 3, kDefault = 4 };

// cudaDeviceProp: 1008 bytes in CUDA 13; the fields the library fills, at their offsets.
struct DeviceProp {
  char name[256];
  unsigned char uuid[16];
  char luid[8];
  unsigned luidDeviceNodeMask;
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  size_t memPitch;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  size_t totalConstMem;
  int major;
  int minor;
  size_t textureAlignment;
  size_t texturePitchAlignment;
  int multiProcessorCount;
  int integrated;
  int canMapHostMemory;
  unsigned char texture_surface_fields_[560 - 396];  // textures and surfaces: unsupported, zero
  int concurrentKernels;
  int ECCEnabled;
  int pciBusID;
  int pciDeviceID;
  int pciDomainID;
  int tccDriver;
  int asyncEngineCount;
  int unifiedAddressing;
  int memoryBusWidth;
  int l2CacheSize;
  int persistingL2CacheMaxSize;
  int maxThreadsPerMultiProcessor;
  int streamPrioritiesSupported;
  int globalL1CacheSupported;
  int localL1CacheSupported;
  size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor;
  int managedMemory;
  unsigned char other_fields_[672 - 640];
  size_t sharedMemPerBlockOptin;
  int pageableMemoryAccessUsesHostPageTables;
  int directManagedMemAccessFromHost;
  int maxBlocksPerMultiProcessor;
  unsigned char rest_[1008 - 692];
};
static_assert(sizeof(DeviceProp) == 1008);
static_assert(offsetof(DeviceProp, totalGlobalMem) == 288);
static_assert(offsetof(DeviceProp, maxThreadsDim) == 324);
static_assert(offsetof(DeviceProp, totalConstMem) == 352);
static_assert(offsetof(DeviceProp, multiProcessorCount) == 384);
static_assert(offsetof(DeviceProp, canMapHostMemory) == 392);
static_assert(offsetof(DeviceProp, concurrentKernels) == 560);
static_assert(offsetof(DeviceProp, asyncEngineCount) == 584);
static_assert(offsetof(DeviceProp, maxThreadsPerMultiProcessor) == 604);
static_assert(offsetof(DeviceProp, sharedMemPerMultiprocessor) == 624);
static_assert(offsetof(DeviceProp, managedMemory) == 636);
static_assert(offsetof(DeviceProp, sharedMemPerBlockOptin) == 672);
static_assert(offsetof(DeviceProp, maxBlocksPerMultiProcessor) == 688);

// cudaFuncAttributes: 144 bytes; the first fields.
struct FuncAttributes {
  size_t sharedSizeBytes;
  size_t constSizeBytes;
  size_t localSizeBytes;
  int maxThreadsPerBlock;
  int numRegs;
  int ptxVersion;
  int binaryVersion;
  int cacheModeCA;
  int maxDynamicSharedSizeBytes;
  unsigned char rest_[144 - 48];
};
static_assert(sizeof(FuncAttributes) == 144);
static_assert(offsetof(FuncAttributes, maxDynamicSharedSizeBytes) == 44);

// cudaDeviceAttr values answered by cudaDeviceGetAttribute.
enum DeviceAttr : int {
  kAttrMaxThreadsPerBlock = 1,
  kAttrMaxBlockDimX = 2,
  kAttrMaxBlockDimY = 3,
  kAttrMaxBlockDimZ = 4,
  kAttrMaxGridDimX = 5,
  kAttrMaxGridDimY = 6,
  kAttrMaxGridDimZ = 7,
  kAttrMaxSharedMemoryPerBlock = 8,
  kAttrTotalConstantMemory = 9,
  kAttrWarpSize = 10,
  kAttrMaxRegistersPerBlock = 12,
  kAttrMaxPitch = 11,
  kAttrClockRate = 13,
  kAttrGpuOverlap = 15,
  kAttrMultiProcessorCount = 16,
  kAttrKernelExecTimeout = 17,
  kAttrIntegrated = 18,
  kAttrCanMapHostMemory = 19,
  kAttrComputeMode = 20,
  kAttrConcurrentKernels = 31,
  kAttrEccEnabled = 32,
  kAttrPciBusId = 33,
  kAttrPciDeviceId = 34,
  kAttrTccDriver = 35,
  kAttrMemoryClockRate = 36,
  kAttrGlobalMemoryBusWidth = 37,
  kAttrL2CacheSize = 38,
  kAttrMaxThreadsPerMultiProcessor = 39,
  kAttrAsyncEngineCount = 40,
  kAttrUnifiedAddressing = 41,
  kAttrPciDomainId = 50,
  kAttrComputeCapabilityMajor = 75,
  kAttrComputeCapabilityMinor = 76,
  kAttrMaxSharedMemoryPerMultiprocessor = 81,
  kAttrMaxRegistersPerMultiprocessor = 82,
  kAttrManagedMemory = 83,
  kAttrPageableMemoryAccess = 88,
  kAttrConcurrentManagedAccess = 89,
  kAttrCooperativeLaunch = 95,
  kAttrMaxSharedMemoryPerBlockOptin = 97,
  kAttrMaxBlocksPerMultiprocessor = 106,
  kAttrTextureAlignment = 14,
  kAttrStreamPrioritiesSupported = 78,
  kAttrGlobalL1CacheSupported = 79,
  kAttrLocalL1CacheSupported = 80,
  kAttrHostNativeAtomicSupported = 86,
  kAttrMemoryPoolsSupported = 115,
  kAttrHostRegisterSupported = 99,
  kAttrMaxPersistingL2CacheSize = 108,
  kAttrReservedSharedMemoryPerBlock = 111,
};

// cudaSetDeviceFlags' flags (driver_types.h): one scheduling mode (0, Spin, Yield or BlockingSync in the
// low three bits) and any of MapHost, LmemResizeToMax, SyncMemops.
constexpr unsigned kDeviceScheduleMask = 0x07, kDeviceMapHost = 0x08, kDeviceLmemResizeToMax = 0x10,
                   kDeviceSyncMemops = 0x80;
// cudaLimit values the library keeps, cudaFuncCache's range, cudaFuncAttribute values it takes.
enum Limit : int { kLimitStackSize = 0, kLimitPrintfFifoSize = 1, kLimitMallocHeapSize = 2 };
constexpr int kFuncCachePreferEqual = 3;  // cudaFuncCachePreferNone (0) .. PreferEqual
constexpr int kFuncAttrMaxDynamicSharedMemorySize = 8, kFuncAttrPreferredSharedMemoryCarveout = 9;

// cudaStreamNonBlocking, cudaEventDisableTiming/BlockingSync, cudaHostAllocMapped: flags seen here.
constexpr unsigned kStreamNonBlocking = 0x1;
// The special stream handles cudaStreamLegacy and cudaStreamPerThread.
constexpr uint64_t kStreamLegacy = 0x1, kStreamPerThread = 0x2;
constexpr unsigned kEventBlockingSync = 0x1, kEventDisableTiming = 0x2, kEventInterprocess = 0x4;
constexpr unsigned kHostAllocPortable = 0x1, kHostAllocMapped = 0x2, kHostAllocWriteCombined = 0x4;
constexpr unsigned kHostRegisterPortable = 0x1, kHostRegisterMapped = 0x2, kHostRegisterIoMemory = 0x4,
                   kHostRegisterReadOnly = 0x8;
constexpr unsigned kMemAttachGlobal = 0x1, kMemAttachHost = 0x2, kMemAttachSingle = 0x4;
// cudaMemLocation: where a prefetch or an advice points (type 1 a device, 2 the host).
struct MemLocation {
  int type;
  int id;
};
constexpr int kMemLocationDevice = 1, kMemLocationHost = 2, kMemLocationHostNumaCurrent = 4;

}  // namespace gpuvp::cudart
