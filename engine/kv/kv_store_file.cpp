#include "engine/kv/kv_store_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "engine/common/atomic_file.h"
#include "engine/common/error.h"
#include "engine/common/mapped_regions.h"
#include "engine/kv/checksum64.h"
#include "engine/kv/f16_rows.h"

namespace snapdoc {

static_assert(std::endian::native == std::endian::little, "K/V cache files are little-endian");

namespace {

constexpr char kMagic[8] = {'S', 'N', 'A', 'P', 'D', 'K', 'V', '\0'};
constexpr char kEndMagic[8] = {'K', 'V', 'E', 'N', 'D', '\0', '\0', '\0'};
constexpr std::size_t kHeaderBytes = kKvFileHeaderBytes;
constexpr std::size_t kTrailerBytes = kKvFileTrailerBytes;
constexpr uint64_t kChecksumSeed = kKvFileChecksumSeed;

// The header as stored: fixed-size fields only, no padding holes (static_assert below), so it can
// be written and read as bytes.
struct FileHeader {
    char magic[8];
    uint32_t format_version;
    uint32_t header_bytes;
    // key
    uint64_t model_file_bytes;
    uint64_t reserved0;  // format 1: the model mtime (now covered by the whole-file hash)
    uint64_t model_content_hash;
    uint64_t tokenizer_hash;
    uint64_t compute_hash;
    uint64_t tokens_hash;
    uint64_t system_prompt_hash;
    uint32_t template_kind;
    uint32_t engine_version;
    // shapes
    int32_t n_layers, n_kv_heads, head_dim, q_dim, tokens, tail_rows;
    // sections
    uint64_t tokens_offset, tokens_bytes;
    uint64_t tail_q_offset, tail_q_bytes;
    uint64_t kv_offset, kv_bytes;
    uint64_t file_bytes;  // including the trailer
};
static_assert(sizeof(FileHeader) == 8 + 4 + 4 + 7 * 8 + 4 + 4 + 6 * 4 + 7 * 8, "no padding in FileHeader");
static_assert(sizeof(FileHeader) <= kHeaderBytes);

uint64_t align_up(uint64_t x, uint64_t a) {
    return (x + a - 1) / a * a;
}

struct Sections {
    uint64_t tokens_offset, tokens_bytes, tail_q_offset, tail_q_bytes, kv_offset, kv_bytes, file_bytes;
};

Sections sections_for(const KvFileShape& s) {
    Sections x{};
    x.tokens_offset = kHeaderBytes;
    x.tokens_bytes = uint64_t(s.tokens) * 4;
    x.tail_q_offset = align_up(x.tokens_offset + x.tokens_bytes, 64);
    x.tail_q_bytes = uint64_t(s.n_layers) * s.tail_rows * s.q_dim * 4;
    x.kv_offset = align_up(x.tail_q_offset + x.tail_q_bytes, 4096);
    x.kv_bytes =
        static_cast<uint64_t>(FullKvStore::bytes_for(s.n_layers, s.n_kv_heads, s.head_dim, s.tokens));
    x.file_bytes = x.kv_offset + x.kv_bytes + kTrailerBytes;
    return x;
}

FileHeader make_header(const KvCacheKey& key, const KvFileShape& s) {
    FileHeader h{};
    std::memcpy(h.magic, kMagic, sizeof kMagic);
    h.format_version = kKvFileFormatVersion;
    h.header_bytes = kHeaderBytes;
    h.model_file_bytes = key.model.file_bytes;
    h.model_content_hash = key.model.content_hash;
    h.tokenizer_hash = key.tokenizer_hash;
    h.compute_hash = key.compute_hash;
    h.tokens_hash = key.tokens_hash;
    h.system_prompt_hash = key.system_prompt_hash;
    h.template_kind = key.template_kind;
    h.engine_version = key.engine_version;
    h.n_layers = s.n_layers;
    h.n_kv_heads = s.n_kv_heads;
    h.head_dim = s.head_dim;
    h.q_dim = s.q_dim;
    h.tokens = s.tokens;
    h.tail_rows = s.tail_rows;
    const Sections x = sections_for(s);
    h.tokens_offset = x.tokens_offset;
    h.tokens_bytes = x.tokens_bytes;
    h.tail_q_offset = x.tail_q_offset;
    h.tail_q_bytes = x.tail_q_bytes;
    h.kv_offset = x.kv_offset;
    h.kv_bytes = x.kv_bytes;
    h.file_bytes = x.file_bytes;
    return h;
}

KvCacheKey key_of(const FileHeader& h) {
    KvCacheKey k;
    k.model = {h.model_file_bytes, h.model_content_hash};
    k.tokenizer_hash = h.tokenizer_hash;
    k.compute_hash = h.compute_hash;
    k.tokens_hash = h.tokens_hash;
    k.system_prompt_hash = h.system_prompt_hash;
    k.template_kind = h.template_kind;
    k.engine_version = h.engine_version;
    return k;
}

// Writes through AtomicFileWriter and feeds the checksum with exactly the bytes written.
class ChecksummedSink {
public:
    explicit ChecksummedSink(AtomicFileWriter& out) : out_(out), sum_(kChecksumSeed) {}
    void write(const void* p, std::size_t n) {
        out_.write(p, n);
        sum_.update(p, n);
    }
    void pad_to(std::size_t offset) {
        static const char zeros[4096] = {};
        while (out_.bytes_written() < offset)
            write(zeros, std::min(sizeof zeros, offset - out_.bytes_written()));
    }
    uint64_t digest() const { return sum_.digest(); }

private:
    AtomicFileWriter& out_;
    Checksum64 sum_;
};

[[noreturn]] void bad(const std::filesystem::path& path, const std::string& what) {
    throw FormatError("K/V cache file " + path.string() + ": " + what);
}

// The whole file, mapped read-only or read into memory.
class FileBytes {
public:
    FileBytes(const std::filesystem::path& path, bool map) : path_(path) {
        // O_NONBLOCK: a FIFO at the cache name would otherwise block the open until a writer comes
        // (forever, and Ctrl-C would not end it); it has no effect on a regular file. O_NOFOLLOW: a
        // cache file is only ever a regular file we wrote; a link there is refused (and replaced).
        fd_.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY);
        if (fd_.fd < 0) {
            const int err = errno;
            bad(path, err == ELOOP ? std::string("a symbolic link, not a regular file")
                                   : std::string("cannot open: ") + std::strerror(err));
        }
        struct stat st {};
        if (::fstat(fd_.fd, &st) != 0 || !S_ISREG(st.st_mode)) bad(path, "not a regular file");
        size_ = static_cast<std::size_t>(st.st_size);
        if (size_ < kHeaderBytes + kTrailerBytes)
            bad(path, "truncated (" + std::to_string(size_) + " bytes)");
        if (map) {
            // MAP_POPULATE: the checksum reads every page anyway; faulting them in one call is faster.
            void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd_.fd, 0);
            if (p == MAP_FAILED) bad(path, std::string("cannot map: ") + std::strerror(errno));
            map_ = p;
            register_mapped_region(p, size_, "the K/V cache file " + path.string() + "; it is rebuilt on the next run");
        }
    }
    ~FileBytes() {
        if (map_) {
            unregister_mapped_region(map_);
            ::munmap(map_, size_);
        }
    }
    FileBytes(const FileBytes&) = delete;
    FileBytes& operator=(const FileBytes&) = delete;

