// snapdoc-cli's subcommands in one table: main() dispatches through it, `snapdoc-cli --help` lists
// every entry's usage, and `snapdoc-cli COMMAND --help` prints that entry's. One table, so a new
// subcommand cannot be left out of the help, and the tests loop over what --help lists.
#pragma once

#include <span>
#include <string_view>

namespace snapdoc::cli {

struct Command {
    std::string_view name;
    int (*run)(int argc, char** argv);  // argv[1] is the name
    // The synopsis and what it does, as `--help` lists it: "  NAME flags...\n", continuation lines
    // indented further.
    std::string_view usage;
};

std::span<const Command> commands();
const Command* find_command(std::string_view name);  // nullptr when there is none

}  // namespace snapdoc::cli
