#include "app/hub/model_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <system_error>

#include "app/hub/download.h"
#include "app/hub/hub_tree.h"
#include "engine/common/error.h"

namespace fs = std::filesystem;

namespace snapdoc::hub {

fs::path default_models_dir() {
    if (const char* d = std::getenv("SNAPDOC_MODELS_DIR"); d && *d) return fs::path(d);
    if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x) return fs::path(x) / "snapdoc" / "models";
    if (const char* h = std::getenv("HOME"); h && *h)
        return fs::path(h) / ".local" / "share" / "snapdoc" / "models";
    throw Error("cannot find a models folder: set SNAPDOC_MODELS_DIR, XDG_DATA_HOME or HOME");
}

std::string LocalModel::file_name() const {
    // files are dir/owner/name/<file path>; the repo part has exactly two components.
    const fs::path p = files.front();
    std::string s = p.generic_string();
    const std::string key = "/" + repo + "/";
    const auto at = s.rfind(key);
    return at == std::string::npos ? p.filename().string() : s.substr(at + key.size());
}

ModelStore::ModelStore(fs::path dir) : dir_(std::move(dir)) {}

fs::path ModelStore::file_path(std::string_view repo, std::string_view file) const {
    check_repo_id(repo);
    check_repo_file_path(file);
    return dir_ / std::string(repo) / std::string(file);
}

namespace {

bool is_engine_file(const std::string& name) {
    auto ends = [&](const char* suf) {
        const std::string s(suf);
        return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
    };
    return ends(".part") || ends(".part.json") || ends(".lock");
}

// One repo's complete .gguf files, as RemoteFile entries relative to the repo folder.
std::vector<RemoteFile> repo_files(const fs::path& repo_dir) {
    std::vector<RemoteFile> out;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(repo_dir, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (!it->is_regular_file(ec)) continue;
        const std::string name = it->path().filename().string();
        if (is_engine_file(name)) continue;
        RemoteFile f;
        f.path = fs::relative(it->path(), repo_dir, ec).generic_string();
        f.size_bytes = static_cast<int64_t>(it->file_size(ec));
        out.push_back(std::move(f));
    }
    return out;
}

LocalModel to_local(const std::string& repo, const fs::path& repo_dir, const GgufChoice& c) {
    LocalModel m;
    m.repo = repo;
    m.quant = c.quant;
    m.complete = c.complete;
    for (const auto& f : c.files) {
        m.files.push_back(repo_dir / f.path);
        m.size_bytes += f.size_bytes;
    }
    return m;
}

}  // namespace

std::vector<LocalModel> ModelStore::list(std::string_view only_repo) const {
    std::vector<LocalModel> out;
    std::error_code ec;
    std::vector<std::string> repos;
    for (const auto& owner : fs::directory_iterator(dir_, ec)) {
        if (!owner.is_directory(ec)) continue;
        std::error_code ec2;
        for (const auto& name : fs::directory_iterator(owner.path(), ec2))
            if (name.is_directory(ec2))
                repos.push_back(owner.path().filename().string() + "/" + name.path().filename().string());
    }
    std::sort(repos.begin(), repos.end());
    for (const auto& repo : repos) {
        if (!only_repo.empty() && repo != only_repo) continue;
        const fs::path repo_dir = dir_ / repo;
        auto choices = gguf_choices(repo_files(repo_dir));
        std::sort(choices.begin(), choices.end(),
                  [](const GgufChoice& a, const GgufChoice& b) { return a.first_path() < b.first_path(); });
        for (const auto& c : choices) out.push_back(to_local(repo, repo_dir, c));
    }
    return out;
}

std::vector<LocalModel> ModelStore::list() const {
    return list(std::string_view{});
}

std::optional<LocalModel> ModelStore::find(const ModelRef& ref) const {
    const fs::path repo_dir = file_path(ref.repo, "x").parent_path();
    auto choices = gguf_choices(repo_files(repo_dir));
    try {
        const GgufChoice& c = ref.file.empty() ? pick_choice(choices, ref.quant, ref.repo)
                                               : choice_for_file(choices, ref.file, ref.repo);
        if (!c.complete) return std::nullopt;
        return to_local(ref.repo, repo_dir, c);
    } catch (const Error&) {
        return std::nullopt;  // not here (or not this quant): the caller asks the hub
    }
}

void ModelStore::remove(const LocalModel& model) const {
    for (const auto& f : model.files) {
        // A download in progress holds the lock; deleting under it would only make it restart.
        const int fd = ::open(lock_path(f).c_str(), O_RDWR | O_CLOEXEC);
        if (fd >= 0) {
            const bool busy = ::flock(fd, LOCK_EX | LOCK_NB) != 0;
            ::close(fd);
            if (busy)
                throw Error("'" + f.string() + "' is being downloaded right now; cancel that download first");
        }
    }
    for (const auto& f : model.files) {
        std::error_code ec;
        for (const fs::path& p : {f, part_path(f), sidecar_path(f), lock_path(f)}) fs::remove(p, ec);
        if (fs::exists(f)) throw Error("cannot delete '" + f.string() + "'");
        // Empty folders up to (not including) the models folder.
        for (fs::path d = f.parent_path(); d != dir_ && d.has_relative_path() && fs::is_empty(d, ec) && !ec;
             d = d.parent_path())
            fs::remove(d, ec);
    }
}

int64_t ModelStore::partial_bytes(std::string_view repo) const {
    const fs::path root = repo.empty() ? dir_ : dir_ / std::string(repo);
    int64_t n = 0;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(root, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (it->is_regular_file(ec) && name.size() > 5 && name.compare(name.size() - 5, 5, ".part") == 0)
            n += static_cast<int64_t>(it->file_size(ec));
    }
    return n;
}

}  // namespace snapdoc::hub