    std::size_t size() const { return size_; }
    const unsigned char* mapped() const { return static_cast<const unsigned char*>(map_); }
    // Gives the mapping away (to a FullKvStore) so it outlives this object.
    void* release_mapping() {
        void* p = map_;
        map_ = nullptr;
        return p;
    }
    // Reads [offset, offset + n) into dst (read mode).
    void read_at(uint64_t offset, void* dst, std::size_t n) const {
        auto* d = static_cast<unsigned char*>(dst);
        while (n > 0) {
            const ssize_t r =
                ::pread(fd_.fd, d, std::min<std::size_t>(n, std::size_t{1} << 30), static_cast<off_t>(offset));
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0)
                bad(path_,
                    r == 0 ? "truncated while reading" : std::string("read error: ") + std::strerror(errno));
            d += r;
            n -= static_cast<std::size_t>(r);
            offset += static_cast<uint64_t>(r);
        }
    }

private:
    // Closes the descriptor when the constructor throws after opening it, too (a throwing
    // constructor runs its members' destructors, not its own): a corrupt or truncated cache file
    // left one descriptor open per read until the process ran out (found by fuzz_kv_cache_file).
    struct Descriptor {
        int fd = -1;
        ~Descriptor() {
            if (fd >= 0) ::close(fd);
        }
    };
    std::filesystem::path path_;
    Descriptor fd_;
    std::size_t size_ = 0;
    void* map_ = nullptr;
};

