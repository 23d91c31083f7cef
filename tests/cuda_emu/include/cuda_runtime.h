// CUDA emulation (tests/cuda_emu): nvcc includes this implicitly; here it is the runtime API.
#pragma once
#include <cuda_runtime_api.h>
