#include "app/hub/remote_gguf_shape.h"

#include <algorithm>

#include "app/hub/http_request.h"
#include "engine/common/error.h"
#include "engine/model/gguf_file.h"
#include "engine/model/gguf_model.h"
#include "engine/model/mapped_file.h"

namespace snapdoc::hub {

namespace {
constexpr int64_t kFirstFetchBytes = int64_t{2} << 20;
}

ModelConfig fetch_gguf_shape(const HubEndpoint& ep, const std::string& repo, const std::string& revision,
                             const std::string& file, int64_t file_size, const std::atomic<bool>* cancel) {
    check_repo_file_path(file);
    const std::string url = resolve_url(ep, repo, revision, file);
    const std::string what = "reading the header of " + repo + "/" + file;
    if (file_size <= 0) throw Error(what + ": the listing gives no size for it");
    int64_t want = std::min(kFirstFetchBytes, file_size);
    for (;;) {
        const HttpResponse r = http_get_prefix(url, ep, what, want, cancel);
        if (r.status != 200 && r.status != 206) throw Error(http_status_message(r.status, ep, repo, what));
        // A short answer is the whole file only when the file is that short.
        if (static_cast<int64_t>(r.body.size()) < want) {
            throw Error(what + ": the hub sent " + std::to_string(r.body.size()) + " of the " + std::to_string(want) +
                        " bytes asked for");
        }
        try {
            const GgufFile header = GgufFile::parse_header(MappedFile::from_bytes(file, r.body), file_size);
            return read_gguf_shape(header);
        } catch (const GgufPrefixTooShort& more) {
            if (want >= file_size || want >= kMaxGgufHeaderBytes ||
                more.needed > static_cast<uint64_t>(kMaxGgufHeaderBytes)) {
                throw Error(what + ": its header is larger than " + std::to_string(kMaxGgufHeaderBytes >> 20) +
                            " MiB; snapdoc does not estimate it");
            }
            want = std::min({std::max(want * 4, static_cast<int64_t>(more.needed)), file_size, kMaxGgufHeaderBytes});
        }
    }
}

}  // namespace snapdoc::hub