void check_header(const std::filesystem::path& path, const FileHeader& h, std::size_t file_size,
                  const KvFileExpectation& expect) {
    if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0)
        bad(path, "not a snapdoc K/V cache file (bad magic)");
    if (h.format_version != kKvFileFormatVersion)
        bad(path, "format version " + std::to_string(h.format_version) + ", this build reads " +
                      std::to_string(kKvFileFormatVersion));
    if (h.header_bytes != kHeaderBytes) bad(path, "header size " + std::to_string(h.header_bytes));
    if (h.file_bytes != file_size)
        bad(path, (file_size < h.file_bytes ? "truncated: " : "trailing bytes: ") +
                      std::to_string(file_size) + " bytes, the header says " + std::to_string(h.file_bytes));
    if (!(key_of(h) == expect.key))
        bad(path, "made for a different model, tokenizer, document or engine version");
    const KvFileShape got{h.n_layers, h.n_kv_heads, h.head_dim, h.q_dim, h.tokens, h.tail_rows};
    // Bounded before any size is computed from them (no overflow whatever the header says).
    if (got.n_layers < 1 || got.n_layers > 4096 || got.n_kv_heads < 1 || got.n_kv_heads > 4096 ||
        got.head_dim < 1 || got.head_dim > 4096 || got.q_dim < 1 || got.q_dim > (1 << 20) || got.tokens < 1 ||
        got.tokens > (1 << 28) || got.tail_rows < 0 || got.tail_rows > got.tokens)
        bad(path, "implausible shape in the header");
    const long double need = 4.0L * got.n_layers * got.n_kv_heads * got.head_dim * got.tokens +
                             4.0L * got.n_layers * got.tail_rows * got.q_dim + 4.0L * got.tokens;
    if (need > static_cast<long double>(file_size)) bad(path, "the header's shape needs more bytes than the file has");
    if (got.n_layers != expect.shape.n_layers || got.n_kv_heads != expect.shape.n_kv_heads ||
        got.head_dim != expect.shape.head_dim || got.q_dim != expect.shape.q_dim ||
        got.tokens != expect.shape.tokens || got.tail_rows < expect.shape.tail_rows ||
        got.tail_rows > got.tokens || got.tail_rows < 0)
        bad(path, "shape differs from the model's (" + std::to_string(got.n_layers) + " layers, " +
                      std::to_string(got.n_kv_heads) + " KV heads, head_dim " + std::to_string(got.head_dim) +
                      ", " + std::to_string(got.tokens) + " tokens)");
    const Sections x = sections_for(got);
    if (h.tokens_offset != x.tokens_offset || h.tokens_bytes != x.tokens_bytes ||
        h.tail_q_offset != x.tail_q_offset || h.tail_q_bytes != x.tail_q_bytes ||
        h.kv_offset != x.kv_offset || h.kv_bytes != x.kv_bytes || h.file_bytes != x.file_bytes)
        bad(path, "inconsistent section table");
}

