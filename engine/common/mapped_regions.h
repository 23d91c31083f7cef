// Which file a memory address belongs to, for the SIGBUS report. Model files and K/V cache files
// are memory-mapped; when such a file is truncated while mapped, the next touch of a vanished page
// raises SIGBUS. The report names the file that was cut (it said "the model" also when it was a
// K/V cache file). The registry is fixed-size and lock-free so the signal handler can read it.
#pragma once

#include <cstddef>
#include <string>

namespace snapdoc {

// Records [addr, addr + length) as a mapping of `label` ("the model file /m.gguf"). More than
// kMaxMappedRegions at once: the extra ones are simply not named.
inline constexpr int kMaxMappedRegions = 64;
void register_mapped_region(const void* addr, std::size_t length, const std::string& label);
void unregister_mapped_region(const void* addr);

// The label of the mapping holding `addr`, or nullptr (async-signal-safe).
const char* mapped_region_label(const void* addr);

// Installs a SIGBUS handler that writes "<program>: error: a memory-mapped file (<label>) was
// truncated or removed while in use (SIGBUS)" to stderr and exits with status 1.
void install_sigbus_report(const char* program);

}  // namespace snapdoc
