#include "tests/hub/hub_test_env.h"

#include "app/hub/sha256.h"

namespace fs = std::filesystem;

namespace snapdoc::testing {

std::string file_sha256(const fs::path& p) {
    hub::Sha256 h;
    hub::sha256_update_from_file(h, p);
    return h.hex();
}

std::string HubTest::add(const std::string& repo, const std::string& path, std::size_t bytes, uint32_t seed) {
    std::string data = generated_bytes(bytes, seed);
    const std::string sha = hub::sha256_hex(data);
    sha_by_final_path_[repo + "/" + path] = sha;
    bytes_by_key_[repo + "|" + path] = data;
    hub.add_file(repo, path, std::move(data));
    return sha;
}

std::string HubTest::add_from_disk(const std::string& repo, const std::string& path, const fs::path& source) {
    hub.add_file_from_disk(repo, path, source);
    const std::string sha = file_sha256(source);
    sha_by_final_path_[repo + "/" + path] = sha;
    return sha;
}

hub::DownloadOptions HubTest::fast_options() {
    hub::DownloadOptions o;
    o.backoff_initial = std::chrono::milliseconds(5);
    o.backoff_max = std::chrono::milliseconds(40);
    o.give_up_after = std::chrono::milliseconds(3000);  // an outage test ends in seconds, not minutes
    o.stall_timeout = std::chrono::milliseconds(1000);
    o.connect_timeout = std::chrono::milliseconds(2000);
    o.progress_interval = std::chrono::milliseconds(0);
    o.reserve_bytes = 0;
    return o;
}

hub::DownloadRequest HubTest::request(const std::string& repo, const std::vector<std::string>& paths,
                                      const std::string& token) const {
    hub::DownloadRequest r;
    r.endpoint = endpoint(token);
    r.repo = repo;
    r.models_dir = models();
    for (const auto& p : paths) {
        const auto& data = bytes_by_key_.at(repo + "|" + p);
        r.files.push_back({p, static_cast<int64_t>(data.size()), sha_by_final_path_.at(repo + "/" + p)});
    }
    return r;
}

void HubTest::check_models_folder() const {
    std::error_code ec;
    if (!fs::exists(models(), ec)) return;
    for (const auto& e : fs::recursive_directory_iterator(models())) {
        if (!e.is_regular_file()) continue;
        const std::string name = e.path().filename().string();
        auto ends = [&](const std::string& s) {
            return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
        };
        if (ends(".part") || ends(".part.json") || ends(".lock")) continue;
        const std::string rel = fs::relative(e.path(), models()).generic_string();
        const auto it = sha_by_final_path_.find(rel);
        ASSERT_NE(it, sha_by_final_path_.end()) << "unexpected file in the models folder: " << rel;
        EXPECT_EQ(file_sha256(e.path()), it->second)
            << rel << " is in the models folder but incomplete/wrong";
    }
}

}  // namespace snapdoc::testing
