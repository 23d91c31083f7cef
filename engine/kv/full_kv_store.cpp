#include "engine/kv/full_kv_store.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cassert>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "engine/common/error.h"
#include "engine/kv/f16_rows.h"
#include "engine/common/mapped_regions.h"

namespace snapdoc {

int64_t FullKvStore::bytes_for(int n_layers, int n_kv_heads, int head_dim, int tokens) {
    return int64_t{2} * n_layers * n_kv_heads * head_dim * static_cast<int64_t>(tokens) * sizeof(uint16_t);
}

FullKvStore::FullKvStore(int n_layers, int n_kv_heads, int head_dim, int tokens)
    : n_layers_(n_layers), n_kv_heads_(n_kv_heads), head_dim_(head_dim), tokens_(tokens) {
    bytes_ = bytes_for(n_layers, n_kv_heads, head_dim, tokens);
}

std::unique_ptr<FullKvStore> FullKvStore::adopt_mapping(int n_layers, int n_kv_heads, int head_dim,
                                                        int tokens, void* mapping, std::size_t length,
                                                        std::size_t data_offset) {
    std::unique_ptr<FullKvStore> s(new FullKvStore(n_layers, n_kv_heads, head_dim, tokens));
    s->mapping_ = mapping;
    s->mapping_length_ = length;
    // Bounds and 2-byte alignment are the caller's checked invariants (kv_store_file validates them).
    assert(data_offset + static_cast<std::size_t>(s->bytes_) <= length && data_offset % 2 == 0);
    s->data_ = reinterpret_cast<uint16_t*>(static_cast<unsigned char*>(mapping) + data_offset);
    s->file_backed_ = true;
    return s;
}

FullKvStore::FullKvStore(int n_layers, int n_kv_heads, int head_dim, int tokens, int64_t ram_cap_bytes,
                         const std::filesystem::path& spill_dir)
    : FullKvStore(n_layers, n_kv_heads, head_dim, tokens) {
    if (bytes_ == 0) return;
    if (bytes_ <= ram_cap_bytes) {
        data_ = static_cast<uint16_t*>(std::malloc(static_cast<std::size_t>(bytes_)));
        if (!data_)
            throw Error("out of memory: the document's full KV needs " + std::to_string(bytes_ >> 20) +
                        " MiB");
        return;
    }
    // Spill: an unlinked temporary file, sized up front so a full disk fails now, not mid-prefill.
    // Checked against the free space first: posix_fallocate of an absurd size (a 50 MB document
    // asked for 108 GB) can take minutes on some filesystems before it fails.
    if (struct statvfs fs{}; ::statvfs(spill_dir.c_str(), &fs) == 0) {
        const auto free_bytes = static_cast<long double>(fs.f_bavail) * static_cast<long double>(fs.f_frsize);
        if (static_cast<long double>(bytes_) > free_bytes) {
            throw Error("the document's full KV needs " + std::to_string(bytes_ >> 20) +
                        " MiB, more than the RAM cap (" + std::to_string(ram_cap_bytes >> 20) +
                        " MiB) and the " + std::to_string(static_cast<int64_t>(free_bytes) >> 20) +
                        " MiB free for the spill file in " + spill_dir.string() +
                        " (use a shorter document)");
        }
    }
    std::string tmpl = (spill_dir / "snapdoc-kv-XXXXXX").string();
    const int fd = ::mkstemp(tmpl.data());
    if (fd < 0)
        throw Error("cannot create KV spill file in " + spill_dir.string() + ": " + std::strerror(errno));
    ::unlink(tmpl.c_str());
    const int rc = ::posix_fallocate(fd, 0, bytes_);
    if (rc != 0) {
        ::close(fd);
        throw Error("cannot reserve " + std::to_string(bytes_ >> 20) + " MiB for the KV spill file in " +
                    spill_dir.string() + ": " + std::strerror(rc));
    }
    void* p = ::mmap(nullptr, static_cast<std::size_t>(bytes_), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ::close(fd);
    if (p == MAP_FAILED) throw Error(std::string("cannot map the KV spill file: ") + std::strerror(errno));
    data_ = static_cast<uint16_t*>(p);
    file_backed_ = true;
}

FullKvStore::~FullKvStore() {
    if (mapping_) {
        unregister_mapped_region(mapping_);  // registered by the cache file reader that mapped it
        ::munmap(mapping_, mapping_length_);
        return;
    }
    if (!data_) return;
    if (file_backed_)
        ::munmap(data_, static_cast<std::size_t>(bytes_));
    else
        std::free(data_);
}

uint16_t* FullKvStore::base(int layer, int head, int which) const {
    const int64_t segment = (static_cast<int64_t>(layer) * n_kv_heads_ + head) * 2 + which;
    return data_ + segment * tokens_ * head_dim_;
}

void FullKvStore::store_rows(int layer, int head, int first, int n, const float* k, const float* v) {
    assert(!mapping_ && first >= 0 && first + n <= tokens_);
    const int64_t off = static_cast<int64_t>(first) * head_dim_, count = static_cast<int64_t>(n) * head_dim_;
    f32_to_f16_row(k, base(layer, head, 0) + off, count);
    f32_to_f16_row(v, base(layer, head, 1) + off, count);
}

void FullKvStore::load_rows(int layer, int head, int first, int n, float* k, float* v) const {
    assert(first >= 0 && first + n <= tokens_);
    const int64_t off = static_cast<int64_t>(first) * head_dim_, count = static_cast<int64_t>(n) * head_dim_;
    f16_to_f32_row(base(layer, head, 0) + off, k, count);
    f16_to_f32_row(base(layer, head, 1) + off, v, count);
}

void FullKvStore::copy_leading_rows(const FullKvStore& src, int n) {
    if (mapping_ || src.n_layers_ != n_layers_ || src.n_kv_heads_ != n_kv_heads_ || src.head_dim_ != head_dim_ ||
        n < 0 || n > tokens_ || n > src.tokens_)
        throw Error("K/V store: cannot copy " + std::to_string(n) + " rows between stores of different shapes");
    const std::size_t bytes = static_cast<std::size_t>(n) * head_dim_ * sizeof(uint16_t);
    for (int l = 0; l < n_layers_; ++l)
        for (int h = 0; h < n_kv_heads_; ++h)
            for (int which = 0; which < 2; ++which) std::memcpy(base(l, h, which), src.base(l, h, which), bytes);
}

void FullKvStore::gather_rows(int layer, int head, const int32_t* positions, int n, float* k,
                              float* v) const {
    const uint16_t* ks = base(layer, head, 0);
    const uint16_t* vs = base(layer, head, 1);
    for (int i = 0; i < n; ++i) {
        assert(positions[i] >= 0 && positions[i] < tokens_);
        const int64_t off = static_cast<int64_t>(positions[i]) * head_dim_;
        f16_to_f32_row(ks + off, k + static_cast<int64_t>(i) * head_dim_, head_dim_);
        f16_to_f32_row(vs + off, v + static_cast<int64_t>(i) * head_dim_, head_dim_);
    }
}

}  // namespace snapdoc
