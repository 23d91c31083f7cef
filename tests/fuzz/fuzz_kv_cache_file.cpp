// libFuzzer target: the K/V cache file reader (engine/kv/kv_store_file.h), header and body. The
// first input byte picks how the rest (a cache file image) is used:
//   bit 0: recompute the trailer checksum (and its end marker), so edits get past the checksum and
//          reach the section checks, the token compare, the non-finite scan and the restore;
//   bit 1: also force the magic, format version and header/file sizes to be right.
// The expectation (key, shape, token ids) is taken from the image's own header where it can be, so
// the reader goes as far as a matching file would; its shape is bounded the way a model's is. The
// image is written to a temporary file and read both mapped and read into memory; each restored
// store is read end to end. Seeds: snapdoc_fuzz_seeds writes valid files (OUT/kv_cache).
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "engine/common/error.h"
#include "engine/kv/checksum64.h"
#include "engine/kv/kv_store_file.h"

namespace {

using namespace snapdoc;

template <typename T>
T field(const std::string& b, std::size_t at) {
    T v{};
    if (at + sizeof v <= b.size()) std::memcpy(&v, b.data() + at, sizeof v);
    return v;
}

template <typename T>
void set_field(std::string& b, std::size_t at, T v) {
    if (at + sizeof v <= b.size()) std::memcpy(b.data() + at, &v, sizeof v);
}

// Header field offsets (kv_store_file.cpp's FileHeader).
constexpr std::size_t kFormat = 8, kHeaderSize = 12, kModelBytes = 16, kContentHash = 32, kTokenizer = 40,
                      kCompute = 48, kTokensHash = 56, kSystem = 64, kTemplate = 72, kEngine = 76,
                      kShape = 80, kTokensOffset = 104, kFileBytes = 152;

const std::filesystem::path& scratch() {
    static const std::filesystem::path p =
        std::filesystem::temp_directory_path() / ("fuzz-kv-cache-" + std::to_string(::getpid()) + ".snapkv");
    return p;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    const uint8_t mode = data[0];
    std::string b(reinterpret_cast<const char*>(data) + 1, size - 1);
    if ((mode & 2) && b.size() >= kKvFileHeaderBytes + kKvFileTrailerBytes) {
        std::memcpy(b.data(), "SNAPDKV\0", 8);
        set_field<uint32_t>(b, kFormat, kKvFileFormatVersion);
        set_field<uint32_t>(b, kHeaderSize, static_cast<uint32_t>(kKvFileHeaderBytes));
        set_field<uint64_t>(b, kFileBytes, b.size());
    }
    if ((mode & 1) && b.size() >= kKvFileTrailerBytes) {
        const std::size_t body = b.size() - kKvFileTrailerBytes;
        const uint64_t sum = checksum64(b.data(), body, kKvFileChecksumSeed);
        std::memcpy(b.data() + body, &sum, sizeof sum);
        std::memcpy(b.data() + body + 8, "KVEND\0\0\0", 8);
    }

    KvFileExpectation e;
    e.key.model = {field<uint64_t>(b, kModelBytes), field<uint64_t>(b, kContentHash)};
    e.key.tokenizer_hash = field<uint64_t>(b, kTokenizer);
    e.key.compute_hash = field<uint64_t>(b, kCompute);
    e.key.tokens_hash = field<uint64_t>(b, kTokensHash);
    e.key.system_prompt_hash = field<uint64_t>(b, kSystem);
    e.key.template_kind = field<uint32_t>(b, kTemplate);
    e.key.engine_version = field<uint32_t>(b, kEngine);
    int32_t shape[6];
    for (int i = 0; i < 6; ++i) shape[i] = field<int32_t>(b, kShape + 4 * i);
    // (In 64 bits: the file's field may be INT32_MIN, and the harness must not overflow first.)
    e.shape = {shape[0], shape[1], shape[2], shape[3], shape[4],
               static_cast<int32_t>(std::max<int64_t>(0, int64_t{shape[5]} - (mode >> 7)))};
    // A model's shape is small; a file claiming more is refused by the reader's own checks anyway.
    if (e.shape.tokens < 0 || e.shape.tokens > (1 << 20)) e.shape.tokens = 1;
    std::vector<int32_t> tokens(static_cast<std::size_t>(e.shape.tokens));
    const uint64_t tokens_at = field<uint64_t>(b, kTokensOffset);
    if (!tokens.empty() && tokens_at < b.size() && b.size() - tokens_at >= tokens.size() * 4)
        std::memcpy(tokens.data(), b.data() + tokens_at, tokens.size() * 4);
    e.tokens = tokens;

    {
        std::ofstream out(scratch(), std::ios::binary | std::ios::trunc);
        out.write(b.data(), static_cast<std::streamsize>(b.size()));
    }
    for (KvFileLoad load : {KvFileLoad::Map, KvFileLoad::Read}) {
        try {
            LoadedKvStore got = read_kv_store_file(scratch(), e, load, int64_t{64} << 20,
                                                   std::filesystem::temp_directory_path());
            const auto* p = static_cast<const uint8_t*>(got.store->data());
            unsigned acc = 0;
            for (int64_t i = 0; i < got.store->bytes(); i += 61) acc += p[i];
            for (const auto& l : got.tail_q)
                for (float f : l) acc += f > 0;
            if (acc == 0xdeadbeef) std::abort();  // keeps the reads
        } catch (const Error&) {
        }
    }
    return 0;
}
