// Error codes, names and strings as CUDA gives them, and what each failure of the platform becomes.
#include <fmt/format.h>

#include <cstdio>

#include "cudart/say.h"
#include "cudart/api.h"
#include "platform/config/config.h"
#include "platform/platform.h"
#include "sw/fatbin/fatbin.h"
#include "sw/ptx/parser.h"

using namespace gpuvp;
using namespace gpuvp::cudart;

namespace {

struct ErrorText {
  int code;
  const char* name;
  const char* text;  // cudaGetErrorString's text in CUDA 13
};

const ErrorText kErrors[] = {
    {kSuccess, "cudaSuccess", "no error"},
    {kErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
    {kErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
    {kErrorInitializationError, "cudaErrorInitializationError", "initialization error"},
    {kErrorCudartUnloading, "cudaErrorCudartUnloading", "driver shutting down"},
    {kErrorInvalidConfiguration, "cudaErrorInvalidConfiguration", "invalid configuration argument"},
    {kErrorInvalidPitchValue, "cudaErrorInvalidPitchValue", "invalid pitch argument"},
    {kErrorInvalidSymbol, "cudaErrorInvalidSymbol", "invalid device symbol"},
    {kErrorInvalidHostPointer, "cudaErrorInvalidHostPointer", "invalid host pointer"},
    {kErrorInvalidDevicePointer, "cudaErrorInvalidDevicePointer", "invalid device pointer"},
    {kErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection", "invalid copy direction for memcpy"},
    {kErrorMissingConfiguration, "cudaErrorMissingConfiguration", "__global__ function call is not configured"},
    {kErrorInvalidDeviceFunction, "cudaErrorInvalidDeviceFunction", "invalid device function"},
    {kErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
    {kErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {kErrorNoKernelImageForDevice, "cudaErrorNoKernelImageForDevice",
     "no kernel image is available for execution on the device"},
    {kErrorUnsupportedLimit, "cudaErrorUnsupportedLimit", "limit is not supported on this architecture"},
    {kErrorInvalidPtx, "cudaErrorInvalidPtx", "a PTX JIT compilation failed"},
    {kErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {kErrorNotReady, "cudaErrorNotReady", "device not ready"},
    {kErrorHostMemoryAlreadyRegistered, "cudaErrorHostMemoryAlreadyRegistered",
     "part or all of the requested memory range is already mapped"},
    {kErrorHostMemoryNotRegistered, "cudaErrorHostMemoryNotRegistered",
     "pointer does not correspond to a registered memory region"},
    {kErrorIllegalAddress, "cudaErrorIllegalAddress", "an illegal memory access was encountered"},
    {kErrorLaunchOutOfResources, "cudaErrorLaunchOutOfResources", "too many resources requested for launch"},
    {kErrorLaunchTimeout, "cudaErrorLaunchTimeout", "the launch timed out and was terminated"},
    {kErrorHardwareStackError, "cudaErrorHardwareStackError", "an illegal memory access was encountered"},
    {kErrorIllegalInstruction, "cudaErrorIllegalInstruction", "an illegal instruction was encountered"},
    {kErrorMisalignedAddress, "cudaErrorMisalignedAddress", "misaligned address"},
    {kErrorInvalidAddressSpace, "cudaErrorInvalidAddressSpace", "operation not supported on global/shared address space"},
    {kErrorInvalidPc, "cudaErrorInvalidPc", "invalid program counter"},
    {kErrorLaunchFailure, "cudaErrorLaunchFailure", "unspecified launch failure"},
    {kErrorNotPermitted, "cudaErrorNotPermitted", "operation not permitted"},
    {kErrorNotSupported, "cudaErrorNotSupported", "operation not supported"},
    {kErrorUnknown, "cudaErrorUnknown", "unknown error"},
};

const ErrorText* find(int code) {
  for (auto& e : kErrors)
    if (e.code == code) return &e;
  return nullptr;
}

// A device error stops the context as CUDA's do: the code of its kind, kept for every later call.
Error device_code(const DeviceError& e) {
  const std::string& k = e.info().kind;
  if (k == "address") return kErrorIllegalAddress;
  if (k == "misaligned") return kErrorMisalignedAddress;
  if (k == "decode") return kErrorIllegalInstruction;
  return kErrorLaunchFailure;
}

Error report(const char* api, Error code, const std::string& why) {
  if (const char* outer = called_as()) api = outer;
  say("gpuvp: {}: {} ({})\n", api, why, find(code) ? find(code)->name : "error");
  return last_error() = code;
}

}  // namespace

namespace gpuvp::cudart {

Error current_error(const char* api, Error misuse) {
  try {
    throw;
  } catch (const CudaError& e) {
    return report(api, e.code(), e.what());
  } catch (const DeviceError& e) {
    return report(api, State::get().sticky = device_code(e), e.what());
  } catch (const TimeoutError& e) {
    return report(api, State::get().sticky = kErrorLaunchTimeout, e.what());
  } catch (const UnloadingError& e) {
    return report(api, kErrorCudartUnloading, e.what());
  } catch (const SessionError& e) {
    return report(api, kErrorInitializationError, e.what());
  } catch (const ConfigError& e) {  // the environment's configuration: the platform cannot be built
    return report(api, kErrorInitializationError, e.what());
  } catch (const fatbin::FatbinError& e) {
    return report(api, kErrorNoKernelImageForDevice, e.what());
  } catch (const ptx::ParseError& e) {
    return report(api, kErrorInvalidPtx, e.what());
  } catch (const rt::RuntimeError& e) {
    return report(api, misuse, e.what());
  } catch (const std::exception& e) {
    return report(api, kErrorUnknown, e.what());
  }
}

const char*& called_as() {
  thread_local const char* name = nullptr;
  return name;
}

void check_device(int device) {
  require(device == 0, kErrorInvalidDevice, fmt::format("device {}: the platform has one GPU, device 0", device));
}

Error unsupported(const char* api) {
  say("gpuvp cudart: {} is not supported by the platform\n", api);
  return last_error() = kErrorNotSupported;
}

}  // namespace gpuvp::cudart

CUDART_EXPORT int cudaGetLastError() {
  const int e = last_error();
  last_error() = kSuccess;
  return e != kSuccess ? e : State::get().sticky;
}

CUDART_EXPORT int cudaPeekAtLastError() {
  return last_error() != kSuccess ? last_error() : State::get().sticky;
}

CUDART_EXPORT const char* cudaGetErrorName(int code) {
  const ErrorText* e = find(code);
  return e ? e->name : "cudaErrorUnknown";
}

CUDART_EXPORT const char* cudaGetErrorString(int code) {
  const ErrorText* e = find(code);
  return e ? e->text : "unrecognized error code";
}
