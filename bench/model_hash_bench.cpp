// The cost of the K/V cache's model identity (engine/kv/model_identity.h): hashing a whole model
// file at its first open, warm (in the page cache) and cold (dropped from it with
// posix_fadvise(DONTNEED) first, so the disk is read), against what every later open costs (a stat
// and a memo lookup) and the old key's first-8-MiB read. Scales the measured rates to a 5 GB model.
// The file is random bytes written to --dir and removed afterwards.
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <random>
#include <vector>

#include "app/common/args.h"
#include "bench/benches.h"
#include "engine/common/error.h"
#include "engine/kv/checksum64.h"
#include "engine/kv/model_identity.h"

namespace snapdoc::bench {

namespace {

double seconds_of(const std::function<void()>& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void drop_from_page_cache(const std::filesystem::path& p) {
    const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    ::fdatasync(fd);
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    ::close(fd);
}

}  // namespace

int bench_model_hash(int argc, char** argv) {
    const cli::Args args({{{"--mib"}}, {{"--dir"}}, {{"--trials"}}}, argc, argv, 2);
    const int mib = args.integer("mib", 1024);
    const int trials = args.integer("trials", 3);
    const std::filesystem::path dir = args.str("dir", std::filesystem::temp_directory_path().string());
    const auto file = dir / "snapdoc-model-hash-bench.bin";
    const auto memo = dir / "snapdoc-model-hash-bench.memo";
    {
        std::vector<uint64_t> buf(std::size_t{1} << 17);  // 1 MiB
        std::mt19937_64 rng(1);
        std::FILE* f = std::fopen(file.c_str(), "wb");
        if (!f) throw Error("cannot write " + file.string());
        for (int i = 0; i < mib; ++i) {
            for (auto& x : buf) x = rng();
            std::fwrite(buf.data(), 8, buf.size(), f);
        }
        std::fclose(f);
    }
    const double gb = mib / 1024.0 * 1.073741824;  // GB (1e9 bytes)
    // Compute alone: checksum64 over a buffer already in memory.
    std::vector<unsigned char> mem(std::size_t{256} << 20, 1);
    double mem_s = 1e9;
    for (int t = 0; t < trials; ++t)
        mem_s = std::min(mem_s, seconds_of([&] { (void)checksum64(mem.data(), mem.size(), 7); }));
    const double mem_gbs = mem.size() / 1e9 / mem_s;
    double warm = 1e9, cold = 1e9, hit = 1e9, prefix = 1e9;
    (void)hash_whole_file(file);  // into the page cache
    for (int t = 0; t < trials; ++t) warm = std::min(warm, seconds_of([&] { (void)hash_whole_file(file); }));
    for (int t = 0; t < trials; ++t) {
        drop_from_page_cache(file);
        cold = std::min(cold, seconds_of([&] { (void)hash_whole_file(file); }));
    }
    std::filesystem::remove(memo);
    (void)model_identity(file, memo);  // remembers the hash
    for (int t = 0; t < 200; ++t) hit = std::min(hit, seconds_of([&] { (void)model_identity(file, memo); }));
    for (int t = 0; t < trials; ++t)
        prefix = std::min(prefix, seconds_of([&] {
                              std::vector<unsigned char> b(std::size_t{8} << 20);
                              const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
                              (void)!::read(fd, b.data(), b.size());
                              ::close(fd);
                              (void)checksum64(b.data(), b.size(), 2);
                          }));
    std::printf("file %d MiB (%.2f GB) in %s, best of %d\n", mib, gb, dir.c_str(), trials);
    std::printf("%-44s %10s %10s %14s\n", "", "seconds", "GB/s", "5 GB model, s");
    std::printf("%-44s %10.4f %10.2f %14.2f\n", "checksum64 over memory (compute bound)", mem_s, mem_gbs,
                5.0 / mem_gbs);
    std::printf("%-44s %10.4f %10.2f %14.2f\n", "whole-file hash, warm (page cache)", warm, gb / warm,
                5.0 * warm / gb);
    std::printf("%-44s %10.4f %10.2f %14.2f\n", "whole-file hash, cold (disk)", cold, gb / cold,
                5.0 * cold / gb);
    std::printf("%-44s %10.6f %10s %14.6f\n", "later opens: stat + memo lookup", hit, "-", hit);
    std::printf("%-44s %10.6f %10s %14.6f\n", "old key: first 8 MiB read + hash", prefix, "-", prefix);
    std::filesystem::remove(file);
    std::filesystem::remove(memo);
    return 0;
}

}  // namespace snapdoc::bench
