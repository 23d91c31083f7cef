#include "app/cli/ask_json.h"

#include <cstdio>

#include "engine/common/atomic_file.h"

namespace snapdoc::cli {

void write_ask_json(const Args& args, const nlohmann::json& out) {
    if (!args.has("json")) return;
    AtomicFileWriter f(args.str("json"));
    f.write(out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    f.commit();
}

void write_ask_json_after(const std::exception& error, const Args& args, nlohmann::json& out) {
    out["error"] = error.what();
    try {
        write_ask_json(args, out);
    } catch (const std::exception& w) {
        std::fprintf(stderr, "snapdoc-cli ask: error: %s\n", w.what());
    }
}

}  // namespace snapdoc::cli