// NaN/Inf K/V (a broken model's prefill, or a file crafted with a valid checksum) would make every
// later question fail with non-finite logits, so such a file is neither written nor restored.
std::string non_finite_in(const void* kv, uint64_t kv_bytes, const std::vector<std::vector<float>>& tail_q) {
    const int64_t bad = first_non_finite_f16(static_cast<const uint16_t*>(kv), static_cast<int64_t>(kv_bytes / 2));
    if (bad >= 0) return "holds NaN or Inf K/V (f16 value " + std::to_string(bad) + ")";
    for (std::size_t l = 0; l < tail_q.size(); ++l)
        if (first_non_finite_f32(tail_q[l].data(), static_cast<int64_t>(tail_q[l].size())) >= 0)
            return "holds NaN or Inf queries (layer " + std::to_string(l) + ")";
    return {};
}

}  // namespace

uint64_t KvCacheKey::digest() const {
    Checksum64 c(0x6b65792d6b766331ull);
    c.update_u64(model.file_bytes);
    c.update_u64(model.content_hash);
    c.update_u64(tokenizer_hash);
    c.update_u64(compute_hash);
    c.update_u64(tokens_hash);
    c.update_u64(system_prompt_hash);
    c.update_u64(template_kind);
    c.update_u64(engine_version);
    c.update_u64(kKvFileFormatVersion);
    return c.digest();
}

std::string KvCacheKey::file_name() const {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%016llx.snapkv", static_cast<unsigned long long>(digest()));
    return buf;
}

int64_t kv_store_file_bytes(const KvFileShape& shape) {
    return static_cast<int64_t>(sections_for(shape).file_bytes);
}

void write_kv_store_file(const std::filesystem::path& path, const KvCacheKey& key, const KvFileContents& c) {
    const KvFileShape& s = c.shape;
    if (!c.store || !c.tail_q || static_cast<int>(c.tokens.size()) != s.tokens ||
        c.store->tokens() != s.tokens || static_cast<int>(c.tail_q->size()) != s.n_layers)
        throw Error("K/V cache file " + path.string() + ": the session's contents do not match their shape");
    const FileHeader h = make_header(key, s);
    if (std::string why = non_finite_in(c.store->data(), h.kv_bytes, *c.tail_q); !why.empty())
        throw Error("K/V cache file " + path.string() + " not written: the session " + why);
    AtomicFileWriter out(path);
    ChecksummedSink sink(out);
    sink.write(&h, sizeof h);
    sink.pad_to(h.tokens_offset);
    sink.write(c.tokens.data(), c.tokens.size_bytes());
    sink.pad_to(h.tail_q_offset);
    const std::size_t tail_floats = static_cast<std::size_t>(s.tail_rows) * s.q_dim;
    for (const auto& layer : *c.tail_q) {
        if (layer.size() != tail_floats)
            throw Error("K/V cache file " + path.string() + ": tail queries have the wrong size");
        sink.write(layer.data(), layer.size() * sizeof(float));
    }
    sink.pad_to(h.kv_offset);
    // In 64 MiB pieces: AtomicFileWriter::write takes size_t, but a full-disk error should come
    // early, and the checksum streams either way.
    const auto* kv = static_cast<const unsigned char*>(c.store->data());
    for (uint64_t off = 0; off < h.kv_bytes; off += uint64_t{64} << 20)
        sink.write(kv + off,
                   static_cast<std::size_t>(std::min<uint64_t>(uint64_t{64} << 20, h.kv_bytes - off)));
    const uint64_t sum = sink.digest();
    out.write(&sum, sizeof sum);
    out.write(kEndMagic, sizeof kEndMagic);
    if (out.bytes_written() != h.file_bytes)
        throw Error("K/V cache file " + path.string() + ": size mismatch while writing");
    out.commit();
}

