// snapdoc-cli models --remote URL: the endpoint's models with the context each runs with, and what
// kind of engine it is (which decides how `ask --remote` talks to it).
#include <cstdio>
#include <string>

#include "app/cli/remote_commands.h"
#include "app/cli/remote_flags.h"
#include "app/remote/remote_models.h"

namespace snapdoc::cli {

int cmd_models_remote(int argc, char** argv) {
    const Args args(remote_flags(), argc, argv, 2);
    const remote::RemoteEndpoint ep = remote_endpoint_from(args);
    const remote::RemoteServer server = remote::discover(ep);
    std::printf("%s at %s\n", std::string(remote::engine_name(server.kind)).c_str(), ep.root.c_str());
    std::printf("%-48s %10s  %s\n", "MODEL", "CONTEXT", "FROM");
    for (const remote::RemoteModel& m : server.models)
        std::printf("%-48s %10s  %s\n", m.id.c_str(), m.context > 0 ? std::to_string(m.context).c_str() : "?",
                    m.context > 0 ? m.context_source.c_str() : "(the server does not say)");
    return 0;
}

}  // namespace snapdoc::cli
