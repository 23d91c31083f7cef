// One document's K/V cache file: what a DocumentSession needs to answer questions about a document
// without prefilling it again — the full f16 K/V store of every layer, the queries of the document's
// last rows (for observation windows reaching into the document), and the document's token ids —
// behind a header naming what it was computed from (the key) and a checksum over all of it.
//
// Layout (little-endian; offsets in the header, sections aligned so the K/V blob can be used
// straight from a mapping):
//   [0, 4096)        header: magic "SNAPDKV\0", format version, key fields, shapes, section table
//   tokens           int32 [tokens]                          (compared on open: no hash collisions)
//   tail queries     f32   [n_layers][tail_rows, q_dim]      (kept f32 like the live session's)
//   K/V              f16   FullKvStore's blob, 4096-aligned  (layer, kv head, K|V) x [tokens, head_dim]
//   trailer          u64 checksum of every byte before it, then "KVEND\0\0\0"
// A reader trusts nothing before the checksum matched: a truncated, corrupt, foreign or
// mismatched file is a FormatError saying which, and the caller rebuilds it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engine/kv/full_kv_store.h"
#include "engine/kv/model_identity.h"

namespace snapdoc {

// Bumped when the file layout changes.
inline constexpr uint32_t kKvFileFormatVersion = 2;  // 2: the model hash covers the whole file
// The trailer's checksum is checksum64(every byte before the trailer, this seed); tests and the
// fuzz target recompute it to get past it.
inline constexpr uint64_t kKvFileChecksumSeed = 0x534e4150444b5631ull;  // "SNAPDKV1"
// Bytes of the header and of the trailer (u64 checksum + "KVEND\0\0\0").
inline constexpr std::size_t kKvFileHeaderBytes = 4096;
inline constexpr std::size_t kKvFileTrailerBytes = 16;
// Bumped when the engine computes K/V differently (RoPE, attention, rounding), so old files from
// an otherwise identical setup are not reused.
inline constexpr uint32_t kKvEngineCacheVersion = 1;

// Everything a document's K/V depend on. Any difference means a different file.
struct KvCacheKey {
    ModelIdentity model;
    uint64_t tokenizer_hash = 0;      // vocabulary pieces and special ids
    uint64_t compute_hash = 0;        // the model config as the backend runs it (shapes, RoPE, context)
    uint64_t tokens_hash = 0;         // the document part's token ids
    uint64_t system_prompt_hash = 0;  // (also inside the tokens; kept so the key says it)
    uint32_t template_kind = 0;
    uint32_t engine_version = kKvEngineCacheVersion;
    bool operator==(const KvCacheKey&) const = default;
    uint64_t digest() const;        // names the file
    std::string file_name() const;  // "<16 hex digits>.snapkv"
};

struct KvFileShape {
    int n_layers = 0, n_kv_heads = 0, head_dim = 0, q_dim = 0, tokens = 0, tail_rows = 0;
    bool operator==(const KvFileShape&) const = default;
};

// What a session hands to the writer (borrowed, not copied).
struct KvFileContents {
    KvFileShape shape;
    const FullKvStore* store = nullptr;
    const std::vector<std::vector<float>>* tail_q = nullptr;  // [layer][tail_rows * q_dim]
    std::span<const int32_t> tokens;
};

// Writes atomically (temporary file + rename through AtomicFileWriter): a reader sees the old file
// or the complete new one. A full disk or any write error throws Error and leaves no file.
void write_kv_store_file(const std::filesystem::path& path, const KvCacheKey& key,
                         const KvFileContents& contents);

enum class KvFileLoad {
    Map,   // the K/V blob is used in place from a read-only mapping (no copy)
    Read,  // read into a freshly allocated store (ram_cap_bytes / spill_dir as for a prefill)
};

struct LoadedKvStore {
    std::unique_ptr<FullKvStore> store;
    std::vector<std::vector<float>> tail_q;
    int tail_rows = 0;
};

struct KvFileExpectation {
    KvCacheKey key;
    KvFileShape shape;  // tail_rows is what the session would keep; the file may hold more or fewer
    std::span<const int32_t> tokens;
};

// Opens and verifies a cache file (header, key, shapes, tokens, checksum) and returns its contents.
// Throws FormatError naming the problem (truncated, corrupt, different key/shape) — never returns
// unverified data.
LoadedKvStore read_kv_store_file(
    const std::filesystem::path& path, const KvFileExpectation& expect, KvFileLoad mode,
    int64_t ram_cap_bytes = int64_t{8} << 30,
    const std::filesystem::path& spill_dir = std::filesystem::temp_directory_path());

// Bytes the file for `shape` will take (for room checks before writing).
int64_t kv_store_file_bytes(const KvFileShape& shape);

}  // namespace snapdoc