LoadedKvStore read_kv_store_file(const std::filesystem::path& path, const KvFileExpectation& expect,
                                 KvFileLoad mode, int64_t ram_cap_bytes,
                                 const std::filesystem::path& spill_dir) {
    FileBytes file(path, mode == KvFileLoad::Map);
    FileHeader h{};
    unsigned char trailer[kTrailerBytes];
    if (file.mapped()) {
        std::memcpy(&h, file.mapped(), sizeof h);
    } else {
        file.read_at(0, &h, sizeof h);
    }
    check_header(path, h, file.size(), expect);
    if (file.mapped())
        std::memcpy(trailer, file.mapped() + h.file_bytes - kTrailerBytes, kTrailerBytes);
    else
        file.read_at(h.file_bytes - kTrailerBytes, trailer, kTrailerBytes);
    if (std::memcmp(trailer + 8, kEndMagic, sizeof kEndMagic) != 0)
        bad(path, "truncated or corrupt (no end marker)");
    uint64_t stored_sum;
    std::memcpy(&stored_sum, trailer, sizeof stored_sum);

    LoadedKvStore out;
    out.tail_rows = h.tail_rows;
    out.tail_q.assign(h.n_layers, std::vector<float>(static_cast<std::size_t>(h.tail_rows) * h.q_dim));
    std::vector<int32_t> tokens(h.tokens);
    const std::size_t body = h.file_bytes - kTrailerBytes;
    uint64_t sum;
    if (file.mapped()) {
        const unsigned char* m = file.mapped();
        sum = checksum64(m, body, kChecksumSeed);
        if (sum != stored_sum) bad(path, "checksum mismatch (corrupt)");
        std::memcpy(tokens.data(), m + h.tokens_offset, h.tokens_bytes);
        for (int l = 0; l < h.n_layers; ++l)
            std::memcpy(out.tail_q[l].data(), m + h.tail_q_offset + l * out.tail_q[l].size() * sizeof(float),
                        out.tail_q[l].size() * sizeof(float));
    } else {
        // Read each section into its destination and checksum it there: one pass over the data.
        out.store = std::make_unique<FullKvStore>(h.n_layers, h.n_kv_heads, h.head_dim, h.tokens,
                                                  ram_cap_bytes, spill_dir);
        std::vector<unsigned char> gap;
        Checksum64 c(kChecksumSeed);
        uint64_t pos = 0;
        auto take = [&](uint64_t offset, void* dst, std::size_t n) {
            if (offset > pos) {  // padding between sections
                gap.resize(static_cast<std::size_t>(offset - pos));
                file.read_at(pos, gap.data(), gap.size());
                c.update(gap.data(), gap.size());
            }
            file.read_at(offset, dst, n);
            c.update(dst, n);
            pos = offset + n;
        };
        {
            std::vector<unsigned char> head(kHeaderBytes);
            take(0, head.data(), head.size());
        }
        take(h.tokens_offset, tokens.data(), h.tokens_bytes);
        for (int l = 0; l < h.n_layers; ++l)
            take(h.tail_q_offset + l * out.tail_q[l].size() * sizeof(float), out.tail_q[l].data(),
                 out.tail_q[l].size() * sizeof(float));
        auto* kv = static_cast<unsigned char*>(out.store->mutable_data());
        for (uint64_t off = 0; off < h.kv_bytes; off += uint64_t{64} << 20)
            take(h.kv_offset + off, kv + off,
                 static_cast<std::size_t>(std::min<uint64_t>(uint64_t{64} << 20, h.kv_bytes - off)));
        sum = c.digest();
        if (pos != body) bad(path, "section table does not cover the file");
        if (sum != stored_sum) bad(path, "checksum mismatch (corrupt)");
    }
    if (!std::equal(tokens.begin(), tokens.end(), expect.tokens.begin(), expect.tokens.end()))
        bad(path, "made for a different document (token ids differ)");
    const void* kv = file.mapped() ? static_cast<const void*>(file.mapped() + h.kv_offset) : out.store->data();
    if (std::string why = non_finite_in(kv, h.kv_bytes, out.tail_q); !why.empty()) bad(path, why);
    if (file.mapped()) {
        const std::size_t length = file.size();
        out.store =
            FullKvStore::adopt_mapping(h.n_layers, h.n_kv_heads, h.head_dim, h.tokens, file.release_mapping(),
                                       length, static_cast<std::size_t>(h.kv_offset));
    }
    return out;
}

}  // namespace snapdoc
