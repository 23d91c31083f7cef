#include "engine/kv/model_identity.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sstream>

#include "engine/common/atomic_file.h"
#include "engine/common/error.h"
#include "engine/common/input_file.h"
#include "engine/kv/checksum64.h"
#include "engine/model/gguf_split.h"

namespace snapdoc {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMemoMaxBytes = std::size_t{1} << 20;
constexpr std::size_t kReadPiece = std::size_t{8} << 20;

int64_t ns_of(const struct timespec& t) {
    return static_cast<int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec;
}

FileStamp stamp_of(const struct stat& st) {
    return {static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino),
            static_cast<uint64_t>(st.st_size), ns_of(st.st_mtim), ns_of(st.st_ctim)};
}

}  // namespace

ModelHashMemo::ModelHashMemo(fs::path file) : file_(std::move(file)) {
    if (file_.empty()) return;
    std::string text;
    try {
        text = read_regular_file(file_, kMemoMaxBytes, "model hash memo");
    } catch (const Error&) {
        return;  // absent (the first run) or unreadable: start empty
    }
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream l(line);
        Entry e{};
        if (l >> e.stamp.device >> e.stamp.inode >> e.stamp.size >> e.stamp.mtime_ns >> e.stamp.ctime_ns >>
            std::hex >> e.hash)
            entries_.push_back(e);
    }
}

std::optional<uint64_t> ModelHashMemo::find(const FileStamp& stamp) const {
    for (auto it = entries_.rbegin(); it != entries_.rend(); ++it)
        if (it->stamp == stamp) return it->hash;
    return std::nullopt;
}

void ModelHashMemo::remember(const FileStamp& stamp, uint64_t hash) {
    // One entry per file (device, inode): its older stamps can never match again.
    std::erase_if(entries_, [&](const Entry& e) {
        return e.stamp.device == stamp.device && e.stamp.inode == stamp.inode;
    });
    entries_.push_back({stamp, hash});
    if (entries_.size() > kMaxEntries) entries_.erase(entries_.begin(), entries_.end() - kMaxEntries);
    changed_ = true;
}

bool ModelHashMemo::save() const {
    if (file_.empty() || !changed_) return true;
    try {
        std::ostringstream out;
        for (const Entry& e : entries_)
            out << e.stamp.device << ' ' << e.stamp.inode << ' ' << e.stamp.size << ' ' << e.stamp.mtime_ns
                << ' ' << e.stamp.ctime_ns << ' ' << std::hex << e.hash << std::dec << '\n';
        AtomicFileWriter w(file_);
        w.write(out.str());
        w.commit();
        return true;
    } catch (const Error& e) {
        spdlog::info("model hash memo not saved: {}", e.what());
        return false;
    }
}

FileStamp file_stamp(const fs::path& file) {
    struct stat st {};
    if (::stat(file.c_str(), &st) != 0)
        throw Error("cannot read model file " + file.string() + ": " + std::strerror(errno));
    return stamp_of(st);
}

uint64_t hash_whole_file(const fs::path& file) {
    // InputFile: O_NONBLOCK open and a regular-file check first (a FIFO never blocks here).
    InputFile in = InputFile::open(file, "model file");
    Checksum64 c(7);
    std::vector<unsigned char> buf(std::min<uint64_t>(kReadPiece, std::max<uint64_t>(in.size(), 1)));
    uint64_t done = 0;
    while (done < in.size()) {
        const std::size_t n = static_cast<std::size_t>(std::min<uint64_t>(buf.size(), in.size() - done));
        const ssize_t r = ::pread(in.fd(), buf.data(), n, static_cast<off_t>(done));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0)
            throw Error("cannot read model file " + file.string() + ": " +
                        (r == 0 ? std::string("it shrank while being hashed") : std::strerror(errno)));
        c.update(buf.data(), static_cast<std::size_t>(r));
        done += static_cast<uint64_t>(r);
    }
    c.update_u64(done);
    return c.digest();
}

ModelIdentity model_identity(const fs::path& model_path, const fs::path& memo_file) {
    std::vector<fs::path> files;
    std::error_code ec;
    if (fs::is_directory(model_path, ec)) {
        // A Hugging Face folder: every file the loader may read, in name order.
        for (const auto& e : fs::directory_iterator(model_path, ec)) {
            const std::string ext = e.path().extension().string();
            if (e.is_regular_file() && (ext == ".json" || ext == ".safetensors" || ext == ".model"))
                files.push_back(e.path());
        }
        std::sort(files.begin(), files.end());
    } else {
        files = gguf_model_files(model_path);  // one file, or a split set's shards: any changed shard is another model
    }
    ModelHashMemo memo(memo_file);
    ModelIdentity id;
    Checksum64 c(files.size() == 1 && files[0] == model_path ? 2 : 1);
    for (const fs::path& f : files) {
        const FileStamp before = file_stamp(f);
        std::optional<uint64_t> h = memo.find(before);
        if (!h) {
            h = hash_whole_file(f);
            // Remembered only when nothing changed while it was read (else it is hashed next time).
            if (file_stamp(f) == before) memo.remember(before, *h);
        }
        c.update_string(f.filename().string());
        c.update_u64(*h);
        id.file_bytes += before.size;
    }
    id.content_hash = c.digest();
    memo.save();
    return id;
}

}  // namespace snapdoc
